"""Where retrieval's candidates come from: the index file (default) or a Qdrant collection."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Backend

if TYPE_CHECKING:
    from ...storage.index import Index


def open_backend(spec: str | None, index: Index) -> Backend:
    """The backend a --backend value names: None or 'sqlite' for the file itself, else a Qdrant
    target (qdrant://HOST:PORT/COLLECTION, or a folder a local push wrote)."""
    from .qdrant import QdrantBackend, is_target, parse_target

    if spec is None or not is_target(spec):
        from .sqlite import SQLiteBackend

        return SQLiteBackend(index)
    from ..candidates import Vocabulary

    def words(text: str) -> list[str]:
        """The question's words as the file's FTS5 side picks them (document frequencies from
        the file the collection was pushed from)."""
        return index.derived("vocabulary", lambda: Vocabulary(index.conn)).terms(text)

    return QdrantBackend(parse_target(spec), embedder=index.meta("embedder"), vocabulary=words)


def backend_of(index: Index) -> Backend:
    """The backend an open index answers from: the one given it with `use_backend`, else the
    one `settings.backend` names, opened on first use and kept on the index."""
    if index.backend is None:
        index.use_backend(open_backend(index.settings.backend, index))
    return index.backend


__all__ = ["Backend", "backend_of", "open_backend"]
