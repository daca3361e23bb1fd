"""The seam between the retrieval modes and where the chunks live.

The modes, fusion, decay, scope, context and answers only ever ask four things of the chunk
store: the best lexical and dense candidates inside a day range (and inside a scope's
documents), what a chunk is, and the passage an answer quotes. Naming those four here lets the
one SQLite file and a Qdrant cluster answer them alike, so the engine above cannot tell which
one runs.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:
    from ...facets import Scope
    from ..candidates import ChunkInfo, DayRange
    from ..scoring import Ranked


@runtime_checkable
class Backend(Protocol):
    """Candidate generation and chunk look-up for one index."""

    name: str

    def lexical(self, text: str, limit: int, days: DayRange, scope: Scope | None = None,
                session: bool = False, within: np.ndarray | None = None) -> Ranked:
        """BM25-style candidates for the text's words (higher is better), inside the day range
        and, when `scope` is given, inside the documents of its facets; when `within` is given,
        among those sorted chunk ids only."""
        ...

    def dense(self, vector: np.ndarray, limit: int, days: DayRange, scope: Scope | None = None,
              session: bool = False, within: np.ndarray | None = None) -> Ranked:
        """Nearest chunks by cosine similarity, inside the day range (and the scope's documents,
        and the chunk ids `within`)."""
        ...

    def chunk_info(self, ids: list[int]) -> dict[int, ChunkInfo]:
        """Chunk and document fields for the given chunk ids."""
        ...

    def passage(self, chunk_id: int) -> str:
        """The text an answer quotes for a chunk: its parent passage, or itself."""
        ...

    def scope_chunks(self, scope: Scope, narrow: bool = False) -> np.ndarray:
        """Sorted ids of the searchable chunks of a scope's documents (or of its narrow part)."""
        ...


__all__ = ["Backend"]
