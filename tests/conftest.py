"""Shared fixtures: where the third-party corpora live, and a user directory kept out of $HOME."""
from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = REPO / "sample_corpus"
# Third-party corpora and development sets sit beside the repository, never inside it.
SHARED = REPO.parent / "shared"


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
    """A plain `pytest` stays quick; the README's test command and CI add --real-models."""
    if config.getoption("--real-models"):
        return
    skip = pytest.mark.skip(reason="real models: run with --real-models (the README's test "
                                   "command does)")
    for item in items:
        if "real_models" in item.keywords:
            item.add_marker(skip)
