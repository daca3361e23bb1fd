"""The default backend: the one SQLite file answers candidate queries itself.

FTS5 and sqlite-vec answer a single question without loading anything; from a session's second
question on, the vectors are scanned in memory and a question's lexical matches are fetched
once, without a join, and cut to each day range and scope in memory
(trag_tui.retrieval.candidates holds the SQL and the reasons).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...facets import Scope, facet_index
from .. import scoring
from ..candidates import (
    VEC_K_LIMIT,
    ChunkInfo,
    CompactSearch,
    DayRange,
    DenseMatrix,
    LexicalMatches,
    Vocabulary,
    chunk_info,
    dense_among,
    dense_candidates,
    fts_candidates,
    passage,
)

if TYPE_CHECKING:
    from ...storage.index import Index


class SQLiteBackend:
    """Candidates and chunk look-ups from the index file of an open Index."""

    name = "sqlite"

    def __init__(self, index: Index):
        self.index = index

    def lexical(self, text: str, limit: int, days: DayRange, scope: Scope | None = None,
                session: bool = False, within: np.ndarray | None = None) -> scoring.Ranked:
        conn = self.index.conn
        terms = self.index.derived("vocabulary", lambda: Vocabulary(conn)).terms(text)
        if session:
            matches = self.index.derived("lexical_matches", lambda: LexicalMatches(conn))
            return matches.search(terms, limit, days, within=self._inside(scope, within))
        return fts_candidates(conn, terms, limit, days, within=scope.facet_ids if scope else None,
                              chunks=within)

    def dense(self, vector: np.ndarray, limit: int, days: DayRange, scope: Scope | None = None,
              session: bool = False, within: np.ndarray | None = None) -> scoring.Ranked:
        conn = self.index.conn
        inside = self._inside(scope, within)
        compact = self._compact()
        if compact is not None:  # a large index: its vectors are never all read (or held)
            return compact.search(vector, limit, days, within=inside)
        if session:
            matrix = self.index.derived("dense_matrix", lambda: DenseMatrix(conn))
            return matrix.search(vector, limit, days, within=inside)
        if within is not None and inside is not None:
            return dense_among(conn, vector, limit, days, inside)
        if inside is None:
            return dense_candidates(conn, vector, limit, days)
        # vec0 cannot filter by document: the nearest of the whole range, then the scope's
        return scoring.only(dense_candidates(conn, vector, VEC_K_LIMIT, days), inside)[:limit]

    def _compact(self) -> CompactSearch | None:
        """The two-pass dense search, when the settings and the index's size ask for it and
        every vector has its code; None: exact search (vec0, or the vectors in memory). Decided
        once until the file changes, not at every dense query."""
        if self.index.settings.quantise == "off":
            return None
        return self.index.derived("compact_search", self._two_pass)

    def _two_pass(self) -> CompactSearch | None:
        s, conn = self.index.settings, self.index.conn
        dim = self.index.meta("embedding_dim")
        if dim is None:
            return None
        if s.quantise == "auto":
            from ...storage.quantised import vector_count

            if vector_count(conn) < s.quantise_above:
                return None
        search = CompactSearch(conn, int(dim or 0), s.rescore)
        return search if search.codes.whole else None

    def chunk_info(self, ids: list[int]) -> dict[int, ChunkInfo]:
        return chunk_info(self.index.conn, ids)

    def passage(self, chunk_id: int) -> str:
        return passage(self.index.conn, chunk_id)

    def scope_chunks(self, scope: Scope, narrow: bool = False) -> np.ndarray:
        return facet_index(self.index).chunk_ids(scope, narrow=narrow)

    def _inside(self, scope: Scope | None, within: np.ndarray | None) -> np.ndarray | None:
        """The sorted chunk ids a query keeps to: the scope's and those `within`, both if given."""
        inside = self.scope_chunks(scope) if scope is not None else None
        if within is None:
            return inside
        return within if inside is None else np.intersect1d(inside, within)


__all__ = ["SQLiteBackend"]
