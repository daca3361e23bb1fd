"""Share of answerable sample questions whose answer Sources include a gold document.

Runs `ask` on sample_corpus/questions.jsonl against an index of sample_corpus/ (built with the
real MiniLM embedder when --db does not exist yet). The Sources are what the model is given and
what every answer lists; `--evidence-only` skips the model so the run takes seconds. Questions
about a deliberately empty period must say there are no documents and cite nothing.
Usage: python bench/answer_sources.py --db sample.db [--with-model]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.answering.events import Done  # noqa: E402
from trag_tui.answering.pipeline import ask  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--with-model", action="store_true")
    args = ap.parse_args()
    settings = Settings(db=args.db, max_tokens=48)
    idx = open_index(args.db, settings, create=True)
    if not idx.conn.execute("SELECT count(*) FROM documents").fetchone()[0]:
        Indexer(idx.conn, idx.path, idx.embedder, settings).run([REPO / "sample_corpus"])
    rows = [json.loads(line) for line in (REPO / "sample_corpus" / "questions.jsonl").open()]
    hit = answerable = empty_ok = empty = 0
    misses = []
    for row in rows:
        done = None
        for event in ask(idx, row["question"], as_of=dt.date.fromisoformat(row["as_of"]),
                         settings=settings, evidence_only=not args.with_model):
            if isinstance(event, Done):
                done = event
        gold = set(row.get("gold_doc_ids") or [])
        if gold:
            answerable += 1
            if gold & {s.doc_id for s in done.sources}:
                hit += 1
            else:
                misses.append(row["id"])
        else:
            empty += 1
            empty_ok += bool(done.no_documents and not done.sources and not done.citations)
    print(json.dumps({
        "answerable": answerable, "sources_include_gold": round(hit / max(answerable, 1), 3),
        "misses": misses, "empty_period_questions": empty, "empty_period_honest": empty_ok,
        "target": 0.9, "ok": hit / max(answerable, 1) >= 0.9 and empty_ok == empty,
    }, indent=2))


if __name__ == "__main__":
    main()
