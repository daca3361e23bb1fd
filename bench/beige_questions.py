"""Write the project's own dated questions over the Beige Book corpus, with gold reports.

The Beige Book ships no questions, so these are generated from templates (several phrasings per
intent) over the reports that exist, with a fixed seed: point in time (a month, a quarter, a
year), as-of / current, comparison of two periods, and evolution since a year. Gold evidence is
the district's report(s) inside the period, or the latest one on or before the as-of date.
Usage: python bench/beige_questions.py [--districts da,ny,sf,ch] > bench/beige_book_questions.jsonl
       python bench/beige_questions.py --whole > bench/beige_book_whole_questions.jsonl
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


# Whole-corpus questions (--whole): every district and the national summary, named the ways
# people name them, in every mode. The district's ordinal is read from the corpus's own titles.
WHOLE_NAMES = [
    "the {city} Fed", "the {city} district", "the Federal Reserve Bank of {city}", "the {ordinal} District",
    "the {city} Reserve Bank", "{city} contacts",
]
SUMMARY_NAMES = ["the national summary", "the Beige Book's national summary", "the National Summary"]
WHOLE_PIT = [
    "What did {who} report about {topic} in {when}?",
    "How was {topic} described by {who} in {when}?",
    "What did {who} say about {topic} in the {when} Beige Book?",
    "{Topic} according to {who} in {when}",
]
WHOLE_CURRENT = [
    "What is {who} currently reporting on {topic}?",
    "What is the latest from {who} on {topic}?",
    "How is {topic} doing now according to {who}?",
]
WHOLE_AS_OF = ["As of {when}, what was {who} reporting about {topic}?",
               "What did {who} say about {topic} as of {when}?"]
WHOLE_COMPARE = [
    "Compare {who}'s view of {topic} in {a} and in {b}",
    "How did {who} describe {topic} in {a} versus {b}?",
    "{Topic} according to {who}: {a} compared with {b}",
]
WHOLE_EVOLVE = ["How has {who}'s view of {topic} evolved since {year}?",
                "How have reports of {topic} from {who} changed over time since {year}?"]
WHOLE_NONE = ["What does {who} say about {topic}?", "{Topic} in the reports of {who}"]


def whole(rng: random.Random, per_source: int) -> list[dict]:
    """Questions over all 12 districts and the national summary, with gold report ids."""
    reports: dict[str, list[tuple[dt.date, str]]] = {}
    ordinal: dict[str, str] = {}
    source: dict[str, str] = {}
    for line in CORPUS.open(encoding="utf-8"):
        row = json.loads(line)
        dist = row["id"].rsplit(":", 1)[1]
        reports.setdefault(dist, []).append((dt.date.fromisoformat(row["date"]), row["id"]))
        source[dist] = row["source"]
        if "(" in row["title"]:
            ordinal[dist] = row["title"].rsplit("(", 1)[1].split()[0]
    for v in reports.values():
        v.sort()
    last_day = max(d for v in reports.values() for d, _ in v)
    rows: list[dict] = []

    def who(dist: str, i: int) -> str:
        if dist not in CITIES:
            return SUMMARY_NAMES[i % len(SUMMARY_NAMES)]
        return WHOLE_NAMES[i % len(WHOLE_NAMES)].format(city=CITIES[dist], ordinal=ordinal.get(dist, ""))

    def ask(template: str, dist: str, i: int, topic: str, **kw) -> str:
        text = template.format(who=who(dist, i), topic=topic, Topic=topic.capitalize(), **kw)
        return (text[0].upper() + text[1:]).replace("s's ", "s' ")

    def add(dist, category, question, qdate, evidence, start=None, end=None, periods=None):
        rows.append({
            "id": f"bbw-{len(rows) + 1:03d}", "question": question, "question_date": qdate.isoformat(),
            "evidence_ids": evidence, "category": category, "source": source[dist],
            "start": start.isoformat() if start else None, "end": end.isoformat() if end else None,
            "periods": [[a.isoformat(), b.isoformat()] for a, b in (periods or [])],
        })

    def later(day: dt.date) -> dt.date:
        return min(last_day, day + dt.timedelta(days=rng.randint(30, 2000)))

    n = 0
    for dist in sorted(reports):
        mine = reports[dist]
        for _ in range(per_source):
            n += 1
            topic = rng.choice(TOPICS)
            day, rid = rng.choice(mine)  # a named month
            s, e = month_span(day)
            add(dist, "point_in_time", ask(WHOLE_PIT[n % len(WHOLE_PIT)], dist, n, topic, when=month_name(day)),
                later(e), [rid], s, e)
            day, _ = rng.choice(mine[:-20])  # a quarter (two or three reports, all of them gold)
            q = (day.month - 1) // 3
            s, e = dt.date(day.year, 3 * q + 1, 1), month_span(dt.date(day.year, 3 * q + 3, 1))[1]
            when = f"Q{q + 1} {day.year}" if n % 2 else f"the {('first', 'second', 'third', 'fourth')[q]} quarter of {day.year}"
            gold = [r for d, r in mine if s <= d <= e]
            template = WHOLE_PIT[(n + 1) % len(WHOLE_PIT)].replace(" the {when} Beige Book", " {when}")
            add(dist, "point_in_time", ask(template, dist, n + 1, rng.choice(TOPICS), when=when),
                later(e), gold, s, e)
            idx = rng.randrange(40, len(mine))  # current, asked a few days or weeks after a report
            qday = mine[idx][0] + dt.timedelta(days=rng.randint(0, 30))
            gold = [r for d, r in mine if d <= qday][-1:]
            add(dist, "current", ask(WHOLE_CURRENT[n % len(WHOLE_CURRENT)], dist, n + 2, rng.choice(TOPICS)),
                qday, gold, None, qday)
            day, _ = rng.choice(mine[20:-20])  # as of a named month
            s, e = month_span(day)
            gold = [r for d, r in mine if d <= e][-1:]
            add(dist, "current", ask(WHOLE_AS_OF[n % len(WHOLE_AS_OF)], dist, n + 3, rng.choice(TOPICS),
                                     when=month_name(day)), later(e), gold, None, e)
            while True:  # two months of different years
                (d1, r1), (d2, r2) = sorted(rng.sample(mine, 2))
                if d1.year != d2.year:
                    break
            p1, p2 = month_span(d1), month_span(d2)
            add(dist, "comparison", ask(WHOLE_COMPARE[n % len(WHOLE_COMPARE)], dist, n + 4, rng.choice(TOPICS),
                                        a=month_name(d1), b=month_name(d2)),
                later(p2[1]), [r1, r2], p1[0], p2[1], [p1, p2])
        year = rng.randint(1975, 2012)  # evolution since a year, and no time at all
        qday = later(dt.date(year + 3, 1, 1))
        add(dist, "evolution", ask(WHOLE_EVOLVE[n % 2], dist, n + 5, rng.choice(TOPICS), year=year), qday, [],
            dt.date(year, 1, 1), qday)
        add(dist, "none", ask(WHOLE_NONE[n % 2], dist, n + 6, rng.choice(TOPICS)), last_day, [])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--districts", default="da,ny,sf,ch")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--whole", action="store_true",
                    help="every district and the national summary, every mode (bench/beige_book_whole_questions.jsonl)")
    ap.add_argument("--per-source", type=int, default=2)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.whole:
        for row in whole(rng, args.per_source):
            sys.stdout.write(json.dumps(row) + "\n")
        return
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
    for _ in range(4):  # as of a named month
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
