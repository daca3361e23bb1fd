"""The table of time expressions a question may contain, as (regex, handler) rows.

dateparser reads a lone date in many languages, but it knows nothing of quarters, halves,
decades or ranges, it guesses wildly on fragments ("at 5" becomes May), and searching a whole
sentence with it is slow. So the expressions questions really use are listed here as rules
tried in order, in the manner of a log viewer's timestamp table: the table is the documentation
of what is understood, and adding a phrasing means adding a row. Everything here is pure: a
handler gets its match and the `as_of` date and returns a period."""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from .calendar import (
    Span,
    add_days,
    half_span,
    latest,
    month_span,
    months_span,
    quarter_span,
    shift,
    unit_span,
    year_span,
)
from .dateparse import dateparser_read
from .lexicon import (
    AMBIGUOUS_MONTHS,
    AMBIGUOUS_SEASONS,
    DATE_PREPS,
    DECADE_WORDS,
    END,
    FRENCH_ONLY_PREPS,
    MONTH,
    MONTH_PREPS,
    MONTHS,
    NUM,
    OF_YEAR,
    ORD_WORD,
    PART,
    PART_OF,
    PLURAL_UNITS,
    SEASON_AFTER,
    SEASON_BEFORE,
    SEASON_NOT_BEFORE,
    SEASON_TIME_WORDS,
    SEASONS,
    START,
    THE,
    UNIT,
    WEEKDAY,
    WEEKDAYS,
    YEAR,
    YEAR_SUFFIX,
    LazyPattern,
    alternation,
    group,
    lazy,
    number,
    ordinal,
    preceding_word,
    shift_back,
    unit_of,
)

# --- what a rule reads -----------------------------------------------------------------------

#: How a period relates to `as_of`; decides how it may be combined and which intents it suggests.
NAMED = "named"  # a calendar period named outright: reported whole, even if it runs past as_of
RELATIVE = "relative"  # a whole calendar period counted back from as_of ("last month")
TO_DATE = "to_date"  # from the start of the current week/month/quarter/year up to as_of
TRAILING = "trailing"  # as_of minus N units .. as_of ("the past 6 months")
TODAY = "today"  # as_of itself
FUTURE = "future"  # after as_of ("next year", "tomorrow"): no documents can be dated there
RANGE = "range"  # two named ends written as one token ("2019-2021", "2019/20")


@dataclass(frozen=True)
class Found:
    """A period read from one match."""

    start: dt.date
    end: dt.date
    kind: str
    # Set when the year was not written: re-reads the expression for a year that a neighbour
    # supplies ("July" in "July and October 2025").
    rebase: Callable[[int], Span] | None = None
    confidence: float = 0.95


Handler = Callable[[re.Match[str], dt.date], "Found | None"]




@dataclass(frozen=True)
class Rule:
    """One row of the table: a name for display and tests, a pattern, and what it means."""

    name: str
    pattern: LazyPattern
    handler: Handler


# --- handlers --------------------------------------------------------------------------------


def _year_ok(year: int) -> bool:
    return 1000 <= year <= 2999


def _named(span: Span, rebase=None, confidence: float = 0.95) -> Found:
    return Found(span[0], span[1], NAMED, rebase, confidence)


def _yearless(rebase: Callable[[int], Span], as_of: dt.date, confidence: float = 0.85) -> Found:
    return _named(latest(rebase, as_of), rebase, confidence)


def _relative(span: Span, as_of: dt.date, kind: str = RELATIVE, confidence: float = 0.95) -> Found:
    # Resolved from as_of, so by construction it never reaches past it.
    start, end = span
    end = min(end, as_of)
    return Found(min(start, end), end, kind, None, confidence)


def _iso_day(m, as_of):
    return _named((dt.date(int(m["y"]), int(m["mo"]), int(m["d"])),) * 2)


def _numeric_day(m, as_of):
    a, b, year = int(m["a"]), int(m["b"]), int(m["y"])
    if len(m["y"]) == 2:
        year += 2000 if 2000 + year <= as_of.year else 1900
    # Dotted dates are day-first wherever they are written ("05.12.2023" in German, Russian,
    # French); a slashed one is unambiguous when one part exceeds 12. Otherwise the order is a
    # convention of the writer's language, which dateparser knows.
    if m["sep"] == "." or a > 12:
        return _named((dt.date(year, b, a),) * 2, confidence=0.8)
    if b > 12:
        return _named((dt.date(year, a, b),) * 2, confidence=0.8)
    read = dateparser_read(m.group(0), as_of)
    if read is None or read[1] != "day" or read[0].year % 100 != year % 100:
        return None
    return _named((read[0], read[0]), confidence=0.6)


def _day_month(m, as_of):
    month, day = MONTHS[m["m"].lower()], int(m["d"])
    if m["y"]:
        return _named((dt.date(int(m["y"]), month, day),) * 2)
    if m["m"].lower() in AMBIGUOUS_MONTHS and not m["m"][0].isupper():
        return None  # "may 12 members" is not a date
    if not 1 <= day <= 31:
        return None
    # 29 February needs a leap year; "latest on or before as_of" walks back to one.
    for back in range(0, 9):
        try:
            candidate = dt.date(as_of.year - back, month, day)
        except ValueError:
            continue
        if candidate <= as_of:
            return Found(candidate, candidate, NAMED,
                         lambda y: (dt.date(y, month, day),) * 2, 0.85)
    return None


def _month_year(m, as_of):
    return _named(month_span(int(m["y"]), MONTHS[m["m"].lower()]))


def _numeric_month(m, as_of):
    year, month = int(m["y"] or m["y2"]), int(m["mo"] or m["mo2"])
    if m["y"] and month == (year + 1) % 100:
        return None  # "2011-12" is the 2011/12 year (a session, a budget), not December 2011
    return _named(month_span(year, month), confidence=0.85)


def _month_relative_year(m, as_of):
    offset = {"this": 0, "last": -1, "next": 1}[m["rel"].lower()]
    return _named(month_span(as_of.year + offset, MONTHS[m["m"].lower()]))


def _last_month_name(m, as_of):
    month = MONTHS[m["m"].lower()]
    # "last March": the most recent March that is already over (or at least begun before this month)
    year = as_of.year if month < as_of.month else as_of.year - 1
    if m["rel"].lower() == "this":
        year = as_of.year
    return _named(month_span(year, month), confidence=0.9)


# "July to September 2014": a month that opens a range ending in a month of a named year is a
# month whatever word comes before it ("for July to September 2014", "figures, July to …").
_OPENS_RANGE = lazy(rf"\s*(?:to|until|till|through|[-–—])\s*{MONTH}\s+[12]\d{{3}}{END}")


def _bare_month(m, as_of):
    word, before = m["m"].lower(), preceding_word(m)
    if word == "mars" and before not in FRENCH_ONLY_PREPS:
        return None  # the planet, not "en mars"
    if before not in MONTH_PREPS and not (m["m"][0].isupper() and _OPENS_RANGE.match(m.string, m.end())):
        return None
    if word in AMBIGUOUS_MONTHS and not m["m"][0].isupper() and before in {"the", "of", "to", "and", "or", "a"}:
        return None
    month = MONTHS[word]
    return _yearless(lambda y: month_span(y, month), as_of, 0.8)


def _quarter_or_half(part: str, position: int) -> Callable[[int], Span] | None:
    is_half = not re.match(r"quart|trimes|квартал", part, re.IGNORECASE)
    parts = 2 if is_half else 4
    index = parts if position == -1 else position
    if not 1 <= index <= parts:
        return None
    return (lambda y: half_span(y, index)) if is_half else (lambda y: quarter_span(y, index))


def _ordinal_part_year(m, as_of):
    position = ordinal(m["o"])
    rebase = _quarter_or_half(m["part"], position) if position else None
    return _named(rebase(int(m["y"]))) if rebase else None


def _ordinal_part(m, as_of):
    position = ordinal(m["o"])
    rebase = _quarter_or_half(m["part"], position) if position else None
    if rebase is None:
        return None
    if m["this"]:
        return _named(rebase(as_of.year))
    # "the first half of the debate" is not a date: a bare part must not be "of" something else.
    if re.match(r"\s+(?:of|de|du|des|del|des)\s", m.string[m.end():]):
        return None
    if position == -1:
        return None  # "the last quarter" alone is the previous quarter: a relative rule reads it
    return _yearless(rebase, as_of)


def _q_code(m, as_of):
    year = int(m["y"]) if m["y"] else 2000 + int(group(m, "yy"))
    if m["q"]:
        return _named(quarter_span(year, int(m["q"])))
    return _named(half_span(year, int(m["h"])))


def _bare_q(m, as_of):
    if m["q"]:
        q = int(m["q"])
        return _yearless(lambda y: quarter_span(y, q), as_of)
    if preceding_word(m) not in DATE_PREPS:
        return None  # "H2" is also hydrogen
    h = int(m["h"])
    return _yearless(lambda y: half_span(y, h), as_of)


def _third_of(m, year: int) -> Span:
    """The early, mid or late third of `year` that the match's modifier names."""
    word = next(w for w in re.split(r"[\s-]+", m["mod"].lower()) if w in PART_OF)
    third = {"early": 0, "mid": 1, "late": 2}[str(PART_OF[word])]
    return months_span(year, 1 + 4 * third, 4)


def _edge_of(m, as_of):
    """"the first six months of 2024", "the last two weeks of March", "the first three months of
    the year": the stretch of that length at the start or the end of the period named."""
    unit, mult = unit_of(m["u"])
    if unit not in ("day", "week", "month", "quarter"):
        return None
    n = number(m["n"]) * mult

    def edge(span: Span) -> Span:
        if m["edge"].lower() == "first":
            return span[0], min(span[1], add_days(shift(span[0], unit, n), -1))
        return max(span[0], shift(add_days(span[1], 1), unit, -n)), span[1]

    if m["m"]:
        month = MONTHS[m["m"].lower()]
        rebase = lambda y: edge(month_span(y, month))  # noqa: E731
        return _named(rebase(int(m["y"]))) if m["y"] else _yearless(rebase, as_of)
    if m["y2"]:
        return _named(edge(year_span(int(m["y2"]))))
    year = as_of.year - (1 if (m["rel"] or "").lower() in ("last", "previous") else 0)
    span = edge(year_span(year))
    return _after(as_of, 0.7) if span[0] > as_of else _named(span, confidence=0.9)


def _part_of_year(m, as_of):
    return _named(_third_of(m, int(m["y"])), confidence=0.85)


def _part_of_relative_year(m, as_of):
    """"late last year", "early this year", "the start of the year" (this one)."""
    year = as_of.year + {"last": -1, "previous": -1, "next": 1}.get((m["rel"] or "").lower(), 0)
    span = _third_of(m, year)
    return _after(as_of, 0.7) if span[0] > as_of else _named(span, confidence=0.85)


def _decade(m, as_of):
    century, digit, word, mod = group(m, "c"), group(m, "d", "d2", "d3"), group(m, "w"), group(m, "mod")
    if century:
        first = int(century + digit + "0")
    else:
        tens = int(digit) if digit else DECADE_WORDS[word.lower()]
        # "the 90s", "the twenties": the latest such decade that has begun by as_of
        first = max(c + 10 * tens for c in (1900, 2000) if c + 10 * tens <= max(as_of.year, 1910))
    if mod:
        lo, count = {"early": (0, 4), "mid": (4, 3), "late": (7, 3)}[PART_OF[mod.lower()]]
        return _named((dt.date(first + lo, 1, 1), dt.date(first + lo + count - 1, 12, 31)), confidence=0.85)
    return _named((dt.date(first, 1, 1), dt.date(first + 9, 12, 31)))


def _century(m, as_of):
    n = int(m["n"])
    if not 1 <= n <= 30:
        return None
    return _named((dt.date(max(1, (n - 1) * 100), 1, 1), dt.date((n - 1) * 100 + 99, 12, 31)), confidence=0.85)


def _season(m, as_of):
    first = SEASONS[(group(m, "s", "s2") or "").lower()]
    rebase = lambda y: months_span(y, first, 3)  # noqa: E731  (winter runs into the next year)
    if group(m, "y"):
        return _named(rebase(int(m["y"])), confidence=0.85 if first == 12 else 0.9)
    rel = (group(m, "rel") or "").lower()
    if group(m, "before", "after"):  # "cet été", "l'hiver dernier", "этой зимой"
        rel = (SEASON_BEFORE.get((group(m, "before") or "").lower())
               or SEASON_AFTER.get((group(m, "after") or "").lower(), ""))
    if rel in {"last", "past"}:
        year = as_of.year if rebase(as_of.year)[1] < as_of else as_of.year - 1
        return _named(rebase(year), confidence=0.85)
    if rel in {"next", "coming", "upcoming"}:
        return _future(m, as_of)
    if rel == "this":
        return _this_season(rebase, as_of)
    if not rel and (preceding_word(m) not in DATE_PREPS or _names_a_thing(m)):
        return None
    if not rel and m["s"].lower() in AMBIGUOUS_SEASONS and not _in_time_phrase(m):
        return None
    return _yearless(rebase, as_of, 0.8)


def _this_season(rebase: Callable[[int], Span], as_of: dt.date) -> Found:
    """"This summer" is the summer of this year: asked in May it is the summer to come (after
    as_of, so the latest documents are what can speak of it), asked in November the one past.
    A winter spans two years: it is the one under way, else the nearer of the last and the
    next (asked in late September, the winter ahead; in early March, the one just ended)."""
    span = rebase(as_of.year)
    if span[0].year != span[1].year:  # winter
        span = latest(rebase, as_of)
        ahead = rebase(span[0].year + 1)
        mid = lambda s: s[0] + (s[1] - s[0]) / 2  # noqa: E731
        if span[1] < as_of and mid(ahead) - as_of < as_of - mid(span):
            span = ahead
    return _after(as_of, 0.7) if span[0] > as_of else _named(span, rebase, 0.8)


def _in_time_phrase(m) -> bool:
    """Whether a bare "fall" or "spring" names the season: it stands in a time phrase ("in the
    fall", "during the spring", "by late spring", "summer and fall") and no word follows that
    makes it a movement or a thing ("the fall in prices", "the fall of the Wall", "to fall back",
    "spring up")."""
    after = re.match(r"\s*([^\W\d_]+)", m.string[m.end():])
    if after and after.group(1).lower() in SEASON_NOT_BEFORE:
        return False
    words = [w.lower().replace("’", "'").strip(".-'") for w in
             re.findall(r"[\w'’.-]+", m.string[max(0, m.start() - 40): m.start()])][-3:]
    if words and words[-1] in ("the", "this"):
        words.pop()  # "in the fall"
    if not words:
        return False
    if words[-1] in SEASON_TIME_WORDS:
        return True
    return words[-1] in ("and", "or", "to") and len(words) > 1 and words[-2] in SEASONS


def _names_a_thing(m) -> bool:
    """A capitalised word followed by another: "Autumn Statement", "Spring Budget", not a date."""
    return m.group(0)[:1].isupper() and bool(re.match(r"\s+[A-Z]", m.string[m.end():]))


def _nth_week(m, as_of):
    month, position = MONTHS[m["m"].lower()], ordinal(m["o"])

    def rebase(year: int) -> Span:
        first, last = month_span(year, month)
        if position == -1:
            return add_days(last, -6), last
        start = add_days(first, 7 * (position - 1))
        return start, min(add_days(start, 6), last)

    return _named(rebase(int(m["y"])), confidence=0.9) if m["y"] else _yearless(rebase, as_of)


def _day_range(m, as_of):
    month, first, last = MONTHS[m["m"].lower()], int(m["d1"]), int(m["d"])
    first, last = sorted((first, last))
    rebase = lambda y: (dt.date(y, month, first), dt.date(y, month, last))  # noqa: E731
    return _named(rebase(int(m["y"]))) if m["y"] else _yearless(rebase, as_of)


def _year_range(m, as_of):
    first, second = int(m["y"]), m["y2"]
    last = int(second) if len(second) == 4 else first - first % 100 + int(second)
    if len(second) == 2 and last <= first:
        return None  # "2019-05" style is a month, handled elsewhere; "2019-15" is nothing
    if not (_year_ok(first) and _year_ok(last)):
        return None
    lo, hi = sorted((first, last))
    return Found(dt.date(lo, 1, 1), dt.date(hi, 12, 31), RANGE, None, 0.9)


# Plural nouns after a number that make it a count, not a year ("the 2000 jobs").
_COUNT_NOUNS = frozenset(
    "people jobs members workers staff troops homes houses pounds dollars euros miles km "
    "tonnes tons votes seats cases deaths patients children students words pages times "
    "units beds officers soldiers families businesses companies".split()
)


def _year(m, as_of):
    year = int(m["y"])
    following = re.match(r"\s+([a-z]+)", m.string[m.end(): m.end() + 20], re.IGNORECASE)
    if following and following.group(1).lower() in _COUNT_NOUNS:
        return None
    # "in the year 1066" or "1066 год" is a year whatever its value; a bare number only in a
    # plausible range, so that "the 1500 jobs" stays a count.
    written_as_year = bool(m["lead"]) or m.end() > m.end("y")
    if not (1800 <= year <= 2199 or (written_as_year and _year_ok(year))):
        return None
    return _named(year_span(year))


def _days_back(days: int):
    return lambda m, as_of: _relative((add_days(as_of, -days, clamp=False),) * 2, as_of)


def _today(m, as_of):
    return Found(as_of, as_of, TODAY, None, 0.95)


def _after(as_of: dt.date, confidence: float) -> Found:
    """A period that lies after as_of, where no document can be dated."""
    return Found(add_days(as_of, 1), add_days(as_of, 1), FUTURE, None, confidence)


def _future(m, as_of):
    return _after(as_of, 0.8)


def _ago(m, as_of):
    unit, _ = unit_of(m["u"])
    day = shift_back(as_of, m["u"], number(m["n"]), clamp=False)
    # "3 days ago" is that day; "2 months ago" is that calendar month, "2 years ago" that year.
    grain = {"decade": "year", "hour": "day"}.get(unit, unit)
    return _relative(unit_span(day, grain), as_of)


_HALF = {"week": ("day", 3), "month": ("day", 15), "quarter": ("day", 45), "year": ("month", 6),
         "decade": ("year", 5)}


def _trailing(m, as_of):
    n_text = m["n"]
    if not n_text and m["u"].lower() in PLURAL_UNITS:
        return None
    start = shift_back(as_of, m["u"], number(n_text))
    if group(m, "half"):  # "the past year and a half"
        unit, mult = unit_of(m["u"])
        half_unit, count = _HALF.get(unit, ("day", 0))
        start = shift(start, half_unit, -count * mult)
    return _relative((start, as_of), as_of, TRAILING)


def _previous(m, as_of, back: int = 1):
    unit, _ = unit_of(group(m, "u") or "year")  # "l'an dernier" names no unit word
    unit = "day" if unit == "hour" else unit
    return _relative(unit_span(shift(as_of, unit, -back, clamp=False), unit), as_of)


def _before_last(m, as_of):
    """"the week before last": the calendar week before last week."""
    return _previous(m, as_of, back=2)


def _this(m, as_of):
    unit, _ = unit_of(m["u"])
    unit = "day" if unit == "hour" else unit
    if unit == "week":  # the seven days ending on as_of: asked on a Monday, it means the last few days
        return _relative((add_days(as_of, -6), as_of), as_of, TO_DATE)
    return _relative((unit_span(as_of, unit)[0], as_of), as_of, TO_DATE)


def _this_year(m, as_of):
    return _relative((dt.date(as_of.year, 1, 1), as_of), as_of, TO_DATE)


def _weekend(m, as_of):
    saturday = add_days(as_of, -((as_of.weekday() - 5) % 7), clamp=False)
    if m["rel"].lower() != "this" and saturday >= add_days(as_of, -1):
        saturday = add_days(saturday, -7, clamp=False)  # asked during a weekend, "last weekend" is the one before
    return _relative((saturday, add_days(saturday, 1)), as_of)


def _weekday(m, as_of):
    target, last = WEEKDAYS[m["wd"].lower()], group(m, "rel", "rel2")
    if not last and preceding_word(m) not in DATE_PREPS:
        return None  # "Black Friday", "Super Tuesday"
    back = (as_of.weekday() - target) % 7
    if last and back == 0:
        back = 7  # "last Friday" asked on a Friday is a week ago
    day = add_days(as_of, -back)
    return _relative((day, day), as_of, confidence=0.85)


def _trailing_or_previous(m, as_of):
    # English distinguishes by the article: "last month" is the previous calendar month,
    # "the last month" / "the past month" / "past 6 months" run back from as_of.
    text = m.group(0).lower()
    if not m["n"] and not group(m, "half") and text.startswith(
            ("last", "previous", "preceding", "the previous", "the preceding")):
        return _previous(m, as_of)
    return _trailing(m, as_of)


# --- the table -------------------------------------------------------------------------------

_PAST = r"(?:past|last|previous|preceding)"
_NEXT_UNIT = r"(?:week|month|quarter|year|decade|weekend)"

RULES: list[Rule] = [
    # weeks and runs of days within a month
    Rule("the second week of March 2024", lazy(
        rf"{START}(?:the\s+)?(?P<o>first|second|third|fourth|last|final|1st|2nd|3rd|4th)\s+week\s+(?:of|in)\s+"
        rf"{MONTH}(?:\s*,?\s*{YEAR})?"), _nth_week),
    Rule("10-12 May 2023, 10 to 12 May", lazy(
        rf"{START}(?P<d1>[0-3]?\d)(?:st|nd|rd|th|er|\.)?\s*(?:[-–]|to|until|till|through|and|au|à|a|al|bis|y|et|und|по|и)\s*"
        rf"(?P<d>[0-3]?\d)(?:st|nd|rd|th|er|\.)?\s+(?:of\s+|de\s+)?{MONTH}(?:\s*,?\s*(?:de\s+|del\s+)?{YEAR}{YEAR_SUFFIX})?"),
        _day_range),
    Rule("May 10-12, 2023", lazy(
        rf"{START}{MONTH}\s+(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:[-–]|to|through)\s*(?P<d>[0-3]?\d)(?:st|nd|rd|th)?"
        rf"(?!\d)(?:\s*,?\s*{YEAR})?"), _day_range),
    # exact days
    Rule("iso day", lazy(rf"(?<!\d){YEAR}[-/](?P<mo>0?[1-9]|1[0-2])[-/](?P<d>0?[1-9]|[12]\d|3[01])(?!\d)"), _iso_day),
    Rule("12/05/2023, 05.12.2023", lazy(
        r"(?<![\d./-])(?P<a>[0-3]?\d)(?P<sep>[./])(?P<b>[0-3]?\d)(?P=sep)(?P<y>\d{4}|\d{2})(?![\d./])"), _numeric_day),
    Rule("day month [year]", lazy(
        rf"{START}(?:the\s+)?(?P<d>[0-3]?\d)(?:st|nd|rd|th|er|e|\.|º)?\s+(?:of\s+|de\s+)?{MONTH}"
        rf"(?:\s*,?\s*(?:de\s+|del\s+)?{YEAR}{YEAR_SUFFIX})?"), _day_month),
    Rule("month day [year]", lazy(
        rf"{START}{MONTH}\s+(?P<d>[0-3]?\d)(?:st|nd|rd|th)?(?!\d|\s*[-–/]\d|\s*(?:%|per\s*cent))"
        rf"(?:\s*,?\s*{YEAR})?{END}"), _day_month),
    # parts of a year
    Rule("the first six months of 2024", lazy(
        rf"{START}(?:the\s+)?(?P<edge>first|last|final)\s+(?:{NUM}\s+)?{UNIT}\s+(?:of|in)\s+(?:the\s+)?"
        rf"(?:{MONTH}(?:\s*,?\s*{YEAR})?|{YEAR.replace('?P<y>', '?P<y2>')}|"
        rf"(?:(?P<rel>this|last|previous|current)\s+)?year{END})"),
        _edge_of),
    Rule("early/mid/late year", lazy(
        rf"{START}(?:(?:the|a|à\s+la|al?|en|im|в)\s+)?(?P<mod>early|mid|late|(?:the\s+)?(?:start|beginning|"
        rf"end)\s+of|"
        rf"début|mi|fin|anfang|mitte|ende|(?:principios|comienzos|inicios|mediados|finales|fines)\s+de(?:l)?|"
        rf"начале|середине|конце)[\s-]+(?:(?:the\s+year|l['’]année|des\s+jahres)\s+)?{YEAR}{YEAR_SUFFIX}"), _part_of_year),
    Rule("late last year, early this year", lazy(
        rf"{START}(?:(?:the|a|in)\s+)?(?P<mod>early|mid|late|(?:the\s+)?(?:start|beginning|end)\s+of)[\s-]+"
        rf"(?:(?P<rel>last|this|next|previous|current)|the)\s+year{END}"), _part_of_relative_year),
    Rule("ordinal quarter/half of year", lazy(
        rf"{START}{THE}{ORD_WORD}\s+(?:(?:fiscal|calendar)\s+)?{PART}{OF_YEAR}{YEAR}{YEAR_SUFFIX}"), _ordinal_part_year),
    Rule("Q3 2025, H1 2024", lazy(
        rf"{START}(?:[QT](?P<q>[1-4])|H(?P<h>[12]))\s*(?:of\s+|de\s+|/|-|\s)?\s*(?:{YEAR}|['’](?P<yy>\d{{2}}){END})"), _q_code),
    Rule("2025 Q3, 2024 H1", lazy(
        rf"{START}{YEAR}\s*[-/ ]?\s*(?:Q(?P<q>[1-4])|H(?P<h>[12])){END}"), _q_code),
    Rule("3Q 2025, 1H 2024", lazy(rf"{START}(?:(?P<q>[1-4])Q|(?P<h>[12])H)\s*(?:{YEAR}|(?P<yy>\d{{2}}){END})"), _q_code),
    # a part without a year ("the third quarter", "the first half of this year"): the latest one
    # begun by as_of. Before the relative rows, so "this year" there is read as the part's year.
    Rule("the third quarter", lazy(
        rf"{START}{THE}{ORD_WORD}\s+{PART}(?:\s+(?:of\s+)?(?P<this>this\s+year|the\s+year|de\s+l['’]année|"
        rf"cette\s+année|dieses\s+jahres|de\s+este\s+año|этого\s+года))?{END}"),
        _ordinal_part),
    # months
    Rule("month year", lazy(rf"{START}{MONTH}\s*,?\s*(?:of\s+|de\s+|del\s+)?{YEAR}{YEAR_SUFFIX}"), _month_year),
    Rule("2024-03, 03/2024", lazy(
        rf"(?<![\d/.-]){YEAR}-(?P<mo>0[1-9]|1[0-2])(?![\d/.-])|(?<![\d/.-])(?P<mo2>0?[1-9]|"
        rf"1[0-2])/(?P<y2>[12]\d{{3}})(?![\d/.])"),
        _numeric_month),
    Rule("March this/last year", lazy(rf"{START}{MONTH}\s+(?:of\s+)?(?P<rel>this|last|next)\s+year{END}"), _month_relative_year),
    Rule("last/this March", lazy(rf"{START}(?P<rel>last|this|past)\s+{MONTH}"), _last_month_name),
    # decades, centuries, seasons
    Rule("1990s", lazy(
        rf"{START}(?:the\s+)?(?:(?P<mod>early|mid|late)[\s-]+)?(?:(?P<c>1\d|20)(?P<d>\d)0['’]?s{END}|"
        rf"(?<=the\s)['’]?(?P<d2>\d)0['’]?s{END}|['’](?P<d3>\d)0s{END}|(?<=the\s)(?P<w>twenties|thirties|forties|"
        rf"fifties|sixties|seventies|eighties|nineties){END})"),
        _decade),
    Rule("the 90s after a modifier", lazy(
        rf"{START}the\s+(?P<mod>early|mid|late)[\s-]+(?:['’]?(?P<d>\d)0['’]?s|(?P<w>twenties|thirties|forties|"
        rf"fifties|sixties|seventies|eighties|nineties)){END}"),
        _decade),
    Rule("1990-е, 90-х", lazy(rf"(?<![\d\w])(?:(?P<c>19|20)(?P<d>\d)0|(?P<d2>\d)0)-?(?:е|х|ые|"
        rf"ых){END}(?:\s+год(?:ы|ах|ов|ами))?"),
         _decade),
    Rule("années 1990, años 90, década de 1990", lazy(
        rf"{START}(?:(?:les|los|la|des|dans\s+les|en\s+los)\s+)?(?:années|años|"
        rf"década\s+de(?:\s+los)?)\s+(?:(?P<c>19|20)(?P<d>\d)0|(?P<d2>\d)0){END}"),
        _decade),
    Rule("1990er Jahre", lazy(
        rf"{START}(?:(?:die|den|der)\s+)?(?:(?P<c>19|20)(?P<d>\d)0|(?P<d2>\d)0)er(?:n|\s*-?\s*jahre[n]?)?{END}"),
        _decade),
    Rule("20th century", lazy(rf"{START}(?:the\s+)?(?P<n>\d{{1,2}})(?:st|nd|rd|th)\s+century{END}"), _century),
    Rule("season year", lazy(
        rf"{START}(?:(?P<rel>last|this|past)\s+)?(?P<s>{alternation(SEASONS)})\s+(?:of\s+|de\s+|"
        rf"del\s+)?{YEAR}{YEAR_SUFFIX}"), _season),
    Rule("cet été, letzten Sommer, el verano pasado, этой зимой", lazy(
        rf"{START}(?:(?P<before>{alternation(SEASON_BEFORE)})\s+(?P<s>{alternation(SEASONS)}){END}|"
        rf"(?:l['’]|le\s+|el\s+|la\s+)(?P<s2>{alternation(SEASONS)})\s+(?P<after>{alternation(SEASON_AFTER)}){END})"),
        _season),
    Rule("last/this/next season", lazy(rf"{START}(?:(?P<rel>last|this|past|next|coming|upcoming)\s+)?"
        rf"(?P<s>spring|summer|autumn|fall|"
        rf"winter){END}"), _season),
    # years written as a range
    Rule("2019-2021, 2019/20", lazy(rf"{START}(?:FY\s*)?{YEAR}\s*[-–—/]\s*(?P<y2>[12]\d{{3}}|\d{{2}})(?![\d])"), _year_range),
    # relative to as_of: days
    Rule("day before yesterday", lazy(r"\b(?:the\s+)?day\s+before\s+yesterday\b|\bпозавчера\b|\bavant-hier\b|"
        r"\bvorgestern\b|\banteayer\b|\bantes\s+de\s+ayer\b"), _days_back(2)),
    Rule("yesterday", lazy(r"\byesterday(?:'s)?\b|\bвчера\w*|\bhier\b|\bgestern\b|\bayer\b"), _days_back(1)),
    Rule("today", lazy(r"\btoday(?:'s)?\b|\bсегодня\b|\baujourd['’]hui\b|\bheute\b|\bhoy\b"), _today),
    Rule("tomorrow, next week", lazy(
        rf"\btomorrow\b|\b(?:next|coming|upcoming)\s+{_NEXT_UNIT}s?\b|\bin\s+the\s+coming\s+(?:\w+\s+)?(?:days|"
        rf"weeks|months|years)\b|"
        r"\bзавтра\b|\b(?:на|в|во)\s+(?:следующ|будущ)\w+\s+(?:неделе|месяце|году|квартале)\b|\bdemain\b|"
        r"\b(?:la|le|l['’])\s*(?:semaine|mois|année|an|trimestre)\s+prochaine?\b|\bnächste[nmrs]?\s+(?:woche|"
        r"monat|jahr|quartal)\b|"
        r"\b(?:el|la)\s+(?:semana|mes|año|trimestre)\s+(?:próxim[oa]|que\s+viene)\b|\b(?:el|"
        r"la)\s+próxim[oa]\s+(?:semana|mes|año|trimestre)\b"),
        _future),
    # "higher than they were a year ago": the change since then, so the reports of it lie
    # between then and as_of, not in that year
    Rule("than a year ago", lazy(rf"\bthan\s+(?:(?:they|it|those|"
        rf"that|there)\s+(?:were|was|had\s+been)\s+)?{NUM}\s+{UNIT}\s+(?:ago|earlier)\b"), _trailing),
    Rule("N units ago", lazy(rf"\b{NUM}\s+{UNIT}\s+(?:ago|назад)\b"), _ago),
    Rule("il y a N jours, vor N Tagen, hace N días", lazy(rf"\b(?:il\s+y\s+a|vor|hace)\s+{NUM}\s+{UNIT}"), _ago),
    Rule("the week before last", lazy(r"\b(?:the\s+)?(?P<u>week|month|quarter|year)\s+before\s+last\b"),
         _before_last),
    Rule("last weekend", lazy(r"\b(?P<rel>last|this|past)\s+weekend\b"), _weekend),
    # relative to as_of: trailing spans
    Rule("the past N units", lazy(
        rf"\b(?:the\s+)?{_PAST}\s+(?:{NUM}\s+)?{UNIT}(?P<half>\s+and\s+a\s+half\b)?"), _trailing_or_previous),
    Rule("за последние N месяцев", lazy(
        rf"\b(?:за|в\s+течение|на\s+протяжении)\s+(?:последн|прошедш)\w*\s+(?:{NUM}\s+)?{UNIT}"), _trailing),
    Rule("les 6 derniers mois", lazy(
        rf"\b(?:(?:au\s+cours|pendant|durant|lors)\s+(?:des|du|de\s+la|de\s+l['’])\s*|(?:ces|les|la|le|cette|"
        rf"ce)\s+)(?:{NUM}\s+)?derni(?:er|ère|ers|ères)\s+{UNIT}"), _trailing),
    Rule("depuis 6 mois, seit 6 Monaten", lazy(rf"\b(?:depuis|seit|desde\s+hace)\s+{NUM}\s+{UNIT}"), _trailing),
    Rule("in den letzten 6 Monaten", lazy(rf"\b(?:in\s+den|während\s+der|innerhalb\s+der)\s+(?:letzten|"
        rf"vergangenen)\s+(?:{NUM}\s+)?{UNIT}"), _trailing),
    Rule("en los últimos 6 meses", lazy(rf"\b(?:(?:en|durante)\s+)?(?:los|las|el|"
        rf"la)\s+últim[oa]s?\s+(?:{NUM}\s+)?{UNIT}"), _trailing),
    # relative to as_of: the previous or the current calendar unit
    Rule("в прошлом месяце", lazy(rf"\b(?:на|в|во|за)\s+(?:прошл|предыдущ)\w*\s+{UNIT}"), _previous),
    Rule("le mois dernier", lazy(rf"\b(?:la|le|l['’])\s*{UNIT}\s+(?:derni[eè]re?|pass[ée]e?|précédente?)\b|"
        rf"\bl['’]an\s+(?:dernier|passé)\b"),
         _previous),
    Rule("letzten Monat", lazy(rf"\b(?:(?:im|in\s+der|am)\s+)?(?:letzte[nmrs]?|vergangene[nmrs]?|vorige[nmrs]?|"
        rf"vorherige[nmrs]?)\s+{UNIT}"), _previous),
    Rule("el mes pasado", lazy(rf"\b(?:el|la)\s+{UNIT}\s+(?:pasad[oa]|anterior)\b"), _previous),
    Rule("this month", lazy(r"\b(?:this|the\s+current|current|so\s+far\s+this|earlier\s+this)\s+(?P<u>week|"
        r"month|quarter|year|decade)\b"), _this),
    Rule("year to date", lazy(r"\byear[-\s]to[-\s]date\b|\bytd\b|\bheuer\b|"
        r"\ben\s+lo\s+que\s+va\s+de(?:l)?\s+año\b"), _this_year),
    Rule("в этом году", lazy(rf"\b(?:на|в|во)\s+(?:эт|текущ|нынешн)\w*\s+{UNIT}"), _this),
    Rule("cette année", lazy(rf"\b(?:cette|cet|ce)\s+{UNIT}(?:-ci)?"), _this),
    Rule("dieses Jahr", lazy(rf"\b(?:in\s+)?diese[nmrs]?\s+{UNIT}"), _this),
    Rule("este año", lazy(rf"\b(?:est[ea])\s+{UNIT}"), _this),
    Rule("last Friday", lazy(
        rf"\b(?:(?P<rel>last|this\s+past|past|letzten|vergangenen|"
        rf"прошл\w+)\s+)?{WEEKDAY}(?:\s+(?P<rel2>dernier|pasado))?"),
        _weekday),
    # quarter codes and months without a year: the latest one begun by as_of
    Rule("Q3, H1", lazy(rf"{START}(?:Q(?P<q>[1-4])|H(?P<h>[12])){END}"), _bare_q),
    Rule("month alone", lazy(rf"{START}{MONTH}"), _bare_month),
    # years last: every rule above that contains a year has had its chance
    Rule("year", lazy(
        rf"{START}(?P<lead>(?:in\s+)?the\s+year\s+|l['’]an(?:née)?\s+|im\s+jahre?\s+|el\s+año\s+|"
        rf"FY\s*)?{YEAR}{YEAR_SUFFIX}"), _year),
]
