"""Push throughput, the cost of re-pushing an unchanged index, and the shard fan-out per mode.

Indexes a slice of the Beige Book (50 years, 12 districts) with the hash embedder (384-d,
like MiniLM: the push copies vectors, it never embeds, so the embedder's speed is beside the
point), then pushes it to Qdrant's local mode in memory (the client-side cost: reading the
file, stems and BM25 weights, building points), to a local folder (local mode persists every
point with its own SQLite commit), and with --server to a real server. Each push is repeated
on the unchanged index. Then the Beige Book development questions run over the collection
with decade partitions, counting the partitions each candidate query touches, per mode.
Prints JSON. Usage: python bench/push_bench.py [--reports 600] [--server http://HOST:6333]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from index_bench import CORPUS, pick_reports  # noqa: E402

from trag_tui.evaluation import load_qa  # noqa: E402
from trag_tui.facets import Stemmer  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.retrieval.backends.push import push  # noqa: E402
from trag_tui.retrieval.backends.qdrant import QdrantBackend, Target, document_terms, parse_target  # noqa: E402
from trag_tui.retrieval.modes import Retriever, search  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402

QUESTIONS = REPO / "bench" / "beige_book_questions.jsonl"


class CountingBackend(QdrantBackend):
    """Records how many time partitions each candidate query touches."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.touched: list[int] = []

    def _where(self, days, scope):
        where, periods = super()._where(days, scope)
        self.touched.append(len(self.periods) if periods is None else len(periods))
        return where, periods


def _twice(idx, target: Target, client=None) -> dict:
    first = push(idx, target, client=client)
    again = push(idx, target, client=client)
    return {"chunks": first.chunks, "first_seconds": round(first.seconds, 3),
            "chunks_per_second": round(first.sent / first.seconds, 1),
            "repush_seconds": round(again.seconds, 4), "repush_sent": again.sent,
            "repush_ratio": round(again.seconds / first.seconds, 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", type=int, default=600)
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--server", help="also push to this Qdrant server (http://HOST:6333)")
    args = ap.parse_args()
    if not args.corpus.is_file():
        sys.exit(f"corpus not found: {args.corpus} (the shared corpora sit beside the repository)")
    from qdrant_client import QdrantClient

    lines = pick_reports(args.corpus, args.reports)
    out: dict = {"reports": len(lines)}
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "slice.jsonl"
        src.write_text("".join(lines), encoding="utf-8")
        db = Path(tmp) / "bench.db"
        settings = Settings(db=db, embedder="hash")
        idx = open_index(db, settings, create=True)
        Indexer(idx.conn, idx.path, idx.embedder, settings).run([src])
        out["searchable_chunks"] = idx.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]

        # per-chunk sizes: sparse non-zeros and payload bytes
        stemmer = Stemmer()
        rows = idx.conn.execute("SELECT c.text, d.title FROM chunks c JOIN documents d ON d.id = c.document_id "
                                "WHERE c.searchable = 1").fetchall()
        nonzeros = [len(document_terms(stemmer, t, tt, (200.0, 8.0))) for t, tt in rows]
        out["sparse_nonzeros_per_chunk"] = round(statistics.fmean(nonzeros), 1)

        memory = QdrantClient(":memory:")
        out["memory"] = _twice(idx, Target(collection="trag"), client=memory)
        payloads = [len(json.dumps(r.payload).encode()) for r in
                    memory.scroll("trag", limit=100_000, with_payload=True)[0]]
        out["payload_bytes_per_point"] = round(statistics.fmean(payloads))
        out["folder"] = _twice(idx, parse_target(str(Path(tmp) / "qdrant")))
        if args.server:
            spec = args.server.rstrip("/") + "/trag_push_bench"
            out["server"] = _twice(idx, parse_target(spec))
            t = parse_target(spec)
            c = t.connect()
            c.delete_collection(t.collection)
            c.close()

        # fan-out per mode: partitions touched by each candidate query, of all partitions
        if QUESTIONS.is_file():
            backend = CountingBackend(Target(collection="trag"), client=memory)
            idx.use_backend(backend)
            retriever = Retriever(idx, settings)
            per_mode: dict[str, list[int]] = defaultdict(list)
            queries: dict[str, list[int]] = defaultdict(list)
            for qa in load_qa(QUESTIONS):
                backend.touched.clear()
                res = search(idx, qa.question, as_of=qa.question_date or dt.date.today(), k=5,
                             retriever=retriever)
                per_mode[res.mode].extend(backend.touched)
                queries[res.mode].append(len(backend.touched))
            out["partitions"] = {"shard_by": backend.shard_by, "count": len(backend.periods)}
            out["fan_out"] = {
                mode: {"questions": len(queries[mode]),
                       "candidate_queries_per_question": round(statistics.fmean(queries[mode]), 1),
                       "partitions_per_query": round(statistics.fmean(touched), 2),
                       "max_partitions": max(touched)}
                for mode, touched in sorted(per_mode.items())}
        idx.close()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
