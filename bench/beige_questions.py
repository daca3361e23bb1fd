"""Write the project's own dated questions over the Beige Book corpus, with gold reports.

The Beige Book ships no questions, so these are generated from templates (several phrasings per
intent) over the reports that exist, with a fixed seed: point in time (a month, a quarter, a
year), as-of / current, comparison of two periods, and evolution since a year. Gold evidence is
the district's report(s) inside the period, or the latest one on or before the as-of date.
Usage: python bench/beige_questions.py [--districts da,ny,sf,ch] > bench/beige_book_questions.jsonl
"""
from __future__ import annotations

import argparse
import calendar
import datetime as dt
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpora" / "beige_book" / "docs.jsonl"
CITIES = {"da": "Dallas", "ny": "New York", "sf": "San Francisco", "ch": "Chicago", "bo": "Boston",
          "ph": "Philadelphia", "cl": "Cleveland", "ri": "Richmond", "at": "Atlanta",
          "sl": "St. Louis", "mi": "Minneapolis", "kc": "Kansas City"}
TOPICS = ["energy", "retail sales", "manufacturing", "employment", "residential real estate",
          "agriculture", "loan demand", "prices", "wages", "construction"]
PIT = [
    "What did the {city} Fed report about {topic} in the {when} Beige Book?",
    "How was {topic} described by the {city} district in {when}?",
    "{Topic} conditions in the {city} district in {when}",
    "What did the {city} Reserve Bank say about {topic} in {when}?",
]
CURRENT = [
    "What is the latest on {topic} in the {city} district?",
    "What are {city} contacts currently saying about {topic}?",
    "How is {topic} in the {city} district doing now?",
]
AS_OF = ["As of {when}, what was the {city} district reporting about {topic}?"]
COMPARE = [
    "How did {topic} in {city} differ between {a} and {b}?",
    "Compare {topic} in the {city} district in {a} and {b}",
    "{Topic} in {city}: {a} versus {b}",
]
EVOLVE = [
    "How has {topic} in the {city} district evolved since {year}?",
    "How has the {city} Fed's view of {topic} changed over time since {year}?",
]


def month_name(d: dt.date) -> str:
    return f"{calendar.month_name[d.month]} {d.year}"


def month_span(d: dt.date) -> tuple[dt.date, dt.date]:
    return d.replace(day=1), d.replace(day=calendar.monthrange(d.year, d.month)[1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--districts", default="da,ny,sf,ch")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    districts = args.districts.split(",")
    reports: dict[str, list[tuple[dt.date, str]]] = {d: [] for d in districts}
    for line in CORPUS.open(encoding="utf-8"):
        row = json.loads(line)
        dist = row["id"].rsplit(":", 1)[1]
        if dist in reports:
            reports[dist].append((dt.date.fromisoformat(row["date"]), row["id"]))
    for v in reports.values():
        v.sort()
    last_day = max(d for v in reports.values() for d, _ in v)
    rows = []

    def add(category, question, qdate, evidence, start=None, end=None, periods=None):
        rows.append({
            "id": f"bb-{len(rows) + 1:03d}", "question": question, "question_date": qdate.isoformat(),
            "evidence_ids": evidence, "category": category,
            "start": start.isoformat() if start else None, "end": end.isoformat() if end else None,
            "periods": [[a.isoformat(), b.isoformat()] for a, b in (periods or [])],
        })

    def fill(template, dist, topic, **kw):
        return template.format(city=CITIES[dist], topic=topic, Topic=topic.capitalize(), **kw)

    def later(day: dt.date) -> dt.date:
        return min(last_day, day + dt.timedelta(days=rng.randint(30, 2000)))

    for i in range(16):  # a named month
        dist = rng.choice(districts)
        day, rid = rng.choice(reports[dist])
        s, e = month_span(day)
        add("point_in_time", fill(PIT[i % len(PIT)], dist, rng.choice(TOPICS), when=month_name(day)),
            later(e), [rid], s, e)
    for i in range(6):  # a quarter or a year
        dist = rng.choice(districts)
        day, _ = rng.choice(reports[dist][:-20])
        if i % 2:
            q = (day.month - 1) // 3
            s = dt.date(day.year, 3 * q + 1, 1)
            e = month_span(dt.date(day.year, 3 * q + 3, 1))[1]
            when = f"Q{q + 1} {day.year}"
        else:
            s, e, when = dt.date(day.year, 1, 1), dt.date(day.year, 12, 31), str(day.year)
        gold = [rid for d, rid in reports[dist] if s <= d <= e]
        add("point_in_time", fill(PIT[i % len(PIT)], dist, rng.choice(TOPICS), when=when).replace(
            "the " + when + " Beige Book", when), later(e), gold, s, e)
    for i in range(8):  # current, asked on a day inside the corpus
        dist = rng.choice(districts)
        idx = rng.randrange(40, len(reports[dist]))
        day, _ = reports[dist][idx]
        ask = day + dt.timedelta(days=rng.randint(0, 30))
        gold = [rid for d, rid in reports[dist] if d <= ask][-1:]
        add("current", fill(CURRENT[i % len(CURRENT)], dist, rng.choice(TOPICS)), ask, gold, None, ask)
    for i in range(4):  # as of a named month
        dist = rng.choice(districts)
        day, _ = rng.choice(reports[dist][20:-20])
        s, e = month_span(day)
        gold = [rid for d, rid in reports[dist] if d <= e][-1:]
        add("current", fill(AS_OF[0], dist, rng.choice(TOPICS), when=month_name(day)), later(e), gold,
            None, e)
    for i in range(9):  # comparison of two months or two years
        dist = rng.choice(districts)
        (d1, r1), (d2, r2) = sorted(rng.sample(reports[dist], 2))
        if d1.year == d2.year or i % 3 == 2:
            if d1.year == d2.year:
                continue
            p1 = (dt.date(d1.year, 1, 1), dt.date(d1.year, 12, 31))
            p2 = (dt.date(d2.year, 1, 1), dt.date(d2.year, 12, 31))
            a, b = str(d1.year), str(d2.year)
            gold = [rid for d, rid in reports[dist] if p1[0] <= d <= p1[1] or p2[0] <= d <= p2[1]]
        else:
            p1, p2 = month_span(d1), month_span(d2)
            a, b = month_name(d1), month_name(d2)
            gold = [r1, r2]
        add("comparison", fill(COMPARE[i % len(COMPARE)], dist, rng.choice(TOPICS), a=a, b=b),
            later(p2[1]), gold, p1[0], p2[1], [p1, p2])
    for i in range(6):  # evolution since a year
        dist = rng.choice(districts)
        year = rng.randint(1975, 2012)
        ask = later(dt.date(year + 3, 1, 1))
        add("evolution", fill(EVOLVE[i % len(EVOLVE)], dist, rng.choice(TOPICS), year=year), ask, [],
            dt.date(year, 1, 1), ask)
    for row in rows:
        sys.stdout.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
