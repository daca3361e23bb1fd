"""What every reader shares: the result of reading one file, and reading its bytes safely.

The format readers import this, never the package, so the package can pick a reader by file
kind without an import loop.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from trag_tui.documents import Document
from trag_tui.errors import IngestError

DEFAULT_MAX_BYTES = 64 * 2**20


@dataclass(frozen=True)
class FileRead:
    """What one file gave: its documents, non-fatal notes, or why it was deliberately skipped."""

    documents: list[Document]
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None


Reader = Callable[..., FileRead]


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, refusing to load more than `max_bytes` even if it grew since stat()."""
    with open(path, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise IngestError(f"too large (> {_size(max_bytes, whole=True)} limit)")
    return data


def _os_reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _size(n: int, whole: bool = False) -> str:
    """Human size: MB with one decimal (or whole for a round limit), KB or bytes when small."""
    for unit, factor in (("MB", 2**20), ("KB", 2**10)):
        if n >= factor:
            value = n / factor
            if whole and value == int(value):
                return f"{int(value)} {unit}"
            return f"{value:.1f} {unit}"
    return f"{n} bytes"
