"""An open index: the connection, its settings, and the embedder it was built with.

The embedder is loaded on first use, so `stats` and `parse` never pay for torch.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import EmbedderError
from ..models.embedding import (
    BUNDLED_NAME,
    Embedder,
    embedder_name,
    load_embedder,
)
from ..settings import Settings
from .db import get_meta, is_readonly, sqlite3
from .file import connect


@dataclass
class Index:
    """One index file opened for reading and writing."""

    conn: sqlite3.Connection
    path: Path
    settings: Settings
    _embedder: Embedder | None = field(default=None, repr=False)
    _derived: dict[str, tuple[tuple[int, int], Any]] = field(default_factory=dict, repr=False)
    _backend: Any = field(default=None, repr=False)

    @property
    def backend(self):
        """Where retrieval's candidates come from, once retrieval has opened it
        (`retrieval.backends.backend_of`), else None; closed with the index."""
        return self._backend

    def use_backend(self, backend) -> None:
        """Answer candidate queries from an already open backend (tests, a shared client)."""
        self._backend = backend

    @property
    def embedder(self) -> Embedder:
        """The embedder recorded in the file (or the configured one for a new file)."""
        if self._embedder is None:
            self._embedder = self._load_embedder()
        return self._embedder

    def use_embedder(self, embedder: Embedder) -> None:
        """Use an already loaded embedder (tests, or one model shared by several indexes)."""
        recorded = get_meta(self.conn, "embedder")
        if recorded is not None and recorded != embedder.name:
            raise EmbedderError(
                f"this index was built with the embedder {recorded!r}, not {embedder.name!r}"
            )
        self._embedder = embedder

    def _load_embedder(self) -> Embedder:
        recorded = get_meta(self.conn, "embedder")
        choice = self.settings.embedder
        if recorded is None:
            return load_embedder(choice, self.settings)
        if choice is not None and embedder_name(choice) != recorded:
            raise EmbedderError(
                f"this index was built with the embedder {recorded!r}; "
                f"--embedder {choice} ({embedder_name(choice)!r}) does not match it"
            )
        if choice is None and recorded not in (BUNDLED_NAME,) and not recorded.startswith("hash-"):
            raise EmbedderError(
                f"this index was built with the embedder {recorded!r}: pass its folder with "
                "--embedder PATH (or TRAG_TUI_EMBEDDER)"
            )
        return load_embedder(choice if choice is not None else recorded, self.settings)

    def generation(self) -> tuple[int, int]:
        """Changes when the file changes, by this connection or another one."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0], self.conn.total_changes

    def derived(self, name: str, build: Callable[[], Any]) -> Any:
        """State computed from the file (word counts, vectors in memory), rebuilt after a change.

        Kept on the open index so a long session (the chat app, a batch) computes it once.
        """
        gen = self.generation()
        cached = self._derived.get(name)
        if cached is None or cached[0] != gen:
            value = build()
            self._derived[name] = (self.generation(), value)
            return value
        return cached[1]

    @property
    def readonly(self) -> bool:
        """Whether the file was opened read-only (it or its folder cannot be written)."""
        return is_readonly(self.conn)

    def meta(self, key: str) -> str | None:
        """A value from the file's meta table."""
        return get_meta(self.conn, key)

    def close(self) -> None:
        """Close the connection (and the backend's client and embedding workers, if any)."""
        for part in (self._backend, self._embedder):
            close = getattr(part, "close", None)
            if close is not None:
                close()
        self._backend = None
        self.conn.close()

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_index(
    path: Path | str | None = None, settings: Settings | None = None, *, create: bool = False,
    write: bool | None = None,
) -> Index:
    """Open an index file (creating it only when `create`), verified and migrated.

    Reading (write False, the default unless creating) opens a file or folder that cannot be
    written read-only, without migrating: `Index.readonly` tells, and searching still works.
    """
    settings = settings or Settings.load()
    path = Path(path) if path is not None else settings.db
    conn = connect(path, create=create, write=create if write is None else write)
    return Index(conn=conn, path=path, settings=settings)
