"""Writing a person's slice of a Qdrant collection into one index file, without embedding anything.

The cluster holds everything; a person carries a period, a speaker or a source, with the whole
engine, offline. A slice is whole documents: the collection is scrolled once, for ids and keys
only, under the period and facet filters (every chunk of a document carries its day and
facets, so a selected document comes with every chunk, parent passages included); the points
are then fetched by id, a batch of whole documents at a time, with the vectors stored at push
time. Documents are written through the indexer's own `insert_documents`, a batch of
whole documents per transaction, so a pull that stops half-way leaves a consistent file and a
re-run writes only what is missing: a document already in the file (same source id, same
content hash) is never written twice.

The slice keeps the collection's corroboration scores (centrality, told days and near-duplicate
clusters of the whole collection, not recomputed over the slice), so the file ranks its passages as the
cluster does. Facets are read again from the pulled documents, as indexing reads them.
"""
from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import cast

import numpy as np

from ...chunking import Chunk
from ...documents import DateSource, Document
from ...errors import PullError
from ...facets import Stemmer, update_facets
from ...periods import update_periods
from ...storage.db import get_meta, sqlite3, transaction, writer_lock
from ...storage.file import check_sound
from ...storage.schema import MAX_DIM, recordable
from ...storage.store import (
    PreparedDocument,
    delete_documents,
    embed_text,
    ensure_embedder,
    from_day,
    insert_documents,
    text_hash,
    to_day,
)
from ..candidates import DayRange
from .points import MAX_ID, Point, bad, checked_meta
from .qdrant import DENSE, FACETS_KEY, Target, client_module, periods_in

BATCH = 1000  # chunks per written batch (whole documents, so a batch may hold more)
PAGE = 1000  # points per look-up of whole points
# Points per scroll of ids and keys (a few small fields each): few pages, since local mode
# evaluates the filter over the whole collection for every page.
KEYS_PAGE = 10_000
_DATE_SOURCES = ("filename", "xml", "metadata", "text", "default", "unknown")




@dataclass(frozen=True)
class Slice:
    """What to pull: an inclusive day range (None: open) and speakers or sources by name."""

    lo: int | None = None
    hi: int | None = None
    facets: tuple[str, ...] = ()

    @property
    def dated(self) -> bool:
        """Whether the slice is a period (undated documents are then left out)."""
        return self.lo is not None or self.hi is not None

    @property
    def days(self) -> DayRange:
        """The slice's days as retrieval bounds them."""
        return DayRange(self.lo, self.hi, include_undated=not self.dated)


def slice_of(period: str | None = None, since: dt.date | None = None, until: dt.date | None = None,
             facets: tuple[str, ...] = (), as_of: dt.date | None = None) -> Slice:
    """A slice from a period as a question names one ("2019", "March 2019", "Q4 2023", "the
    1990s"), read by the question parser, narrowed by --since/--until dates."""
    lo, hi = to_day(since), to_day(until)
    if period is not None and period.strip():
        from ...temporal.question import parse

        found = parse(period, as_of or dt.date.today())
        if found.start is None and found.end is None:
            raise PullError(f"{period!r} names no period (try 2019, March 2019, Q4 2023 or the 1990s)")
        start, end = to_day(found.start), to_day(found.end)
        lo = start if lo is None or (start is not None and start > lo) else lo
        hi = end if hi is None or (end is not None and end < hi) else hi
    if lo is not None and hi is not None and lo > hi:
        raise PullError(f"an empty period: {from_day(lo)} is after {from_day(hi)}")
    names = tuple(" ".join(f.split()) for f in facets if f.strip())
    return Slice(lo, hi, names)


@dataclass
class PullReport:
    """What a pull did."""

    source: str
    selected: int = 0
    documents: int = 0
    chunks: int = 0
    kept: int = 0
    replaced: int = 0
    seconds: float = 0.0
    facets: list[str] = field(default_factory=list)
    start: str | None = None
    end: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {**asdict(self), "seconds": round(self.seconds, 3)}


def pull(index, target: Target, what: Slice, *, client=None, batch: int = BATCH,
         progress: Callable[[int, int], None] | None = None) -> PullReport:
    """Write the documents of `what` from the collection at `target` into the open index; see
    the module docstring. Refuses a file whose embedder differs from the collection's."""
    if index.readonly:
        raise PullError(f"{index.path} is read-only: a pull writes into it")
    _, models = client_module()
    own = client is None
    client = client if client is not None else target.connect(create=False)
    started = time.perf_counter()
    try:
        with writer_lock(index.path):
            report = _pull(index, target, what, client, models, batch, progress)
    finally:
        if own:
            client.close()
    report.seconds = time.perf_counter() - started
    return report


def _collection(client, target: Target) -> tuple[dict, dict | None]:
    """The collection's trag-tui metadata and its facet table (None when pushed without one),
    each value checked: they come from outside."""
    if not client.collection_exists(target.collection):
        raise PullError(f"{target.key()}: no such collection; `trag-tui push --to` it first")
    metadata = client.get_collection(target.collection).config.metadata or {}
    meta = metadata.get("trag_tui") or {}
    if not meta:
        raise PullError(f"{target.key()}: this collection was not pushed by trag-tui")
    return checked_meta(meta, target.key()), _facet_table(metadata.get(FACETS_KEY), target.key())


def _facet_table(table, where: str) -> dict | None:
    """The facet table, its rows [id, name, kind] and [alias, id] with their types checked."""
    if table is None:
        return None
    names, aliases = (table.get("names", []), table.get("aliases", [])) if isinstance(table, dict) else (0, 0)

    def whole(x) -> bool:
        return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_ID

    if (not isinstance(names, list) or not isinstance(aliases, list)
            or not all(isinstance(r, list) and len(r) == 3 and whole(r[0]) and isinstance(r[1], str)
                       and isinstance(r[2], str) for r in names)
            or not all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and whole(r[1])
                       for r in aliases)):
        raise bad(where, f"its facet table ({FACETS_KEY}) is not the one push records")
    return table


def _check_embedder(conn: sqlite3.Connection, path, target: Target, meta: dict) -> tuple[str, int]:
    name, dim = meta.get("embedder"), meta.get("dim")
    if not name or not dim:
        raise PullError(f"{target.key()}: the collection records no embedder")
    if (not isinstance(name, str) or isinstance(dim, bool) or not isinstance(dim, int)
            or not 1 <= dim <= MAX_DIM or not recordable(name, dim)):
        raise bad(target.key(), f"it records the embedder {str(name)[:60]!r} with dimension {str(dim)[:20]}, "
                                "not one trag-tui records")
    have = get_meta(conn, "embedder")
    have_dim = int(get_meta(conn, "embedding_dim") or 0)
    if have is not None and (have != name or have_dim != dim):
        raise PullError(f"{path} uses the embedder {have!r} ({have_dim}-d) and {target.key()} holds vectors "
                        f"of {name!r} ({dim}-d): pull into a new file")
    return name, dim


def _norm(name: str) -> str:
    return " ".join(name.split()).casefold()


def facet_ids(table: dict, wanted: tuple[str, ...], where: str) -> list[int]:
    """The collection's facet ids for names as a person writes them: a facet's name (any case),
    or one of its aliases read with the index's tokenizer ("Starmer", "the Philadelphia Fed")."""
    by_name: dict[str, list[int]] = {}
    for fid, name, _ in table.get("names", []):
        by_name.setdefault(_norm(name), []).append(int(fid))
    by_alias: dict[str, list[int]] = {}
    for alias, fid in table.get("aliases", []):
        by_alias.setdefault(alias, []).append(int(fid))
    stemmer = Stemmer()
    out: list[int] = []
    for want in wanted:
        stems = stemmer.stems(want)
        found = by_name.get(_norm(want)) or by_alias.get(" ".join(stems))
        if not found:  # "the Philadelphia Fed": the longest run of words that is an alias
            runs = [stems[i:i + n] for n in range(len(stems) - 1, 0, -1) for i in range(len(stems) - n + 1)]
            found = next((by_alias[" ".join(r)] for r in runs if " ".join(r) in by_alias), None)
        if not found:
            near = sorted(n for fid, n, _ in table.get("names", []) if _norm(want) in _norm(n))[:3]
            hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
            raise PullError(f"no speaker or source named {want!r} in {where}{hint}")
        out.extend(f for f in found if f not in out)
    return out


def _filter(models, what: Slice, table: dict | None, where: str):
    must = []
    if what.dated:  # an undated document is in no period
        lo, hi = what.days.bounds()
        must.append(models.FieldCondition(key="day", range=models.Range(gte=lo, lte=hi)))
    if what.facets:
        if table is None:  # pushed before the facet table travelled: speakers by their exact name
            must.append(models.FieldCondition(key="speaker", match=models.MatchAny(any=list(what.facets))))
        else:
            ids = facet_ids(table, what.facets, where)
            must.append(models.FieldCondition(key="facets", match=models.MatchAny(any=ids)))
    return models.Filter(must=must) if must else None


def _scroll(client, collection: str, where, payload, **extra):
    offset = None
    while True:
        points, offset = client.scroll(collection, scroll_filter=where, limit=KEYS_PAGE, offset=offset,
                                       with_payload=payload, **extra)
        yield from points
        if offset is None:
            return


def _source_row(conn: sqlite3.Connection, key: str) -> int:
    """The files row that owns the pulled documents: one per collection, never a file on disk."""
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    with transaction(conn):
        conn.execute("INSERT OR IGNORE INTO files (path, size, mtime_ns, content_hash, complete, indexed_at) "
                     "VALUES (?, 0, 0, '', 1, ?)", (key, now))
        conn.execute("UPDATE files SET indexed_at = ? WHERE path = ?", (now, key))
    return conn.execute("SELECT id FROM files WHERE path = ?", (key,)).fetchone()[0]


@dataclass
class _Selected:
    """The slice as the first scroll finds it: documents, their points, and the clusters."""

    docs: dict[int, tuple[str, str, list[int]]] = field(default_factory=dict)  # document: source id, hash, points
    place: dict[int, tuple[int, int]] = field(default_factory=dict)  # point: (document, ordinal)
    members: dict[int, list[int]] = field(default_factory=dict)  # cluster: its points in the slice
    local: dict[int, int] = field(default_factory=dict)  # point: the file's chunk id, once known


def _select(client, collection: str, where, meta: dict, what: Slice, source: str) -> _Selected:
    found = _Selected()
    extra: dict = {}
    if meta.get("sharded") and what.dated:  # a period asks only the shards of its decades or years
        periods = periods_in(what.days, list(meta.get("periods", [])), meta.get("shard_by", "decade"))
        if periods == []:
            return found
        if periods is not None:
            extra["shard_key_selector"] = periods
    fields = ["document_id", "doc_id", "content_hash", "ordinal", "cluster_id"]
    for p in _scroll(client, collection, where, fields, **extra):
        pt = Point(source, p)
        uid, d = pt.id, pt.whole("document_id")
        doc = found.docs.setdefault(d, (pt.text("doc_id", ""), pt.text("content_hash", "") or f"pulled:{d}", []))
        doc[2].append(uid)
        found.place[uid] = (d, pt.whole("ordinal", -1, lo=-1))
        cluster = pt.optional_whole("cluster_id")
        if cluster is not None:
            found.members.setdefault(cluster, []).append(uid)
    for doc in found.docs.values():
        doc[2].sort()
    return found


def _pull(index, target, what, client, models, batch, progress) -> PullReport:
    conn = index.conn
    meta, table = _collection(client, target)
    name, dim = _check_embedder(conn, index.path, target, meta)
    where = _filter(models, what, table, target.key())
    report = PullReport(target.key(), facets=list(what.facets), start=_iso(what.lo), end=_iso(what.hi))
    sel = _select(client, target.collection, where, meta, what, target.key())  # ids and keys: no text, no vectors
    report.selected = len(sel.docs)
    check_sound(conn, index.path)  # before the first write
    have = set(conn.execute("SELECT source_id, content_hash FROM documents"))
    wanted = {(s, h) for s, h, _ in sel.docs.values()}
    ids = {s for s, _ in wanted}
    todo = sorted(d for d, (s, h, _) in sel.docs.items() if (s, h) not in have)
    batches = _batches(todo, sel, batch)
    first = _read(client, target, dim, sel, batches[0]) if batches else None  # checked before any write
    ensure_embedder(conn, name, dim)
    file_id = _source_row(conn, "pull:" + target.key())
    # A document this collection gave before and has changed since (or whose row it now uses
    # for another document, after the pushed file was rebuilt) is replaced.
    places = set(todo)
    before = conn.execute("SELECT id, ordinal, source_id, content_hash FROM documents WHERE file_id = ?",
                          (file_id,)).fetchall()
    stale = [i for i, o, s, h in before if (s in ids and (s, h) not in wanted) or o in places]
    # Documents of earlier pulls outside this slice: their chunks may share clusters with these.
    outside = any((s, h) not in wanted for i, _, s, h in before if i not in stale)
    report.kept = len(sel.docs) - len(todo)
    total = sum(len(sel.docs[d][2]) for d in todo)
    if stale:
        with transaction(conn):
            delete_documents(conn, stale)
        report.replaced = len(stale)
    for n, part in enumerate(batches):
        read = first if n == 0 and first is not None else _read(client, target, dim, sel, part)
        _write(conn, client, target, file_id, read, sel, outside, report)
        if progress is not None:
            progress(report.chunks, total)
    with transaction(conn):
        conn.execute("UPDATE files SET documents = (SELECT count(*) FROM documents WHERE file_id = ?) "
                     "WHERE id = ?", (file_id, file_id))
    update_facets(conn)
    update_periods(conn)
    return report


def _iso(day: int | None) -> str | None:
    date = from_day(day)
    return date.isoformat() if date else None


def _batches(todo: list[int], sel: _Selected, batch: int) -> list[list[int]]:
    """Whole documents in batches of about `batch` chunks."""
    out: list[list[int]] = []
    part: list[int] = []
    size = 0
    for d in todo:
        part.append(d)
        size += len(sel.docs[d][2])
        if size >= batch or d == todo[-1]:
            out.append(part)
            part, size = [], 0
    return out


@dataclass
class _Read:
    """A batch of documents as the collection gave them, every value checked, nothing written."""

    prepared: list[PreparedDocument] = field(default_factory=list)  # file_id 0: set on writing
    vectors: dict[str, bytes] = field(default_factory=dict)
    ordinals: list[tuple[int, dict[int, int]]] = field(default_factory=list)  # (document, {point: ordinal})
    scores: list[tuple[float | None, int | None, int]] = field(default_factory=list)  # centrality, told day, point
    clusters: set[int] = field(default_factory=set)


def _read(client, target: Target, dim: int, sel: _Selected, doc_ids: list[int]) -> _Read:
    """These documents' points, fetched by id with their vectors, every value checked (`points`)
    before anything of them is written."""
    wanted = [u for d in doc_ids for u in sel.docs[d][2]]
    where = target.key()
    points: dict[int, list[Point]] = {}
    for i in range(0, len(wanted), PAGE):
        for p in client.retrieve(target.collection, wanted[i:i + PAGE], with_payload=True, with_vectors=[DENSE]):
            pt = Point(where, p)
            points.setdefault(pt.whole("document_id"), []).append(pt)
    out = _Read()
    for d in doc_ids:
        found = sorted(points.get(d, []), key=lambda p: p.id)
        if not found:
            continue  # deleted from the collection since the first scroll
        ordinal_of = _ordinals(found, where)
        chunks, hashes = [], []
        for p in found:
            parent = p.optional_whole("parent_id")
            chunk = Chunk(ordinal_of[p.id], p.text("text"), p.whole("start_char"), p.whole("end_char"),
                          p.flag("searchable", True), None if parent is None else ordinal_of.get(parent))
            h = text_hash(embed_text(p.text("title", ""), chunk.text))
            if chunk.searchable:
                dense = p.dense(dim)
                if dense is None:
                    raise bad(where, f"point {p.id} is searchable but holds no vector")
                out.vectors[h] = np.asarray(dense, dtype="<f4").tobytes()
            out.scores.append((p.number("centrality"), p.day("told_day"), p.id))
            if (cluster := p.optional_whole("cluster_id")) is not None:
                out.clusters.add(cluster)
            chunks.append(chunk)
            hashes.append(h)
        p0 = found[0]
        date = p0.date("date")
        source = p0.optional_text("date_source")
        doc = Document(text="", title=p0.text("title", ""), speaker=p0.text("speaker", ""), date=date,
                       date_source=cast(DateSource, source if source in _DATE_SOURCES
                                        else ("metadata" if date else "unknown")),
                       source_id=p0.optional_text("doc_id"), meta=p0.mapping("meta"))
        content = p0.text("content_hash", "") or f"pulled:{d}"
        out.prepared.append(PreparedDocument(0, d, doc, doc.source_id or "", content, chunks, hashes))
        out.ordinals.append((d, ordinal_of))
    return out


def _write(conn, client, target, file_id: int, read: _Read, sel: _Selected, outside: bool,
           report: PullReport) -> None:
    """One transaction: a batch of documents whole, with their vectors, offsets and corroboration."""
    if not read.prepared:
        return
    with transaction(conn):
        insert_documents(conn, [replace(p, file_id=file_id) for p in read.prepared], read.vectors)
        for d, ordinal_of in read.ordinals:
            ids = dict(conn.execute(
                "SELECT c.ordinal, c.id FROM chunks c JOIN documents o ON o.id = c.document_id "
                "WHERE o.file_id = ? AND o.ordinal = ?", (file_id, d)))
            sel.local.update((uid, ids[o]) for uid, o in ordinal_of.items())
        conn.executemany("UPDATE chunks SET centrality = ?, told_day = ? WHERE id = ?",
                         [(c, t, sel.local[uid]) for c, t, uid in read.scores])
        conn.executemany("UPDATE chunks SET cluster_id = ? WHERE id = ?",
                         _clusters(conn, client, target, sorted(read.clusters), sel, outside))
    report.documents += len(read.prepared)
    report.chunks += sum(len(p.chunks) for p in read.prepared)


def _ordinals(found: list[Point], where: str) -> dict[int, int]:
    """Each point's chunk ordinal in its document (its place when pushed without one); two
    chunks of one document never share one."""
    out = {p.id: p.whole("ordinal", n) for n, p in enumerate(found)}
    if len(set(out.values())) != len(out):
        raise bad(where, f"two points of document {found[0].whole('document_id')} have the same ordinal")
    return out


def _clusters(conn, client, target: Target, keys: list[int], sel: _Selected, outside: bool
              ) -> list[tuple[int, int]]:
    """(representative, chunk) for every chunk the file holds of these near-duplicate clusters:
    the collection's clusters cut to the file, each led by its member with the smallest
    collection id, whatever order the slices were pulled in."""
    members: dict[int, dict[int, dict | None]] = {k: {u: None for u in sel.members.get(k, [])} for k in keys}
    if outside and keys:  # members pulled in earlier runs: asked of the collection
        _, models = client_module()
        where = models.Filter(must=[models.FieldCondition(key="cluster_id", match=models.MatchAny(any=keys))])
        for p in _scroll(client, target.collection, where, ["cluster_id", "doc_id", "content_hash", "ordinal"]):
            pt = Point(target.key(), p)
            cluster = pt.whole("cluster_id")
            if cluster in members:
                members[cluster].setdefault(pt.id, {"doc_id": pt.optional_text("doc_id"),
                                                    "content_hash": pt.optional_text("content_hash"),
                                                    "ordinal": pt.whole("ordinal", -1, lo=-1)})
    out: list[tuple[int, int]] = []
    for found in members.values():
        held = [c for u in sorted(found) if (c := _chunk(conn, sel, u, found[u])) is not None]
        out.extend((held[0], c) for c in held)
    return out


def _chunk(conn, sel: _Selected, uid: int, payload: dict | None) -> int | None:
    """The file's chunk id for the collection's point, if the file holds it."""
    if uid not in sel.local:
        if payload is not None:
            key = (payload.get("doc_id"), payload.get("content_hash"), payload.get("ordinal", -1))
        elif uid in sel.place:  # a document of the slice the file already held
            d, ordinal = sel.place[uid]
            key = (sel.docs[d][0], sel.docs[d][1], ordinal)
        else:
            return None
        row = conn.execute("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id "
                           "WHERE d.source_id = ? AND d.content_hash = ? AND c.ordinal = ?", key).fetchone()
        if row is None:
            return None
        sel.local[uid] = row[0]
    return sel.local[uid]


__all__ = ["BATCH", "PullError", "PullReport", "Slice", "facet_ids", "pull", "slice_of"]
