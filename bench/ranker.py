"""Fit the answer ranking's weights and the quote's cuts to questions, and check them across
corpora.

The answer ranking (`trag_tui.answering.ranking`) scores every source sentence as a weighted
sum of features; the quote (`quote.py`) picks from that ranking by cuts on the score's scale
("a second source joins when it scores 0.85 of the best"). Both are data
(`ranker_weights.json`). This bench reads, for every question of the development sets with an
answer key, the sources retrieval found (from `answer_quality.py --retrieval-cache` files, so
retrieval is not run again), computes each sentence's features with the very call the answer
pipeline makes (`ranking.featured_query`), and labels a sentence positive when it holds a gold
answer. It then

1. fits weights that put a positive sentence first (a linear model, softmax over each
   question's sentences, in numpy, pulled towards the hand-set `prior` of the weights file);
2. fits the cuts to those weights: each in turn set to the value of a grid under which the
   quoted answers of the training sets hold the gold most often (less the wrong choices
   named), once over;

and reports, per set:

- `top1`: the share of questions, among those whose gold answer is in some sentence, where the
  first-ranked sentence holds it (what the quote starts from);
- `quoted`: the quoted answer (the pipeline's `choose` on that ranking, no model): how many
  hold the gold, of the questions whose gold is in the listed sources, and the share naming a
  wrong choice;

for the shipped weights and cuts, for the hand-set ones, and for those fitted WITHOUT that set
(cross-corpus: a set is never measured with what was fitted on its own questions).

    python bench/ranker.py --cache realtimeqa=rtqa.pkl --index realtimeqa=rtqa.db \\
        --cache locomo=locomo.pkl --index locomo=locomo.db \\
        --cache sample=sample.pkl --index sample=sample.db [--features DIR] [--write]

`--features DIR` keeps each set's featured sentences (DIR/SET.pkl, text included: outside the
repository), so a rerun needs no models. `--write` stores the numbers the weights are fitted
from (`bench/ranker_rows.npz`: features and labels only, no text) and the weights fitted on
all sets (`ranker_weights.json`, "fitted"); they ship ("weights", with the cuts fitted on all
sets) only when fitted without each set they quote the gold on it at least as often as the
hand-set prior, else the prior ships. A test refits from the numbers file and fails when the
result differs from the file's "fitted", or when the shipped weights are neither.

`--outcome` fits the weights on the quoted answers of the other sets instead (`fit_outcome`:
each weight stepped in turn, kept when no set quotes the gold less often) and reports the same
cross-corpus figures with the hand-set cuts; it never writes.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import pickle
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.answering import ranking  # noqa: E402

ROWS_FILE = Path(__file__).with_name("ranker_rows.npz")
L2 = 0.05  # pull towards the hand-set weights: a feature few questions exercise keeps its sense
# the pulls the cross-corpus choice tries (`choose_pull`), weakest first; None keeps the prior
PULLS: tuple[float | None, ...] = (0.05, 0.2, 1.0, 5.0, None)
STEPS, RATE = 600, 0.05
SCALE = 10.0  # a softmax over scores of about 0..2 needs a temperature
DIGITS = 4  # features and weights are kept to this many decimals
CUT_GRID = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
CUT_ROUNDS = 1


# -- the training data ------------------------------------------------------------------------


def _cases(name: str, cache: Path) -> list[tuple[dict, object, dict]]:
    """(question, search result, quotes) for every question of the set the cache holds."""
    from bench.answer_quality import QUESTIONS, load_questions

    with cache.open("rb") as fh:
        stored = pickle.load(fh)  # noqa: S301 - a file answer_quality.py wrote
    out = []
    for q in load_questions(name, QUESTIONS[name]):
        key = (name, q["id"], q["question"], q["as_of"])
        if key in stored and stored[key][0].hits:
            result, quotes = stored[key]
            out.append((q, result, quotes))
    return out


def prepare(name: str, cases, embedder) -> list[dict]:
    """Each question's sources and featured sentences (the pipeline's own call), labelled."""
    from bench.answer_quality import holds, sources_text
    from trag_tui.answering.kind import answer_type
    from trag_tui.answering.sources import numbered

    out = []
    for q, result, quotes in cases:
        tq = result.query
        sources = numbered(result, {c: t for c, (t, _) in quotes.items()},
                           {c: r for c, (_, r) in quotes.items()})
        kind = answer_type(tq.question)
        rows = ranking.featured_query(tq, result.mode, sources, embedder=embedder, kind=kind)
        # features as the numbers file keeps them, so a refit from it is the same fit
        rows = [dataclasses.replace(c, features=tuple(round(v, DIGITS) for v in c.features))
                for c in rows]
        out.append({"set": name, "id": q["id"], "golds": q["golds"], "choices": q["choices"],
                    "query": tq, "mode": result.mode, "kind": kind, "sources": sources,
                    "rows": rows,
                    "y": [any(holds(c.sentence, g) for g in q["golds"]) for c in rows],
                    "ceiling": any(holds(sources_text(sources), g) for g in q["golds"])})
    return out


def numbers(cases: list[dict], names: list[str]) -> dict[str, np.ndarray]:
    """The fit's data without text: each question's feature rows and labels, and its set, for
    the questions where some sentence holds the gold (the others weigh in no fit nor top1)."""
    x, y, starts, sets = [], [], [], []
    for c in cases:
        if not any(c["y"]):
            continue
        starts.append(len(y))
        sets.append(names.index(c["set"]))
        x += [c2.features for c2 in c["rows"]]
        y += c["y"]
    return {"x": np.asarray(x, dtype=np.float64).round(DIGITS), "y": np.asarray(y, dtype=bool),
            "starts": np.asarray(starts, dtype=np.int64), "sets": np.asarray(sets, dtype=np.int64),
            "names": np.asarray(names), "features": np.asarray(ranking.FEATURES)}


def load_rows(path: Path = ROWS_FILE) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


# -- the fit ----------------------------------------------------------------------------------


def fit(data: dict[str, np.ndarray], start: np.ndarray, keep: np.ndarray | None = None,
        pull: float = L2) -> np.ndarray:
    """Weights that raise the softmax share of each question's positive sentences (Adam, full
    batch, deterministic), with an L2 pull of strength `pull` towards `start`; scaled so that
    likeness weighs 1, as by hand. `keep` marks the questions (by their place in `starts`) to
    fit on."""
    x, y, starts = data["x"], data["y"], data["starts"]
    ends = np.append(starts[1:], len(y))
    use = [i for i in range(len(starts)) if (keep is None or keep[i])
           and y[starts[i]:ends[i]].any() and not y[starts[i]:ends[i]].all()]
    idx = np.concatenate([np.arange(starts[i], ends[i]) for i in use])
    x, y = x[idx], y[idx]
    sizes = np.asarray([ends[i] - starts[i] for i in use])
    first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    group = np.repeat(np.arange(len(use)), sizes)
    w = start.astype(np.float64).copy()
    m, v = np.zeros_like(w), np.zeros_like(w)
    n = len(use)
    # sums written out, not BLAS products: the same on every machine and thread count
    for step in range(1, STEPS + 1):
        s = SCALE * (x * w).sum(axis=1)
        e = np.exp(s - np.maximum.reduceat(s, first)[group])
        p = e / np.add.reduceat(e, first)[group]
        ey = np.where(y, e, 0.0)
        pos = ey / np.add.reduceat(ey, first)[group]
        grad = (pull * (w - start) * n + SCALE * ((p - pos)[:, None] * x).sum(axis=0)) / n
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad ** 2
        w -= RATE * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
    likeness = w[ranking.FEATURES.index("likeness")]
    return np.round(w / likeness if likeness > 0 else w, DIGITS)


def fit_weights(data: dict[str, np.ndarray], prior: np.ndarray, without: str | None = None
                ) -> np.ndarray:
    """The weights fitted on every set of `data` but `without`."""
    names = list(data["names"])
    keep = None if without is None else data["sets"] != names.index(without)
    return fit(data, prior, keep)


def fit_pulled(data: dict[str, np.ndarray], start: np.ndarray, keep: np.ndarray | None,
               pull: float | None) -> np.ndarray:
    """`fit` with the pull given; no pull at all (None) is no fit: the start itself."""
    return start.copy() if pull is None else fit(data, start, keep, pull)


def choose_pull(cases: dict[str, list[dict]], data: dict[str, np.ndarray], names: list[str],
                start: np.ndarray) -> tuple[float | None, dict[str, int]]:
    """How far a fit may move from the hand-set weights, chosen across corpora: of PULLS, the
    one under which weights fitted on one of `names` quote the gold best on another (each way
    round, the hand cuts; held less wrong choices, summed), the strongest on a tie. With a
    single set there is nothing to validate on, and the prior stays (None)."""
    all_names = list(data["names"])
    merits: dict[str, int] = {}
    for pull in PULLS:
        total = 0
        for a in names:
            w = fit_pulled(data, start, data["sets"] == all_names.index(a), pull)
            total += sum(_merit(cases[b], w, hand_cuts()) for b in names if b != a)
        merits[str(pull)] = total
    best = max(PULLS, key=lambda p: (merits[str(p)], float("inf") if p is None else p))
    return best, merits


def top1(data: dict[str, np.ndarray], w: np.ndarray, name: str) -> float:
    """Share of a set's questions with a positive sentence whose best-scored one is positive."""
    x, y, starts = data["x"], data["y"], data["starts"]
    ends = np.append(starts[1:], len(y))
    mine = list(data["names"]).index(name)
    hit = n = 0
    for i in np.flatnonzero(data["sets"] == mine):
        yy = y[starts[i]:ends[i]]
        if not yy.any():
            continue
        n += 1
        hit += bool(yy[int(np.argmax((x[starts[i]:ends[i]] * w).sum(axis=1)))])
    return round(hit / n, 4) if n else 0.0


# -- the quoted answer ------------------------------------------------------------------------


def _memo(fn, key):
    """fn remembered by key(*args): what does not depend on the scores is read once per run."""
    seen: dict = {}

    def remembered(*args, **kwargs):
        k = key(*args, **kwargs)
        if k not in seen:
            seen[k] = fn(*args, **kwargs)
        return seen[k]
    return remembered


def _said(c) -> tuple:
    return (id(c.source), c.sentence, c.position, c.headline)


def quoted(cases: list[dict], w, cuts: ranking.Cuts) -> dict:
    """`_quoted` with the quote's text readings (what a sentence holds, how it is written out)
    remembered across calls: they depend on the sentences, never on their scores."""
    import contextlib
    from unittest import mock

    from trag_tui.answering import quote

    global _READINGS
    if _READINGS is None:
        _READINGS = {
            "holds": _memo(quote.holds, lambda c, q, k: (_said(c), q, k)),
            "render_pick": _memo(quote.render_pick, lambda c, q, k, p=None: (_said(c), q, k, p)),
            "unmentioned": _memo(quote.unmentioned, lambda q, ss: (q, tuple(map(id, ss)))),
            "_finer_than_year": _memo(quote._finer_than_year, _said),
            "_salience": _memo(quote._salience, lambda c, q: (_said(c), q)),
            "figure_elsewhen": _memo(quote.figure_elsewhen, lambda ps, k, a, b: (
                tuple(map(_said, ps)), k, a, b)),
        }
    with contextlib.ExitStack() as stack:
        for name, fn in _READINGS.items():
            if getattr(quote, name) is _ORIGINAL.setdefault(name, getattr(quote, name)):
                stack.enter_context(mock.patch.object(quote, name, fn))  # not when ablated
        return _quoted(cases, w, cuts)


_READINGS: dict | None = None
_ORIGINAL: dict = {}


def _quoted(cases: list[dict], w, cuts: ranking.Cuts) -> dict:
    """The quoted answer as the pipeline makes it without a model (`choose` on the ranking by
    weights w, then the note on names no source mentions): how many hold the gold, of the
    questions whose gold is in the listed sources, and how many name a wrong choice."""
    from bench.answer_quality import holds, uncited
    from trag_tui.answering.quote import choose, unmentioned_note

    good = ceiling = wrong = 0
    weights = tuple(float(v) for v in w)
    for c in cases:
        ranked = ranking.scored(c["rows"], weights)
        quote = choose(c["query"], c["mode"], ranked, c["sources"],
                       ranking.evidence(ranked, cuts=cuts), kind=c["kind"], cuts=cuts)
        said = uncited((unmentioned_note(quote.unmentioned) if quote.unmentioned else "")
                       + quote.shown)
        if c["ceiling"]:
            ceiling += 1
            good += any(holds(said, g) for g in c["golds"])
        wrong += any(holds(said, ch) for ch in c["choices"]
                     if not any(holds(g, ch) or holds(ch, g) for g in c["golds"]))
    return {"held": good, "ceiling": ceiling,
            "of_ceiling": round(good / ceiling, 4) if ceiling else 0.0,
            "wrong_choice": round(wrong / len(cases), 4) if cases else 0.0,
            "wrong": wrong, "questions": len(cases)}


def _merit(cases: list[dict], w, cuts: ranking.Cuts) -> int:
    r = quoted(cases, w, cuts)
    return r["held"] - r["wrong"]


def fit_cuts(cases: list[dict], w, start: ranking.Cuts) -> ranking.Cuts:
    """The cuts under which weights w quote the gold most often (less wrong choices) over
    `cases`: each cut in turn, in field order, to the best value of the grid (the smallest
    change from the current value on a tie), CUT_ROUNDS times over."""
    cuts = start
    best = _merit(cases, w, cuts)
    for _ in range(CUT_ROUNDS):
        for field in dataclasses.fields(ranking.Cuts):
            now = getattr(cuts, field.name)
            for value in sorted(CUT_GRID, key=lambda v: (abs(v - now), v)):
                trial = dataclasses.replace(cuts, **{field.name: value})
                merit = _merit(cases, w, trial)
                if merit > best:
                    best, cuts = merit, trial
    return cuts


# -- the fit on the quote's outcome -----------------------------------------------------------

OUTCOME_STEPS = (-0.05, 0.05, -0.1, 0.1, -0.2, 0.2, -0.4, 0.4)
OUTCOME_ROUNDS = 3


def fit_outcome(groups: list[list[dict]], start: np.ndarray, cuts: ranking.Cuts) -> np.ndarray:
    """Weights fitted on what the reader sees, not on sentence labels: each feature's weight in
    turn moved by the steps (the smallest first) while the quoted answers of the training sets
    hold the gold more often, less the wrong choices named, in all (no set doing worse), and
    the weight keeps the hand-set one's sign (a feature keeps its sense). OUTCOME_ROUNDS times
    over, or until no step helps."""
    def merits(w):
        return [r["held"] - r["wrong"] for r in (quoted(g, w, cuts) for g in groups)]

    w = start.astype(np.float64).copy()
    best = merits(w)
    for _ in range(OUTCOME_ROUNDS):
        moved = False
        for k, feature in enumerate(ranking.FEATURES):
            if feature == "likeness":
                continue  # the scale: likeness weighs 1
            for step in OUTCOME_STEPS:
                trial = w.copy()
                trial[k] = round(trial[k] + step, DIGITS)
                if trial[k] * start[k] < 0:
                    continue
                got = merits(trial)
                if sum(got) > sum(best) and all(a >= b for a, b in zip(got, best)):
                    best, w, moved = got, trial, True
        if not moved:
            break
    return w


# -- ablations --------------------------------------------------------------------------------


def _never(_text, *_a, **_k):
    return None


def quote_ablations() -> dict:
    """Each of the quote's hand rules switched off: name -> (patches, cut changes). A patch is
    (object, attribute, value)."""
    from trag_tui.answering import lexicon_en, quote

    class Never:
        match = search = staticmethod(_never)

    return {
        "pronoun_sentence_before": ([(lexicon_en, "PRONOUN_SUBJECT", Never())], {}),
        "typed_fallback": ([(quote, "holds", lambda *a: True)], {}),
        "office_rules": ([(lexicon_en, "OFFICE_STEMS", frozenset())], {}),
        "salience": ([(quote, "_salience", lambda c, q: 0)], {}),
        "day_before_year": ([(quote, "_finer_than_year", lambda c: True)], {}),
        "period_floor": ([], {"period_floor": 0.0}),
        "excerpt_joins": ([], {"join": 1.01, "join_next": 1.01}),
        "second_source": ([], {"second_source": 1.01}),
    }


def ablate(cases: dict[str, list[dict]], data: dict, names: list[str], hand: bool = False
           ) -> dict:
    """Each quote rule and each feature switched off, measured cross-corpus: per set, the quoted
    answers with weights (refitted without the feature) and cuts fitted on the other sets. With
    `hand`, the hand-set weights and cuts that ship instead (a feature switched off is weighed
    zero, nothing refitted): what removing a rule would change in the product as it is."""
    import contextlib
    from unittest import mock

    start = prior()
    if hand:
        base_w = {n: start for n in names}
        base_cuts = {n: hand_cuts() for n in names}
    else:
        base_w = {n: fit_weights(data, start, without=n) for n in names}
        base_cuts = {n: fit_cuts([c for o in names if o != n for c in cases[o]], base_w[n],
                                 hand_cuts()) for n in names}
    out: dict = {"none": {n: quoted(cases[n], base_w[n], base_cuts[n]) for n in names}}
    print(json.dumps({"none": out["none"]}), file=sys.stderr)
    for rule, (patches, cut) in quote_ablations().items():
        with contextlib.ExitStack() as stack:
            for obj, attr, value in patches:
                stack.enter_context(mock.patch.object(obj, attr, value))
            out[rule] = {n: quoted(cases[n], base_w[n], dataclasses.replace(base_cuts[n], **cut))
                         for n in names}
        print(json.dumps({rule: out[rule]}), file=sys.stderr)
    for k, feature in enumerate(ranking.FEATURES):
        if feature == "likeness":
            continue
        cut = dict(data, x=data["x"].copy())
        cut["x"][:, k] = 0.0
        out["feature:" + feature] = {}
        for n in names:
            w = start.copy() if hand else fit_weights(cut, start, without=n)
            w[k] = 0.0
            out["feature:" + feature][n] = quoted(cases[n], w, base_cuts[n])
        print(json.dumps({feature: out["feature:" + feature]}), file=sys.stderr)
    return out


# -- the weights file -------------------------------------------------------------------------


def read_weights_file() -> dict:
    return json.loads(ranking.WEIGHTS_FILE.read_text(encoding="utf-8"))


def prior() -> np.ndarray:
    """The hand-set weights, which a fit starts from and is pulled towards."""
    data = read_weights_file()
    return np.asarray([float(data["prior"][k]) for k in ranking.FEATURES])


def hand_cuts() -> ranking.Cuts:
    return ranking.Cuts()  # the defaults are the hand-set cuts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", action="append", default=[], metavar="SET=FILE")
    ap.add_argument("--index", action="append", default=[], metavar="SET=FILE")
    ap.add_argument("--features", type=Path, metavar="DIR",
                    help="keep (or reuse) each set's featured sentences in DIR/SET.pkl")
    ap.add_argument("--no-quoted", action="store_true", help="top1 only (no quote)")
    ap.add_argument("--ablate", action="store_true",
                    help="measure each quote rule and feature switched off, cross-corpus")
    ap.add_argument("--hand", action="store_true",
                    help="with --ablate: the hand-set weights and cuts that ship, not refitted")
    ap.add_argument("--write", action="store_true",
                    help="store the fit's numbers and ship what is fitted on all sets")
    ap.add_argument("--outcome", action="store_true",
                    help="fit the weights on the quoted answers of the other sets (fit_outcome),"
                         " not on sentence labels; reports only, never --write")
    ap.add_argument("--pull", action="store_true",
                    help="also fit each set's weights with the pull chosen across the other sets"
                         " (choose_pull), the hand cuts; reports only")
    args = ap.parse_args()
    if args.outcome and (args.write or args.no_quoted or args.ablate):
        ap.error("--outcome reports the cross-corpus figures only")
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    caches = dict(a.split("=", 1) for a in args.cache)
    indexes = dict(a.split("=", 1) for a in args.index)
    names = sorted(caches)
    cases: dict[str, list[dict]] = {}
    for name in names:
        kept = args.features / f"{name}.pkl" if args.features else None
        if kept is not None and kept.exists():
            with kept.open("rb") as fh:
                cases[name] = pickle.load(fh)  # noqa: S301 - a file this bench wrote
            continue
        db = Path(indexes[name])
        embedder = open_index(db, Settings.load(db=db)).embedder
        cases[name] = prepare(name, _cases(name, Path(caches[name])), embedder)
        print(f"features: {name}", file=sys.stderr)
        if kept is not None:
            kept.parent.mkdir(parents=True, exist_ok=True)
            with kept.open("wb") as fh:
                pickle.dump(cases[name], fh)
    data = numbers([c for name in names for c in cases[name]], names)
    if args.ablate:
        print(json.dumps(ablate(cases, data, names, hand=args.hand), indent=2))
        return
    start = prior()
    shipped = np.asarray(ranking.ranker_weights())
    report: dict = {"features": list(ranking.FEATURES), "sets": {}}
    for name in names:
        w = fit_outcome([cases[n] for n in names if n != name], start, hand_cuts()) \
            if args.outcome else fit_weights(data, start, without=name)
        entry: dict = {"questions": len(cases[name]),
                       "top1": {"hand": top1(data, start, name),
                                "shipped": top1(data, shipped, name),
                                "fitted_without": top1(data, w, name)},
                       "weights_fitted_without": dict(zip(ranking.FEATURES, w.tolist()))}
        if not args.no_quoted:
            others = [c for n in names if n != name for c in cases[n]]
            cuts = hand_cuts() if args.outcome else fit_cuts(others, w, hand_cuts())
            entry["cuts_fitted_without"] = dataclasses.asdict(cuts)
            entry["quoted"] = {
                "hand": quoted(cases[name], start, hand_cuts()),
                "shipped": quoted(cases[name], shipped, ranking.ranker_cuts()),
                "fitted_weights_hand_cuts": quoted(cases[name], w, hand_cuts()),
                "fitted_without": quoted(cases[name], w, cuts)}
        if args.pull:
            rest = [n for n in names if n != name]
            pull, merits = choose_pull(cases, data, rest, start)
            wp = fit_pulled(data, start, data["sets"] != names.index(name), pull)
            entry["pull"] = {"chosen": pull, "merits": merits, "top1": top1(data, wp, name),
                             "quoted": quoted(cases[name], wp, hand_cuts()),
                             "weights": dict(zip(ranking.FEATURES, wp.tolist()))}
        report["sets"][name] = entry
        print(json.dumps({name: {k: entry[k] for k in ("top1", "quoted", "pull") if k in entry}}),
              file=sys.stderr)
    if args.write:
        # The fitted weights and cuts ship only when, fitted without a set, they quote the gold
        # at least as often on it as the hand-set ones, on every set; else the prior ships.
        ships = not args.no_quoted and all(
            e["quoted"]["fitted_without"]["held"] >= e["quoted"]["hand"]["held"]
            and e["quoted"]["fitted_without"]["wrong"] <= e["quoted"]["hand"]["wrong"]
            for e in report["sets"].values())
        np.savez_compressed(ROWS_FILE, **data)
        data = load_rows()
        w = fit_weights(data, start)
        stored = read_weights_file()
        stored.update({"fitted_on": names, "fitted": dict(zip(ranking.FEATURES, w.tolist())),
                       "ships": "fitted" if ships else "prior"})
        stored["weights"] = stored["fitted"] if ships else stored["prior"]
        if ships:
            cuts = fit_cuts([c for name in names for c in cases[name]], w, hand_cuts())
            stored["cuts"] = dataclasses.asdict(cuts)
        else:
            stored.pop("cuts", None)
        ranking.WEIGHTS_FILE.write_text(json.dumps(stored, indent=2) + "\n")
        report["weights_fitted_on_all"] = stored["fitted"]
        report["ships"] = stored["ships"]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
