"""Indexing throughput against the embedding-only floor, and the cost of an unchanged re-run.

Prints JSON. The floor is `encode()` alone on exactly the chunks the indexer embeds, measured in
the same run with the same loaded model, so the ratio is robust to a noisy shared machine.
The periods each chunk speaks of (two times) are read once more on their own, to give the
share of the first build they take.
Usage: python bench/index_bench.py [--reports 1000] [--all] [--hash] [--workers N] [--device cpu|cuda|auto]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.chunking import chunk_text  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.models.embedding import load_embedder  # noqa: E402
from trag_tui.periods import update_periods  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.db import set_meta, transaction  # noqa: E402
from trag_tui.storage.file import connect  # noqa: E402
from trag_tui.storage.store import embed_text  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpora" / "beige_book" / "docs.jsonl"


def pick_reports(path: Path, n: int | None) -> list[str]:
    """n report lines spread evenly over 1970-2020 (all of them when n is None)."""
    lines = [line for line in path.open(encoding="utf-8") if line.strip()]
    lines = [line for line in lines if 1970 <= int(json.loads(line)["date"][:4]) <= 2020]
    if n is None or n >= len(lines):
        return lines
    step = len(lines) / n
    return [lines[int(i * step)] for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reports", type=int, default=1000)
    ap.add_argument("--all", action="store_true", help="the whole Beige Book corpus")
    ap.add_argument("--hash", action="store_true", help="hash embedder (quick smoke run)")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    ap.add_argument("--workers", type=int, default=1, help="embedding processes (index --workers)")
    ap.add_argument("--device", default="cpu", help="cpu, cuda or auto (index --device)")
    args = ap.parse_args()
    if not args.corpus.is_file():
        sys.exit(f"corpus not found: {args.corpus} (the shared corpora sit beside the repository)")
    lines = pick_reports(args.corpus, None if args.all else args.reports)
    settings = Settings(embedder="hash" if args.hash else None, embed_workers=args.workers, device=args.device)
    embedder = load_embedder(settings.embedder, settings)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "slice.jsonl"
        src.write_text("".join(lines), encoding="utf-8")
        texts = []
        for line in lines:
            row = json.loads(line)
            for c in chunk_text(row["text"], settings.chunk_words, settings.chunk_overlap, settings.parent_words):
                if c.searchable:
                    texts.append(embed_text(row.get("title", ""), c.text))
        unique = list(dict.fromkeys(texts))
        embedder.encode(unique[:64])  # warm-up (and the workers' start), not timed
        t0 = time.perf_counter()
        for i in range(0, len(unique), settings.write_batch_chunks):
            embedder.encode(unique[i : i + settings.write_batch_chunks])
        floor = time.perf_counter() - t0

        db = Path(tmp) / "bench.db"
        conn = connect(db)
        t0 = time.perf_counter()
        first = Indexer(conn, db, embedder, settings.replace(db=db)).run([src])
        first_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = Indexer(conn, db, embedder, settings.replace(db=db)).run([src])
        again_s = time.perf_counter() - t0
        # the periods each chunk speaks of, read once more on their own: the part of the first
        # run that reading two times adds to it
        with transaction(conn):
            set_meta(conn, "period_rules", "")
        t0 = time.perf_counter()
        update_periods(conn)
        periods_s = time.perf_counter() - t0
        conn.close()
    close = getattr(embedder, "close", None)
    if close is not None:
        close()
    out = {
        "embedder": embedder.name,
        "workers": args.workers,
        "device": args.device,
        "reports": len(lines),
        "chunks_embedded": first.chunks_embedded,
        "floor_seconds": round(floor, 2),
        "index_seconds": round(first_s, 2),
        "floor_chunks_per_s": round(len(unique) / floor, 2),
        "index_chunks_per_s": round(first.chunks_embedded / first_s, 2),
        "throughput_ratio": round(floor / first_s, 3),
        "reindex_seconds": round(again_s, 3),
        "reindex_share": round(again_s / first_s, 4),
        "reindex_embedded": again.chunks_embedded,
        "periods_seconds": round(periods_s, 2),
        # the build with two times against the same build without reading them
        "two_times_build_ratio": round(first_s / max(first_s - periods_s, 1e-9), 3),
        "target_throughput_ratio": 0.85,
        "target_reindex_share": 0.03,
    }
    out["ok"] = out["throughput_ratio"] >= 0.85 and out["reindex_share"] <= 0.03
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
