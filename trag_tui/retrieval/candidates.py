"""All the SQL of retrieval: candidates from FTS5 and sqlite-vec, with the date range inside.

The date constraint goes into each candidate query itself (a join on the chunk's day for
FTS5, a metadata filter for vec0), never after a top-k, so a sparse period still yields its
best passages.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..db import sqlite3
from ..store import UNKNOWN_DAY, from_day
from .scoring import Ranked

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
MAX_TERMS = 12
# A term in more than this share of chunks says little and makes an OR query slow.
MAX_DF_SHARE = 0.35
VEC_K_LIMIT = 4096  # sqlite-vec's ceiling on k


@dataclass(frozen=True)
class DayRange:
    """Inclusive integer-day bounds; None is open. Undated chunks only pass an unbounded range."""

    lo: int | None = None
    hi: int | None = None
    include_undated: bool = True

    def bounds(self) -> tuple[int, int]:
        """Concrete bounds for SQL, with the undated sentinel in or out."""
        lo = self.lo if self.lo is not None else (
            UNKNOWN_DAY if self.include_undated else UNKNOWN_DAY + 1)
        hi = self.hi if self.hi is not None else 10**7
        return lo, hi


def _tokenizer_tables(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens USING fts5(t, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.query_tokens_vocab "
        "USING fts5vocab(temp, query_tokens, 'instance')"
    )


def query_terms(conn: sqlite3.Connection, text: str) -> list[str]:
    """The query's discriminating words, rarest first, as FTS5 phrase strings.

    Tokens are stemmed by the index's own tokenizer (through a temporary FTS5 table) so their
    document frequency can be read from the vocabulary; very common ones are dropped.
    """
    raw = [t.lower() for t in _TOKEN.findall(text)]
    if not raw:
        return []
    _tokenizer_tables(conn)
    conn.execute("DELETE FROM temp.query_tokens")
    conn.execute("INSERT INTO temp.query_tokens (t) VALUES (?)", (" ".join(raw),))
    stemmed = {
        offset: term
        for term, offset in conn.execute("SELECT term, offset FROM temp.query_tokens_vocab")
    }
    conn.execute("DELETE FROM temp.query_tokens")
    total = conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0] or 1
    scored: dict[str, int] = {}
    for pos, token in enumerate(raw):
        stem = stemmed.get(pos)
        if stem is None or token in scored:
            continue
        row = conn.execute("SELECT doc FROM chunk_vocab WHERE term = ?", (stem,)).fetchone()
        df = row[0] if row else 0
        if df == 0:
            continue
        if df / total > MAX_DF_SHARE and total > 50:
            continue
        scored[token] = df
    rarest = sorted(scored, key=lambda t: (scored[t], t))[:MAX_TERMS]
    return ['"' + t.replace('"', '""') + '"' for t in rarest]


def fts_candidates(
    conn: sqlite3.Connection, terms: list[str], limit: int, days: DayRange
) -> Ranked:
    """BM25 candidates (higher is better) for an OR of terms, inside the day range."""
    if not terms:
        return []
    lo, hi = days.bounds()
    # Undated chunks pass exactly when the vec0 sentinel would: no lower bound, undated allowed.
    with_null = days.include_undated and days.lo is None
    day_sql = "(c.day BETWEEN ? AND ?" + (" OR c.day IS NULL)" if with_null else ")")
    rows = conn.execute(
        "SELECT f.rowid, bm25(chunk_fts, 1.0, 0.5) AS s FROM chunk_fts f "
        "JOIN chunks c ON c.id = f.rowid "
        f"WHERE chunk_fts MATCH ? AND {day_sql} ORDER BY s LIMIT ?",
        (" OR ".join(terms), lo, hi, limit),
    ).fetchall()
    return [(int(uid), -float(s)) for uid, s in rows]


def dense_candidates(
    conn: sqlite3.Connection, vector: np.ndarray, limit: int, days: DayRange
) -> Ranked:
    """Nearest chunks by cosine similarity (1 - distance), inside the day range."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'chunk_vectors'").fetchone():
        return []
    lo, hi = days.bounds()
    rows = conn.execute(
        "SELECT chunk_id, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? "
        "AND day >= ? AND day <= ?",
        (vector.astype("<f4").tobytes(), min(limit, VEC_K_LIMIT), lo, hi),
    ).fetchall()
    return [(int(uid), 1.0 - float(d)) for uid, d in rows]


@dataclass(frozen=True)
class ChunkInfo:
    """What a hit shows about its chunk and document."""

    chunk_id: int
    document_id: int
    doc_id: str
    date: str | None
    day: int | None
    title: str
    speaker: str
    text: str
    parent_id: int | None
    start_char: int
    end_char: int
    centrality: float
    cluster_id: int | None


def chunk_info(conn: sqlite3.Connection, ids: list[int]) -> dict[int, ChunkInfo]:
    """Chunk and document fields for the given chunk ids."""
    out: dict[int, ChunkInfo] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ",".join("?" * len(part))
        for r in conn.execute(
            "SELECT c.id, d.id, d.source_id, d.date, c.day, d.title, d.speaker, c.text, "
            "c.parent_id, c.start_char, c.end_char, coalesce(c.centrality, 0), c.cluster_id "
            f"FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN ({marks})",
            part,
        ):
            out[r[0]] = ChunkInfo(*r)
    return out


def passage(conn: sqlite3.Connection, chunk_id: int) -> str:
    """The text an answer quotes for a chunk: its parent passage, or itself."""
    row = conn.execute(
        "SELECT coalesce(p.text, c.text) FROM chunks c LEFT JOIN chunks p ON p.id = c.parent_id "
        "WHERE c.id = ?",
        (chunk_id,),
    ).fetchone()
    return row[0] if row else ""


def day_histogram(conn: sqlite3.Connection) -> dict[int, int]:
    """Documents per year (undated documents under key 0)."""
    rows = conn.execute(
        "SELECT coalesce(CAST(substr(date, 1, 4) AS INTEGER), 0), count(*) FROM documents GROUP BY 1"
    )
    return {int(y): n for y, n in rows}


__all__ = ["DayRange", "query_terms", "fts_candidates", "dense_candidates", "chunk_info",
           "passage", "day_histogram", "from_day"]
