"""The measurements behind the default fusion and decay: each variant on the same indexes and questions.

The engine offers two fusions (weighted reciprocal-rank fusion, weighted max-normalised sum) and
three recency decays for the current mode (rational, exponential, rank bonus). A default is only
worth having if it wins where it applies, so this runs `evaluate` once per variant, everything
else at its default, and prints one JSON object: recall@k per question set, per intent, for the
temporal engine, and the time-blind baseline's recall beside it (the fusion changes it too).

Indexes are built beforehand with `trag-tui index` and the real MiniLM, one per question set:

    python bench/choose_defaults.py rtqa.db=../shared/corpora/realtimeqa/qa.jsonl \\
        locomo.db=../shared/corpora/locomo/qa.jsonl:temporal beige.db=bench/beige_book_questions.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VARIANTS = {
    "rrf + exp": {"fusion": "rrf", "decay": "exp"},
    "sum + exp": {"fusion": "sum", "decay": "exp"},
    "rrf + rational": {"fusion": "rrf", "decay": "rational"},
    "rrf + rank": {"fusion": "rrf", "decay": "rank"},
}


def _set(text: str) -> tuple[Path, Path, list[str] | None]:
    """`DB=QA.jsonl[:category,...]` -> (index, questions, categories)."""
    db, sep, qa = text.partition("=")
    if not sep or not db or not qa:
        raise argparse.ArgumentTypeError(f"expected DB=QA.jsonl[:category], got {text!r}")
    qa, _, cats = qa.partition(":")
    return Path(db), Path(qa), (cats.split(",") if cats else None)


def _round(value):
    return None if value is None else round(value, 3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", type=_set, metavar="DB=QA.jsonl[:category]")
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from trag_tui.evaluation import evaluate, load_qa
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    out: dict[str, dict] = {}
    for db, qa, categories in args.sets:
        if not db.is_file() or not qa.is_file():
            sys.exit(f"missing: {db if not db.is_file() else qa}")
        index = open_index(db, Settings(db=db))
        questions = load_qa(qa, categories)
        row: dict[str, dict] = {"questions": len(questions)}
        baselines: dict[str, float | None] = {}  # the baseline changes with the fusion only
        for name, knobs in VARIANTS.items():
            started = time.perf_counter()
            fresh = knobs["fusion"] not in baselines
            report = evaluate(index, questions, k=args.k, settings=index.settings.replace(**knobs),
                              baseline=fresh)
            if fresh:
                baselines[knobs["fusion"]] = report["baseline"]["recall"]
            row.setdefault("questions_by_intent", {intent: d["engine"]["n_with_evidence"]
                                                   for intent, d in report["by_intent"].items()
                                                   if d["engine"]["n_with_evidence"]})
            row[name] = {
                "recall": _round(report["engine"]["recall"]),
                "by_intent": {intent: _round(d["engine"]["recall"])
                              for intent, d in report["by_intent"].items() if d["engine"]["n_with_evidence"]},
                "baseline_recall": _round(baselines[knobs["fusion"]]),
                "seconds": round(time.perf_counter() - started, 1),
            }
        index.close()
        out[f"{db.name} / {qa.name}" + (f":{','.join(categories)}" if categories else "")] = row
    print(json.dumps({"k": args.k, "variants": VARIANTS, "sets": out}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
