"""Every write to the index and the reads the writer needs, each batch in one transaction.

A document is stored whole or not at all (its row, chunks, full-text rows and vectors commit
together), which is what lets `kill -9` at any moment leave a consistent file that the next
run simply resumes.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..chunking import Chunk
from ..documents import Document
from ..errors import EmbedderError
from ..models.embedding import usable
from .db import get_meta, has_table, id_batches, set_meta, sqlite3
from .quantised import sign_code
from .schema import vector_table_sql

EPOCH = dt.date(1970, 1, 1)
# vec0 metadata columns hold no NULL: undated chunks get a day no real filter can reach.
UNKNOWN_DAY = -10**7


def to_day(date: dt.date | None) -> int | None:
    """Days since 1970-01-01, the integer form dates take inside the index."""
    return None if date is None else (date - EPOCH).days


def from_day(day: int | None) -> dt.date | None:
    """The date for an integer day (None for unknown)."""
    return None if day is None or day == UNKNOWN_DAY else EPOCH + dt.timedelta(days=day)


def text_hash(*parts: str) -> str:
    """A short stable digest of some text; equal text is embedded once."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\x1f")
    return h.hexdigest()


def document_hash(doc: Document) -> str:
    """Digest of everything stored about a document, so any change re-indexes it."""
    return text_hash(
        doc.text, doc.title, doc.speaker, str(doc.date), doc.date_source, doc.source_id or "",
        json.dumps(doc.meta, sort_keys=True),
    )


def embed_text(title: str, chunk_text: str) -> str:
    """What the embedder sees for a chunk: the title gives a passage its subject and place."""
    return f"{title}\n{chunk_text}" if title else chunk_text


def ensure_embedder(conn: sqlite3.Connection, name: str, dim: int) -> None:
    """Record the embedder in a new index, or refuse one that differs from the recorded one."""
    have = get_meta(conn, "embedder")
    if have is None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            set_meta(conn, "embedder", name)
            set_meta(conn, "embedding_dim", str(dim))
            conn.execute(vector_table_sql(dim))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return
    have_dim = int(get_meta(conn, "embedding_dim") or 0)
    if have != name or have_dim != dim:
        raise EmbedderError(
            f"this index was built with the embedder {have!r} ({have_dim}-d); "
            f"{name!r} ({dim}-d) cannot search or extend it. Use the same --embedder, "
            "or build a new index file"
        )


@dataclass(frozen=True)
class PreparedDocument:
    """A document ready to write: its chunks and the vectors of its searchable chunks."""

    file_id: int
    ordinal: int
    doc: Document
    source_id: str
    content_hash: str
    chunks: Sequence[Chunk]
    chunk_hashes: Sequence[str]


def existing_documents(conn: sqlite3.Connection, file_id: int) -> dict[int, tuple[int, str]]:
    """ordinal -> (document id, content hash) for the documents already stored from a file."""
    rows = conn.execute(
        "SELECT ordinal, id, content_hash FROM documents WHERE file_id = ?", (file_id,)
    )
    return {o: (i, h) for o, i, h in rows}


def vectors_for_hashes(conn: sqlite3.Connection, hashes: Iterable[str]) -> dict[str, bytes]:
    """Stored vectors for chunk texts already embedded anywhere in the index."""
    found: dict[str, bytes] = {}
    todo = list(set(hashes))
    if not has_vectors(conn):
        return found
    for part, marks in id_batches(todo):
        rows = conn.execute(
            f"SELECT c.content_hash, c.id FROM chunks c WHERE c.searchable = 1 "
            f"AND c.content_hash IN ({marks})",
            part,
        ).fetchall()
        for h, chunk_id in rows:
            if h in found:
                continue
            row = conn.execute(
                "SELECT embedding FROM chunk_vectors WHERE chunk_id = ?", (chunk_id,)
            ).fetchone()
            if row:
                found[h] = row[0]
    return found


def has_vectors(conn: sqlite3.Connection) -> bool:
    """Whether the vector table exists yet (it is made when the first embedder is recorded)."""
    return has_table(conn, "chunk_vectors")


def delete_documents(conn: sqlite3.Connection, doc_ids: Sequence[int]) -> None:
    """Remove documents with their chunks, full-text rows and vectors (caller's transaction)."""
    vectors = has_vectors(conn)
    for part, marks in id_batches(doc_ids):
        chunk_ids = [
            r[0]
            for r in conn.execute(
                f"SELECT id FROM chunks WHERE searchable = 1 AND document_id IN ({marks})", part
            )
        ]
        for cpart, cmarks in id_batches(chunk_ids):
            conn.execute(f"DELETE FROM chunk_fts WHERE rowid IN ({cmarks})", cpart)
            if vectors:
                conn.execute(f"DELETE FROM chunk_vectors WHERE chunk_id IN ({cmarks})", cpart)
        conn.execute(f"DELETE FROM documents WHERE id IN ({marks})", part)


def insert_documents(
    conn: sqlite3.Connection, docs: Sequence[PreparedDocument], vectors: dict[str, bytes]
) -> list[int]:
    """Write prepared documents (caller's transaction); returns the new searchable chunk ids.

    `vectors` holds each searchable chunk's vector by its hash; a chunk with none that a
    distance can use (its text has no words) is stored without one and found by words only."""
    new_chunk_ids: list[int] = []
    codes = has_table(conn, "chunk_codes")
    for p in docs:
        d = p.doc
        day = to_day(d.date)
        cur = conn.execute(
            "INSERT INTO documents (file_id, ordinal, source_id, title, speaker, date, day, "
            "date_source, content_hash, meta) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                p.file_id, p.ordinal, p.source_id, d.title, d.speaker,
                d.date.isoformat() if d.date else None, day, d.date_source, p.content_hash,
                json.dumps(d.meta, ensure_ascii=False, sort_keys=True),
            ),
        )
        doc_id = cur.lastrowid
        ids_by_ordinal: dict[int, int] = {}
        for chunk, h in zip(p.chunks, p.chunk_hashes):
            parent = ids_by_ordinal.get(chunk.parent) if chunk.parent is not None else None
            cur = conn.execute(
                "INSERT INTO chunks (document_id, ordinal, parent_id, searchable, text, "
                "start_char, end_char, day, content_hash) VALUES (?,?,?,?,?,?,?,?,?)",
                (doc_id, chunk.ordinal, parent, int(chunk.searchable), chunk.text,
                 chunk.start_char, chunk.end_char, day, h),
            )
            chunk_id = cur.lastrowid
            assert chunk_id is not None  # an INSERT always sets it
            ids_by_ordinal[chunk.ordinal] = chunk_id
            if chunk.searchable:
                conn.execute(
                    "INSERT INTO chunk_fts (rowid, text, title) VALUES (?, ?, ?)",
                    (chunk_id, chunk.text, d.title),
                )
                if usable_blob(vectors.get(h)):  # a chunk without words has no vector
                    vday = UNKNOWN_DAY if day is None else day
                    conn.execute(
                        "INSERT INTO chunk_vectors (chunk_id, embedding, day) VALUES (?, ?, ?)",
                        (chunk_id, vectors[h], vday),
                    )
                    if codes:
                        conn.execute(
                            "INSERT INTO chunk_codes (chunk_id, day, code) VALUES (?, ?, ?)",
                            (chunk_id, vday, sign_code(vectors[h])))
                new_chunk_ids.append(chunk_id)
    return new_chunk_ids


def usable_blob(blob: bytes | None) -> bool:
    """Whether a stored-form vector is one a cosine distance can use (models.embedding.usable):
    the last gate before the vector table, so a zero or NaN vector never reaches a search."""
    if not isinstance(blob, bytes) or not blob or len(blob) % 4:
        return False
    return bool(usable(np.frombuffer(blob, dtype="<f4"))[0])


def as_blob(matrix: np.ndarray) -> list[bytes]:
    """float32 rows as the little-endian blobs sqlite-vec stores."""
    return [row.astype("<f4", copy=False).tobytes() for row in matrix]
