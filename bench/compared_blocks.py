"""Comparison answers period by period: is each compared period quoted, and from its own report?

The retrieval benches say whether a period's gold report is among the hits; a reader sees the
answer, one labelled line per period. For every comparison question of the Beige Book question
files (the district's report of each period is the gold), this asks the question with no model
(the quoted answer, what `ask --evidence-only` shows) and counts, over all compared periods:

- `periods_quoted`: periods the answer has a line for (a line under two labels counts twice);
- `quoted_from_gold`: those whose line cites a gold report;
- `on_topic`: those whose line holds a word of the topic the question asks about (the question
  templates' topics: wages, loan demand, energy, …).

    python bench/compared_blocks.py --index beige.db [--questions FILE ...] [--records out.jsonl]
        [--category current --category point_in_time]

`--category` asks the questions of other categories instead, each answer counted as one
period's (the answer quoted at all, citing a gold report, holding a word of the topic).

Prints JSON.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from collections.abc import Collection
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.beige_questions import TOPICS  # noqa: E402
from trag_tui.answering.events import Done  # noqa: E402
from trag_tui.answering.pipeline import ask  # noqa: E402
from trag_tui.settings import Settings  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402
from trag_tui.text.words import content_words  # noqa: E402

QUESTION_FILES = (REPO / "bench" / "beige_book_questions.jsonl",
                  REPO / "bench" / "beige_book_whole_questions.jsonl")
_CITED = re.compile(r"\[(\d+)\]")


def comparisons(files, categories: Collection[str] = ("comparison",)) -> list[dict]:
    """The questions of the files in the categories (comparisons by default), each once."""
    out: dict[str, dict] = {}
    for path in files:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            if q.get("category") in categories:
                out.setdefault(q["question"] + "|" + q["question_date"], q)
    return list(out.values())


def topic_of(question: str) -> set[str]:
    """The words of the template topic the question asks about (none when it names none)."""
    return next((content_words(t) for t in TOPICS if t in question.lower()), set())


def score(answer: str, cited_docs: dict[int, str], gold: set[str],
          topic: Collection[str] = (), whole: bool = False) -> tuple[int, int, int]:
    """(periods quoted, of them quoted from a gold document, of them on the topic) in one
    answer's lines; `whole`: the answer is one period's, whatever its lines."""
    if whole:
        text = " ".join(answer.split())
        if not text:
            return 0, 0, 0
        return (1, int(any(cited_docs.get(int(n)) in gold for n in _CITED.findall(text))),
                int(bool(set(topic) & content_words(text))))
    quoted = from_gold = on_topic = 0
    for line in filter(str.strip, answer.splitlines()):
        head, _, said = line.partition(": ") if ": " in line else ("", "", line)
        periods = head.count(" and ") + 1
        quoted += periods
        from_gold += periods * any(cited_docs.get(int(n)) in gold for n in _CITED.findall(line))
        on_topic += periods * bool(set(topic) & content_words(said))
    return quoted, from_gold, on_topic


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--questions", type=Path, action="append")
    ap.add_argument("--records", type=Path)
    ap.add_argument("--category", action="append",
                    help="the questions of this category instead (repeatable; an answer of one "
                         "period is one line): current, point_in_time, …")
    args = ap.parse_args()
    settings = Settings.load(db=args.index)
    index = open_index(args.index, settings)
    qs = comparisons(args.questions or QUESTION_FILES, args.category or ("comparison",))
    periods = quoted = from_gold = on_topic = 0
    records = args.records.open("w", encoding="utf-8") if args.records else None
    for i, q in enumerate(qs, 1):
        done = [e for e in ask(index, q["question"], as_of=dt.date.fromisoformat(q["question_date"]),
                               evidence_only=True) if isinstance(e, Done)][-1]
        docs = {s.number: s.doc_id for s in done.sources}
        n, g, t = score(done.answer, docs, set(q["evidence_ids"]), topic_of(q["question"]),
                        whole=not q.get("periods"))
        periods += len(q.get("periods") or [None])
        quoted += n
        from_gold += g
        on_topic += t
        if records:
            records.write(json.dumps({"id": q["id"], "question": q["question"], "answer": done.answer,
                                      "periods_quoted": n, "quoted_from_gold": g, "on_topic": t})
                          + "\n")
        print(f"{i}/{len(qs)}", file=sys.stderr, end="\r")
    index.close()
    print(json.dumps({"questions": len(qs), "periods": periods, "periods_quoted": quoted,
                      "quoted_from_gold": from_gold, "on_topic": on_topic}, indent=1))


if __name__ == "__main__":
    main()
