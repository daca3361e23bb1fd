"""Shared fixtures: where the third-party corpora live, a user directory kept out of $HOME, the
one way tests build an index, and the sample corpus's index, built once per test run."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from trag_tui.indexer import Indexer
from trag_tui.settings import Settings
from trag_tui.storage.index import Index, open_index

REPO = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = REPO / "sample_corpus"
# Third-party corpora and development sets sit beside the repository, never inside it.
SHARED = REPO.parent / "shared"


def build_index(db: Path, paths: list[Path], **knobs: Any) -> Index:
    """A real index file of `paths` (folders or files), left open: the hash embedder unless
    `knobs` (Settings fields) name another."""
    settings = Settings(**{"db": db, "embedder": "hash", **knobs})
    index = open_index(db, settings, create=True)
    Indexer(index.conn, index.path, index.embedder, settings).run(paths)
    return index


@pytest.fixture(scope="session")
def sample_hash_db(tmp_path_factory) -> Path:
    """The bundled sample corpus indexed with the hash embedder, built once per test run; a
    test that writes to it works on a copy."""
    db = tmp_path_factory.mktemp("sample") / "sample.db"
    build_index(db, [SAMPLE_CORPUS]).close()
    return db


@pytest.fixture
def shared_dir() -> Path:
    """The shared corpora folder; tests that need it skip cleanly where it is absent."""
    if not (SHARED / "corpora").is_dir():
        pytest.skip("shared corpora not present beside the repository")
    return SHARED


@pytest.fixture(autouse=True)
def _user_dir(tmp_path_factory, monkeypatch):
    """Keep every test's user data (conversation history, settings) in a temporary folder."""
    monkeypatch.setenv("TRAG_TUI_USER_DIR", str(tmp_path_factory.mktemp("user")))


def pytest_addoption(parser):
    parser.addoption("--real-models", action="store_true",
                     help="also run the tests on the real MiniLM and GGUF models (CI does)")



def pytest_collection_modifyitems(config, items):
    """A plain `pytest` stays quick; the README's test command and CI add --real-models. The
    real models are slow too: `-m 'not slow'` leaves them out with the other slow tests."""
    for item in items:
        if "real_models" in item.keywords:
            item.add_marker(pytest.mark.slow)
    if config.getoption("--real-models"):
        return
    skip = pytest.mark.skip(reason="real models: run with --real-models (the README's test "
                                   "command does)")
    for item in items:
        if "real_models" in item.keywords:
            item.add_marker(skip)
