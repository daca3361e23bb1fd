"""Questions about the time documents speak of, beside today's engine that reads publication only.

For each question of the development sets (`bench/event_time_sample_questions.jsonl`: the sample
corpus; `bench/event_time_shared_questions.jsonl`: the Beige Book, RealTimeQA and LoCoMo),
retrieval runs twice on the same index in the same run: as the question reads (`--time auto`)
and with every period matched by publication date only (`--time said`, the engine before two
times). Figures per corpus and per `time` of the question (`about`, and the `said` controls):

- recall@5: the share of questions with a gold document among the first five hits;
- gold_share@5: the share of gold documents among them, averaged (`trag-tui eval`'s recall);
- leak: hits published after the question's as-of date (must be 0);
- answer (with `--answers`): the share of questions whose answer holds a gold answer string
  (`bench/answer_quality.py`'s rule), quoted (`--evidence-only`) and, with `--model`, grounded;
- flagged: of the answers that miss the gold and of those that hold it, how many open with the
  note that no source gives what was asked ("…; the closest they come:"): right over a miss,
  wrong over a hit.

Usage:
    python bench/event_time.py --index sample=sample.db --index beige_book=beige.db \\
        --index realtimeqa=rtqa.db --index locomo=locomo.db [--answers] [--model] [--records F]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.answer_quality import holds, uncited  # noqa: E402
from trag_tui import ask, open_index, search  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402

SETS = [REPO / "bench" / "event_time_sample_questions.jsonl",
        REPO / "bench" / "event_time_shared_questions.jsonl"]
K = 5
CLOSEST = "; the closest they come:"  # the note over a quote that is not the answer asked for


def load(corpora: set[str]) -> list[dict]:
    rows = []
    for path in SETS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row["corpus"] in corpora:
                    rows.append(row)
    return rows


def retrieve(index, settings: Settings, row: dict, time: str) -> dict:
    as_of = dt.date.fromisoformat(row["as_of"])
    res = search(index, row["question"], as_of=as_of, k=K, settings=settings.replace(time=time))
    ids = [h.doc_id for h in res.hits]
    gold = set(row["gold_doc_ids"])
    return {"hits": ids, "found": bool(gold & set(ids[:K])),
            "share": len(gold & set(ids[:K])) / len(gold),
            "leak": sum(1 for h in res.hits if h.date and h.date[:10] > row["as_of"]),
            "read_as": res.query.time, "mode": res.mode}


def answer(index, settings: Settings, row: dict, evidence_only: bool) -> dict:
    done = None
    for event in ask(index, row["question"], as_of=dt.date.fromisoformat(row["as_of"]),
                     settings=settings, evidence_only=evidence_only):
        done = event
    text = uncited(done.answer)
    return {"answer": done.answer, "holds": any(holds(text, g) for g in row["answers"]),
            "flagged": CLOSEST in done.answer}


def summarise(rows: list[dict]) -> dict:
    out: dict = {}
    for key in sorted({(r["corpus"], r["time"]) for r in rows}) + [("all", "about"), ("all", "said")]:
        part = [r for r in rows if (key[0] == "all" or r["corpus"] == key[0]) and r["time"] == key[1]]
        if not part:
            continue
        entry: dict = {"questions": len(part)}
        for engine in ("engine", "said_only"):
            entry[engine] = {
                "recall@5": round(statistics.mean(r[engine]["found"] for r in part), 3),
                "gold_share@5": round(statistics.mean(r[engine]["share"] for r in part), 3),
                "leak": sum(r[engine]["leak"] for r in part)}
        for pipeline in ("quoted", "grounded"):
            if pipeline in part[0]:
                entry[f"answer_{pipeline}"] = round(
                    statistics.mean(r[pipeline]["holds"] for r in part), 3)
                # the reader told the quote is only the closest the sources come: rightly
                # over an answer without the gold, wrongly over one that holds it
                for held, name in ((False, "misses"), (True, "holds")):
                    among = [r for r in part if r[pipeline]["holds"] == held]
                    entry[f"flagged_{pipeline}_{name}"] = \
                        f"{sum(1 for r in among if r[pipeline].get('flagged'))} of {len(among)}"
        out[f"{key[0]}/{key[1]}"] = entry
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", action="append", required=True, metavar="CORPUS=FILE",
                    help="an index per corpus: sample, beige_book, realtimeqa, locomo")
    ap.add_argument("--answers", action="store_true", help="also answer each question, quoted")
    ap.add_argument("--model", action="store_true", help="and with the bundled model (slow)")
    ap.add_argument("--records", type=argparse.FileType("w"), help="per-question JSONL")
    args = ap.parse_args()
    indexes = dict(item.partition("=")[::2] for item in args.index)
    rows = load(set(indexes))
    for corpus, db in indexes.items():
        settings = Settings.load(db=Path(db))
        index = open_index(Path(db), settings)
        for row in (r for r in rows if r["corpus"] == corpus):
            row["engine"] = retrieve(index, settings, row, "auto")
            row["said_only"] = retrieve(index, settings, row, "said")
            if args.answers:
                row["quoted"] = answer(index, settings, row, True)
                if args.model:
                    row["grounded"] = answer(index, settings, row, False)
            if args.records:
                args.records.write(json.dumps(row, ensure_ascii=False) + "\n")
            print(f"{corpus} {row['id']}", file=sys.stderr, end="\r")
        index.close()
    print(file=sys.stderr)
    print(json.dumps(summarise(rows), indent=2))


if __name__ == "__main__":
    main()
