"""The chat app's time to the first right text: Enter to the quoted answer on screen, beside Enter
to the model's first checked sentence on screen, in the same run.

The app is driven headless through Textual's Pilot on the sample index, with the real model
(the bundled one unless --model). Each question is typed into the question box and Enter
pressed; the screen is then polled every 10 ms for the answer's text. One throwaway question
first loads the embedder and the model and warms llama.cpp, so the figures are warm ones. The
quote should be on screen within 2 s of Enter; `ratio` (quote / first checked sentence) says
how much sooner than the model's own text it comes, and the ratio to the finished answer how much
sooner than the moment the model's text was checked (all the reader had before).

The index is built in a temporary folder from sample_corpus/ with the real MiniLM embedder
unless --hash, or an existing index is used (--db).
Usage: python bench/chat_latency.py [--hash | --db FILE] [--model FILE] [--as-of DATE]
"""
from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from trag_tui.settings import Settings  # noqa: E402

QUESTIONS = [  # the tour of the sample index
    "What was the Bank Rate in November 2022?",
    "What is the current inflation rate?",
    "How has net migration changed since 2015?",
    "Compare unemployment in 2012 and 2024",
    "Who is the Prime Minister?",
]
WARM_UP = "What is the Rwanda scheme?"
POLL = 0.01


def log(message: str) -> None:
    """Progress on stderr, so stdout stays one JSON document."""
    print(message, file=sys.stderr, flush=True)


def build(folder: Path, db: Path, embedder: str | None) -> Settings:
    """Index the sample corpus into `db`."""
    from trag_tui.indexer import Indexer
    from trag_tui.storage.index import open_index

    settings = Settings(db=db, embedder=embedder)
    idx = open_index(db, settings, create=True)
    try:
        Indexer(idx.conn, idx.path, idx.embedder, settings).run([folder])
    finally:
        idx.close()
    return settings


async def one(pilot, question: str, timeout: float) -> dict:
    """Ask one question through the question box; when its quote and the model's first checked
    sentence reached the screen, in seconds from Enter."""
    from textual.widgets import Input

    app = pilot.app
    chat = app.chat
    before = len(app.turns)
    chat.query_one("#question", Input).value = question
    marks: dict[str, float] = {}

    async def watch() -> None:
        # Polled from its own task: Pilot's press returns only once the app is idle, which
        # is after the answer is finished, so a poll after it would time the whole answer.
        while time.perf_counter() - started < timeout:
            running = chat.running
            now = time.perf_counter() - started
            if running is not None and running.quoted and running.answer.markdown.source.strip():
                marks.setdefault("quote", now)
            if running is not None and running.generated:
                marks.setdefault("sentence", now)
            if len(app.turns) > before and chat.running is None:
                return
            await asyncio.sleep(POLL)

    started = time.perf_counter()
    watcher = asyncio.create_task(watch())
    await pilot.press("enter")
    await watcher
    quote, sentence = marks.get("quote"), marks.get("sentence")
    total = time.perf_counter() - started
    done = app.turns[-1].done if len(app.turns) > before else {}
    return {"question": question, "mode": done.get("mode", ""),
            "quote_s": _round(quote), "first_checked_sentence_s": _round(sentence),
            "finished_s": round(total, 3),
            "ratio": _round(quote / sentence) if quote and sentence else None,
            "model_added": bool(done.get("claims"))}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


async def run(settings: Settings, as_of: dt.date, timeout: float) -> list[dict]:
    from trag_tui.storage.index import open_index
    from trag_tui.tui.app import TragApp
    from trag_tui.tui.history import History

    app = TragApp(settings, index=open_index(settings.db, settings), today=as_of,
                  history=History(Path(tempfile.mkdtemp()) / "history.jsonl"))
    rows = []
    async with app.run_test(size=(120, 36)) as pilot:
        while not app.chat.timeline.per_year:
            await asyncio.sleep(POLL)
        log(f"warm-up: {WARM_UP}")
        await one(pilot, WARM_UP, timeout)
        for question in QUESTIONS:
            log(question)
            rows.append(await one(pilot, question, timeout))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hash", action="store_true", help="index with the hash embedder")
    ap.add_argument("--db", type=Path, help="an existing index of the sample corpus")
    ap.add_argument("--model", help="a GGUF file or model name (default: the bundled model)")
    ap.add_argument("--as-of", default="2025-11-22", help="the date questions are asked from")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per question at most")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp_name:
        os.environ.setdefault("TRAG_TUI_USER_DIR", tmp_name)
        if args.db is not None:
            settings = Settings(db=args.db, embedder="hash" if args.hash else None)
        else:
            log("indexing sample_corpus/ …")
            settings = build(REPO / "sample_corpus", Path(tmp_name) / "sample.db",
                             "hash" if args.hash else None)
        if args.model:
            settings = settings.replace(model=args.model)
        rows = asyncio.run(run(settings, dt.date.fromisoformat(args.as_of), args.timeout))
    quotes = [r["quote_s"] for r in rows if r["quote_s"] is not None]
    sentences = [r["first_checked_sentence_s"] for r in rows
                 if r["first_checked_sentence_s"] is not None]
    ratios = [r["ratio"] for r in rows if r["ratio"] is not None]
    print(json.dumps({
        "questions": rows,
        "median_quote_s": _round(statistics.median(quotes)) if quotes else None,
        "max_quote_s": max(quotes) if quotes else None,
        "median_first_checked_sentence_s":
            _round(statistics.median(sentences)) if sentences else None,
        "median_ratio": _round(statistics.median(ratios)) if ratios else None,
        # Where the model adds no checked sentence, what the quote is measured against is the
        # finished answer: before the quote came first, the reader waited for it.
        "median_finished_s": _round(statistics.median(r["finished_s"] for r in rows)),
        "median_quote_to_finished_ratio": _round(statistics.median(
            r["quote_s"] / r["finished_s"] for r in rows if r["quote_s"])) if quotes else None,
        "quote_within_2s": bool(quotes) and max(quotes) <= 2.0,
        "embedder": "hash" if args.hash else "default",
    }, indent=2))


if __name__ == "__main__":
    main()
