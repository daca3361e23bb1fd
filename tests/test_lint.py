"""The code stays clean by the project's own ruff and mypy settings (pyproject.toml)."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=900)


def test_ruff_finds_nothing():
    result = _run("ruff", "check", "trag_tui", "tests", "bench")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_mypy_finds_nothing():
    result = _run("mypy")  # the packages and settings in pyproject.toml
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
