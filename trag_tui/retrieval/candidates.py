"""All the SQL of retrieval: candidates from FTS5 and sqlite-vec, with the date range inside.

The date constraint goes into each candidate query itself (a join on the chunk's day for
FTS5, a metadata filter for vec0), never after a top-k, so a sparse period still yields its
best passages.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..facets import Stemmer
from ..models.embedding import usable
from ..storage.db import has_table, id_batches, sqlite3
from ..storage.store import UNKNOWN_DAY, from_day, has_vectors
from .scoring import Ranked

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
MAX_TERMS = 12
# A term in more than this share of chunks says little and makes an OR query slow.
MAX_DF_SHARE = 0.35
# Together the chosen words may match at most this share of the chunks (or MIN_POSTINGS).
POSTINGS_SHARE = 0.1
MIN_POSTINGS = 2000
# ...and never more than this many, whatever the index's size: scoring a match costs about a
# microsecond, so a question's words are read in about 5 ms at a million chunks (12.6 ms at
# 20,000). A word matching more than this alone is left to the dense side (below 29,000 chunks
# no word does: MAX_DF_SHARE drops it first). At 136,011 chunks (a budget of 13,601 before):
# RealTimeQA recall@5 0.745 -> 0.748, LoCoMo 0.408 -> 0.408 (hash vectors; docs/scaling.md).
MAX_POSTINGS = 10_000
VEC_K_LIMIT = 4096  # sqlite-vec's ceiling on k
# Words that frame a question rather than name its subject ("how soon could…", "approximately
# how much…", "according to the White House", "how did the Dallas Fed describe oil prices",
# "what did the Fed say about…", "how are sales doing", "how did the view of X evolve"):
# rare in reports, so rarest-first they would take the BM25 budget from the subject's own words
# ("vaccines", "children", "oil") and match any passage that happens to say "soon".
QUESTION_FRAME = frozenset("""
soon approximately roughly nearly almost exactly precisely estimated according reportedly
allegedly describe describes described describing say says said saying doing differ differs
differed evolve evolves evolved view views
bientôt environ approximativement presque selon ungefähr etwa zufolge laut
aproximadamente casi según скоро примерно почти согласно
""".split())


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


class Vocabulary:
    """The index's own view of query words: its stemmer, and how many chunks hold each stem.

    Stems come from the index's tokenizer, run in a private in-memory database so a query
    writes nothing to the index connection; chunk counts are read from the vocabulary table
    once per word and kept until the file changes, because a look-up per word per query is a
    large share of a warm search.
    """

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.total = conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0] or 1
        self._df: dict[str, int] = {}
        self._stemmer = Stemmer()

    def stems(self, tokens: list[str]) -> dict[int, str]:
        """Token position -> stem, as the index's tokenizer produces them."""
        return self._stemmer.positions(tokens)

    def df(self, stems: list[str]) -> dict[str, int]:
        """Chunks holding each stem (0 where none does)."""
        missing = [t for t in dict.fromkeys(stems) if t not in self._df]
        if missing:
            marks = ",".join("?" * len(missing))
            found = dict(self.conn.execute(
                f"SELECT term, doc FROM chunk_vocab WHERE term IN ({marks})", missing))
            for t in missing:
                self._df[t] = int(found.get(t, 0))
        return {t: self._df[t] for t in stems}

    def terms(self, text: str) -> list[str]:
        """The query's discriminating words, rarest first, as FTS5 phrase strings.

        Very common words and the question's frame are dropped, and so are the commonest of
        the rest once the chunks they would match together pass a budget: an OR over common
        words makes FTS5 score a large share of the index and adds little that the rarer words
        and the dense side miss.
        """
        raw = [t.lower() for t in _TOKEN.findall(text)]
        if not raw:
            return []
        stemmed = self.stems(raw)
        counts = self.df([stemmed[i] for i in range(len(raw)) if i in stemmed])
        scored: dict[str, int] = {}
        for pos, token in enumerate(raw):
            stem = stemmed.get(pos)
            if stem is None or token in scored or token in QUESTION_FRAME:
                continue
            df = counts[stem]
            if df == 0 or (df / self.total > MAX_DF_SHARE and self.total > 50):
                continue
            scored[token] = df
        picked: list[str] = []
        budget = min(MAX_POSTINGS, max(MIN_POSTINGS, int(POSTINGS_SHARE * self.total)))
        used = 0
        for t in sorted(scored, key=lambda t: (scored[t], t)):
            if len(picked) >= MAX_TERMS or (picked and used + scored[t] > budget) \
                    or scored[t] > MAX_POSTINGS:
                break
            picked.append(t)
            used += scored[t]
        return ['"' + t.replace('"', '""') + '"' for t in picked]


class DenseMatrix:
    """Every chunk vector in memory with its day: exact cosine search for long sessions.

    The vec0 table answers a single question without loading anything; a session that asks
    many (the chat app, a batch, an evaluation) loads the vectors once and scans them with one
    matrix product, about ten times faster. Both apply the same day bounds before the top-k.
    """

    def __init__(self, conn: sqlite3.Connection):
        ids, days, blobs = [], [], []
        if has_vectors(conn):
            for uid, blob, day in conn.execute("SELECT chunk_id, embedding, day FROM chunk_vectors"):
                ids.append(uid)
                blobs.append(blob)
                days.append(day)
        self.ids = np.asarray(ids, dtype=np.int64)
        self.days = np.asarray(days, dtype=np.int64)
        if blobs:
            matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
            ok = usable(matrix)  # a zero or NaN row (a damaged file) would score NaN
            if not ok.all():
                self.ids, self.days, matrix = self.ids[ok], self.days[ok], matrix[ok]
            norms = np.linalg.norm(matrix, axis=1, keepdims=True)
            self.matrix = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        else:
            self.matrix = np.zeros((0, 0), dtype=np.float32)

    def search(self, vector: np.ndarray, limit: int, days: DayRange,
               within: np.ndarray | None = None) -> Ranked:
        """Nearest chunks by cosine similarity inside the day range (and among the sorted chunk
        ids `within`, when given), best first."""
        if not len(self.ids) or limit <= 0:
            return []
        lo, hi = days.bounds()
        q = np.asarray(vector, dtype=np.float32)
        q = q / (np.linalg.norm(q) or 1.0)
        mask = (self.days >= lo) & (self.days <= hi)
        if within is not None:
            mask &= self._rows(within)
        inside = np.flatnonzero(mask)
        if not len(inside):
            return []
        if len(inside) * 4 < len(self.ids):  # a narrow range: multiply only its rows
            sims = self.matrix[inside] @ q
        else:  # copying most rows costs more than scoring them all
            sims = (self.matrix @ q)[inside]
        n = min(limit, VEC_K_LIMIT, len(sims))
        top = np.argpartition(-sims, n - 1)[:n] if n < len(sims) else np.arange(len(sims))
        order = top[np.lexsort((top, -sims[top]))]
        return [(int(self.ids[r]), float(s)) for r, s in zip(inside[order], sims[order])]

    def _rows(self, within: np.ndarray) -> np.ndarray:
        """Row mask of the chunk ids `within`, kept per scope for the session."""
        return _row_mask(self, self.ids, within)


def rescored(conn: sqlite3.Connection, vector: np.ndarray, ids: np.ndarray, limit: int,
             kept: dict[int, np.ndarray] | None = None) -> Ranked:
    """The chunk ids `ids` ranked by the exact cosine of their full vectors, best first (ties
    by id): the second pass after the compact copy's first. Each vector is read by its id (a
    look-up in the vector table, not a scan); `kept` holds vectors read before, by id."""
    if not len(ids):
        return []
    kept = {} if kept is None else kept
    dim = len(vector)
    found, rows = [], []
    for uid in ids.tolist():
        row = kept.get(uid)
        if row is None:
            got = conn.execute("SELECT embedding FROM chunk_vectors WHERE chunk_id = ?",
                               (uid,)).fetchone()
            if got is None or not isinstance(got[0], bytes) or len(got[0]) != 4 * dim:
                continue
            row = kept[uid] = np.frombuffer(got[0], dtype="<f4")
        found.append(uid)
        rows.append(row)
    if not found:
        return []
    matrix = np.vstack(rows)
    q = np.asarray(vector, dtype=np.float32)
    q = q / (np.linalg.norm(q) or 1.0)
    sims = (matrix @ q) / np.maximum(np.linalg.norm(matrix, axis=1), 1e-12)
    order = np.lexsort((np.asarray(found), -sims))
    order = order[np.isfinite(sims[order])][:min(limit, VEC_K_LIMIT)]
    return [(int(found[i]), float(sims[i])) for i in order]


class CompactSearch:
    """Dense search of a large index in two passes: Hamming distance over every chunk's sign
    bits (storage.quantised) inside the day range and scope, then the exact cosine of the best
    `pool` from their full vectors. Serves a single question and a session alike: the codes
    are read once (48 bytes a chunk) and the full vectors only for the few hundred rescored."""

    def __init__(self, conn: sqlite3.Connection, dim: int, pool: int):
        from ..storage.quantised import CompactMatrix

        self.conn = conn
        self.codes = CompactMatrix(conn, dim)
        self.pool = pool
        # The full vectors read for the last question: its day ranges and scopes (a comparison's
        # periods, the named source's passages) rescore many of the same chunks.
        self._kept: dict[int, np.ndarray] = {}
        self._kept_for = b""

    def search(self, vector: np.ndarray, limit: int, days: DayRange,
               within: np.ndarray | None = None) -> Ranked:
        """As DenseMatrix.search: nearest chunks by cosine inside the day range (and among the
        sorted chunk ids `within`), best first."""
        codes = self.codes
        if not len(codes) or limit <= 0:
            return []
        lo, hi = days.bounds()
        mask = (codes.days >= lo) & (codes.days <= hi)
        if within is not None:
            mask &= _row_mask(self, codes.ids, within)
        pool = min(VEC_K_LIMIT, max(self.pool, 4 * limit))
        picked = codes.nearest(vector, None if mask.all() else mask, pool)
        key = np.asarray(vector, dtype=np.float32).tobytes()
        if key != self._kept_for or len(self._kept) > 8 * VEC_K_LIMIT:
            self._kept, self._kept_for = {}, key
        return rescored(self.conn, vector, codes.ids[picked], limit, self._kept)


def _row_mask(holder, ids: np.ndarray, within: np.ndarray) -> np.ndarray:
    """Row mask of the chunk ids `within` among `ids`, kept per scope on `holder`."""
    key = (len(within), hash(within.tobytes()))
    cache = holder.__dict__.setdefault("_row_masks", {})
    if key not in cache:
        if len(cache) > 64:
            cache.clear()
        cache[key] = np.isin(ids, within)
    return cache[key]


def fts_candidates(
    conn: sqlite3.Connection, terms: list[str], limit: int, days: DayRange,
    within: tuple[int, ...] | None = None, chunks: np.ndarray | None = None,
) -> Ranked:
    """BM25 candidates (higher is better) for an OR of terms, inside the day range (and inside
    the documents of the facets `within`, and among the chunk ids `chunks`, when given), with
    the day constraint joined into the match query itself."""
    if not terms:
        return []
    match = " OR ".join(terms)
    lo, hi = days.bounds()
    # Undated chunks pass exactly when the vec0 sentinel would: no lower bound, undated allowed.
    day_sql = "(c.day BETWEEN ? AND ?" + (" OR c.day IS NULL)" if days.include_undated and days.lo is None else ")")
    scope_sql = ""
    scope_args: tuple[int | str, ...] = ()
    if within:
        scope_sql = (" AND c.document_id IN (SELECT document_id FROM document_facets WHERE "
                     f"facet_id IN ({','.join('?' * len(within))}))")
        scope_args = tuple(within)
    if chunks is not None:
        scope_sql += " AND c.id IN (SELECT value FROM json_each(?))"
        scope_args += (json.dumps(chunks.tolist()),)
    rows = conn.execute(
        "SELECT f.rowid, bm25(chunk_fts, 1.0, 0.5) AS s FROM chunk_fts f "
        "JOIN chunks c ON c.id = f.rowid "
        f"WHERE chunk_fts MATCH ? AND {day_sql}{scope_sql} ORDER BY s LIMIT ?",
        (match, lo, hi, *scope_args, limit),
    ).fetchall()
    return [(int(uid), -float(s)) for uid, s in rows]


class LexicalMatches:
    """Every BM25 match of a question's words, fetched once and cut in memory, for sessions.

    Scoring the matches is nearly all of an FTS5 query's cost, and a join on the day or the
    scope's documents does not make it cheaper; yet one question asks for the same words
    several times (the whole range and the named source's documents, each period of a
    comparison). So the matches are fetched once without a join and kept for the last few
    questions; each call keeps those inside its day range and scope and takes the best.
    """

    KEEP = 4  # questions whose matches are kept

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        rows = np.asarray(conn.execute(
            "SELECT id, coalesce(day, ?) FROM chunks WHERE searchable = 1", (UNKNOWN_DAY,)
        ).fetchall(), dtype=np.int64).reshape(-1, 2)
        self.day_of = np.full(int(rows[:, 0].max(initial=0)) + 1, UNKNOWN_DAY, dtype=np.int64)
        self.day_of[rows[:, 0]] = rows[:, 1]
        self._kept: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def _matches(self, match: str) -> tuple[np.ndarray, np.ndarray]:
        if match not in self._kept:
            rows = self.conn.execute(
                "SELECT rowid, bm25(chunk_fts, 1.0, 0.5) FROM chunk_fts WHERE chunk_fts MATCH ?",
                (match,)).fetchall()
            table = np.asarray(rows, dtype=np.float64).reshape(-1, 2)
            ids, scores = table[:, 0].astype(np.int64), -table[:, 1]
            known = ids < len(self.day_of)  # a text row without its chunk is not a match
            ids, scores = ids[known], scores[known]
            if len(self._kept) >= self.KEEP:
                self._kept.pop(next(iter(self._kept)))
            self._kept[match] = (ids, scores)
        return self._kept[match]

    def search(self, terms: list[str], limit: int, days: DayRange,
               within: np.ndarray | None = None) -> Ranked:
        """The best `limit` matches inside the day range (and among the chunk ids `within`)."""
        if not terms or not len(self.day_of):
            return []
        ids, scores = self._matches(" OR ".join(terms))
        lo, hi = days.bounds()
        day = self.day_of[ids]
        keep = (day >= lo) & (day <= hi)
        if within is not None:
            keep &= np.isin(ids, within)
        ids, scores = ids[keep], scores[keep]
        if len(ids) > limit:
            top = np.argpartition(-scores, limit - 1)[:limit]
            ids, scores = ids[top], scores[top]
        order = np.lexsort((ids, -scores))
        return [(int(ids[i]), float(scores[i])) for i in order]


def dense_candidates(
    conn: sqlite3.Connection, vector: np.ndarray, limit: int, days: DayRange
) -> Ranked:
    """Nearest chunks by cosine similarity (1 - distance), inside the day range.

    A question without words has no direction to search in (its vector is zero): no dense
    candidates. A stored row whose distance is NULL or NaN (a damaged vector) is passed over."""
    if not has_vectors(conn):
        return []
    lo, hi = days.bounds()
    rows = conn.execute(
        "SELECT chunk_id, distance FROM chunk_vectors WHERE embedding MATCH ? AND k = ? "
        "AND day >= ? AND day <= ?",
        (vector.astype("<f4").tobytes(), min(limit, VEC_K_LIMIT), lo, hi),
    ).fetchall()
    return [(int(uid), 1.0 - float(d)) for uid, d in rows if d is not None and np.isfinite(d)]


def dense_among(conn: sqlite3.Connection, vector: np.ndarray, limit: int, days: DayRange,
                chunks: np.ndarray) -> Ranked:
    """Nearest of the chunk ids `chunks` by cosine similarity, inside the day range: exact, over
    their own vectors (a few thousand at most, where vec0 would scan the whole range)."""
    if not len(chunks) or not has_vectors(conn):
        return []
    lo, hi = days.bounds()
    ids, blobs = [], []
    for part, _ in id_batches(chunks.tolist()):
        for uid, blob, day in conn.execute(
                "SELECT chunk_id, embedding, day FROM chunk_vectors "
                "WHERE chunk_id IN (SELECT value FROM json_each(?))", (json.dumps(part),)):
            if lo <= day <= hi:
                ids.append(uid)
                blobs.append(blob)
    if not ids:
        return []
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), -1)
    q = np.asarray(vector, dtype=np.float32)
    sims = (matrix @ q) / np.maximum(np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0), 1e-12)
    order = np.lexsort((np.asarray(ids), -sims))
    order = order[np.isfinite(sims[order])][:min(limit, VEC_K_LIMIT)]
    return [(int(ids[i]), float(sims[i])) for i in order]


class SpokenPeriods:
    """Every period the index's chunks speak of (`trag_tui.periods`), in memory for a session:
    which chunks speak of a period, and what each speaks of."""

    def __init__(self, conn: sqlite3.Connection):
        rows = conn.execute(
            "SELECT p.chunk_id, p.start_day, p.end_day, p.source, p.expression, "
            "coalesce(c.day, ?) FROM chunk_periods p JOIN chunks c ON c.id = p.chunk_id "
            "ORDER BY p.chunk_id, p.start_day", (UNKNOWN_DAY,)).fetchall() \
            if has_table(conn, "chunk_periods") else []
        self.ids = np.asarray([r[0] for r in rows], dtype=np.int64)
        self.lo = np.asarray([r[1] for r in rows], dtype=np.int64)
        self.hi = np.asarray([r[2] for r in rows], dtype=np.int64)
        self.day = np.asarray([r[5] for r in rows], dtype=np.int64)
        self.rows = [r[:5] for r in rows]

    def about(self, lo: int, hi: int, published: DayRange, *,
              inside_days: int | None = None) -> np.ndarray:
        """Sorted ids of the chunks that speak of a period overlapping [lo, hi] and were
        published inside the day range `published` but outside [lo, hi]: a question's period
        finds the chunks published in it by their date, and these beside them. With
        `inside_days`, only periods inside [lo, hi] of at most that many days count (one
        period's figure within a span, not a plan that runs past it)."""
        p_lo, p_hi = published.bounds()
        mask = (self.lo <= hi) & (self.hi >= lo) & (self.day >= p_lo) & (self.day <= p_hi) \
            & ((self.day < lo) | (self.day > hi))
        if inside_days is not None:
            mask &= (self.lo >= lo) & (self.hi <= hi) & (self.hi - self.lo < inside_days)
        return np.unique(self.ids[mask])

    def spans(self, ids: Iterable[int]) -> dict[int, list[tuple[int, int]]]:
        """The (start day, end day) of each period the given chunks speak of."""
        return {uid: [(lo, hi) for lo, hi, _, _ in ps] for uid, ps in self.of(ids).items()}

    def of(self, ids: Iterable[int]) -> dict[int, list[tuple[int, int, str, str]]]:
        """The (start day, end day, source, expression) of each period the given chunks speak of."""
        out: dict[int, list[tuple[int, int, str, str]]] = {}
        if not len(self.ids):
            return out
        for uid in set(ids):
            at = int(np.searchsorted(self.ids, uid))
            while at < len(self.ids) and self.ids[at] == uid:
                out.setdefault(uid, []).append(tuple(self.rows[at][1:]))
                at += 1
        return out


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
    told_day: int | None = None  # the earliest day its text was told (corroboration.told_days)


def chunk_info(conn: sqlite3.Connection, ids: list[int]) -> dict[int, ChunkInfo]:
    """Chunk and document fields for the given chunk ids."""
    out: dict[int, ChunkInfo] = {}
    for part, marks in id_batches(ids):
        for r in conn.execute(
            "SELECT c.id, d.id, d.source_id, d.date, c.day, d.title, d.speaker, c.text, "
            "c.parent_id, c.start_char, c.end_char, coalesce(c.centrality, 0), c.cluster_id, c.told_day "
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


__all__ = ["DayRange", "Vocabulary", "DenseMatrix", "CompactSearch", "rescored", "LexicalMatches", "fts_candidates", "dense_candidates", "chunk_info",
           "passage", "from_day"]
