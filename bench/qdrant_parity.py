"""The engine over the index file beside the same engine over Qdrant, on the shared corpora.

For each corpus with development questions (LoCoMo, RealTimeQA) and the Beige Book questions,
indexes the documents (hash embedder by default, --real for MiniLM), pushes the index to
Qdrant's local mode in memory (or, with --url, to a Qdrant server, in a collection of its own
that is dropped afterwards), and runs `trag-tui eval` on both backends in one run: recall@5,
leak rate and comparison contamination side by side. Prints JSON.
Usage: python bench/qdrant_parity.py [--limit 200] [--corpus locomo ...] [--real]
       [--index realtimeqa=rtqa.db]  (an index built earlier, copied before the push)
       [--url http://HOST:6333]  (a server; QDRANT_API_KEY is read for its key)
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.evaluation import evaluate, load_qa  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.retrieval.backends.push import push  # noqa: E402
from trag_tui.retrieval.backends.qdrant import QdrantBackend, Target  # noqa: E402
from trag_tui.retrieval.candidates import Vocabulary  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402

CORPORA = REPO.parent / "shared" / "corpora"
SETS = {
    "sample": (REPO / "sample_corpus", REPO / "sample_corpus" / "questions.jsonl"),
    "beige_book": (CORPORA / "beige_book" / "docs.jsonl", REPO / "bench" / "beige_book_questions.jsonl"),
    "locomo": (CORPORA / "locomo" / "docs.jsonl", CORPORA / "locomo" / "qa.jsonl"),
    "realtimeqa": (CORPORA / "realtimeqa" / "docs.jsonl", CORPORA / "realtimeqa" / "qa.jsonl"),
}
KEYS = ("recall", "mrr", "leak_rate", "comparison_contamination", "temporal_precision", "n_with_evidence")


def run(name: str, docs: Path, questions: Path, limit: int | None, real: bool, tmp: Path,
        lexical: str, built: Path | None = None, url: str | None = None) -> dict:
    import os
    import uuid

    from qdrant_client import QdrantClient

    db = tmp / f"{name}.db"
    t0 = time.perf_counter()
    if built is not None:
        # A whole corpus indexed earlier (e.g. with MiniLM): a copy, since a push records its
        # state in the file.
        shutil.copy(built, db)
        settings = Settings(db=db, embedder=None)
        idx = open_index(db, settings)
    else:
        settings = Settings(db=db, embedder=None if real else "hash")
        idx = open_index(db, settings, create=True)
        Indexer(idx.conn, idx.path, idx.embedder, settings).run([docs])
    index_s = time.perf_counter() - t0
    if url is None:
        client, target = QdrantClient(":memory:"), Target(collection="trag")
    else:
        client = QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY"), timeout=120)
        target = Target(collection=f"parity_{name}_{uuid.uuid4().hex[:8]}", url=url)
    try:
        return _compare(idx, client, target, questions, limit, lexical, index_s)
    finally:
        if url is not None:
            client.delete_collection(target.collection)
        idx.close()


def _compare(idx, client, target: Target, questions: Path, limit: int | None, lexical: str,
             index_s: float) -> dict:
    pushed = push(idx, target, client=client)
    qas = load_qa(questions, None, limit)
    out = {"questions": len(qas), "chunks": pushed.chunks, "index_seconds": round(index_s, 1),
           "push_seconds": round(pushed.seconds, 1)}
    for label in ("sqlite", "qdrant"):
        if label == "qdrant":
            words = Vocabulary(idx.conn).terms if lexical == "picked" else None
            idx.use_backend(QdrantBackend(target, client=client, vocabulary=words))
        t0 = time.perf_counter()
        report = evaluate(idx, qas, k=5, baseline=False)
        out[label] = {k: report["engine"][k] for k in KEYS}
        out[label]["seconds"] = round(time.perf_counter() - t0, 1)
    out["recall_gap"] = round(abs((out["sqlite"]["recall"] or 0) - (out["qdrant"]["recall"] or 0)), 4)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", choices=sorted(SETS))
    ap.add_argument("--limit", type=int, default=200, help="questions per corpus (0: all)")
    ap.add_argument("--index", action="append", default=[], metavar="NAME=FILE",
                    help="use this already built index of a corpus instead of indexing it here")
    ap.add_argument("--real", action="store_true", help="the bundled MiniLM instead of the hash embedder")
    ap.add_argument("--lexical", choices=["picked", "all"], default="picked",
                    help="Qdrant's sparse query: the words FTS5 is asked for (as --backend does), or every stem")
    ap.add_argument("--url", help="a Qdrant server (http://HOST:PORT) instead of local mode")
    args = ap.parse_args()
    out = {"embedder": "MiniLM" if args.real else "hash", "lexical": args.lexical,
           "qdrant": args.url or "local mode, in memory"}
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.corpus or sorted(SETS):
            docs, questions = SETS[name]
            if not docs.exists() or not questions.is_file():
                out[name] = "not found"
                continue
            built = dict(i.split("=", 1) for i in args.index).get(name)
            out[name] = run(name, docs, questions, args.limit or None, args.real, Path(tmp),
                            args.lexical, Path(built) if built else None, args.url)
            print(json.dumps({name: out[name]}), file=sys.stderr)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
