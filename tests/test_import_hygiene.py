"""The headless core never imports Textual: scripts, servers and the CLI stay light.

Each check runs in a fresh interpreter, because within the test session some other test has
long since imported Textual.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = [
    "trag_tui", "trag_tui.cli", "trag_tui.settings", "trag_tui.storage.db", "trag_tui.storage.index",
    "trag_tui.indexer", "trag_tui.stats", "trag_tui.render", "trag_tui.temporal.question",
    "trag_tui.temporal.rules", "trag_tui.retrieval.modes", "trag_tui.answering.pipeline",
    "trag_tui.answering.sources", "trag_tui.answering.prompt", "trag_tui.answering.gate",
    "trag_tui.models.generation", "trag_tui.evaluation",
    # the app's own logic that needs no terminal
    "trag_tui.tui.overrides", "trag_tui.tui.history", "trag_tui.tui.engine",
    "trag_tui.tui.answer_text",
]


def run(code: str, *args: str) -> subprocess.CompletedProcess:
    """Run Python code in a fresh interpreter from the repository root."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120)


def test_core_modules_do_not_import_textual():
    proc = run(f"""
        import importlib, sys
        for name in {CORE!r}:
            importlib.import_module(name)
        loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
        print(",".join(loaded) or "clean")
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "clean"


@pytest.mark.parametrize("command", ["ask", "search", "index", "stats", "parse"])
def test_headless_commands_do_not_import_textual(command):
    proc = run("""
        import runpy, sys
        sys.argv = ["trag-tui", sys.argv[1], "--help"]
        try:
            runpy.run_module("trag_tui", run_name="__main__")
        except SystemExit as exc:
            assert not exc.code, exc.code
        print("TEXTUAL" if "textual" in sys.modules else "CLEAN")
    """, command)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith("CLEAN")
    assert "Usage:" in proc.stdout


def test_a_real_ask_does_not_import_textual(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("---\ndate: 2019-05-01\ntitle: Flood funding\n---\n"
                                 "Flood defence funding was increased for coastal towns.\n")
    proc = run("""
        import sys
        from pathlib import Path
        from trag_tui.cli import cli
        from trag_tui.storage.index import open_index
        from trag_tui.indexer import Indexer
        from trag_tui.settings import Settings

        db, corpus = Path(sys.argv[1]), Path(sys.argv[2])
        settings = Settings(db=db, embedder="hash")
        idx = open_index(db, settings, create=True)
        Indexer(idx.conn, idx.path, idx.embedder, settings).run([corpus])
        idx.close()
        try:
            cli(["-d", str(db), "ask", "what about flood funding in 2019?", "--evidence-only"],
                prog_name="trag-tui")
        except SystemExit as exc:
            assert not exc.code, exc.code
        print("TEXTUAL" if "textual" in sys.modules else "CLEAN")
    """, str(tmp_path / "t.db"), str(corpus))
    assert proc.returncode == 0, proc.stderr
    assert "Flood defence funding" in proc.stdout
    assert proc.stdout.strip().endswith("CLEAN")


# The packages from the bottom up: a module imports only from its own layer or below.
LAYERS = [
    ["trag_tui.errors", "trag_tui.settings", "trag_tui.text", "trag_tui.regular"],
    ["trag_tui.temporal", "trag_tui.params"],
    ["trag_tui.models"],
    ["trag_tui.documents", "trag_tui.chunking", "trag_tui.storage", "trag_tui.ingest",
     "trag_tui.corroboration", "trag_tui.facets", "trag_tui.periods"],
    ["trag_tui.indexer", "trag_tui.stats", "trag_tui.doctor", "trag_tui.retrieval",
     "trag_tui.evaluation"],
    ["trag_tui.answering"],
    # the shells: the CLI starts the chat app, which renders answers as the CLI does
    ["trag_tui.render", "trag_tui.cli", "trag_tui.__main__", "trag_tui", "trag_tui.tui"],
]


def _import_graph() -> dict[str, set[str]]:
    """Every module of the package and the modules of ours it imports (type-only ones too)."""
    import ast

    root = REPO / "trag_tui"
    modules = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(REPO).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package.split(".")
                if node.level:
                    base = base[:len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    if f"{target}.{alias.name}" in modules:
                        found.add(f"{target}.{alias.name}")
                    elif target in modules:
                        found.add(target)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name in modules}
        graph[name] = found - {name}
    return graph


def _layer(module: str) -> int:
    best = max((p for layer in LAYERS for p in layer
                if module == p or module.startswith(p + ".")), key=len)
    return next(i for i, layer in enumerate(LAYERS) if best in layer)


def test_no_import_points_back_up():
    graph = _import_graph()
    up = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                if _layer(d) > _layer(m))
    assert up == []


def test_no_import_loop_but_the_palettes():
    graph = _import_graph()
    loops: list[list[str]] = []
    for start in sorted(graph):
        reach = _reachable(graph, start)
        if start in reach and not any(start in loop for loop in loops):
            loops.append(sorted({m for m in reach if start in _reachable(graph, m)}))
    assert loops == [["trag_tui.tui.app", "trag_tui.tui.commands"]]


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    stack, reach = [start], set()
    while stack:
        for d in graph[stack.pop()]:
            if d not in reach:
                reach.add(d)
                stack.append(d)
    return reach
