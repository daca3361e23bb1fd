"""What bounds the engine's margin on RealTimeQA: the contract's 'this week', the gold texts, the term budget.

RealTimeQA asks weekly quiz questions "this week" as of the quiz day. The temporal-queries
contract reads "this week" as the seven days ending on the as-of day, with soft edges in
retrieval; it used to read Monday to the as-of day. This bench measures what the older reading
cost (by re-running the same questions with "this week" cut back to the Monday),
how much the FTS5 postings budget changes each side (every query term kept), and how many gold
articles carry no article text at all (a video page's ad-feedback placeholder). Prints JSON;
recall@k of the temporal engine and of the time-blind baseline, side by side, per variant.

Usage: python bench/rtqa_ceiling.py rtqa.db [--qa ../shared/corpora/realtimeqa/qa.jsonl] [--k 5]
(the index built beforehand with `trag-tui index` and the bundled MiniLM).
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QA = REPO.parent / "shared" / "corpora" / "realtimeqa" / "qa.jsonl"
# A gold article whose text is the video player's ad-feedback form, and no longer than this
# (its chunks' text together), has no story in it.
PLACEHOLDER = "How relevant is this ad to you?"
PLACEHOLDER_MAX_CHARS = 500


def _is_this_week(tq) -> bool:
    return tq.intent == "point_in_time" and any("this week" in e.lower() for e in tq.expressions)


def run(index, qas, k: int, monday_week: bool) -> dict:
    """Recall@k of engine and baseline over the questions with evidence."""
    from trag_tui.evaluation import recall_at_k
    from trag_tui.retrieval.modes import Retriever, search
    from trag_tui.temporal.question import parse

    retriever = Retriever(index, index.settings)
    engine, blind = [], []
    for qa in qas:
        tq = parse(qa.question, qa.question_date)
        if monday_week and _is_this_week(tq):
            tq = dataclasses.replace(tq, start=qa.question_date - dt.timedelta(days=qa.question_date.weekday()))
        res = search(index, tq, as_of=qa.question_date, k=k, retriever=retriever, halt=False)
        base = search(index, tq, as_of=qa.question_date, k=k, retriever=retriever, halt=False, mode="blind")
        engine.append(recall_at_k([h.doc_id for h in res.hits], qa.evidence_ids, k))
        blind.append(recall_at_k([h.doc_id for h in base.hits], qa.evidence_ids, k))
    e, b = sum(engine) / len(engine), sum(blind) / len(blind)
    return {"engine": round(e, 3), "baseline": round(b, 3), "margin_points": round(100 * (e - b), 1)}


def audit(index, qas) -> dict:
    """Gold articles a Monday-start week excludes, and gold articles without a story."""
    from trag_tui.temporal.question import parse

    week_q = week_gold = before_monday = placeholder = gold = 0
    for qa in qas:
        tq = parse(qa.question, qa.question_date)
        this_week = _is_this_week(tq)
        week_q += this_week
        for doc_id in qa.evidence_ids:
            row = index.conn.execute(
                "SELECT d.date, (SELECT group_concat(c.text, ' ') FROM chunks c WHERE c.document_id = d.id) "
                "FROM documents d WHERE d.source_id = ?", (doc_id,)).fetchone()
            if row is None:
                continue
            gold += 1  # a (question, article) link
            text = row[1] or ""
            placeholder += len(text) < PLACEHOLDER_MAX_CHARS and PLACEHOLDER in text
            if this_week:
                week_gold += 1
                monday = qa.question_date - dt.timedelta(days=qa.question_date.weekday())
                before_monday += row[0] is not None and row[0] < monday.isoformat()
    return {"gold_links": gold, "gold_links_placeholder_text": placeholder,
            "this_week_questions": week_q, "this_week_gold": week_gold,
            "this_week_gold_before_monday": before_monday}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("db", type=Path)
    parser.add_argument("--qa", type=Path, default=QA)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args(argv)
    for path in (args.db, args.qa):
        if not path.is_file():
            sys.exit(f"missing: {path}")
    sys.path.insert(0, str(REPO))
    from trag_tui.evaluation import load_qa
    from trag_tui.retrieval import candidates
    from trag_tui.settings import Settings
    from trag_tui.storage.index import open_index

    index = open_index(args.db, Settings(db=args.db))
    qas = [q for q in load_qa(args.qa) if q.evidence_ids]
    out: dict = {"questions_with_evidence": len(qas), "k": args.k, **audit(index, qas)}
    budget = (candidates.POSTINGS_SHARE, candidates.MAX_TERMS)
    for terms in ("budget", "all_terms"):
        if terms == "all_terms":  # every query word kept, however common
            candidates.POSTINGS_SHARE, candidates.MAX_TERMS = 1.0, 10**6
        for week in ("contract_week", "monday_week"):
            out[f"{week}, {terms}"] = run(index, qas, args.k, week == "monday_week")
    candidates.POSTINGS_SHARE, candidates.MAX_TERMS = budget
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
