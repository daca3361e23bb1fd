"""Where retrieval's candidates come from: the index file (default) or a Qdrant collection."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Backend

if TYPE_CHECKING:
    from ..index import Index


def open_backend(spec: str | None, index: Index) -> Backend:
    """The backend a --backend value names: None or 'sqlite' for the file itself, else a Qdrant
    target (qdrant://HOST:PORT/COLLECTION, or a folder a local push wrote)."""
    from .qdrant import QdrantBackend, is_target, parse_target

    if spec is None or not is_target(spec):
        from .sqlite import SQLiteBackend

        return SQLiteBackend(index)
    from ..retrieval.candidates import Vocabulary

    def words(text: str) -> list[str]:
        """The question's words as the file's FTS5 side picks them (document frequencies from
        the file the collection was pushed from)."""
        return index.derived("vocabulary", lambda: Vocabulary(index.conn)).terms(text)

    return QdrantBackend(parse_target(spec), embedder=index.meta("embedder"), vocabulary=words)


__all__ = ["Backend", "open_backend"]
