"""Dates and periods as people say them, in one place for the answer, the prompt and the app.

An answer that says "3 November 2022" where its source heading says 2022-11-03 reads as two
facts; every surface formats a date or a period through these functions so they agree.
"""
from __future__ import annotations

import calendar
import datetime as dt
import re

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def _month_end(d: dt.date) -> dt.date:
    # From the month's length, not the next month's first day: December 9999 has no next month.
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


def day_label(day: dt.date) -> str:
    """`3 November 2022`."""
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def period_label(start: dt.date | None, end: dt.date | None) -> str:
    """A period as people say it: `2010`, `March 2010`, `2010-03-24`, or `A to B`."""
    if start and end:
        if start == end:
            return start.isoformat()
        if start.day == 1 and end == _month_end(end):
            if start.month == 1 and end.month == 12:
                return str(start.year) if start.year == end.year else f"{start.year} to {end.year}"
            first = f"{MONTHS[start.month - 1]} {start.year}"
            last = f"{MONTHS[end.month - 1]} {end.year}"
            return first if (start.year, start.month) == (end.year, end.month) else f"{first} to {last}"
        return f"{start.isoformat()} to {end.isoformat()}"
    if start:
        return f"{start.isoformat()} onwards"
    if end:
        return f"up to {end.isoformat()}"
    return "any time"


def month_label(month: str) -> str:
    """`2014-10` as `October 2014` (anything else unchanged)."""
    m = re.fullmatch(r"(\d{4})-(\d{2})", month or "")
    if not m or not 1 <= int(m.group(2)) <= 12:
        return month
    return f"{MONTHS[int(m.group(2)) - 1]} {m.group(1)}"


def period_key(start: dt.date | None, end: dt.date | None) -> str:
    """The group key of a comparison period's hits (exact, for the answer's blocks to match);
    what people read is `period_label`."""
    a = start.isoformat() if start else "the beginning"
    b = end.isoformat() if end else "now"
    return a if start and end and start == end else f"{a} .. {b}"


_LINE_BREAKS = re.compile("\\s*[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]\\s*")


def one_line(name: str) -> str:
    """A name or a headline from a source, on one line: a line break in a title or a speaker
    would begin a line of the answer that reads as something else (a forged citation)."""
    return _LINE_BREAKS.sub(" ", name)
