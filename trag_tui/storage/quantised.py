"""The compact copy of the vectors: one sign bit a dimension, kept beside the full vectors.

Exact search reads every full vector (1,536 bytes a chunk for MiniLM), so its cost grows with
the index; at a million chunks it is hundreds of milliseconds. The sign bits (48 bytes a
chunk) rank the whole index by Hamming distance in a few milliseconds, and the best few hundred
of that first pass are then ranked by their full vectors, so the scores a search returns are
always exact cosines. Each code is written beside its vector (`store.insert_documents`); an
index from before the copy existed gains it here, on the next `trag-tui index`.

A code decides only which chunks are rescored, never a score, so a wrong code (a damaged or
hand-made file) can lose a passage from a search but not invent one; `doctor` compares every
code with its vector.
"""
from __future__ import annotations

import json

import numpy as np

from .db import has_table, sqlite3, transaction

TABLE = "chunk_codes"
BATCH = 4096
_ALL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)


def sign_code(blob: bytes) -> bytes:
    """A stored-form vector's compact copy: one bit a dimension, set where it is positive."""
    return np.packbits(np.frombuffer(blob, dtype="<f4") > 0, bitorder="little").tobytes()


def code_bytes(dim: int) -> int:
    """Bytes of a `dim`-dimensional vector's code."""
    return (dim + 7) // 8


def vector_count(conn: sqlite3.Connection) -> int:
    """Vectors the vector table holds (its rowids table: one count, no vector read)."""
    if not has_table(conn, "chunk_vectors"):
        return 0
    return conn.execute("SELECT count(*) FROM chunk_vectors_rowids").fetchone()[0]


def update_compact(conn: sqlite3.Connection) -> dict:
    """Give every stored vector its code and drop codes whose vector is gone (none to do, one
    count each, when the copy is whole)."""
    if not has_table(conn, TABLE) or not has_table(conn, "chunk_vectors"):
        return {"added": 0, "removed": 0}
    have = conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
    vectors = vector_count(conn)
    added = removed = 0
    if have == vectors and (not have or conn.execute(
            f"SELECT max(chunk_id) FROM {TABLE}").fetchone()[0] == conn.execute(
            "SELECT max(rowid) FROM chunk_vectors_rowids").fetchone()[0]):
        return {"added": 0, "removed": 0}
    with transaction(conn):
        removed = conn.execute(
            f"DELETE FROM {TABLE} WHERE chunk_id NOT IN (SELECT rowid FROM chunk_vectors_rowids)"
        ).rowcount
    missing = {r[0] for r in conn.execute(
        f"SELECT rowid FROM chunk_vectors_rowids WHERE rowid NOT IN (SELECT chunk_id FROM {TABLE})")}
    if not missing:
        return {"added": 0, "removed": removed}
    # One pass over the vector table: sqlite-vec reads a list of ids by scanning it whole.
    rows = []
    for uid, blob, day in conn.execute("SELECT chunk_id, embedding, day FROM chunk_vectors"):
        if uid in missing:
            rows.append((uid, day, sign_code(blob)))
            if len(rows) >= BATCH:
                added += _insert(conn, rows)
                rows = []
    added += _insert(conn, rows)
    return {"added": added, "removed": removed}


def _insert(conn: sqlite3.Connection, rows: list[tuple[int, int, bytes]]) -> int:
    if rows:
        with transaction(conn):
            conn.executemany(f"INSERT INTO {TABLE} (chunk_id, day, code) VALUES (?, ?, ?)", rows)
    return len(rows)


def problems(conn: sqlite3.Connection, dim: int) -> list[str]:
    """Every way the compact copy disagrees with the vectors (for `doctor`): a code of the wrong
    size, for no vector, with another day, or with other bits than its vector's signs. A copy
    that is short of some vectors is not a problem: the index is then searched exactly."""
    if not has_table(conn, TABLE):
        return []
    found = []
    size = code_bytes(dim)
    wrong = conn.execute(
        f"SELECT count(*) FROM {TABLE} WHERE typeof(code) != 'blob' OR length(code) != ?",
        (size,)).fetchone()[0]
    if wrong:
        found.append(f"compact vectors: {wrong} code(s) are not {size} bytes")
    if not has_table(conn, "chunk_vectors"):
        n = conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()[0]
        return found + ([f"compact vectors: {n} code(s) for no vector"] if n else [])
    stray = conn.execute(
        f"SELECT count(*) FROM {TABLE} WHERE chunk_id NOT IN (SELECT rowid FROM chunk_vectors_rowids)"
    ).fetchone()[0]
    if stray:
        found.append(f"compact vectors: {stray} code(s) belong to no vector")
    differ = 0
    batch: dict[int, tuple[int, bytes]] = {}

    def compare() -> int:
        stored = {uid: (day, code) for uid, day, code in conn.execute(
            f"SELECT chunk_id, day, code FROM {TABLE} WHERE chunk_id IN "
            "(SELECT value FROM json_each(?))", (json.dumps(list(batch)),))}
        return sum(1 for uid, have in stored.items() if have != batch[uid])

    # One pass over the vector table (sqlite-vec scans it whole for any list of ids); the codes
    # are looked up by id, a batch at a time.
    for uid, blob, day in conn.execute("SELECT chunk_id, embedding, day FROM chunk_vectors"):
        batch[uid] = (day, sign_code(blob))
        if len(batch) >= BATCH:
            differ += compare()
            batch = {}
    if batch:
        differ += compare()
    if differ:
        found.append(f"compact vectors: {differ} code(s) differ from their vector's signs or day")
    return found


class CompactMatrix:
    """Every code in memory, as 64-bit words one row a word, with its chunk id and day.

    48 bytes a chunk for 384 dimensions (48 MB at a million chunks, where the full vectors
    would take 1.5 GB), so the chat app holds it for a session. `whole` says whether every
    stored vector has its code; a search uses the copy only then."""

    def __init__(self, conn: sqlite3.Connection, dim: int):
        size = code_bytes(dim)
        rows = conn.execute(f"SELECT chunk_id, day, code FROM {TABLE} ORDER BY chunk_id").fetchall() \
            if has_table(conn, TABLE) else []
        good = [r for r in rows if isinstance(r[2], bytes) and len(r[2]) == size]
        self.whole = len(good) == len(rows) and len(rows) == vector_count(conn)
        self.ids = np.fromiter((r[0] for r in good), dtype=np.int64, count=len(good))
        self.days = np.fromiter((r[1] for r in good), dtype=np.int64, count=len(good))
        words = (size + 7) // 8
        raw = np.zeros((len(good), words * 8), dtype=np.uint8)
        if good:
            raw[:, :size] = np.frombuffer(b"".join(r[2] for r in good), dtype=np.uint8
                                          ).reshape(len(good), size)
        # One row per 64-bit word, so each pass runs over contiguous memory.
        self.words = np.ascontiguousarray(raw.view("<u8").T)
        self.size = size

    def __len__(self) -> int:
        return len(self.ids)

    def query_words(self, vector: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A question vector's code as the matrix's words; the mask of the dimensions that
        count (where it is not zero: a dimension the question gives no weight says nothing
        about a passage, and the hash embedder's vectors are mostly zeros); and the mask of
        its stronger half, whose disagreements count twice."""
        v = np.asarray(vector, dtype=np.float32)
        strength = np.abs(v)
        strong = (strength >= np.median(strength[strength > 0])) if (strength > 0).any() \
            else np.zeros(len(v), dtype=bool)
        out = []
        for bits in (v > 0, v != 0, strong):
            word = np.zeros(self.words.shape[0] * 8, dtype=np.uint8)
            word[:self.size] = np.packbits(bits, bitorder="little")
            out.append(word.view("<u8"))
        return out[0], out[1], out[2]

    def nearest(self, vector: np.ndarray, inside: np.ndarray | None, pool: int) -> np.ndarray:
        """Row numbers of the `pool` codes nearest the vector's (among the rows the boolean mask
        `inside` keeps, if given), ties by row. The distance is the Hamming distance over the
        dimensions the question gives weight, with its stronger half counted twice: closer to
        the cosine than plain Hamming, so a smaller pool keeps the exact top ten (RealTimeQA's
        MiniLM vectors: recall@10 0.99 from the best 200, where plain Hamming needs 400)."""
        kept = len(self.ids) if inside is None else int(inside.sum())
        if kept == 0:
            return np.zeros(0, dtype=np.int64)
        # A narrow range: only its rows are scored; a wide one: every row (copying most rows
        # costs more than scoring them), the rest then set beyond any distance.
        rows = np.flatnonzero(inside) if inside is not None and kept * 4 < len(self.ids) else None
        dist = self._distances(vector, rows)
        if inside is not None and rows is None:
            dist[~inside] = np.iinfo(np.uint16).max
        pool = min(pool, kept)
        cum = np.cumsum(np.bincount(dist))
        cut = int(np.searchsorted(cum, pool))  # the distance that completes the pool
        below = np.flatnonzero(dist < cut)
        at = np.flatnonzero(dist == cut)[:pool - len(below)]
        picked = np.concatenate([below, at])
        return picked if rows is None else rows[picked]

    def _distances(self, vector: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
        """The weighted Hamming distance of every row (or of `rows`) to the vector's code."""
        q, mask, strong = self.query_words(vector)
        words = self.words if rows is None else self.words[:, rows]
        n = words.shape[1]
        dist = np.zeros(n, dtype=np.uint16)
        scratch = np.empty(n, dtype=np.uint64)
        counts = np.empty(n, dtype=np.uint8)
        for w in range(words.shape[0]):
            if not mask[w]:
                continue
            np.bitwise_xor(words[w], q[w], out=scratch)
            if mask[w] != _ALL:
                np.bitwise_and(scratch, mask[w], out=scratch)
            np.bitwise_count(scratch, out=counts)
            np.add(dist, counts, out=dist)
            if strong[w]:
                np.bitwise_and(scratch, strong[w], out=scratch)
                np.bitwise_count(scratch, out=counts)
                np.add(dist, counts, out=dist)
        return dist
