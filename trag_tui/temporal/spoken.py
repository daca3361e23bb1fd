"""The periods a document speaks of, beside the day it was published.

The ONS publishes May's inflation in June; a spending review of 2010 sets budgets for 2011-15;
a Beige Book describes the weeks before it; a story filed on Tuesday reports Monday; a
conversation on 27 March says "last week". A question about the time a document speaks of must
find it by that time, not by its publication date (the temporal-query contract, "Two times").
The periods are read by the question rules (`question.read_periods`) with the publication day as
as_of, so "last year" in a document of 2023 is 2022 and "on Tuesday" the latest Tuesday on or
before its date: one reader, both sides, in every language the questions are read in. A period
after the publication day (a plan, a forecast, "for 2033 to 2037") is kept as stated.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace

from .calendar import add_days, shift, unit_span
from .cues import BASELINE, DEADLINE, WHEN_CLAUSE
from .lexicon import MONTHS, SEASONS, UNITS, WEEKDAYS, alternation, lazy, unit_of
from .mentions import ahead_of
from .question import SPAN_UNITS, Named, read_periods, span_length
from .rules import FUTURE, RELATIVE, TO_DATE, TODAY

# Only the text around a word that can start a time expression is read: a year, a month, a
# weekday, a season, a unit of time, or a day named relative to today (a bare number is a count).
_YEAR_DIGITS = r"(?<!\d)(?:1[89]|2[01])\d\d(?!\d)"  # a year written in digits, 1800-2199
_TRIGGER = lazy(
    rf"{_YEAR_DIGITS}|(?<!\w)(?:{alternation(MONTHS)}|{alternation(WEEKDAYS)}|"
    rf"{alternation(SEASONS)}|"
    rf"{alternation(UNITS)}|yesterday|tomorrow|вчера|завтра|hier|demain|gestern|morgen|ayer|"
    r"mañana|quarter|Q[1-4]|H[12])(?!\w)")
REACH = 60  # characters read either side of a trigger: the longest expression and its modifier
# Periods a text states outright, one stretch each; open-ended ones ("since 2010", "before
# 2016") say too little about any one period to be found by it.
BOUNDED = frozenset({"in", "range", "between", "week_of", "span_ending", "week_from",
                     "span_before", "span_after"})
# a period told back from another named before it in the sentence ("the previous quarter")
PREVIOUS = lazy(rf"(?:the\s+)?(?:previous|preceding)\s+(?:\w+\s+)?(?:{SPAN_UNITS})\b")
# the same period told back a stretch before another named earlier in the sentence ("from 7.6
# per cent a year earlier"); "ago" counts from the day said and the rules read it, and "ten
# years earlier than planned" moves a plan, not a period
EARLIER = lazy(rf"\b(?:an?|one|two|three|four|five|six|twelve|\d{{1,2}})\s+(?:{SPAN_UNITS})\s+"
               r"earlier\b(?!\s+than\b)")
SENTENCE_END = lazy(r"[.!?;](?:\s|$)")
_YEAR_WRITTEN = lazy(rf"{_YEAR_DIGITS}|(?<![\w'’])['’]\d\d(?!\d)")
MAX_DAYS = 10 * 366  # a longer stretch ("the 1990s and 2000s") speaks of no period in particular


@dataclass(frozen=True)
class Spoken:
    """A period a text speaks of: its days, the words that name it, and where they stand."""

    start: dt.date
    end: dt.date
    expression: str
    at: int
    # a trailing window whose own end period is read beside it ("the 12 months to May 2024"):
    # the figure is that end period's, so the window alone does not make it the window's days'
    window: bool = False
    # named as the point its figure is measured against ("up from 3.8 per cent in September",
    # "unchanged from September"): a sentence naming only such periods states its level for
    # another time, its report's
    baseline: bool = False


def spoken_periods(text: str, said_on: dt.date) -> list[Spoken]:
    """The bounded periods a text names, read as seen from `said_on`, in text order.

    "This year" in a document is the whole year it was said in ("inflation is expected to
    average 7.4 per cent this year"), where a question's "this year" ends on the day asked;
    "today" is left out: the publication date already says it.
    """
    out: list[Spoken] = []
    for lo, hi in _windows(text):
        piece = text[lo:hi]
        for named in _earlier(_anchored(_deadlines(read_periods(piece, said_on), piece, said_on),
                                        piece), piece):
            if named.how == "since" and named.last and WHEN_CLAUSE.match(piece, named.hi):
                # "since December 2021, when the rate stood at 0.1 per cent" is December's
                named = replace(named, lo=named.at, start=named.last[0], end=named.last[1], how="in",
                                last=None)
            if named.how not in BOUNDED or named.start is None or named.end is None:
                continue
            words = _words(piece[named.lo:named.hi])
            start, end = named.start, named.end
            if FUTURE in named.kinds:
                # "next month", "tomorrow": the rules only say it lies ahead; read which period
                found = ahead_of(words, said_on)
                if found is None:
                    continue
                start, end = found
            if TO_DATE in named.kinds:
                start, end = _whole_unit(words, said_on) or (start, end)
            if TODAY in named.kinds or (end - start).days > MAX_DAYS:
                continue
            # "rose by 2.0 per cent in the 12 months to May 2024" is May 2024's figure as much
            # as the year's: it speaks of both (of a day that ends a window, only the window)
            last = named.last if named.how == "span_ending" else None
            if last is not None and (last[1] - last[0]).days < 27:
                last = None
            against = BASELINE.search(piece, 0, named.lo) is not None
            read = [Spoken(start, end, words, lo + named.lo, window=last is not None,
                           baseline=against)]
            if last is not None:
                read.append(Spoken(last[0], last[1], _words(piece[named.at:named.hi]), lo + named.at,
                                   baseline=against))
            out.extend(s for s in read if s not in out)
    return sorted(out, key=lambda s: s.at)


def _deadlines(found: list[Named], piece: str, said_on: dt.date) -> list[Named]:
    """The periods read, with a deadline ("cut by 2035", "£20.5 billion more by 2023-24") read
    as the period it names: a target or a forecast speaks of the time it is set for, as the
    temporal contract keeps "by 2035" as stated. A question's "by 2017" is read as "until"
    (`question.read_periods`); a document's is the state it sets for 2017. A deadline with no
    year written that the rules place before the day said ("by 5 May", "by the summer", read
    as the latest one past) most likely means the one ahead, which the words do not settle:
    it speaks of no period."""
    out = []
    for named in found:
        cue = DEADLINE.match(piece, named.lo) if named.how == "until" else None
        if cue is None:
            out.append(named)
            continue
        rest = piece[cue.end():named.hi]
        out.extend(replace(n, lo=n.lo + cue.end(), hi=n.hi + cue.end(), at=n.at + cue.end())
                   for n in read_periods(rest, said_on)
                   if n.end is None or n.end >= said_on or RELATIVE in n.kinds
                   or _YEAR_WRITTEN.search(rest[n.lo:n.hi]))
    return out


def _anchored(found: list[Named], piece: str) -> list[Named]:
    """The periods read, with "the previous three months", "the preceding quarter" after a
    period named earlier in the same sentence read back from that period, not from the day
    said: "5.0 per cent in July to September 2025, up from 4.8 per cent in the previous three
    months" is April to June's figure. English only, as the deadline."""
    out: list[Named] = []
    for named in found:
        told = PREVIOUS.match(piece, named.lo)
        anchor = _anchor(out, piece, named.lo) if told else None
        if told and anchor is not None and anchor.start is not None:
            # the stretch of that length right before the anchor: "the previous quarter" after
            # "June to August 2011" is March to May, after "the third quarter" the second
            unit, n = span_length(told.group(0))
            named = replace(named, start=shift(anchor.start, unit, -n),
                            end=add_days(anchor.start, -1), last=None)
        out.append(named)
    return out


def _anchor(before: list[Named], piece: str, at: int, own: bool = False) -> Named | None:
    """The last period of one stretch named before `at` in the same sentence, what "the
    previous quarter" or "a year earlier" is told back from; with `own`, not one named only as
    what a figure is measured against ("down from 6.2 per cent in April to June")."""
    return next((a for a in reversed(before) if a.start is not None and a.end is not None
                 and a.how in BOUNDED and not SENTENCE_END.search(piece, a.hi, at)
                 and not (own and BASELINE.search(piece, 0, a.lo))), None)


def _earlier(found: list[Named], piece: str) -> list[Named]:
    """The periods read, and with them "a year earlier", "three months earlier" read back from
    the period the sentence states its figure for, named before it: "The unemployment rate for
    July to September 2014 was 6.0 per cent, down from 6.2 per cent in April to June and from
    7.6 per cent a year earlier" gives July to September 2013's rate (April to June is only
    measured against). English only, as the deadline."""
    out = list(found)
    for m in EARLIER.finditer(piece):
        if any(n.lo < m.end() and m.start() < n.hi for n in found):
            continue
        anchor = _anchor([a for a in found if a.hi <= m.start()], piece, m.start(), own=True)
        if anchor is None or anchor.start is None or anchor.end is None:
            continue
        unit, n = span_length(m.group(0))
        start = shift(anchor.start, unit, -n)
        end = add_days(shift(add_days(anchor.end, 1), unit, -n), -1)
        if end >= anchor.start:
            continue  # "a month earlier" than a year names no period of its own
        out.append(Named(m.start(), m.end(), start, end, "in", (RELATIVE,), m.start()))
    return sorted(out, key=lambda n: n.lo)


def _words(expression: str) -> str:
    """An expression as it is shown: one space between words, no punctuation at its ends."""
    return " ".join(expression.split()).strip(" .,;:!?")


def _whole_unit(words: str, said_on: dt.date) -> tuple[dt.date, dt.date] | None:
    """The calendar unit a "this week/month/year" names, whole, around `said_on`."""
    for word in words.lower().split():
        if word in UNITS:
            unit, _ = unit_of(word)
            if unit in ("week", "month", "quarter", "year"):
                return unit_span(said_on, unit)
    return None


def _windows(text: str) -> list[tuple[int, int]]:
    """Stretches of the text around its triggers, merged where they meet, ends moved to the
    nearest space so no word is cut."""
    spans: list[tuple[int, int]] = []
    for m in _TRIGGER.finditer(text):
        lo, hi = max(0, m.start() - REACH), min(len(text), m.end() + REACH)
        if spans and lo <= spans[-1][1]:
            spans[-1] = (spans[-1][0], hi)
        else:
            spans.append((lo, hi))
    out = []
    for lo, hi in spans:
        if lo > 0:
            space = text.find(" ", lo)
            lo = space + 1 if 0 <= space < hi else lo
        if hi < len(text):
            space = text.rfind(" ", lo, hi)
            hi = space if space > lo else hi
        out.append((lo, hi))
    return out
