"""The dates and relative times a sentence names, read against the day it was said.

An answer is dated by what its source sentence reports ("raised Bank Rate on 3 November", said
on 16 November 2022, reports 3 November 2022; "I went yesterday", said on 8 May 2023, reports
7 May 2023), and a generated sentence's dates must be ones its source names. Both read dates
here, beside the question reader, so a date means the same thing on every side. The
expressions read are English (month names, "yesterday", "last week", "next month"); relative
ones are read by the question rules (`question.parse`) with the day the sentence was said as
its as-of date.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..text.labels import MONTHS, day_label, period_label
from .calendar import iso_day, month_span, shift, unit_span

MONTH_WORDS = "|".join(f"{m[:3]}(?:{m[3:]})?" for m in MONTHS)
_ISO = r"(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})"
_DMY = rf"(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<dm>{MONTH_WORDS})\.?(?:,?\s+(?P<dy>\d{{4}}))?"
_MDY = rf"(?P<mm>{MONTH_WORDS})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<my>\d{{4}}))?(?!\d)"
_MY = rf"(?P<ym>{MONTH_WORDS})\.?(?:\s+(?:of\s+)?(?P<yy>\d{{4}}))?"
_YEAR = r"(?P<year>(?:18|19|20)\d{2})(?!\d)"
_DATE = re.compile(rf"\b(?:{_ISO}|{_DMY}|{_MDY}|{_MY}|{_YEAR})\b", re.I)
DATE_SPANS = re.compile(rf"\b(?:{_ISO}|{_DMY}|{_MDY}|(?P<ym2>{MONTH_WORDS})\.?\s+\d{{4}})\b", re.I)
DatePart = tuple  # (year | None, month | None, day | None)


def _month(word: str) -> int:
    return [m[:3].lower() for m in MONTHS].index(word[:3].lower()) + 1


def dates(text: str) -> list[DatePart]:
    """Dates a text names, as (year, month, day) with None for what it leaves out.

    "May" alone is read as a month only when capitalised mid-sentence, so the verb is not.
    """
    out: list[DatePart] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["iy"]:
            out.append((int(g["iy"]), int(g["im"]), int(g["id"])))
        elif g["dd"]:
            out.append((int(g["dy"]) if g["dy"] else None, _month(g["dm"]), int(g["dd"])))
        elif g["mm"]:
            out.append((int(g["my"]) if g["my"] else None, _month(g["mm"]), int(g["md"])))
        elif g["ym"]:
            word = g["ym"]
            if not g["yy"] and (not word[0].isupper() or len(word) < 3 or
                                word.lower() in ("may", "march") or m.start() == 0):
                continue  # "may", "march" and sentence-initial words are seldom dates alone
            out.append((int(g["yy"]) if g["yy"] else None, _month(word), None))
        elif g["year"]:
            out.append((int(g["year"]), None, None))
    return out


def date_matches(claim: DatePart, known: Iterable[DatePart]) -> bool:
    """Is a claimed date one of the known ones, to the precision the claim gives ("2022"
    matches 3 November 2022; "3 November 2022" does not match "2022")?"""
    for k in known:
        if all(c is None or (kv is not None and c == kv) for c, kv in zip(claim, k)):
            return True
    return False


_RELATIVE = re.compile(
    r"\b(?:yesterday|today|tonight|ago|last|this|earlier|previous|recently)\b", re.I)


# Only readings that unambiguously look back from the day something was said date a claim:
# "this autumn" in July may be the coming one, and a wrong date is worse than none.
_LOOKS_BACK = re.compile(
    r"(?i)yesterday|today|tonight|last \w+|the (?:day|week|month|year) before|"
    r"(?:\w+(?:[- ]\w+)?|\d+) (?:days?|weeks?|months?|years?) ago|"
    r"earlier this (?:week|month|year)")


# Times ahead of the day something was said that name one period only: "I'm hosting a dance
# competition next month", said on 3 April 2023, plans it for May 2023. "Next Friday" may be
# this coming one or the one after, so weekdays are not read; "in the next month" is the
# coming thirty days, not a calendar month.
_AHEAD = re.compile(r"\b(?:tomorrow|(?<!the )next (?P<unit>week|month|year))\b", re.I)


def _ahead(m: re.Match, day: dt.date) -> Reported:
    unit = (m["unit"] or "day").lower()  # "tomorrow" is the next day
    start, end = unit_span(shift(day, unit, 1), unit)
    return Reported(m.group(0), start, end)


def ahead_of(words: str, said_on: dt.date) -> tuple[dt.date, dt.date] | None:
    """The one period a time ahead names ("next month", "tomorrow"), seen from `said_on`."""
    m = _AHEAD.search(words)
    if m is None:
        return None
    found = _ahead(m, said_on)
    return found.start, found.end


@dataclass(frozen=True)
class Reported:
    """When what a sentence reports happened: the words that say so, and the period."""

    expression: str
    start: dt.date
    end: dt.date

    @property
    def label(self) -> str:
        """The period as people say it."""
        return day_label(self.start) if self.start == self.end else period_label(self.start, self.end)


def reported_when(sentence: str, said_on: str | None) -> Reported | None:
    """When what a source sentence reports happened, read against the day it was said.

    "raised Bank Rate on 3 November" in a report of 16 November 2022 reports 3 November 2022;
    "I went yesterday" said on 8 May 2023 reports 7 May 2023. An explicit date wins over a
    relative one. None when the sentence names no time of its own.
    """
    day = iso_day(said_on)
    if day is None:
        return None
    for m in _DATE.finditer(sentence):
        found = dates(m.group(0))
        if not found:
            continue
        y, mo, d = found[0]
        if mo is None:
            continue  # a bare year is too coarse to date a claim by
        try:
            if y is not None:
                start = dt.date(y, mo, d or 1)
            else:
                # "3 November" said in March is last year's; "26 November" said on 19 November
                # (a Budget next week) is this year's: the nearest such day to when it was said.
                start = min((dt.date(day.year + k, mo, d or 1) for k in (-1, 0, 1)),
                            key=lambda c: abs((c - day).days))
        except ValueError:
            continue
        end = start if d else month_span(start.year, start.month)[1]
        return Reported(m.group(0).strip(" ."), start, end)
    ahead = _AHEAD.search(sentence)
    planned = _ahead(ahead, day) if ahead is not None else None  # when nothing looks back
    if not _RELATIVE.search(sentence):
        return planned
    from .question import parse

    q = parse(sentence, day)
    if len(q.expressions) > 1:
        # the relative expression alone: "…legislated last month … on 1990 levels" is June, not
        # the span from 1990 to June the two make read as one question's period
        q = parse(q.expressions[0], day)
    if q.intent != "point_in_time" or q.start is None or q.end is None or not q.expressions \
            or q.end > day or not _LOOKS_BACK.fullmatch(q.expressions[0].strip(" .,!?")):
        return planned
    return Reported(q.expressions[0].strip(" .,!?"), q.start, q.end)
