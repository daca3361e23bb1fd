"""The development question sets the answer benches read, by name.

Imports nothing of trag_tui, so `answer_parity.py` can run it against an older checkout.
"""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "corpora"
# the sets whose questions carry an answer `key` of their own
KEYED = ("sample", "sample_second", "sample_third", "sample_fourth", "hansard", "hansard_second",
         "beige_keys", "news_keys")
QUESTION_SETS = {
    "sample": REPO / "sample_corpus" / "questions.jsonl",
    # a second set of keys on the sample corpus, written from its documents by a pass that did
    # not run the engine (a comparison's key names each period's figure: "3.4% | 4.6%")
    "sample_second": REPO / "bench" / "sample_second_keys.jsonl",
    # a third, written the same way and measured once before anything was changed for it
    "sample_third": REPO / "bench" / "sample_third_keys.jsonl",
    # a fourth, the same way
    "sample_fourth": REPO / "bench" / "sample_fourth_keys.jsonl",
    # keys written the same way from the UK Hansard of October 2009 (`docs.jsonl`, indexed as
    # JSONL) and from the whole Beige Book
    "hansard": REPO / "bench" / "hansard_keys.jsonl",
    "beige_keys": REPO / "bench" / "beige_book_keys.jsonl",
    # a second Hansard set, written the same way and measured once before anything was
    # changed for it
    "hansard_second": REPO / "bench" / "hansard_second_keys.jsonl",
    # keys written the same way from RealTimeQA's news archive, on stories no development
    # question asks about, asked as a weekly news quiz a few days after the story
    "news_keys": REPO / "bench" / "news_keys.jsonl",
    "realtimeqa": SHARED / "realtimeqa" / "qa.jsonl",
    "locomo": SHARED / "locomo" / "qa.jsonl",
    "beige": REPO / "bench" / "beige_book_questions.jsonl",
    "beige_whole": REPO / "bench" / "beige_book_whole_questions.jsonl",
}
