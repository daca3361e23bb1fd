"""Expansion inside the period, beside the engine without it, in one run: evidence recall@5.

Each question set is searched twice on the same index with the same evaluator as `trag-tui
eval` (trag_tui.evaluation.evaluate): with expansion as `--expand` sets it (the default
setting unless given) and with it off (`expand = "none"`, today's one pass). Figures, LoCoMo's
multi-hop first:

- LoCoMo (the development part, qa.jsonl): multi-hop, single-hop and temporal recall@5.
- The whole Beige Book's comparison questions: share of the two gold reports in the top 5,
  contamination (hits outside the two periods) and leak rate.
- RealTimeQA's development questions with evidence, and of them those that name no one (no
  capitalised name in the question: the gold story is about someone described, not named).
- Search time over an index of 136K chunks (the hash embedder, as bench/search_bench.py
  builds it), its questions timed with and without expansion one after the other.

Usage: python bench/expansion.py --index locomo=FILE --index beige_whole=FILE
       --index realtimeqa=FILE [--search-db FILE] [--expand MODES] [--queries N]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import pickle
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from sets import QUESTION_SETS  # noqa: E402

CATEGORIES = {
    "locomo": ("multi-hop", "single-hop", "temporal"),
    "beige_whole": ("comparison",),
    "realtimeqa": None,
}
FIGURES = ("recall", "mrr", "leak_rate", "comparison_contamination", "comparison_all_periods_kept",
           "n_with_evidence")


def _figures(summary: dict) -> dict:
    return {k: summary[k] for k in FIGURES if summary.get(k) is not None}


def _pair(index, qas, settings, expand: str) -> dict:
    """The same questions with expansion on (`expand`) and off, each scored by category."""
    from trag_tui.evaluation import evaluate

    out = {}
    for label, value in (("expansion", expand), ("one_pass", "none")):
        report = evaluate(index, qas, k=5, settings=settings.replace(expand=value), baseline=False)
        out[label] = {"all": _figures(report["engine"]),
                      **{c: _figures(v["engine"]) for c, v in report["by_category"].items()},
                      "by_intent": {i: _figures(v["engine"]) for i, v in report["by_intent"].items()}}
    return out


class Remembered:
    """The index's embedder with its query vectors kept in a file between runs (the benches
    share a busy machine; a question embeds to the same vector every time)."""

    def __init__(self, embedder, path: Path | None):
        self.embedder, self.path = embedder, path
        self.vectors: dict[str, object] = {}
        if path is not None and path.exists():
            with path.open("rb") as fh:
                self.vectors = pickle.load(fh)

    def __getattr__(self, name):
        return getattr(self.embedder, name)

    def encode(self, texts):
        import numpy as np

        missing = [t for t in texts if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embedder.encode(missing)))
        return np.vstack([self.vectors[t] for t in texts])

    def save(self) -> None:
        if self.path is not None:
            with self.path.open("wb") as fh:
                pickle.dump(self.vectors, fh)


def quality(name: str, db: Path, expand: str, cache: Path | None = None) -> dict:
    from trag_tui.evaluation import load_qa
    from trag_tui.retrieval.expansion import names_in
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    settings = Settings.load(db=db)
    index = open_index(db, settings)
    remembered = Remembered(index.embedder, cache)
    index._embedder = remembered
    try:
        qas = [q for q in load_qa(QUESTION_SETS[name], CATEGORIES[name]) if q.evidence_ids]
        result = {"questions": len(qas), **_pair(index, qas, settings, expand)}
        if name == "realtimeqa":
            unnamed = [q for q in qas if not names_in(q.question)]
            result["names_no_one"] = {"questions": len(unnamed),
                                      **_pair(index, unnamed, settings, expand)}
        return result
    finally:
        remembered.save()
        index.close()


def latency(db: Path, expand: str, n: int) -> dict:
    """p50 search time with expansion and without, each question timed both ways in turn."""
    from search_bench import queries

    from trag_tui.retrieval.modes import Retriever, search
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    base = Settings(db=db, embedder="hash")
    on, off = base.replace(expand=expand), base.replace(expand="none")
    index = open_index(db, base)
    try:
        runs = [(Retriever(index, s), s, []) for s in (on, off)]
        qs = queries(n)
        for q, as_of in qs[:5]:
            for r, s, _ in runs:
                search(index, q, as_of=as_of, retriever=r, settings=s)  # warm-up
        passes = 0
        for q, as_of in qs:
            for r, s, times in runs:
                r._qvec_cache.clear()  # the query embedding is part of the measured time
                t0 = time.perf_counter()
                res = search(index, q, as_of=as_of, retriever=r, settings=s)
                times.append((time.perf_counter() - t0) * 1000)
                if s is on:
                    passes += any(h.via for h in res.hits)
        chunks = index.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    finally:
        index.close()
    p50 = [statistics.median(t) for _, _, t in runs]
    return {"chunks": chunks, "queries": len(qs), "p50_ms": round(p50[0], 1),
            "one_pass_p50_ms": round(p50[1], 1), "ratio": round(p50[0] / p50[1], 3),
            "p95_ms": round(sorted(runs[0][2])[int(0.95 * (len(qs) - 1))], 1),
            "questions_with_a_hit_found_by_expansion": passes}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", action="append", default=[], metavar="SET=FILE",
                    help="a question set (locomo, beige_whole, realtimeqa) and its index")
    ap.add_argument("--search-db", type=Path, help="an index of 136K chunks (hash embedder)")
    ap.add_argument("--expand", help="the modes to expand in (default: the setting's default)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--cache", type=Path, help="a folder keeping query vectors between runs")
    args = ap.parse_args()
    from trag_tui.settings import Settings

    expand = args.expand if args.expand is not None else Settings().expand
    out: dict = {"expand": expand, "k": 5, "date": dt.date.today().isoformat()}
    order = sorted((a.split("=", 1) for a in args.index), key=lambda p: list(CATEGORIES).index(p[0]))
    for name, path in order:
        t0 = time.perf_counter()
        cache = args.cache / f"{name}.vectors.pkl" if args.cache else None
        out[name] = quality(name, Path(path), expand, cache)
        out[name]["seconds"] = round(time.perf_counter() - t0, 1)
        print(json.dumps({name: out[name]}), file=sys.stderr)
    if "locomo" in out:
        mh = out["locomo"]
        out = {"locomo_multi_hop_recall@5": {k: mh[k]["multi-hop"]["recall"]
                                             for k in ("expansion", "one_pass")}, **out}
    if args.search_db:
        out["search"] = latency(args.search_db, expand, args.queries)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
