"""Search, size and build cost of one index file at a million chunks.

Builds (or reuses, `--index FILE`) an index of `--chunks` searchable chunks made of the shared
corpora's real text repeated: copy r of a corpus is dated r × 60 years earlier, has its own
source ids, and leaves out a different tenth of its words (a re-edited record, so that no two
copies embed alike). Documents go through the indexer's own write path (chunking, embedding,
the batch transactions) without reading files, then the passes `index` runs after its batches
(evidence graph, facets, periods, the compact vector copy). Vectors come from the deterministic
hash embedder (`embedder` in the output says so): embedding a million chunks with MiniLM takes
about nine hours here (33.6 ms a chunk), and a vector search's time does not depend on the
vectors' values (the first pass: 8.6 ms for a hash question vector, 8.4 for a dense one).

Indexing throughput at scale is derived, not measured end to end: everything but embedding is
timed at the full size with the hash embedder (its own encode() time taken out), and MiniLM's
encode() floor per chunk is measured on a sample of the same chunks in the same run; the ratio
is floor / (floor + the rest), what `index` would reach with MiniLM at this size.

Then every retrieval mode is timed warm (a session, as the chat app and `eval` run), the first
question of a fresh process (`cold_first_ms`, the single-question path), and the compact first
pass's recall@10 against exact search over the same day ranges.
Usage: python bench/scale_bench.py --chunks 1000000 --json [--index FILE] [--queries N]
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(REPO))

CORPORA = ["beige_book", "realtimeqa", "locomo", "uk_hansard"]
SHIFT_YEARS = 60


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def base_documents() -> list[tuple[str, list]]:
    """Each corpus's documents as its reader makes them."""
    from trag_tui.ingest import read_file

    out = []
    for name in CORPORA:
        path = SHARED / "corpora" / name / "docs.jsonl"
        if path.exists():
            out.append((name, read_file(path, max_bytes=1 << 30, seconds=3600).documents))
    return out


def shifted(doc, r: int):
    """Copy r of a document: dated r × SHIFT_YEARS years earlier, its own id, a tenth of its
    words (a different tenth per copy) left out."""
    if r == 0:
        return doc
    date = doc.date
    if date is not None:
        try:
            date = date.replace(year=date.year - SHIFT_YEARS * r)
        except ValueError:  # 29 February in a year that has none
            date = date.replace(year=date.year - SHIFT_YEARS * r, day=28)
    words = doc.text.split(" ")
    seed = f"{doc.source_id}~{r}".encode()
    keep = hashlib.blake2b(seed, digest_size=len(words) if len(words) <= 64 else 64).digest()
    text = " ".join(w for i, w in enumerate(words) if keep[i % len(keep)] % 10 != r % 10)
    return dataclasses.replace(doc, date=date, text=text or doc.text,
                               source_id=f"{doc.source_id}~{r}")


class TimedEmbedder:
    """The hash embedder, with its encode() time kept apart (the part MiniLM replaces)."""

    def __init__(self, inner):
        self.inner, self.name, self.dim, self.seconds, self.count = inner, inner.name, inner.dim, 0.0, 0

    def encode(self, texts):
        t0 = time.perf_counter()
        out = self.inner.encode(texts)
        self.seconds += time.perf_counter() - t0
        self.count += len(texts)
        return out


def build(db: Path, target: int) -> dict:
    """Write `target` searchable chunks (a few more: whole documents) into a new index file."""
    from trag_tui.chunking import chunk_text
    from trag_tui.corroboration import update_corroboration
    from trag_tui.facets import update_facets
    from trag_tui.indexer import Indexer, Progress, Summary
    from trag_tui.models.embedding import HashEmbedder
    from trag_tui.periods import update_periods
    from trag_tui.settings import Settings
    from trag_tui.storage.db import transaction
    from trag_tui.storage.file import connect
    from trag_tui.storage.quantised import update_compact

    settings = Settings(db=db, embedder="hash", chunk_words=150, chunk_overlap=30,
                        parent_words=450, write_batch_chunks=2048)
    corpora = base_documents()
    searchable = {id(d): sum(c.searchable for c in chunk_text(d.text, 150, 30, 450))
                  for _, docs in corpora for d in docs}
    _log(f"read {sum(len(d) for _, d in corpora)} documents, "
         f"{sum(searchable.values())} searchable chunks a copy")
    t0 = time.perf_counter()
    conn = connect(db)
    embedder = TimedEmbedder(HashEmbedder())
    indexer = Indexer(conn, db, embedder, settings)
    summary, state = Summary(), Progress()
    total, r, phases = 0, 0, {}
    while total < target:
        for name, docs in corpora:
            take = []
            for d in docs:
                if total >= target:
                    break
                copy = shifted(d, r)  # a tenth of its words left out: fewer chunks than d's
                take.append(copy)
                total += searchable[id(d)] if r == 0 else sum(
                    c.searchable for c in chunk_text(copy.text, 150, 30, 450))
            if not take:
                break
            now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            with transaction(conn):
                file_id = conn.execute(
                    "INSERT INTO files (path, size, mtime_ns, content_hash, complete, indexed_at) "
                    "VALUES (?, 0, 0, ?, 0, ?)", (f"scale:{name}~{r}", f"copy {r}", now)).lastrowid
            indexer._store_documents(file_id, f"scale:{name}~{r}", take, 0, summary, state)
            with transaction(conn):
                conn.execute("UPDATE files SET complete = 1, documents = ? WHERE id = ?",
                             (len(take), file_id))
            _log(f"copy {r} {name}: {total} chunks, {time.perf_counter() - t0:.0f} s")
        r += 1
    phases["documents_s"] = round(time.perf_counter() - t0, 1)
    for label, step in (("evidence_graph_s", update_corroboration), ("facets_s", update_facets),
                        ("periods_s", update_periods), ("compact_copy_s", update_compact)):
        t1 = time.perf_counter()
        step(conn)
        phases[label] = round(time.perf_counter() - t1, 1)
        _log(f"{label}: {phases[label]} s")
    conn.close()
    build_s = time.perf_counter() - t0
    chunks_embedded = embedder.count
    return {"build_s": round(build_s, 1), "phases": phases, "copies": r,
            "hash_encode_s": round(embedder.seconds, 1), "chunks_embedded": chunks_embedded,
            "build_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def replicate(base: Path, db: Path, target: int) -> dict:
    """Write `target` searchable chunks (whole documents) into a new index file by copying a
    finished index (one `index` made, with its evidence graph, facets and periods) over and
    over in SQL: copy r is dated r × SHIFT_YEARS years earlier (its spoken periods and told
    days with it), has its own ids and source ids, and its vectors are the originals moved a
    little at random and normalised (cosine about 0.95 to the original), so no two copies embed
    alike. The text is the same in every copy. Minutes where indexing the same chunks takes
    hours on a shared machine; it measures search, not indexing (see `build`)."""
    import numpy as np

    from trag_tui.storage.db import get_meta, transaction
    from trag_tui.storage.file import connect
    from trag_tui.storage.store import UNKNOWN_DAY, as_blob, ensure_embedder, sign_code

    t0 = time.perf_counter()
    src = connect(base, write=False)
    name, dim = get_meta(src, "embedder"), int(get_meta(src, "embedding_dim"))
    ids, blobs = [], []
    for uid, blob in src.execute("SELECT chunk_id, embedding FROM chunk_vectors"):
        ids.append(uid)
        blobs.append(blob)
    vec_ids = np.asarray(ids, dtype=np.int64)
    vectors = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(len(blobs), dim)
    del blobs
    counts = src.execute("SELECT document_id, count(*) FROM chunks WHERE searchable = 1 "
                         "GROUP BY document_id ORDER BY document_id").fetchall()
    max_doc = src.execute("SELECT max(id) FROM documents").fetchone()[0]
    max_chunk = src.execute("SELECT max(id) FROM chunks").fetchone()[0]
    max_file = src.execute("SELECT max(id) FROM files").fetchone()[0]
    src.close()
    conn = connect(db)
    ensure_embedder(conn, name, dim)
    conn.execute("ATTACH DATABASE ? AS base", (str(base),))
    conn.execute("PRAGMA foreign_keys = OFF")  # rows are copied whole, parents with children
    rng = np.random.default_rng(7)
    total, r = 0, 0
    with transaction(conn):
        conn.execute("INSERT OR REPLACE INTO meta SELECT key, value FROM base.meta "
                     "WHERE key NOT IN ('embedder', 'embedding_dim', 'index_id')")
        conn.execute("INSERT INTO facets SELECT * FROM base.facets")
        conn.execute("INSERT INTO facet_aliases SELECT * FROM base.facet_aliases")
    while total < target:
        last_doc, n = max_doc, 0
        for doc, c in counts:
            if total + n >= target:
                last_doc = doc - 1
                break
            n += c
        doff, coff, foff = r * (max_doc + 1), r * (max_chunk + 1), r * (max_file + 1)
        shift = f"-{SHIFT_YEARS * r} years"
        new_day = ("CAST(julianday(date(d.date, ?)) - 2440587.5 AS INTEGER)")
        with transaction(conn):
            conn.execute(
                "INSERT INTO files (id, path, size, mtime_ns, content_hash, complete, documents, "
                "note, indexed_at, error) SELECT id + ?, path || '~' || ?, size, mtime_ns, "
                "content_hash, complete, documents, note, indexed_at, error FROM base.files",
                (foff, r))
            conn.execute(
                "INSERT INTO documents (id, file_id, ordinal, source_id, title, speaker, date, day, "
                "date_source, content_hash, meta) SELECT d.id + ?, d.file_id + ?, d.ordinal, "
                "d.source_id || '~' || ?, d.title, d.speaker, date(d.date, ?), "
                f"CASE WHEN d.day IS NULL THEN NULL ELSE {new_day} END, d.date_source, "
                "d.content_hash, d.meta FROM base.documents d WHERE d.id <= ?",
                (doff, foff, r, shift, shift, last_doc))
            conn.execute(
                "INSERT INTO chunks (id, document_id, ordinal, parent_id, searchable, text, "
                "start_char, end_char, day, content_hash, signature, centrality, pagerank, "
                "cluster_id, told_day) SELECT c.id + ?, c.document_id + ?, c.ordinal, "
                "c.parent_id + ?, c.searchable, c.text, c.start_char, c.end_char, d.day, "
                "c.content_hash, c.signature, c.centrality, c.pagerank, c.cluster_id + ?, "
                "c.told_day + (d.day - c.day) FROM base.chunks c JOIN main.documents d "
                "ON d.id = c.document_id + ? WHERE c.document_id <= ?",
                (coff, doff, coff, coff, doff, last_doc))
            conn.execute(
                "INSERT INTO chunk_fts (rowid, text, title) SELECT c.id, c.text, d.title "
                "FROM main.chunks c JOIN main.documents d ON d.id = c.document_id "
                "WHERE c.searchable = 1 AND c.id BETWEEN ? AND ?", (coff, coff + max_chunk))
            conn.execute(
                "INSERT INTO chunk_edges SELECT e.a + ?, e.b + ?, e.weight FROM base.chunk_edges e "
                "WHERE e.b + ? IN (SELECT id FROM main.chunks) AND e.a + ? IN "
                "(SELECT id FROM main.chunks)", (coff, coff, coff, coff))
            conn.execute("INSERT INTO document_facets SELECT facet_id, document_id + ? "
                         "FROM base.document_facets WHERE document_id <= ?", (doff, last_doc))
            conn.execute("INSERT INTO facet_seen SELECT document_id + ? FROM base.facet_seen "
                         "WHERE document_id <= ?", (doff, last_doc))
            conn.execute("INSERT INTO periods_seen SELECT document_id + ? FROM base.periods_seen "
                         "WHERE document_id <= ?", (doff, last_doc))
            conn.execute(
                "INSERT INTO chunk_periods (chunk_id, start_day, end_day, source, expression) "
                "SELECT p.chunk_id + ?, p.start_day + coalesce(n.day - o.day, 0), "
                "p.end_day + coalesce(n.day - o.day, 0), p.source, p.expression "
                "FROM base.chunk_periods p JOIN base.chunks o ON o.id = p.chunk_id "
                "JOIN main.chunks n ON n.id = p.chunk_id + ?", (coff, coff))
            day_of = dict(conn.execute(
                "SELECT id, coalesce(day, ?) FROM main.chunks WHERE searchable = 1 "
                "AND id BETWEEN ? AND ?", (UNKNOWN_DAY, coff, coff + max_chunk)))
            keep = np.asarray([int(u) + coff in day_of for u in vec_ids])
            moved = vectors[keep]
            if r:
                noise = rng.standard_normal(moved.shape).astype(np.float32)
                noise *= 0.33 * np.linalg.norm(moved, axis=1, keepdims=True) / np.sqrt(dim)
                moved = moved + noise
                moved /= np.linalg.norm(moved, axis=1, keepdims=True)
            rows = [(int(u) + coff, b, day_of[int(u) + coff])
                    for u, b in zip(vec_ids[keep], as_blob(moved))]
            conn.executemany("INSERT INTO chunk_vectors (chunk_id, embedding, day) VALUES (?, ?, ?)",
                             rows)
            conn.executemany("INSERT INTO chunk_codes (chunk_id, day, code) VALUES (?, ?, ?)",
                             ((u, d, sign_code(b)) for u, b, d in rows))
        total += n
        _log(f"copy {r}: {total} searchable chunks, {time.perf_counter() - t0:.0f} s")
        r += 1
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("DETACH DATABASE base")
    conn.close()
    return {"replicated_s": round(time.perf_counter() - t0, 1), "copies": r,
            "replicated_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def minilm_recall(files: list[Path], n: int, pool: int) -> dict:
    """Recall@10 of the two passes against exact search over `n` MiniLM vectors, with real
    MiniLM questions. Hash vectors are sparse (a question's twenty words set twenty of its 384
    dimensions), so their sign bits say little and their recall is no guide to a real model's:
    this takes the real vectors of MiniLM indexes of the shared corpora and adds copies moved
    at random (cosine about 0.7 to their original: neighbours, not duplicates) up to `n`."""
    import numpy as np

    from trag_tui.models.embedding import load_embedder
    from trag_tui.storage.file import connect
    from trag_tui.storage.quantised import CompactMatrix

    parts = []
    for f in files:
        conn = connect(f, write=False)
        blobs = [r[0] for r in conn.execute("SELECT embedding FROM chunk_vectors")]
        conn.close()
        parts.append(np.frombuffer(b"".join(blobs), "<f4").reshape(len(blobs), -1))
    base = np.vstack(parts)
    rng = np.random.default_rng(3)
    copies, have = [base], len(base)
    while have < n:
        moved = base + rng.standard_normal(base.shape).astype(np.float32) / np.sqrt(base.shape[1])
        moved /= np.linalg.norm(moved, axis=1, keepdims=True)
        copies.append(moved)
        have += len(moved)
    matrix = np.vstack(copies)[:n]
    del copies
    codes = CompactMatrix.__new__(CompactMatrix)
    packed = np.packbits(matrix > 0, axis=1, bitorder="little")
    codes.ids, codes.days, codes.size = np.arange(n), np.zeros(n, dtype=np.int64), packed.shape[1]
    codes.words = np.ascontiguousarray(packed.view("<u8").T)
    questions = []
    for qa in [SHARED / "corpora" / c / "qa.jsonl" for c in ("realtimeqa", "locomo")] + [
            REPO / "bench" / "beige_book_whole_questions.jsonl"]:
        questions += [json.loads(line)["question"] for line in qa.open()][::12]
    vectors = load_embedder(None).encode(questions)
    found = 0
    cpu = []
    for q in vectors:
        sims = matrix @ q
        want = set(np.argpartition(-sims, 10)[:10].tolist())
        c0 = time.process_time()
        picked = codes.nearest(q, None, pool)
        cpu.append((time.process_time() - c0) * 1000)
        found += len(want & set(picked[np.argsort(-sims[picked])[:10]].tolist()))
    return {"vectors": n, "real_vectors": len(base), "questions": len(vectors), "pool": pool,
            "recall@10": round(found / (10 * len(vectors)), 4),
            "first_pass_cpu_p50_ms": round(statistics.median(cpu), 1)}


def minilm_floor(db: Path, n: int = 512) -> dict:
    """MiniLM's encode() seconds per chunk on a sample of the index's own chunks."""
    from trag_tui.models.embedding import load_embedder
    from trag_tui.storage.file import connect
    from trag_tui.storage.store import embed_text

    conn = connect(db, write=False)
    step = max(1, conn.execute("SELECT max(id) FROM chunks").fetchone()[0] // (n * 3))
    rows = conn.execute(
        "SELECT d.title, c.text FROM chunks c JOIN documents d ON d.id = c.document_id "
        "WHERE c.searchable = 1 AND c.id % ? = 0 LIMIT ?", (step, n)).fetchall()
    conn.close()
    texts = [embed_text(t, x) for t, x in rows]
    model = load_embedder(None)
    model.encode(texts[:8])
    t0 = time.perf_counter()
    for i in range(0, len(texts), 64):
        model.encode(texts[i:i + 64])
    return {"sample_chunks": len(texts), "s_per_chunk": (time.perf_counter() - t0) / len(texts)}


COLD = """
import sys, time, datetime as dt
sys.path.insert(0, {repo!r})
from trag_tui.storage.index import open_index
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
t0 = time.perf_counter()
s = Settings.load(db={db!r}, embedder="hash")
idx = open_index(s.db, s)
res = search(idx, {q!r}, as_of=dt.date(2025, 11, 22), k=10)
print((time.perf_counter() - t0) * 1000, len(res.hits))
"""


PER_MODE = 24  # questions of each retrieval mode at least, where the pool holds them


def queries(n: int) -> list[tuple[str, dt.date]]:
    """Every question of the intent development set (all five modes, evolution and comparison
    among them), then `n` more spread evenly over the corpora's own question sets, then more of
    those, spread evenly too, of each mode with fewer than PER_MODE: a p50 over the six
    comparisons an even spread holds moves by the machine's noise alone."""
    from bench.search_bench import question_pool
    from trag_tui.temporal.question import parse

    dev, rest = question_pool()
    step = max(1, len(rest) // max(1, n))
    picked = dev + rest[::step][:n]
    mode = {q: parse(q, as_of).intent for q, as_of in dev + rest}
    have: dict[str, int] = {}
    for q, _ in picked:
        have[mode[q]] = have.get(mode[q], 0) + 1
    chosen = set(picked)
    for want in sorted({m for m in mode.values() if have.get(m, 0) < PER_MODE}):
        more = [qa for qa in rest if mode[qa[0]] == want and qa not in chosen]
        need = PER_MODE - have.get(want, 0)
        picked += more[::max(1, len(more) // need)][:need] if more else []
    return picked


def _pct(values: list[float], share: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(share * len(values)))], 1)


def measure(db: Path, n: int, record: dict, recall: bool = True) -> dict:
    """Warm latency per mode, the first question cold, recall of the compact first pass."""


    from trag_tui.retrieval.candidates import DayRange, DenseMatrix
    from trag_tui.retrieval.modes import Retriever, search
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    settings = Settings.load(db=db, embedder="hash")
    idx = open_index(db, settings)
    chunks = idx.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    backend_compact = None
    qs = queries(n)
    retriever = Retriever(idx, settings)
    for q, as_of in qs[:5]:
        search(idx, q, as_of=as_of, retriever=retriever)  # warm-up: the session's aids load
    by_mode: dict[str, list[float]] = {}
    cpu_by_mode: dict[str, list[float]] = {}
    ranges = []
    for q, as_of in qs:
        retriever._qvec_cache.clear()  # the query embedding is part of the measured time
        t0, c0 = time.perf_counter(), time.process_time()
        res = search(idx, q, as_of=as_of, retriever=retriever)
        by_mode.setdefault(res.query.intent, []).append((time.perf_counter() - t0) * 1000)
        cpu_by_mode.setdefault(res.query.intent, []).append((time.process_time() - c0) * 1000)
        tq = res.query
        lo = None if tq.start is None else (tq.start - dt.date(1970, 1, 1)).days
        hi = None if tq.end is None else (tq.end - dt.date(1970, 1, 1)).days
        ranges.append((tq.semantic_query or q, DayRange(lo, hi, include_undated=tq.start is None)))
    from trag_tui.retrieval.backends import backend_of

    backend_compact = backend_of(idx)._compact()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    # Recall@10 of the two passes against exact search, over each question's own day range.
    found_recall = None
    if backend_compact is not None and recall:
        exact = DenseMatrix(idx.conn)
        hits = total = 0
        for text, days in ranges:
            v = idx.embedder.encode([text])[0]
            want = {u for u, _ in exact.search(v, 10, days)}
            got = {u for u, _ in backend_compact.search(v, 10, days)}
            hits += len(want & got)
            total += len(want)
        found_recall = round(hits / max(1, total), 4)
        del exact
    cold = subprocess.run(
        [sys.executable, "-c", COLD.format(repo=str(REPO), db=str(db),
                                            q="What did the Dallas Fed report about energy prices?")],
        capture_output=True, text=True, check=True).stdout.split()
    size = sum(p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file())
    vec_bytes = idx.conn.execute(
        "SELECT sum(length(vectors)) FROM chunk_vectors_vector_chunks00").fetchone()[0] or 0
    code_bytes = idx.conn.execute("SELECT sum(length(code)) FROM chunk_codes").fetchone()[0] or 0
    idx.close()
    floor = record.get("s_per_chunk")
    rest = None
    if record.get("build_s") and record.get("chunks_embedded"):
        rest = (record["build_s"] - record["hash_encode_s"]) / record["chunks_embedded"]
    names = {"point_in_time": "point_in_time", "current": "current", "evolution": "evolution",
             "comparison": "comparison", "none": "none"}
    return {
        "embedder": "hash-384 (deterministic hash vectors of real corpus text)",
        "chunks": chunks,
        "quantised": backend_compact is not None,
        "modes": {names.get(m, m): {"p50_ms": round(statistics.median(t), 1), "p95_ms": _pct(t, 0.95),
                                     "queries": len(t)} for m, t in sorted(by_mode.items())},
        # CPU time of the same searches: what a quiet machine's wall clock would show, where
        # the wall clock of a shared one counts the time other jobs held the cores.
        "modes_cpu": {m: {"p50_ms": round(statistics.median(t), 1), "p95_ms": _pct(t, 0.95)}
                      for m, t in sorted(cpu_by_mode.items())},
        "load_average": os.getloadavg()[0],
        "cold_first_ms": round(float(cold[0]), 1),
        "quantised_recall@10": found_recall,
        "file_mb": round(size / 2**20, 1),
        "vectors_mb": round(vec_bytes / 2**20, 1),
        "codes_mb": round(code_bytes / 2**20, 1),
        "build_s": record.get("build_s"),
        "build_phases": record.get("phases"),
        "peak_rss_mb": round(peak),
        "build_peak_rss_mb": record.get("build_peak_rss_mb"),
        "indexing": None if rest is None or floor is None else {
            "derived": "MiniLM encode() s/chunk measured on a sample of this index's chunks in the "
                       "build's run; everything else s/chunk = (build_s - hash encode s) / chunks "
                       "at full size; ratio = floor / (floor + rest)",
            "minilm_encode_s_per_chunk": round(floor, 5), "rest_s_per_chunk": round(rest, 6),
            "ratio": round(floor / (floor + rest), 3)},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--index", type=Path, help="reuse this index (or build it here when absent)")
    ap.add_argument("--build-only", action="store_true", help="build the index and stop")
    ap.add_argument("--from-index", type=Path,
                    help="make the index by copying this finished index in SQL (replicate())")
    ap.add_argument("--build-record", type=Path,
                    help="a JSON file holding the build's figures (written by a build, read on reuse)")
    ap.add_argument("--queries", type=int, default=120)
    ap.add_argument("--minilm-index", type=Path, action="append", default=[],
                    help="MiniLM indexes whose vectors measure the two passes' recall at --chunks")
    ap.add_argument("--no-recall", action="store_true",
                    help="skip the recall against exact search over the index (a float matrix)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (the default)")
    args = ap.parse_args()
    if not (SHARED / "corpora").is_dir():
        sys.exit("the shared corpora are not beside the repository")
    tmp = tempfile.TemporaryDirectory()
    db = args.index or Path(tmp.name) / "scale.db"
    record: dict = {}
    if not db.exists() and args.from_index:
        record = replicate(args.from_index, db, args.chunks)
        if args.build_record:
            args.build_record.write_text(json.dumps(record))
    elif not db.exists():
        record = build(db, args.chunks)
        record.update(minilm_floor(db))
        if args.build_record:
            args.build_record.write_text(json.dumps(record))
    elif args.build_record and args.build_record.exists():
        record = json.loads(args.build_record.read_text())
    if args.build_only:
        print(json.dumps(record, indent=2))
        return
    out = measure(db, args.queries, record, recall=not args.no_recall)
    if args.minilm_index:
        from trag_tui.settings import Settings

        out["quantised_recall@10_minilm"] = minilm_recall(
            args.minilm_index, out["chunks"], Settings.load().rescore)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
