"""How long reading one question's time takes, on one core, over the development set.

The parser runs on every question before retrieval starts, so it must cost next to nothing
beside the search itself; this measures it the way the project's target is stated (median over
the development set repeated, after warm-up) and prints one JSON line for the README and CI.

    python bench/parse_bench.py [--repeat N] [--file path/to/intent-dev.jsonl]
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# The development set lives beside the repository, never inside it.
DEFAULT_FILE = REPO.parent / "shared" / "eval" / "intent-dev.jsonl"
TARGET_MEDIAN_MS = 10


def main(argv: list[str] | None = None) -> int:
    """Time parse() per question and print {"n", "median_ms", "p95_ms", "max_ms", "target_median_ms", "ok"}."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="passes over the set (default 20)")
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="JSONL with query and as_of fields")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        sys.exit(f"development set not found: {args.file} (pass --file)")
    rows = [json.loads(line) for line in args.file.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [(row["query"], dt.date.fromisoformat(row["as_of"])) for row in rows]
    if not questions:
        sys.exit(f"no questions in {args.file}")

    if hasattr(os, "sched_setaffinity"):  # one core, so the figure does not depend on the machine's load
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    sys.path.insert(0, str(REPO))
    from trag_tui.temporal.question import parse

    for question, as_of in questions * 2:  # warm-up: lazy regexes, dateparser's language data
        parse(question, as_of)
    timings = []
    for _ in range(max(1, args.repeat)):
        for question, as_of in questions:
            started = time.perf_counter()
            parse(question, as_of)
            timings.append((time.perf_counter() - started) * 1000)
    timings.sort()
    median = statistics.median(timings)
    print(json.dumps({
        "n": len(timings),
        "median_ms": round(median, 3),
        "p95_ms": round(timings[min(len(timings) - 1, int(0.95 * len(timings)))], 3),
        "max_ms": round(timings[-1], 3),
        "target_median_ms": TARGET_MEDIAN_MS,
        "ok": median <= TARGET_MEDIAN_MS,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
