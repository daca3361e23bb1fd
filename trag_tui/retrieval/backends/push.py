"""Copying an index file into a Qdrant collection, incrementally, without embedding anything.

The file stays the place where documents are read, dated, chunked and embedded; a push copies
what it holds: each chunk's stored vector, a sparse vector of its stems with BM25 term weights,
and the payload the modes filter and show. One hash per chunk (vector and payload) is recorded
in the file once the target acknowledged its batch, so a re-push of an unchanged file sends
nothing, a changed file sends only what changed and deletes what is gone, and a push killed
half-way resumes from the last acknowledged batch. A point also carries the rest of its
document's row (meta, date source, content hash) and its chunk ordinal, and the collection's
metadata holds the file's facet table, so `trag-tui pull` can write a faithful file of any
slice from the collection alone.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import QdrantError
from ...facets import Stemmer, facet_index
from ...storage.db import get_meta, set_meta, sqlite3, transaction
from ...storage.store import UNKNOWN_DAY, has_vectors
from . import seal
from .qdrant import (
    DENSE,
    FACETS_KEY,
    LEXICAL,
    Target,
    choose_shard_by,
    client_module,
    document_terms,
    period_of,
    quiet_payload_index,
    year_of,
)

BATCH = 256
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass
class PushReport:
    """What a push did."""

    target: str
    chunks: int = 0
    sent: int = 0
    deleted: int = 0
    unchanged: int = 0
    seconds: float = 0.0
    shard_by: str = ""
    sharded: bool = False
    periods: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"target": self.target, "chunks": self.chunks, "sent": self.sent, "deleted": self.deleted,
                "unchanged": self.unchanged, "seconds": round(self.seconds, 3),
                "chunks_per_second": round(self.sent / self.seconds, 1) if self.seconds and self.sent else None,
                "shard_by": self.shard_by, "sharded": self.sharded, "periods": self.periods}


_COLUMNS = ("c.id, c.document_id, d.source_id, d.date, c.day, d.title, d.speaker, c.text, c.parent_id, "
            "c.start_char, c.end_char, c.centrality, c.cluster_id, c.searchable, c.ordinal, d.date_source, "
            "d.meta, d.content_hash, c.told_day")


def _rows(conn: sqlite3.Connection) -> Iterator[tuple]:
    """Every chunk's fields as _COLUMNS has them, with the hash of its text in place of the text.

    No vector is read: a chunk's vector follows from its text and title under the collection's
    one embedder, so these fields decide whether the chunk changed, and a re-push reads no
    vector and encodes no text."""
    columns = _COLUMNS.replace("c.text", "c.content_hash")
    return conn.execute(f"SELECT {columns} FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id")


def _rows_with_vectors(conn: sqlite3.Connection, ids: list[int]) -> list[tuple]:
    """The given chunks with their stored vectors (None for a parent passage)."""
    marks = ",".join("?" * len(ids))
    return conn.execute(
        f"SELECT {_COLUMNS}, v.embedding FROM chunks c JOIN documents d ON d.id = c.document_id "
        f"LEFT JOIN chunk_vectors v ON v.chunk_id = c.id AND c.searchable = 1 WHERE c.id IN ({marks}) "
        "ORDER BY c.id", ids).fetchall()


def _payload(row: tuple, facets: list[int], shard_by: str) -> dict:
    """What a point holds: the fields the modes filter and show, and the rest of its document's
    row (chunk ordinal, date source, meta, content hash), so `trag-tui pull` can write a faithful
    file from the collection alone."""
    (_, document_id, doc_id, date, day, title, speaker, text, parent_id, start, end,
     centrality, cluster_id, searchable, ordinal, date_source, meta, content_hash, told_day) = row[:19]
    return {
        "document_id": document_id, "doc_id": doc_id, "date": date,
        "day": UNKNOWN_DAY if day is None else day, "title": title, "speaker": speaker, "text": text,
        "parent_id": parent_id, "start_char": start, "end_char": end,
        "centrality": round(float(centrality or 0.0), 9), "cluster_id": cluster_id, "facets": facets,
        "period": period_of(day, shard_by), "searchable": bool(searchable),
        "ordinal": ordinal, "date_source": date_source, "meta": json.loads(meta or "{}"),
        "content_hash": content_hash, "told_day": told_day,
    }


def _hash(row: tuple, facets: list[int], period: str) -> str:
    return hashlib.blake2b(repr((row, facets, period)).encode(), digest_size=16).hexdigest()


def _averages(conn: sqlite3.Connection) -> tuple[float, float]:
    """Mean words of a searchable chunk's text and of its title: BM25's length normalisers."""
    n = text = title = 0
    for t, tt in conn.execute(
            "SELECT c.text, d.title FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.searchable = 1"):
        n += 1
        text += len(_WORD.findall(t))
        title += len(_WORD.findall(tt or ""))
    return (text / n, title / n) if n else (1.0, 1.0)


def _target_id(conn: sqlite3.Connection, key: str) -> int:
    with transaction(conn):
        conn.execute("INSERT OR IGNORE INTO push_targets (target) VALUES (?)", (key,))
    return conn.execute("SELECT id FROM push_targets WHERE target = ?", (key,)).fetchone()[0]


def index_identity(conn: sqlite3.Connection) -> str:
    """The index's own id (meta `index_id`), made on its first push: what a collection records
    as the index it holds, so a push from another file is not mixed into it. A copy of the
    file is the same index; a file pulled from a collection is its own."""
    found = get_meta(conn, "index_id")
    if found is None:
        with transaction(conn):
            found = get_meta(conn, "index_id") or uuid.uuid4().hex
            set_meta(conn, "index_id", found)
    return found


def push(index, target: Target, *, client=None, shard_by: str = "auto", sharded: bool | None = None,
         batch: int = BATCH, progress: Callable[[int, int], None] | None = None,
         replace: bool = False) -> PushReport:
    """Bring the collection at `target` up to date with the index file; see the module docstring.

    `shard_by` is decade, year or auto (decade unless a decade outgrows a shard); `sharded`
    (default: on a server, off in local mode) makes each period a custom shard key. A
    collection that holds another index is refused unless `replace`, which empties it first.
    A local folder is sealed as written (`seal`), also when the push stops half-way.
    """
    if index.readonly:
        raise QdrantError(f"{index.path} is read-only: a push records what it sent in the file")
    conn = index.conn
    _, models = client_module()
    embedder = get_meta(conn, "embedder")
    if embedder is None or not has_vectors(conn):
        raise QdrantError(f"{index.path} holds no vectors yet: index some documents first")
    own = client is None
    folder = target.path if own and target.local else None
    checked = _clear_if_unverified(folder) if folder is not None and replace else None
    if client is None:
        # the folder's files are read once before the push: the check before the client opens
        # it, whose digests the first seal signs again (the second reads what the push wrote)
        client, checked = target.connect_checked(checked=checked)
    sharded = (not target.local) if sharded is None else sharded
    started = time.perf_counter()
    try:
        if folder is not None:
            seal.seal(folder, writing=True, checked=checked)
        report = _push(index, conn, target, client, models, embedder, replace, shard_by, sharded, batch,
                       progress)
    finally:
        if own:
            client.close()
        if folder is not None:
            seal.seal(folder)  # our own writes, acknowledged or not, are what the folder now holds
    report.seconds = time.perf_counter() - started
    return report


def _clear_if_unverified(folder) -> seal.Checked | None:
    """For `--replace`: a folder that cannot be verified (a push killed half-way, a folder from
    elsewhere) is emptied of the client's files without reading them; what the check read of
    one that can (None when there was nothing to read or it was emptied)."""
    if not folder.is_dir():
        return None
    try:
        return seal.verify(folder)
    except QdrantError:
        seal.clear(folder)
        return None


def _holds_this_index(conn, meta: dict, state: dict) -> bool:
    """Whether the collection holds this index: it says so, or (pushed before collections
    recorded their index) this file's push state says it pushed there. Reads only, so a
    refused push leaves the file as it was."""
    held = meta.get("index")
    return (held is not None and held == get_meta(conn, "index_id")) or (held is None and bool(state))


def _push(index, conn, target, client, models, embedder, replace, shard_by, sharded, batch,
          progress) -> PushReport:
    name = target.collection
    known = conn.execute("SELECT id FROM push_targets WHERE target = ?", (target.key(),)).fetchone()
    state = dict(conn.execute("SELECT chunk_id, hash FROM push_state WHERE target_id = ?", known)) if known else {}
    meta: dict = {}
    stored_facets = None
    if replace and client.collection_exists(name):
        client.delete_collection(name)
    if client.collection_exists(name):
        info = client.get_collection(name)
        metadata = info.config.metadata or {}
        meta = metadata.get("trag_tui") or {}
        stored_facets = (metadata.get(FACETS_KEY) or {}).get("hash")
        if not meta:
            raise QdrantError(f"{target.key()}: the collection exists and was not made by trag-tui")
        if not _holds_this_index(conn, meta, state):
            raise QdrantError(f"{target.key()} holds another index (pushed from another file): push to "
                              "another collection, or add --replace to replace what it holds")
        if meta.get("embedder") != embedder:
            raise QdrantError(f"{target.key()} holds vectors of {meta.get('embedder')!r}; this index's "
                              f"embedder is {embedder!r}: push to another collection")
        if meta.get("index") is None:  # pushed before collections recorded their index
            meta["index"] = index_identity(conn)
            client.update_collection(name, metadata={"trag_tui": meta})
        if not target.local and "cluster_id" not in (info.payload_schema or {}):  # made before pulls
            quiet_payload_index(client, name, "cluster_id", models.PayloadSchemaType.INTEGER)
        if client.count(name, exact=True).count < len(state):  # emptied or replaced since: send all
            state = {}
    else:
        state = {}
        years = Counter(year_of(d) for (d,) in conn.execute(
            "SELECT day FROM chunks WHERE searchable = 1 AND day IS NOT NULL"))
        dim = conn.execute("SELECT length(embedding) / 4 FROM chunk_vectors LIMIT 1").fetchone()
        meta = {"index": index_identity(conn), "embedder": embedder, "dim": int(dim[0]) if dim else 0,
                "sharded": sharded,
                "shard_by": choose_shard_by(years) if shard_by == "auto" else shard_by,
                "averages": list(_averages(conn)), "periods": []}
        client.create_collection(
            name, vectors_config={DENSE: models.VectorParams(size=meta["dim"], distance=models.Distance.COSINE)},
            sparse_vectors_config={LEXICAL: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            sharding_method=models.ShardingMethod.CUSTOM if sharded else None,
            metadata={"trag_tui": meta})
        for key, schema in (("day", models.PayloadSchemaType.INTEGER),
                            ("cluster_id", models.PayloadSchemaType.INTEGER),
                            ("facets", models.PayloadSchemaType.INTEGER),
                            ("period", models.PayloadSchemaType.KEYWORD),
                            ("searchable", models.PayloadSchemaType.BOOL)):
            quiet_payload_index(client, name, key, schema)
        if known:
            with transaction(conn):
                conn.execute("DELETE FROM push_state WHERE target_id = ?", known)
    tid = _target_id(conn, target.key())  # accepted: from here the file records what is sent
    report = PushReport(target.key(), shard_by=meta["shard_by"], sharded=bool(meta.get("sharded")))
    sharded = report.sharded
    facets = _document_facets(index)
    changed: list[tuple[int, str]] = []
    new_periods: set[str] = set()
    seen: set[int] = set()
    for row in _rows(conn):
        seen.add(row[0])
        period = period_of(row[4], meta["shard_by"])
        h = _hash(row, facets.get(row[1], []), period)
        if state.get(row[0]) != h:
            changed.append((row[0], h))
            new_periods.add(period)
    report.chunks = len(seen)
    report.unchanged = len(seen) - len(changed)
    gone = sorted(set(state) - seen)
    periods = list(meta.get("periods", []))
    new = sorted(new_periods - set(periods))
    if new:
        for p in new:
            if sharded:
                client.create_shard_key(name, p)
        periods = sorted(set(periods) | set(new))
        meta["periods"] = periods
        client.update_collection(name, metadata={"trag_tui": meta})
    report.periods = periods
    for i in range(0, len(gone), batch):
        part = gone[i:i + batch]
        extra: dict[str, Any] = {"shard_key_selector": periods} if sharded else {}
        client.delete(name, points_selector=models.PointIdsList(points=part), **extra)
        with transaction(conn):
            conn.executemany("DELETE FROM push_state WHERE target_id = ? AND chunk_id = ?",
                             [(tid, u) for u in part])
        report.deleted += len(part)
    stemmer = Stemmer()
    averages = tuple(meta.get("averages") or (1.0, 1.0))
    total = len(changed)
    for i in range(0, total, batch):
        part = changed[i:i + batch]
        by_period: dict[str, list] = {}
        for row in _rows_with_vectors(conn, [u for u, _ in part]):
            payload = _payload(row, facets.get(row[1], []), meta["shard_by"])
            vector = {}
            if row[-1] is not None:
                terms = document_terms(stemmer, payload["text"], payload["title"], averages)
                vector = {DENSE: np.frombuffer(row[-1], dtype="<f4").tolist(),
                          LEXICAL: models.SparseVector(indices=list(terms), values=list(terms.values()))}
            by_period.setdefault(payload["period"] if sharded else "", []).append(
                models.PointStruct(id=row[0], vector=vector, payload=payload))
        for period, points in by_period.items():
            extra = {"shard_key_selector": period} if sharded else {}  # one period's key
            client.upsert(name, points=points, wait=True, **extra)
        with transaction(conn):  # only what the target acknowledged counts as sent
            conn.executemany("INSERT OR REPLACE INTO push_state (target_id, chunk_id, hash) VALUES (?, ?, ?)",
                             [(tid, u, h) for u, h in part])
        report.sent += len(part)
        if progress is not None:
            progress(report.sent, total)
    table = facet_table(conn)
    if table["hash"] != stored_facets:  # after the points whose facet ids it names
        client.update_collection(name, metadata={FACETS_KEY: table})
    with transaction(conn):
        conn.execute("UPDATE push_targets SET pushed_at = ? WHERE id = ?",
                     (dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), tid))
    return report


def facet_table(conn: sqlite3.Connection) -> dict:
    """The file's facets (id, name, kind) and their aliases, with a hash: what the facet ids in
    the points mean, so a pull can take a slice by a speaker's or source's name."""
    names = [list(r) for r in conn.execute("SELECT id, name, kind FROM facets ORDER BY id")]
    aliases = [list(r) for r in conn.execute("SELECT alias, facet_id FROM facet_aliases ORDER BY 1, 2")]
    digest = hashlib.blake2b(repr((names, aliases)).encode(), digest_size=16).hexdigest()
    return {"hash": digest, "names": names, "aliases": aliases}


def _document_facets(index) -> dict[int, list[int]]:
    """Each document's facet ids, read after the facets are brought up to date."""
    facet_index(index)  # reads the facets of documents not read yet
    out: dict[int, list[int]] = {}
    for doc, fid in index.conn.execute("SELECT document_id, facet_id FROM document_facets ORDER BY 1, 2"):
        out.setdefault(doc, []).append(fid)
    return out


__all__ = ["BATCH", "PushReport", "facet_table", "index_identity", "push"]
