"""What a wheel install gets: the package, its migrations and the sample corpus."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO, SAMPLE_CORPUS


def test_the_wheel_ships_migrations_and_the_whole_sample_corpus(tmp_path):
    # Without setuptools in this environment (Python 3.12+ venvs), pip builds in isolation.
    isolation = [] if importlib.util.find_spec("setuptools") is None else ["--no-build-isolation"]
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", *isolation,
         "-q", "-w", str(tmp_path)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next(tmp_path.glob("trag_tui-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    corpus = {f"trag_tui/sample_corpus/{p.relative_to(SAMPLE_CORPUS).as_posix()}"
              for p in SAMPLE_CORPUS.rglob("*") if p.is_file() and not p.name.startswith(".")}
    assert corpus and corpus <= names, sorted(corpus - names)[:5]
    migrations = {f"trag_tui/migrations/{p.name}" for p in (REPO / "migrations").glob("*.sql")}
    assert migrations <= names
    assert "trag_tui/temporal/question.py" in names
    assert any(n.startswith("trag_tui/tui/") and n.endswith(".tcss") for n in names)
    assert "trag_tui/answering/ranker_weights.json" in names  # the ranking reads its weights


def test_the_app_finds_the_sample_corpus_it_offers_on_first_run():
    from trag_tui.tui.screens.first_run import sample_corpus

    folder = sample_corpus()
    assert folder is not None and Path(folder, "questions.jsonl").is_file()
