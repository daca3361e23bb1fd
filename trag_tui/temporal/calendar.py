"""Calendar arithmetic for periods: a month, a quarter, "N units back" from a day.

Kept apart from the words that name periods so that the rules and the document dating share one
exact definition of where a quarter or a week starts and ends."""
from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable

# --- period arithmetic -----------------------------------------------------------------------

Span = tuple[dt.date, dt.date]


def month_span(year: int, month: int) -> Span:
    """The whole calendar month."""
    return dt.date(year, month, 1), dt.date(year, month, calendar.monthrange(year, month)[1])


def months_span(year: int, first: int, count: int) -> Span:
    """`count` whole months from `first` of `year`; may run into the next year (a winter)."""
    start = dt.date(year, first, 1)
    last = add_months(start, count - 1)
    return start, month_span(last.year, last.month)[1]


def quarter_span(year: int, quarter: int) -> Span:
    """The whole calendar quarter (1..4)."""
    return months_span(year, 3 * quarter - 2, 3)


def half_span(year: int, half: int) -> Span:
    """The whole calendar half-year (1..2)."""
    return months_span(year, 6 * half - 5, 6)


def year_span(year: int) -> Span:
    """The whole calendar year."""
    return dt.date(year, 1, 1), dt.date(year, 12, 31)


def add_months(day: dt.date, months: int, *, clamp: bool = True) -> dt.date:
    """Calendar arithmetic: the same day `months` later, clamped to the month's length.

    Past either end of the calendar the first or last day is returned (`clamp`), or
    OverflowError raised: a period named from the day ("last year" as of 0001-01-01) that lies
    wholly outside the calendar is no period, and reads as no date.
    """
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    if not dt.MINYEAR <= year <= dt.MAXYEAR and not clamp:
        raise OverflowError("outside the calendar")
    if year < dt.MINYEAR:
        return dt.date.min
    if year > dt.MAXYEAR:
        return dt.date.max
    return dt.date(year, month + 1, min(day.day, calendar.monthrange(year, month + 1)[1]))


def add_days(day: dt.date, days: int, *, clamp: bool = True) -> dt.date:
    """`day` plus `days`, clamped to the representable calendar instead of overflowing (or,
    without `clamp`, OverflowError, as `add_months`)."""
    try:
        return day + dt.timedelta(days=days)
    except OverflowError:
        if not clamp:
            raise
        return dt.date.min if days < 0 else dt.date.max


def shift(day: dt.date, unit: str, n: int, *, clamp: bool = True) -> dt.date:
    """`day` moved by `n` units (negative goes back), in calendar arithmetic."""
    if unit == "day":
        return add_days(day, n, clamp=clamp)
    if unit == "week":
        return add_days(day, 7 * n, clamp=clamp)
    return add_months(day, n * {"month": 1, "quarter": 3, "year": 12, "decade": 120}[unit], clamp=clamp)


def unit_span(day: dt.date, unit: str) -> Span:
    """The whole calendar unit (week Monday..Sunday, month, quarter, year, decade) holding `day`."""
    if unit == "day":
        return day, day
    if unit == "week":
        monday = add_days(day, -day.weekday())
        return monday, add_days(monday, 6)
    if unit == "month":
        return month_span(day.year, day.month)
    if unit == "quarter":
        return quarter_span(day.year, (day.month - 1) // 3 + 1)
    if unit == "year":
        return year_span(day.year)
    first = max(dt.MINYEAR, day.year - day.year % 10)
    return dt.date(first, 1, 1), dt.date(min(dt.MAXYEAR, first + 9), 12, 31)


def latest(rebase: Callable[[int], Span], as_of: dt.date) -> Span:
    """The latest period of a yearly kind ("March", "Q3") that begins on or before `as_of`."""
    span = rebase(as_of.year)
    return span if span[0] <= as_of else rebase(as_of.year - 1)


#: How a date given from outside is asked for, with the range the calendar holds.
DAY_FORM = f"a date in YYYY-MM-DD form, {dt.date.min.isoformat()} to {dt.date.max.isoformat()}"


def read_day(value: object, what: str = "date") -> dt.date:
    """A date given from outside (an option, a batch or eval row): text in YYYY-MM-DD form
    inside the calendar, or InputError naming `what` and the value, never a stray TypeError."""
    from ..errors import InputError
    from ..text.safe import json_text

    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise InputError(f"{what} {json_text(value)} is not {DAY_FORM}")


def row_day(row: dict, *keys: str) -> dt.date | None:
    """The first of `keys` a row (a batch or eval line) gives, read as a day by `read_day`;
    None when it gives none of them."""
    key = next((k for k in keys if row.get(k) not in (None, "")), None)
    return read_day(row[key], key) if key else None


def iso_day(value: object) -> dt.date | None:
    """The day of a stored date ("2025-11-19", "2025-11-19T10:00", a date), or None when there
    is none or it is not one: how dates kept in the index are read back everywhere."""
    if value is None or isinstance(value, dt.date):
        return value if not isinstance(value, dt.datetime) else value.date()
    try:
        return dt.date.fromisoformat(str(value)[:10]) if value else None
    except ValueError:
        return None
