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
