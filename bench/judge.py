"""The relevance judge and the hot window, measured beside today's engine in one run.

For every question of a set, retrieval runs once; then the quoted answer (no model writes it,
as `ask --evidence-only`) is built three ways from the same sources:
- `before`: the hot window off and no judge (the engine before either step);
- `hot`: the hot window on (the current questions' latest sources on the subject lead);
- `judged`: the hot window on and the relevance judge (`--judge MODEL`) checking each source.

Figures per set (printed as JSON):
- judge: precision and recall of its keep/drop against the gold evidence of the question file
  (a source is relevant when its document is one of the question's evidence documents), over
  the sources it judged, beside keeping everything (precision = the gold share, recall 1);
  the share of sources judged within the time budget (`--budget` seconds per question, the
  product's `judge_seconds`); its cost per question and per judged source;
- answers: accuracy, ceiling, wrong choices (RealTimeQA), token F1 (LoCoMo) as in
  `answer_quality.py`, for each of the three, on the set's answer questions, and on its
  current questions (those the hot window applies to);
- hot: how many questions had a hot window with leading sources, and how many answers changed.

Usage:
    python bench/judge.py --set realtimeqa=rtqa.db --judge llama --budget 4 --threads 1 \\
        [--records out.jsonl] [--retrieval-cache rtqa.pkl]
    python bench/judge.py --set sample=sample.db          # the hot window alone
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.answer_quality import (  # noqa: E402
    QUESTIONS,
    against_key,
    grounded_pipeline,
    holds,
    load_cache,
    load_questions,
    records_by_set,
    retrieved,
    save_cache,
    set_arguments,
    set_cache,
    sets,
    sources_text,
    write_record,
)
from trag_tui.answering.events import Done  # noqa: E402
from trag_tui.answering.hot import is_current  # noqa: E402
from trag_tui.models.generation import load_generator  # noqa: E402
from trag_tui.retrieval.modes import Retriever  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402

VARIANTS = ("before", "hot", "judged")


class Remembered:
    """The index's embedder, remembering this question's sentences: the three answers of one
    question rank the same sentences, so each is encoded once (the vectors are the same)."""

    def __init__(self, embedder):
        self.embedder = embedder
        self.seen: dict[str, object] = {}

    def encode(self, texts):
        import numpy as np

        new = [t for t in dict.fromkeys(texts) if t not in self.seen]
        if new:
            self.seen.update(zip(new, self.embedder.encode(new)))
        return np.stack([self.seen[t] for t in texts]) if texts else self.embedder.encode(texts)

    def __getattr__(self, name):
        return getattr(self.embedder, name)


def all_questions(name: str) -> list[dict]:
    """Every question of the set's file with its gold evidence (the judge's figures), and
    whether it is one of the answer questions (`answer_quality.load_questions`)."""
    keyed = {q["id"]: q for q in load_questions(name, QUESTIONS[name])}
    out = []
    for line in QUESTIONS[name].read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        r = json.loads(line)
        gold = r.get("evidence_ids") or r.get("gold_doc_ids") or []
        if not gold and r["id"] not in keyed:
            continue
        out.append({"id": r["id"], "question": r["question"],
                    "as_of": r.get("as_of") or r.get("question_date"), "gold": list(gold),
                    "answer": keyed.get(r["id"])})
    return out


def scored(done: Done | None, q: dict) -> dict:
    key = q["answer"]
    text = done.answer if done is not None else ""
    out = {"answer": text}
    if key is not None:
        judged = against_key(text, key["golds"], key["choices"])
        out.update(judged, wrong_choice=bool(judged["wrong_choice"]),
                   ceiling=any(holds(sources_text(done.sources) if done else "", g)
                               for g in key["golds"]))
    return out


def answer_figures(rows: list[dict], variant: str) -> dict:
    keyed = [r for r in rows if "correct" in r[variant]]
    n = len(keyed)
    if not n:
        return {"questions": 0}
    right = sum(r[variant]["correct"] for r in keyed)
    ceiling = [r for r in keyed if r[variant]["ceiling"]]
    return {"questions": n, "accuracy": round(right / n, 3), "correct": right,
            "ceiling": round(len(ceiling) / n, 3),
            "accuracy_where_answer_in_sources": round(
                sum(r[variant]["correct"] for r in ceiling) / len(ceiling), 3) if ceiling else 0.0,
            "wrong_choice_rate": round(sum(r[variant]["wrong_choice"] for r in keyed) / n, 3),
            "f1": round(statistics.mean(r[variant]["f1"] for r in keyed), 3),
            "answer_seconds_median": round(statistics.median(r[variant]["seconds"] for r in keyed), 3)}


def judge_figures(rows: list[dict], budget: float) -> dict:
    verdicts = [(v, r["gold"]) for r in rows for v in r.get("verdicts", [])]
    judged = [(v, g) for v, g in verdicts if v["keep"] is not None]
    gold_of = [(v["keep"], v["doc_id"] in g) for v, g in judged]
    kept = [rel for keep, rel in gold_of if keep]
    relevant = [keep for keep, rel in gold_of if rel]
    dropped = [rel for keep, rel in gold_of if not keep]
    per_q = [r["judge_seconds"] for r in rows if "judge_seconds" in r]
    seconds = sum(v["seconds"] for v, _ in judged)
    said = statistics.mode([v["said"].lower().strip(". ") for v, _ in judged]) if judged else ""
    return {
        "questions": len(per_q), "sources": len(verdicts), "judged": len(judged),
        "share_judged": round(len(judged) / len(verdicts), 3) if verdicts else 0.0,
        "budget_seconds_per_question": budget,
        "kept": len(kept), "dropped": len(dropped), "most_common_reply": said,
        "questions_where_all_judged_were_dropped": sum(
            1 for r in rows if r.get("verdicts") and all(v["keep"] is False for v in r["verdicts"])),
        "keep_precision": round(sum(kept) / len(kept), 3) if kept else None,
        "keep_recall": round(sum(relevant) / len(relevant), 3) if relevant else None,
        "keep_all_precision": round(sum(rel for _, rel in gold_of) / len(gold_of), 3) if gold_of else None,
        "drop_precision": round(sum(1 for rel in dropped if not rel) / len(dropped), 3) if dropped else None,
        "judge_seconds_per_question_median": round(statistics.median(per_q), 3) if per_q else None,
        "judge_seconds_per_judged_source": round(seconds / len(judged), 3) if judged else None,
    }


def run_set(name: str, db: Path, args, records) -> dict:
    settings = Settings.load(db=db, threads=args.threads, judge_seconds=args.budget)
    idx = open_index(db, settings)
    retriever = Retriever(idx, settings)
    embedder = Remembered(idx.embedder)
    judge = load_generator(dataclasses.replace(settings, model=args.judge)) if args.judge else None
    off = dataclasses.replace(settings, hot="off")
    on = dataclasses.replace(settings, hot="on")
    cache_path = set_cache(args, name)
    cache = load_cache(cache_path)
    fresh = False
    qs = all_questions(name)
    total = len(qs)
    # Every `step`-th question first, then the next offset: a run stopped by `--until` has
    # measured questions spread over the whole set, not its first weeks. `--part i/n` takes
    # every n-th of that order, so n processes share a set.
    step = max(1, round(len(qs) ** 0.5))
    qs = [q for o in range(step) for q in qs[o::step]]
    part, parts = (int(x) for x in args.part.split("/"))
    qs = qs[part - 1::parts]
    rows = []
    for i, q in enumerate(qs, 1):
        if args.until and dt.datetime.now(dt.UTC).strftime("%H:%M") >= args.until:
            print(f"\nstopped at {args.until} UTC after {i - 1} of {len(qs)} questions",
                  file=sys.stderr)
            break
        result, passages, roles, new = retrieved(idx, name, q, settings, retriever, cache)
        fresh = fresh or new
        embedder.seen.clear()
        row = {"set": name, "id": q["id"], "gold": q["gold"], "mode": result.mode,
               "current": is_current(result)}
        if result.hits:
            for variant, s, j in (("before", off, None), ("hot", on, None),
                                  ("judged", on, judge)):
                if (variant == "judged" and judge is None) or variant not in args.variants:
                    continue
                done, _, seconds, _ = grounded_pipeline(result, passages, roles, None, s,
                                                        embedder, evidence_only=True, judge=j)
                row[variant] = {**scored(done, q), "seconds": seconds}
                if variant == "hot":
                    row["hot_leading"] = list(done.hot.leading) if done.hot else []
                if variant == "judged":
                    row["verdicts"] = [v.to_dict() for v in done.judged]
                    row["judge_seconds"] = done.timings.get("judge", 0.0)
        else:
            for variant in args.variants:
                row[variant] = {**scored(None, q), "seconds": 0.0}
        rows.append(row)
        write_record(records, row)
        print(f"{name} {i}/{len(qs)}", file=sys.stderr, end="\r")
    idx.close()
    save_cache(cache_path, cache, fresh)
    print(file=sys.stderr)
    out = summarise(rows, args.budget if judge is not None else None)
    out["questions_in_set"] = total
    return out


def summarise(rows: list[dict], budget: float | None) -> dict:
    variants = [v for v in VARIANTS if rows and all(v in r for r in rows)]
    current = [r for r in rows if r["current"]]
    out: dict = {
        "questions": len(rows), "current_questions": len(current),
        "answers": {v: answer_figures(rows, v) for v in variants},
        "answers_current": {v: answer_figures(current, v) for v in variants},
        "hot": {"questions_with_leading_sources": sum(1 for r in rows if r.get("hot_leading")),
                "answers_changed": sum(1 for r in rows if "hot" in r and "before" in r
                                       and r["hot"]["answer"] != r["before"]["answer"])},
    }
    if budget is not None:
        out["judge"] = judge_figures(rows, budget)
        out["judge"]["answers_changed"] = sum(
            1 for r in rows if "judged" in r and r["judged"]["answer"] != r["hot"]["answer"])
        # The first answer of a question encodes its sentences (the others reuse them): the
        # judge's seconds against that answer's, a ratio that carries over from this shared,
        # noisy machine where the seconds do not.
        first = next(v for v in VARIANTS if v in variants)
        base = [r[first]["seconds"] for r in rows if first in r and "judge_seconds" in r]
        spent = [r["judge_seconds"] for r in rows if first in r and "judge_seconds" in r]
        if base and spent:
            out["judge"]["judge_time_ratio_to_the_answer_without_it"] = round(
                statistics.median(spent) / max(statistics.median(base), 1e-9), 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    set_arguments(ap)
    ap.add_argument("--judge", help="the judge's model (a name the model registry knows)")
    ap.add_argument("--budget", type=float, default=Settings().judge_seconds,
                    help="the judge's seconds per question (the product's judge_seconds)")
    ap.add_argument("--threads", type=int, default=0, help="the judge model's threads (0: all)")
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="which answers to build (before, hot, judged; default all three)")
    ap.add_argument("--part", default="1/1", help="i/n: this process's share of the set")
    ap.add_argument("--until", metavar="HH:MM",
                    help="stop starting questions at this UTC time and report what was measured")
    args = ap.parse_args()
    args.variants = [v for v in args.variants.split(",") if v]
    if args.summarise:
        by_set = records_by_set(args.summarise)
        judged = any("verdicts" in r for part in by_set.values() for r in part)
        report = {name: summarise(part, args.budget if judged else None)
                  for name, part in by_set.items()}
        print(json.dumps(report, indent=2))
        return
    report = {name: run_set(name, db, args, args.records) for name, db in sets(ap, args)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
