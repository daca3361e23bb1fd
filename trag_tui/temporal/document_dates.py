"""Reading a document's date from its file name, its metadata or its opening text.

A date decides which questions a document can answer ("as of", "in 2019"), so a wrong date is
worse than none: every reader here rejects impossible calendar dates and years outside a
plausible range, and returns None rather than guess. The readers are tables of
(pattern, handler) entries tried in order; the tables are the documentation of what is
understood. Pure: no I/O, and dateparser (slow to load) is used only when a candidate span has
a month word that the English table does not know ("14 März 2024").
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from .dateparse import absolute_date

# Outside this range a digit run is far more likely a reference number, a page count or a
# column id than the date of a document.
MIN_YEAR = 1700
MAX_YEAR = 2199

_MONTHS = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
    "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
    "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}

# A date span found by a pattern; the handler turns the match into a date or rejects it.
Handler = Callable[["re.Match[str]"], "dt.date | None"]


def _make(year: str | int, month: str | int, day: str | int) -> dt.date | None:
    """A real calendar date within the plausible range, or None."""
    y, m, d = int(year), int(month), int(day)
    if not MIN_YEAR <= y <= MAX_YEAR:
        return None
    try:
        return dt.date(y, m, d)
    except ValueError:  # 2023-02-30, month 13...
        return None


def _ymd(m: re.Match[str]) -> dt.date | None:
    return _make(m["y"], m["m"], m["d"])


def _numeric_dmy(m: re.Match[str]) -> dt.date | None:
    # Day first (UK and most of the world); month first only when day-first is impossible,
    # so 03/04/2024 is 3 April but 12/31/2024 is still read.
    return _make(m["y"], m["b"], m["a"]) or _make(m["y"], m["a"], m["b"])


def _month_word(m: re.Match[str]) -> dt.date | None:
    month = _MONTHS.get(m["mon"].lower().rstrip("."))
    if month is not None:
        return _make(m["y"], month, m["d"])
    return _dateparser_span(m.group(0))


def _dateparser_span(span: str) -> dt.date | None:
    """Read a short span with a month word in another language ("14 März 2024")."""
    found = absolute_date(span)
    return None if found is None else _make(found.year, found.month, found.day)


# (?<!\d) / (?!\d) rather than \b: in names like "debates2009-10-27a" or "report_20190328"
# the date is glued to letters or underscores, which \b does not separate.
_FILENAME_TABLE: list[tuple[re.Pattern[str], Handler]] = [
    # 2009-10-27, 2009_10_27, 2009.10.27 (one separator throughout)
    (re.compile(r"(?<!\d)(?P<y>\d{4})(?P<sep>[-_.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d)"), _ymd),
    # 20091027
    (re.compile(r"(?<!\d)(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})(?!\d)"), _ymd),
]

_MONTH_WORD = r"(?P<mon>[^\W\d_]{3,12}\.?)"
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th|\.)?"  # "14th", and "14." as German and Nordic write it
_YEAR = r"(?P<y>\d{4})(?!\d)"

_TEXT_TABLE: list[tuple[re.Pattern[str], Handler]] = [
    # 2024-03-14, 2024/03/14
    (re.compile(r"(?<!\d)(?P<y>\d{4})(?P<sep>[-/.])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?!\d)"), _ymd),
    # 14 March 2024, 14th of March, 2024, 14 Mar. 2024
    (re.compile(rf"(?<![\w.]){_DAY}\s+(?:of\s+)?{_MONTH_WORD},?\s+{_YEAR}"), _month_word),
    # March 14, 2024; Mar 14th 2024
    (re.compile(rf"(?<!\w){_MONTH_WORD}\s+{_DAY},?\s+{_YEAR}"), _month_word),
    # 14/03/2024, 14.03.2024, 14-03-2024 (day first; see _numeric_dmy)
    (re.compile(r"(?<![\d.])(?P<a>\d{1,2})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})(?!\d)"),
     _numeric_dmy),
]

# Matched against the stripped value: a trailing `\s*` after a time part that may hold spaces
# would try every split of a long run of them (quadratic).
_ISO = re.compile(r"(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})(?:[T ][\d:.+\-Z ]*)?")

# dateparser is tried on at most this many unknown month words per text, so a long text full
# of "12 votes 2024"-like runs cannot make one call slow.
_MAX_FOREIGN_SPANS = 3


def date_from_filename(name: str) -> dt.date | None:
    """The last valid date in a file name (the sitting, for names that carry a start date too)."""
    found: list[tuple[int, dt.date]] = []
    for pattern, handler in _FILENAME_TABLE:
        for m in pattern.finditer(name):
            d = handler(m)
            if d is not None:
                found.append((m.end(), d))
    return max(found)[1] if found else None


def date_from_text(text: str, max_chars: int = 5000) -> dt.date | None:
    """The first full day-month-year date in the opening `max_chars` of a text, or None."""
    head = text[:max_chars]
    candidates: list[tuple[int, int, re.Match[str], Handler]] = []
    for rank, (pattern, handler) in enumerate(_TEXT_TABLE):
        for m in pattern.finditer(head):
            candidates.append((m.start(), rank, m, handler))
    candidates.sort(key=lambda c: (c[0], c[1]))
    foreign = 0
    for _, _, m, handler in candidates:
        if handler is _month_word and m["mon"].lower().rstrip(".") not in _MONTHS:
            foreign += 1
            if foreign > _MAX_FOREIGN_SPANS:
                continue
        d = handler(m)
        if d is not None:
            return d
    return None


def parse_iso(s: str) -> dt.date | None:
    """A YYYY-MM-DD date (optionally followed by a time), or None for anything else."""
    m = _ISO.fullmatch(s.strip()) if isinstance(s, str) else None
    return _ymd(m) if m else None
