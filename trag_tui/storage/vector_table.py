"""Whether the vector table's own structures agree, which no page check can tell.

sqlite-vec keeps a vec0 table in ordinary shadow tables: `chunk_vectors_chunks` holds, per block
of `size` slots, a validity bitmap (one bit a slot, least significant first) and the rowid in
each slot (0 in a slot that holds nothing); `chunk_vectors_rowids` maps each rowid to its block
and slot; `chunk_vectors_vector_chunks00` and `chunk_vectors_metadatachunks00` hold the slots'
vectors and days. SQLite sees only valid pages and rows, so one flipped bit in a bitmap passes
`quick_check`, and a search then reads an empty slot as a vector (a zero vector, whose distance
is NULL). These checks read the bitmaps as sqlite-vec does and compare them with the rest.

`problems(conn, dim)` is cheap (a few bytes per 1,024 vectors and one count), for every open;
with `thorough` it also walks every rowid, slot and vector, for `doctor`.
"""
from __future__ import annotations

import numpy as np

from ..models.embedding import usable
from .db import sqlite3

TABLE = "chunk_vectors"
DAY_BYTES = 8  # an INTEGER metadata column keeps 8 bytes a slot


def problems(conn: sqlite3.Connection, dim: int, *, thorough: bool = False) -> list[str]:
    """One line per way the vector table's structures disagree (none for a sound table)."""
    try:
        blocks, found = _blocks(conn, dim)
        if found:
            return found
        valid = sum(int(b.valid.sum()) for b in blocks.values())
        recorded = conn.execute(f"SELECT count(*) FROM {TABLE}_rowids").fetchone()[0]
        if valid != recorded:
            found.append(f"vector table: the validity bitmaps mark {valid} vectors present, "
                         f"its rowids table records {recorded}")
        if thorough and not found:
            found += _rowids_agree(conn, blocks) + _vectors_usable(conn, blocks, dim)
    except sqlite3.DatabaseError as exc:
        return [f"vector table cannot be read: {exc}"]
    return found


class _Block:
    """One block of slots: which are valid, and the rowid each holds."""

    def __init__(self, size: int, validity: bytes, rowids: bytes):
        self.size = size
        self.valid = np.unpackbits(np.frombuffer(validity, np.uint8), bitorder="little").astype(bool)
        self.rowids = np.frombuffer(rowids, "<i8")


def _blocks(conn: sqlite3.Connection, dim: int) -> tuple[dict[int, _Block], list[str]]:
    """Every block, with its sizes checked against its bitmap, rowids, vectors and days."""
    blocks: dict[int, _Block] = {}
    found: list[str] = []
    vec_len = dict(conn.execute(f"SELECT rowid, length(vectors) FROM {TABLE}_vector_chunks00"))
    day_len = dict(conn.execute(f"SELECT rowid, length(data) FROM {TABLE}_metadatachunks00"))
    rows = conn.execute(f"SELECT chunk_id, size, validity, rowids FROM {TABLE}_chunks")
    for block, size, validity, rowids in rows:
        where = f"vector table block {block}"
        if not isinstance(size, int) or size <= 0 or size % 8:
            found.append(f"{where}: size {size!r} is not a positive multiple of 8")
            continue
        if not isinstance(validity, bytes) or len(validity) != size // 8:
            found.append(f"{where}: the validity bitmap is not {size // 8} bytes")
            continue
        if not isinstance(rowids, bytes) or len(rowids) != size * 8:
            found.append(f"{where}: the rowids are not {size * 8} bytes")
            continue
        if vec_len.get(block) != size * dim * 4:
            found.append(f"{where}: its vectors are not {size} of {dim} dimensions")
        if day_len.get(block) != size * DAY_BYTES:
            found.append(f"{where}: its days are not {size} of {DAY_BYTES} bytes")
        b = _Block(size, validity, rowids)
        empty = int((b.valid & (b.rowids == 0)).sum())
        if empty:
            found.append(f"{where}: {empty} slot(s) marked valid hold no vector")
        blocks[block] = b
    return blocks, found


def _rowids_agree(conn: sqlite3.Connection, blocks: dict[int, _Block]) -> list[str]:
    """Each recorded rowid points at a valid slot holding that rowid, of a searchable chunk."""
    bad = 0
    for rowid, block, offset in conn.execute(
            f"SELECT rowid, chunk_id, chunk_offset FROM {TABLE}_rowids"):
        b = blocks.get(block)
        if (b is None or not isinstance(offset, int) or not 0 <= offset < b.size
                or not b.valid[offset] or int(b.rowids[offset]) != rowid):
            bad += 1
    found = [f"vector table: {bad} rowid(s) point at a slot that does not hold them"] if bad else []
    stray = conn.execute(
        f"SELECT count(*) FROM {TABLE}_rowids WHERE rowid NOT IN "
        "(SELECT id FROM chunks WHERE searchable = 1)").fetchone()[0]
    if stray:
        found.append(f"vector table: {stray} vector(s) belong to no searchable chunk")
    return found


def _vectors_usable(conn: sqlite3.Connection, blocks: dict[int, _Block], dim: int) -> list[str]:
    """Valid slots hold finite vectors that are not all zero (a distance can use them)."""
    bad = 0
    for block, data in conn.execute(f"SELECT rowid, vectors FROM {TABLE}_vector_chunks00"):
        b = blocks.get(block)
        if b is None or not b.valid.any():
            continue
        vectors = np.frombuffer(data, "<f4").reshape(b.size, dim)[b.valid]
        ok = usable(vectors)  # the test storing and searching apply
        bad += int((~ok).sum())
    return [f"vector table: {bad} vector(s) are zero or not finite"] if bad else []
