"""Fit the answer ranking's weights to questions, and check them across corpora.

The answer ranking (`trag_tui.answering.ranking`) scores every source sentence as a weighted
sum of features; the weights are data (`ranker_weights.json`). This bench reads, for every
question of the development sets with an answer key, the sources retrieval found (from
`answer_quality.py --retrieval-cache` files, so retrieval is not run again), ranks their
sentences, and labels a sentence positive when it holds a gold answer. It then fits weights
that put a positive sentence first (a linear model, softmax over each question's sentences,
in numpy), and reports, per set:

- `top1`: the share of questions, among those whose gold answer is in some sentence, where the
  first-ranked sentence holds it (what the quote starts from);
- `quoted`: the share whose quoted answer (the whole answer pipeline, without a model) holds
  the gold, of those whose gold is in the listed sources;

for the shipped weights and for weights fitted WITHOUT that set (cross-corpus: a set is never
measured with weights fitted on its own questions), and for weights fitted on all sets.

    python bench/ranker.py --cache realtimeqa=rtqa.pkl --index realtimeqa=rtqa.db \\
        --cache locomo=locomo.pkl --index locomo=locomo.db \\
        --cache sample=sample.pkl --index sample=sample.db [--write]

`--write` stores the weights fitted on all sets in `ranker_weights.json`. `--features DIR`
keeps each set's feature rows, so a refit needs no models.
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.answer_quality import QUESTIONS, holds, load_questions, sources_text, uncited  # noqa: E402
from trag_tui.answering import ranking  # noqa: E402
from trag_tui.answering.events import Done  # noqa: E402
from trag_tui.answering.kind import answer_type, asked_period  # noqa: E402
from trag_tui.answering.pipeline import answer  # noqa: E402
from trag_tui.answering.sources import numbered  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402

L2 = 0.05  # pull towards the hand-set weights: a feature few questions exercise keeps its sense
STEPS, RATE = 600, 0.05


def _cases(name: str, cache: Path) -> list[tuple[dict, object, dict]]:
    """(question, search result, quotes) for every question of the set the cache holds."""
    with cache.open("rb") as fh:
        stored = pickle.load(fh)  # noqa: S301 - a file answer_quality.py wrote
    out = []
    for q in load_questions(name, QUESTIONS[name]):
        key = (name, q["id"], q["question"], q["as_of"])
        if key in stored and stored[key][0].hits:
            result, quotes = stored[key]
            out.append((q, result, quotes))
    return out


def features(name: str, cases, embedder) -> list[dict]:
    """Each question's ranked sentences as a feature matrix and labels."""
    rows = []
    for q, result, quotes in cases:
        tq = result.query
        sources = numbered(result, {c: t for c, (t, _) in quotes.items()},
                           {c: r for c, (_, r) in quotes.items()})
        ranked = ranking.rank(tq.semantic_query or tq.question, sources, mode=result.mode,
                              embedder=embedder, kind=answer_type(tq.question), full=tq.question,
                              as_of=tq.as_of, period=asked_period(tq))
        if not ranked:
            continue
        labels = [any(holds(c.sentence, g) for g in q["golds"]) for c in ranked]
        rows.append({"set": name, "id": q["id"], "x": [list(c.features) for c in ranked],
                     "y": labels})
    return rows


def fit(rows: list[dict], start: np.ndarray) -> np.ndarray:
    """Weights that raise the softmax share of each question's positive sentences (Adam),
    with an L2 pull towards `start`; scaled so that likeness weighs 1, as by hand."""
    data = [(np.asarray(r["x"], dtype=np.float64), np.asarray(r["y"], dtype=bool))
            for r in rows if any(r["y"]) and not all(r["y"])]
    w = start.astype(np.float64).copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    scale = 10.0  # a softmax over scores of about 0..2 needs a temperature
    for step in range(1, STEPS + 1):
        grad = L2 * (w - start) * len(data)
        for x, y in data:
            s = scale * (x @ w)
            p = np.exp(s - s.max())
            p /= p.sum()
            pos = p[y] / p[y].sum()
            grad += scale * (p @ x - pos @ x[y])
        grad /= len(data)
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad ** 2
        w -= RATE * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    likeness = w[ranking.FEATURES.index("likeness")]
    return np.round(w / likeness if likeness > 0 else w, 4)


def top1(rows: list[dict], w: np.ndarray) -> float:
    """Share of questions with a positive sentence whose best-scored sentence is positive."""
    hit = n = 0
    for r in rows:
        if not any(r["y"]):
            continue
        n += 1
        scores = np.asarray(r["x"]) @ w
        hit += bool(r["y"][int(np.argmax(scores))])
    return round(hit / n, 4) if n else 0.0


def quoted(name: str, cases, embedder, w: np.ndarray) -> dict:
    """The quoted answer (the whole pipeline, no model) with weights w: share holding the gold
    of the questions whose gold is in the listed sources, and the wrong choices named."""
    keep = ranking.ranker_weights
    ranking.ranker_weights = lambda: tuple(float(x) for x in w)
    try:
        good = ceiling = wrong = 0
        for q, result, quotes in cases:
            done = None
            for event in answer(result, {c: t for c, (t, _) in quotes.items()},
                                roles={c: r for c, (_, r) in quotes.items()},
                                embedder=embedder, evidence_only=True, settings=Settings()):
                if isinstance(event, Done):
                    done = event
            said = uncited(done.answer)
            if any(holds(sources_text(done.sources), g) for g in q["golds"]):
                ceiling += 1
                good += any(holds(said, g) for g in q["golds"])
            wrong += any(holds(said, c) for c in q["choices"]
                         if not any(holds(g, c) or holds(c, g) for g in q["golds"]))
        return {"of_ceiling": round(good / ceiling, 4) if ceiling else 0.0, "held": good,
                "ceiling": ceiling, "wrong_choice": round(wrong / len(cases), 4) if cases else 0.0,
                "questions": len(cases)}
    finally:
        ranking.ranker_weights = keep


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", action="append", default=[], metavar="SET=FILE")
    ap.add_argument("--index", action="append", default=[], metavar="SET=FILE")
    ap.add_argument("--features", type=Path, metavar="DIR",
                    help="keep (or reuse) each set's feature rows in DIR/SET.json")
    ap.add_argument("--no-quoted", action="store_true", help="top1 only (no answer pipeline)")
    ap.add_argument("--write", action="store_true", help="ship the weights fitted on all sets")
    args = ap.parse_args()
    caches = dict(a.split("=", 1) for a in args.cache)
    indexes = dict(a.split("=", 1) for a in args.index)
    hand = np.asarray(ranking.ranker_weights())
    embedders, cases, rows = {}, {}, []
    for name, cache in caches.items():
        db = Path(indexes[name])
        embedders[name] = open_index(db, Settings.load(db=db)).embedder
        cases[name] = _cases(name, Path(cache))
    for name in caches:
        kept = args.features / f"{name}.json" if args.features else None
        if kept is not None and kept.exists():
            rows += json.loads(kept.read_text())
            continue
        mine = features(name, cases[name], embedders[name])
        print(f"features: {name}", file=sys.stderr)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            kept.write_text(json.dumps(mine))
        rows += mine
    names = list(caches)
    fitted_all = fit(rows, hand)
    report: dict = {"features": list(ranking.FEATURES), "sets": {}}
    for name in names:
        mine = [r for r in rows if r["set"] == name]
        others = fit([r for r in rows if r["set"] != name], hand)
        entry = {"questions": len(mine), "with_gold": sum(any(r["y"]) for r in mine),
                 "top1": {"shipped": top1(mine, hand), "fitted_without": top1(mine, others),
                          "fitted_on_all": top1(mine, fitted_all)},
                 "weights_fitted_without": dict(zip(ranking.FEATURES, others.tolist()))}
        if not args.no_quoted:
            entry["quoted"] = {"shipped": quoted(name, cases[name], embedders[name], hand),
                               "fitted_without": quoted(name, cases[name], embedders[name], others)}
        report["sets"][name] = entry
        print(json.dumps({name: {k: entry[k] for k in ("top1", "quoted") if k in entry}}),
              file=sys.stderr)
    report["weights_fitted_on_all"] = dict(zip(ranking.FEATURES, fitted_all.tolist()))
    if args.write:
        ranking.WEIGHTS_FILE.write_text(json.dumps(
            {"fitted_on": sorted(names), "weights": report["weights_fitted_on_all"]},
            indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
