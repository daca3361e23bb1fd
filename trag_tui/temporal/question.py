"""Reading the time in a question, so that the retrieval mode can be chosen from it alone.

A question over dated documents is really two questions: what it is about, and when. Asking
"when" wrongly is the costly mistake (a filter to the wrong year finds nothing; a "current"
question answered from 2016 is confidently out of date), so the reading is kept in one pure,
deterministic function with the clock passed in, small enough to test exhaustively, and it says
why it chose what it chose. The expressions it understands are listed in `rules`; this
module combines them ("between X and Y", "since X", "Q1 and Q3 2025"), weighs the cue words and
decides the intent, following the project's temporal-query contract.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import Literal

from ..text.sentences import bounds
from .calendar import add_days, shift, unit_span
from .cues import (
    AHEAD,
    CHANGE_BETWEEN,
    CHANGE_CUES,
    COMPARISON_CUES,
    CURRENT_BEFORE,
    CURRENT_CUES,
    DEADLINE,
    DONE_BEFORE,
    EVOLUTION_CUES,
    FIGURE,
    FIXED_HEADS,
    HOW_MUCH,
    ONGOING,
    ORIGIN_BEFORE,
    PAST_TENSE,
    PRESENT_PROGRESSIVE,
    QUANTITY_QUESTION,
    QUANTITY_STEMS,
    QUANTITY_SUFFIXES,
    QUANTITY_WORDS,
    RECENCY_CUES,
    REPORT_NAMED,
    ROLE_QUESTION,
    SAID_CUES,
    SPEECH_TIME_CUES,
    STRIPPABLE_CUES,
    TREND_CUES,
)
from .dateparse import dateparser_read, dateparser_vocabulary
from .lexicon import NUMBERS, THE, LazyPattern, alternation, number, unit_of
from .rules import (
    FUTURE,
    NAMED,
    RANGE,
    RELATIVE,
    RULES,
    TO_DATE,
    TODAY,
    TRAILING,
    Found,
)
from .semantic import COMPARE_VERB, preceded_by, semantic_query

Intent = Literal["point_in_time", "current", "evolution", "comparison", "none"]
Time = Literal["said", "about"] | None
Period = tuple["dt.date | None", "dt.date | None"]


@dataclass(frozen=True)
class TemporalQuery:
    """What a question asks of time: its intent, its period(s), and the question without them."""

    question: str
    intent: Intent
    start: dt.date | None
    end: dt.date | None
    periods: tuple[Period, ...]  # comparison periods in time order, else ()
    semantic_query: str  # the question minus its time expressions; never empty
    as_of: dt.date
    confidence: float  # 0..1
    expressions: tuple[str, ...]  # matched time expressions and cue words, for display
    reason: str  # one sentence: why this intent
    # A word that asks outright for the newest state ("latest", "now"); not part of the
    # contract's JSON, since `expressions` already lists it.
    recency_cue: str | None = None
    # Worded as happening around the day asked ("has brought back", "are fleeing", "will soon");
    # not part of the contract's JSON either: the intent does not change for it.
    ongoing: bool = False
    # Asks for a figure (a rate, a level, a count): a current question then wants the newest
    # period a figure is for, not the newest document. Not part of the contract's JSON.
    figure: bool = False
    # Which of a document's two times the period refers to: "said" (when it was said, published
    # or decided: publication date only) or "about" (the state, figure or event of the period:
    # published in it or speaking of it); None when no period is asked about (`none`, `current`).
    time: Time = None
    # A named period after as_of that a current question asks the plan or forecast for ("What
    # is the 2030 target?", "How much will the UK spend on defence in 2027?"): the latest
    # documents that speak of it are its best evidence. Not part of the contract's JSON.
    ahead: Period | None = None

    def to_dict(self) -> dict:
        """JSON-ready form: dates as ISO strings or None, periods as [[start, end], ...]."""

        def iso(day: dt.date | None) -> str | None:
            return day.isoformat() if day else None

        return {
            "question": self.question,
            "intent": self.intent,
            "start": iso(self.start),
            "end": iso(self.end),
            "periods": [[iso(s), iso(e)] for s, e in self.periods],
            "semantic_query": self.semantic_query,
            "as_of": self.as_of.isoformat(),
            "confidence": self.confidence,
            "expressions": list(self.expressions),
            "reason": self.reason,
            "time": self.time,
        }


# --- finding time expressions ----------------------------------------------------------------


@dataclass(frozen=True)
class _Atom:
    """One time expression found in the question, at [lo, hi)."""

    lo: int
    hi: int
    found: Found
    rule: str = ""  # the table row that read it, or "dateparser"

    @property
    def has_year(self) -> bool:
        return self.found.kind == NAMED and self.found.rebase is None

    def in_year(self, year: int) -> _Atom:
        assert self.found.rebase is not None  # only a yearless period is set in a year
        start, end = self.found.rebase(year)
        # With its year written next to it, "Q1" is as certain as "Q1 2025".
        return replace(self, found=replace(self.found, start=start, end=end, rebase=None, confidence=0.95))


#: Beyond this many expressions the input is not a question; later ones are ignored.
_MAX_ATOMS = 12
#: Only this much of a question is read: past it, the input is a document pasted in, not a
#: question, and scanning it all would cost tens of milliseconds for nothing.
_MAX_SCAN = 2000
#: How many leftover digit-bearing words may be shown to dateparser (it is slow).
_MAX_FALLBACKS = 3


def _find_atoms(text: str, as_of: dt.date, *, fallback: bool = True) -> list[_Atom]:
    """Every expression the rule table reads, then (with `fallback`) leftovers dateparser
    reads; in text order."""
    atoms: list[_Atom] = []
    for rule in RULES:
        for m in rule.pattern.finditer(text):
            if any(a.lo < m.end() and m.start() < a.hi for a in atoms):
                continue
            try:
                found = rule.handler(m, as_of)
            except (ValueError, OverflowError):
                # An impossible date ("31 February 2023") or one beyond year 9999 reads as no date.
                continue
            if found is not None:
                atoms.append(_Atom(m.start(), m.end(), found, rule.name))
                if len(atoms) >= _MAX_ATOMS:
                    return sorted(atoms, key=lambda a: a.lo)
    if fallback:
        atoms = _dateparser_atoms(text, as_of, atoms)
    return sorted(atoms, key=lambda a: a.lo)


_WORD = LazyPattern(r"\S+")
_TIME_OF_DAY = LazyPattern(r"\d\s*(?:am|pm|h)\b|\d:\d")
_DAY_OR_YEAR = LazyPattern(r"[\(\[«\"']?(?:[0-3]?\d(?:st|nd|rd|th|er|e|\.|º|°)?|[12]\d{3})[,.;:?!\)\]»\"']*")
# "the 15th time", "her 30th birthday": an ordinal counting something, not a day of the month.
_ORDINAL_NUMBER = LazyPattern(r"\d+(?:st|nd|rd|th)")
_COUNTED = LazyPattern(r"(?:time|times|consecutive|straight|anniversary|birthday|place|round|"
                         r"edition|season|century|amendment|floor|row)\W*")
# "for the 17th month in a row", "the third week running": a run counted in units of time.
_RUN = LazyPattern(r"\s*[^\W\d_]+\s+(?:in\s+a\s+row|running|on\s+the\s+trot)\b")


def _dateparser_atoms(text: str, as_of: dt.date, atoms: list[_Atom]) -> list[_Atom]:
    """Dates in words the table does not list ("il 12 maggio 2023"), read by dateparser.

    Only short windows around leftover words that contain a digit are tried: dateparser is slow
    on whole sentences and reads nonsense into bare numbers ("at 5" becomes May). A window may
    take in a bare year the table already read ("2023" there), which it then replaces.
    """
    words = list(_WORD.finditer(text))

    def holder(w: re.Match[str]) -> _Atom | None:
        return next((a for a in atoms if a.lo < w.end() and w.start() < a.hi), None)

    owners = [holder(w) for w in words]
    absorbable = [o is None or (o.rule == "year" and o.lo >= w.start() and o.hi <= w.end() + 8)
                  for o, w in zip(owners, words)]
    tried = 0
    for i, word in enumerate(words):
        if tried >= _MAX_FALLBACKS:
            break
        if owners[i] is not None or not _DAY_OR_YEAR.fullmatch(word.group()):
            continue  # "G7", "COVID-19", "30000": not a day or a year
        if _ORDINAL_NUMBER.fullmatch(word.group()) and (
                (i + 1 < len(words) and _COUNTED.fullmatch(words[i + 1].group()))
                or _RUN.match(text, word.end())):
            continue
        tried += 1
        # A year the table read a few words on is most likely this date's ("15 de março de 2021"),
        # so windows reaching it come first; then the longest windows.
        year_at = next((j for j in range(i + 1, min(i + 5, len(words))) if owners[j] is not None), None)
        reach = [(i, year_at), (i - 1, year_at)] if year_at is not None and absorbable[year_at] else []
        for lo, hi in reach + [(i, i + 3), (i - 1, i + 3), (i, i + 2), (i - 1, i + 2), (i - 2, i),
                               (i - 1, i + 1), (i, i + 1), (i - 1, i)]:
            lo, hi = max(lo, 0), min(hi, len(words) - 1)
            if not all(absorbable[lo: hi + 1]):
                continue
            start, end = words[lo].start(), words[hi].end()
            chunk = text[start:end].strip(" ,.;:?!()\"'«»¿¡")
            if _TIME_OF_DAY.search(chunk):
                continue
            if not any(w.lower() in dateparser_vocabulary() for w in re.findall(r"[^\W\d_]+", chunk)):
                continue  # no month, weekday or "ago" word: a bare number is a count, not a date
            read = dateparser_read(chunk, as_of)
            if read is None:
                continue
            years = re.findall(r"(?<!\d)\d{4}(?!\d)", chunk)
            if years and str(read[0].year) not in years:
                continue  # dateparser misread the year ("в 2015 году" as year 10)
            absorbed = {id(o) for o in owners[lo: hi + 1] if o is not None}
            atoms = [a for a in atoms if id(a) not in absorbed]
            start_day, end_day = unit_span(*read)  # dateparser's granularity names a calendar unit
            atoms.append(_Atom(start, end, Found(start_day, end_day, NAMED, None, 0.7), "dateparser"))
            owners[lo: hi + 1] = [atoms[-1]] * (hi + 1 - lo)
            absorbable[lo: hi + 1] = [False] * (hi + 1 - lo)
            break
    return atoms


# --- combining expressions: ranges, lists, since/before/as of --------------------------------

SPAN_UNITS = r"days?|weeks?|fortnights?|months?|quarters?|years?"  # the units a stretch is told in
_SPAN_LENGTH = rf"(?:the\s+)?(?:(?P<n>\d{{1,3}}|[^\W\d_]+)\s+)?(?P<unit>{SPAN_UNITS})"
# a stretch with its length told: "the year", "the three months", "the 12 months" ("the years up
# to 2015" is everything up to 2015)
_LENGTH_TOLD = (r"(?:the\s+)?(?:(?:\d{1,3}|" + alternation(NUMBERS) + r")\s+(?:days?|weeks?|fortnights?|"
                r"months?|quarters?|years?)|day|week|fortnight|month|quarter|year)")
_PREFIXES = [  # (how, pattern) tried in order against the text just before an expression
    ("compared", r"(?:compared|comparison|comparé|comparée|verglichen|comparación|comparado|сравнению|"
        r"сравнении)\s+(?:with|to|à|au|mit|con|с|со)"),
    ("as_of", r"as\s+(?:of|at|on)|as\s+it\s+stood\s+(?:in|on)|à\s+la\s+date\s+d[ue]|en\s+date\s+d[ue]|"
        r"(?:zum\s+)?stand(?:\s+(?:vom|von))?|a\s+fecha\s+de|по\s+состоянию\s+на"),
    ("between", r"between|entre|zwischen|между"),
    # "the week ending 14 November" is the seven days to that day, "the year ending June 2023"
    # the twelve months to the end of June, "the three months to June 2025" April to June (the
    # statistics' trailing windows); "the week beginning 10 November" the seven days from it,
    # "the week of 12 May" the calendar week holding it
    ("span_ending", rf"{_LENGTH_TOLD}\s+(?:ending|ended|to|up\s+to)(?:\s+on)?"),
    ("week_from", r"(?:the\s+)?week\s+(?:beginning|starting|commencing|from)(?:\s+on)?"),
    ("week_of", r"(?:the\s+)?week\s+of|la\s+semaine\s+du|"
        r"die\s+woche\s+vom|la\s+semana\s+del"),
    # "the week before 16 November", "the two months after the March 2020 budget": a bounded
    # stretch next to the named period, not the open-ended "before"/"after".
    ("span_before", rf"{_SPAN_LENGTH}\s+(?:before|prior\s+to|preceding|leading\s+up\s+to)"),
    ("span_after", rf"{_SPAN_LENGTH}\s+(?:after|following)"),
    ("since", r"(?:ever\s+)?since|starting\s+(?:in|from)|as\s+from|beginning\s+in|depuis|à\s+partir\s+d[eu']?|"
        r"dès|seit|ab|desde|a\s+partir\s+de|с|со|начиная\s+с"),
    ("after", r"after|post|following|later\s+than|après|nach|después\s+de(?:l)?|posterior\s+a|после"),
    ("before", r"before|prior\s+to|pre|earlier\s+than|avant|vor|antes\s+de(?:l)?|до|перед"),
    ("until", r"until|till|til|up\s+(?:to|until)|through|thru|by|no\s+later\s+than|jusqu['’]\s*(?:en|à|au)|"
        r"jusqu['’]à|bis(?:\s+(?:zum|zur|ins|in))?|hasta"),
    # Last, so that the "de" of "antes de" is not read as "from". Russian "с" and Spanish "desde"
    # are listed under "since": they open a range too ("с 2019 по 2021").
    ("from", r"from|de|du|des|von|vom"),
]
_PREFIX_RES = [(how, LazyPattern(rf"(?:^|(?<=[\s(,;]))(?:{p})[\s-]*{THE}$")) for how, p in _PREFIXES]
_AND_GAP = LazyPattern(rf"\s*(?:and|et|und|y|и|&)\s+{THE}")
_RANGE_GAP = LazyPattern(
    rf"\s*(?P<j>to|until|till|through|thru|up\s+to|[-–—]|bis|hasta|a|à|au|jusqu['’]\s*(?:en|à|au)|по|"
    rf"до)\s*{THE}")
_WEAK_RANGE_JOINERS = {"a", "à", "au", "по", "до"}  # need "de"/"desde"/"с" before the first end
_LIST_GAP = LazyPattern(
    r"\s*(?P<comma>,\s*)?(?P<j>(?:and|or|&|vs\.?|versus|v\.|et|ou|und|oder|y|o|и|или|with|against|"
    r"compared\s+(?:with|to)|"
    r"relative\s+to|par\s+rapport\s+(?:à|au)|im\s+vergleich\s+(?:zu|zum)|verglichen\s+mit|frente\s+a|"
    r"по\s+сравнению\s+с|"
    r"против|contre|gegenüber)\s+)?(?:(?:in|on|during|for|en|dans|im|am|durante|в|во|the|le|la|les|der|die|das|"
    r"el|los|las)\s+)*",
)
_SHARE_GAP = LazyPattern(
    rf"\s*,?\s*(?:(?:and|or|&|to|until|till|through|thru|[-–—]|bis|und|oder|et|ou|à|au|y|o|a|hasta|и|или|по|до|"
    rf"vs\.?|versus)\s*)?{THE}",
)
_TO_NOW = LazyPattern(
    r"\s*(?:to|until|till|through|up\s+(?:to|until)|[-–—]|bis|à|a|hasta|jusqu['’]à|по|до)\s+(?:the\s+)?"
    r"(?:now|present(?:\s+day)?|date|jetzt|nos\s+jours|ce\s+jour|présent|ahora|la\s+fecha|el\s+presente|"
    r"настоящее\s+время|сих\s+пор|сей\s+день|наших\s+дней)(?!\w)",
)


@dataclass(frozen=True)
class _Item:
    """A period the question names: one expression, or two joined as a range, with a modifier."""

    lo: int
    hi: int
    # "in", "since", "after", "before", "span_before", "span_after", "until", "as_of", "range",
    # "between", "week_of", "span_ending", "week_from"
    how: str
    parts: tuple[_Atom, ...]
    listed: bool = False  # joined to a neighbour by "and", "or", "vs", a comma...
    length: tuple[str, int] = ("day", 0)  # the stretch of "span_…": (unit, count)

    def span(self, as_of: dt.date) -> tuple[dt.date | None, dt.date | None, bool]:
        """(start, end, clipped): the period, and whether it had to be bent to fit as_of."""
        first, last = self.parts[0].found, self.parts[-1].found
        if self.how in ("range", "between"):
            return min(first.start, last.start), max(first.end, last.end), False
        unit, n = self.length
        if self.how in ("since", "after", "span_after"):
            start = first.start if self.how == "since" else add_days(last.end, 1)
            if start > as_of:  # "since 2030": nothing can be dated there; read it as as_of alone
                return as_of, as_of, True
            return start, shift(last.end, unit, n) if self.how == "span_after" else as_of, False
        if self.how in ("before", "span_before"):
            begin = shift(first.start, unit, -n) if self.how == "span_before" else None
            return begin, add_days(first.start, -1), False
        if self.how == "until":
            return None, first.end, False
        if self.how == "as_of":
            return None, min(first.end, as_of), first.end > as_of
        if self.how == "week_of":
            return unit_span(first.start, "week") + (False,)
        if self.how == "span_ending":
            return shift(add_days(first.end, 1), unit, -n), first.end, False
        if self.how == "week_from":
            return first.start, add_days(first.start, 6), False
        return first.start, first.end, False

    @property
    def is_span(self) -> bool:
        """A stretch of time something can move across, rather than one named period."""
        return self.how not in _BOUNDED or self.parts[0].found.kind in (TRAILING, TO_DATE, RANGE)


_BOUNDED = ("in", "week_of", "span_ending", "week_from", "span_before", "span_after")  # one stretch, not open-ended
_SPAN_LENGTH_RE = LazyPattern(_SPAN_LENGTH)


def span_length(prefix: str) -> tuple[str, int]:
    """(unit, count) of "the two weeks before"; without a count, one ("the week before") or,
    for a plural, a few ("in the months after")."""
    m = _SPAN_LENGTH_RE.search(prefix)
    unit, mult = unit_of(m["unit"])
    n = m["n"]
    if n and (n.isdigit() or n.lower() in NUMBERS):
        count = number(n)
    else:
        count = 3 if m["unit"].lower().endswith("s") else 1
    return unit, count * mult


def _prefix(before: str) -> tuple[str, int]:
    """The modifier word(s) just before an expression, and where they start."""
    tail = before[-40:]
    for how, pattern in _PREFIX_RES:
        m = pattern.search(tail)
        if m:
            return how, len(before) - len(tail) + m.start()
    return "in", len(before)


def _share_years(text: str, atoms: list[_Atom]) -> list[_Atom]:
    """Give "July" in "July and October 2025" (or "Q1" in "Q1 to Q3 2025") the written year."""
    atoms = list(atoms)
    for i in range(len(atoms) - 2, -1, -1):
        a, b = atoms[i], atoms[i + 1]
        gap = text[a.hi: b.lo]
        if a.found.rebase is None or not b.has_year or not gap.strip() or not _SHARE_GAP.fullmatch(gap):
            continue
        year = b.found.start.year
        try:
            shared = a.in_year(year)
            if shared.found.start > b.found.start and _RANGE_GAP.fullmatch(gap):
                shared = a.in_year(year - 1)  # "from November to March 2024" starts in 2023
        except ValueError:
            continue  # "29 February and 1 March 2023": no such day that year; keep the own reading
        atoms[i] = shared
    return atoms


def _group(text: str, atoms: list[_Atom]) -> list[_Item]:
    """Join expressions into the periods the question names."""
    items: list[_Item] = []
    i, floor = 0, 0
    while i < len(atoms):
        a = atoms[i]
        how, lo = _prefix(text[floor: a.lo])
        lo += floor
        b = atoms[i + 1] if i + 1 < len(atoms) else None
        gap = text[a.hi: b.lo] if b else ""
        ranged = _RANGE_GAP.fullmatch(gap) if b else None
        if b and how == "between" and _AND_GAP.fullmatch(gap):
            items.append(_Item(lo, b.hi, "between", (a, b)))
            i += 2
        elif b and ranged and how in ("span_before", "span_after"):
            # "the quarter before July to September 2025": the stretch next to the whole range
            items.append(_Item(lo, b.hi, how, (a, b), length=span_length(text[lo: a.lo])))
            i += 2
        elif b and ranged and (ranged["j"].lower() not in _WEAK_RANGE_JOINERS or how in ("from", "since")):
            items.append(_Item(lo if how in ("from", "since", "between") else a.lo, b.hi, "range", (a, b)))
            i += 2
        else:
            to_now = _TO_NOW.match(text, a.hi)
            if to_now:  # "from 2019 to the present" is "since 2019"
                items.append(_Item(lo if how in ("from", "since") else a.lo, to_now.end(), "since", (a,)))
            elif how in ("from", "between", "compared"):
                # "speeches from 2019" are speeches of 2019; the word stays outside the period
                items.append(_Item(a.lo, a.hi, "in", (a,)))
            elif how in ("span_before", "span_after", "span_ending"):
                items.append(_Item(lo, a.hi, how, (a,), length=span_length(text[lo: a.lo])))
            else:
                items.append(_Item(lo, a.hi, how, (a,)))
            i += 1
        floor = items[-1].hi
    # "last month's debates": the possessive belongs to the expression
    items = [replace(it, hi=it.hi + 2) if text[it.hi: it.hi + 2] in ("'s", "’s") else it for it in items]
    for k in range(1, len(items)):
        m = _LIST_GAP.fullmatch(text[items[k - 1].hi: items[k].lo])
        if m and (m["comma"] or m["j"]):
            items[k - 1] = replace(items[k - 1], listed=True)
            items[k] = replace(items[k], listed=True)
    return items


# --- deciding the intent ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Cues:
    """The intent-bearing words found outside the time expressions."""

    current: list[str]
    evolution: list[str]
    trend: list[str]
    change: list[str]
    change_between: bool
    comparison: list[str]
    role: str | None  # also a present-progressive question ("What is the government planning?")
    quantity: str | None
    past: bool
    ahead: bool  # worded in the future ("will", "expected to")


def _found(pattern: LazyPattern, text: str) -> list[str]:
    return [" ".join(m.group(0).split()) for m in pattern.finditer(text)]


def _quantity(text: str) -> str | None:
    """The "what is the <changing quantity>" clause of a present-tense question, if any."""
    m = HOW_MUCH.search(text)
    if m:
        return m.group(0)
    for m in QUANTITY_QUESTION.finditer(text):
        if m["np"]:
            words = [w.lower().removesuffix("'s").removesuffix("’s") for w in m["np"].split()]
            if words[-1] in FIXED_HEADS:
                continue
            if any(w in QUANTITY_WORDS for w in words):
                return m.group(0)
        elif m["np_fr"] or m["np_es"]:
            if (m["np_fr"] or m["np_es"]).lower() in QUANTITY_WORDS:
                return m.group(0)
        elif m["np_de"]:
            noun = m["np_de"].lower()
            if not noun.endswith(("gesetz", "abkommen", "vertrag")) and noun.endswith(QUANTITY_SUFFIXES):
                return m.group(0)
        elif m["np_ru"] and m["np_ru"].lower().startswith(QUANTITY_STEMS):
            return m.group(0)
    return None


def _change_words(pattern: LazyPattern, masked: str) -> list[str]:
    """Evolution words, except those a "latest"/"recent" names the newest of ("latest developments")."""
    return [m.group(0) for m in pattern.finditer(masked)
            if not CURRENT_BEFORE.search(masked[max(0, m.start() - 30): m.start()])]


def _cues(text: str, masked: str) -> _Cues:
    """The cue words of a question, looked for in `masked` (time expressions blanked out)."""
    evolution = _change_words(EVOLUTION_CUES, masked)
    trend = _change_words(TREND_CUES, masked)
    role = ROLE_QUESTION.search(masked) or PRESENT_PROGRESSIVE.search(masked)
    return _Cues(
        current=_found(CURRENT_CUES, masked),
        evolution=evolution,
        trend=trend,
        change=_found(CHANGE_CUES, masked),
        change_between=bool(CHANGE_BETWEEN.search(text)),
        comparison=_found(COMPARISON_CUES, masked),
        role=role.group(0).strip() if role else None,
        quantity=_quantity(masked),
        past=bool(PAST_TENSE.search(masked)),
        ahead=bool(AHEAD.search(masked)),
    )


@dataclass(frozen=True)
class _Decision:
    """An intent with its dates, how sure it is, why, and the cue words that decided it."""

    intent: Intent
    start: dt.date | None
    end: dt.date | None
    periods: tuple[Period, ...]
    confidence: float
    reason: str
    cues: tuple[str, ...]


def _q(text: str) -> str:
    return f"'{text}'"


def _time_order(periods: list[Period]) -> tuple[Period, ...]:
    # An open start sorts by its end: "the present state" (None, as_of) comes after 2019.
    return tuple(sorted(periods, key=lambda p: (p[0] or p[1] or dt.date.min, p[1] or dt.date.max)))


def _cover(spans: list[tuple[dt.date | None, dt.date | None, bool]]) -> tuple[dt.date | None, dt.date | None]:
    """The whole stretch several periods span; open if any of them is open at that end."""
    starts, ends = [s for s, _, _ in spans], [e for _, e, _ in spans]
    known_starts = [s for s in starts if s is not None]
    known_ends = [e for e in ends if e is not None]
    return (None if len(known_starts) < len(starts) else min(known_starts)), \
        (None if len(known_ends) < len(ends) else max(known_ends))


def _decide(text: str, masked: str, items: list[_Item], future: list[_Atom], cues: _Cues,
            as_of: dt.date) -> _Decision:
    """Pick the intent and its dates from the periods and cue words, per the contract."""
    as_of_items = [it for it in items if it.how == "as_of"]
    named_items = [it for it in items if it.how != "as_of"]
    named = ", ".join(_q(text[it.lo: it.hi].strip()) for it in named_items)
    confidence = min([0.95] + [a.found.confidence for it in items for a in it.parts])
    spans = [it.span(as_of) for it in named_items]
    if any(clipped for _, _, clipped in spans):
        confidence = min(confidence, 0.3)
    state = cues.current or cues.role or cues.quantity
    today_only = bool(named_items) and all(it.how == "in" and it.parts[0].found.kind == TODAY for it in named_items)
    if today_only and state and not cues.past:  # "What is the inflation rate today?" asks for now
        named_items, spans = [], []

    # comparison: two or more periods set against each other
    separate: list[Period] = []
    for it, (s, e, _) in zip(named_items, spans):
        if it.how == "between":
            separate.extend((p.found.start, p.found.end) for p in it.parts)
        else:
            separate.append((s, e))
    between_change = any(it.how == "between" for it in named_items) and (cues.change_between or cues.change)
    listed = any(it.listed for it in named_items)
    named_twice = len(separate) >= 2 and len(set(separate)) == 1  # "2024 and 2024" is 2024
    separate = list(dict.fromkeys(separate))
    if len(separate) >= 2 and (cues.comparison or listed or between_change):
        words = cues.comparison[:1] or (["change between"] if between_change else [])
        ordered = _time_order(separate)
        conf = confidence if words else min(confidence, 0.7)
        reason = (f"{_q(words[0])} sets {named} against each other" if words
                  else f"{named} are named side by side as separate periods")
        return _Decision("comparison", ordered[0][0], ordered[-1][1], ordered, conf, reason, tuple(words))
    if cues.comparison and len(separate) == 1 and state and not named_twice:
        # "How does inflation now compare with 2019?"
        ordered = _time_order([separate[0], (None, as_of)])
        return _Decision("comparison", ordered[0][0], ordered[-1][1], ordered, min(confidence, 0.6),
                         f"{_q(cues.comparison[0])} sets {named} against the present state",
                         (cues.comparison[0], *cues.current[:1]))

    if as_of_items and not named_items:
        it = as_of_items[0]
        _, end, clipped = it.span(as_of)
        return _Decision("current", None, end, (), 0.3 if clipped else confidence,
                         f"{_q(text[it.lo: it.hi].strip())} asks for the state at the end of that period", ())

    # evolution: how something moved, across at most one span; a trend or a change asked about
    # inside one named period is read from that period's documents instead
    strong, weak = cues.evolution, cues.trend + cues.change
    if cues.ahead and not named_items:
        # "How much will defence spending rise by 2027?" asks what is planned or forecast, not
        # a history; a period after as_of makes it one for the latest documents, below
        strong, weak = [], []
    if strong or (weak and (not named_items or (len(named_items) == 1 and named_items[0].is_span))):
        why = (strong or weak)[0]
        if not named_items:
            return _Decision("evolution", None, None, (), 0.9 if strong else 0.75,
                             f"{_q(why)} asks how something changed over time, with no span named", (why,))
        start, end = _cover(spans)
        conf = min(confidence, 0.9 if strong else 0.8) if len(named_items) == 1 else min(confidence, 0.6)
        return _Decision("evolution", start, end, (), conf,
                         f"{_q(why)} asks how something changed over time, bounded by {named}", (why,))

    if cues.current and named_items:
        if (all(SPEECH_TIME_CUES.search(c) for c in cues.current)
                and all(it.how == "in" and preceded_by(text, it.lo, ORIGIN_BEFORE, 20) is not None
                        for it in named_items)):
            # "a card from 1952 recently sold": the period says where the card comes from
            return _Decision("current", None, as_of, (), min(confidence, 0.6),
                             f"{_q(cues.current[0])} is read from as_of; {named} describes something else",
                             (cues.current[0],))
        if _apart(text, masked, named_items):
            # "Though still painfully high, gas prices have been falling now for 50 days. What
            # was the record set in the middle of June?": the cue speaks of the present in a
            # sentence the period is not in, so the period dates something else
            return _Decision("current", None, as_of, (), min(confidence, 0.6),
                             f"{_q(cues.current[0])} is read from as_of; {named} stands in another "
                             "sentence", (cues.current[0],))
        # "the most recent statement in 2019": the latest state within that period, read like
        # "as of" its end (the contract keeps point_in_time for periods without such cues)
        _, end = _cover(spans)
        end = as_of if end is None or end > as_of else end
        return _Decision("current", None, end, (), min(confidence, 0.6),
                         f"{_q(cues.current[0])} asks for the latest state up to the end of {named}",
                         (cues.current[0],))
    if len(named_items) == 1:
        s, e, _ = spans[0]
        it = named_items[0]
        relative = it.parts[0].found.kind in (RELATIVE, TRAILING, TO_DATE, TODAY)
        what = ("a range" if it.how in ("range", "between") else
                "an open-ended period" if it.how not in _BOUNDED else
                "a period relative to as_of" if relative else
                "a period")
        return _Decision("point_in_time", s, e, (), confidence, f"{named} names {what}", ())
    if named_items:
        start, end = _cover(spans)
        if named_twice:
            return _Decision("point_in_time", start, end, (), confidence,
                             f"{named} name one period twice", ())
        return _Decision("point_in_time", start, end, (), min(confidence, 0.5),
                         f"{named} name several periods with no comparison wording; all between is searched", ())

    planned = _planned(text, masked, future, cues.past) if future else None
    if planned is not None:
        # "What budget was set for 2033 to 2037?": a plan or forecast for a named period is
        # spoken of by documents published before it (the contract's "Two times")
        what = text[future[0].lo: future[0].hi].strip()
        return _Decision("point_in_time", planned[0], planned[1], (), 0.6,
                         f"{_q(what)} names a period after as_of that documents published "
                         "before it speak of", ())
    if state:
        if cues.current:
            why, reason, conf = cues.current[0], f"{_q(cues.current[0])} asks for the latest state", 0.9
        elif cues.role:
            why, reason, conf = cues.role, f"{_q(cues.role)} asks about the present state of affairs", 0.75
        else:
            why = cues.quantity or ""
            reason, conf = f"{_q(why.strip())} asks the present value of a changing quantity", 0.75
        return _Decision("current", None, as_of, (), conf, reason, (why.strip(),))
    if future:
        what = text[future[0].lo: future[0].hi].strip()
        return _Decision("current", None, as_of, (), 0.3 if cues.past else 0.6,
                         f"{_q(what)} lies after as_of, so the latest documents are the best evidence", ())
    return _Decision("none", None, None, (), 0.8, "no time expression or time cue word", ())


def _apart(text: str, masked: str, named_items: list[_Item]) -> bool:
    """The question has sentences, and none holds both a current cue and a named period."""
    sentences = bounds(text)
    if len(sentences) < 2:
        return False
    for lo, hi in sentences:
        cue = CURRENT_CUES.search(masked[lo:hi])
        if cue and any(lo <= it.lo < hi for it in named_items):
            return False
    return True


# --- the entry point -------------------------------------------------------------------------


def parse(question: str, as_of: dt.date) -> TemporalQuery:
    """Read a question's temporal intent and period(s) as seen from `as_of`; never raises on text."""
    if isinstance(as_of, dt.datetime):
        as_of = as_of.date()
    question = question if isinstance(question, str) else str(question)
    text = question[:_MAX_SCAN]
    atoms = _share_years(text, _find_atoms(text, as_of))
    # A period that begins after as_of ("next year", "the 2030 target") holds no documents: it is
    # not filtered on, and on its own makes the question one for the latest documents. A range
    # that begins by as_of is named whole, though it ends after it: "the carbon budget for 2023
    # to 2027" asked in 2025 is 2023 to 2027, not 2023 (retrieval clips it to as_of).
    grouped = _group(text, [a for a in atoms if a.found.kind != FUTURE])
    items = [it for it in grouped if it.parts[0].found.start <= as_of]
    future = sorted([a for a in atoms if a.found.kind == FUTURE] + [
        a for it in grouped if it.parts[0].found.start > as_of for a in it.parts], key=lambda a: a.lo)

    chars = list(text)
    for lo, hi in [(it.lo, it.hi) for it in items] + [(a.lo, a.hi) for a in future]:
        chars[lo:hi] = "§" * (hi - lo)  # a placeholder no cue word can match or straddle
    masked = "".join(chars)
    cues = _cues(text, masked)
    deadlines = [it for it in items if it.how == "until" and DEADLINE.match(text, it.lo)]
    if cues.ahead and deadlines:
        # "How big was the regular Army meant to be by 2017?" asks the state a plan set for its
        # deadline, the period a document's "by 2017" speaks of (`spoken`), not all until then;
        # "How much was the NHS budget expected to rise by 2023-24?" the rise planned for then,
        # not a history
        items = [replace(it, how="in") if it in deadlines else it for it in items]
        cues = replace(cues, trend=[], change=[])
    decision = _decide(text, masked, items, future, cues, as_of)

    ahead = _group(text, future)  # the periods after as_of, joined as the others are
    time_spans = [(it.lo, it.hi) for it in items] + [(a.lo, a.hi) for a in future]
    # "2019 and 2023": the joiner between listed periods goes with them
    joiners = [(a.hi, b.lo) for a, b in zip(items, items[1:]) if a.listed and b.listed]
    cue_spans = [(m.start(), m.end()) for m in STRIPPABLE_CUES.finditer(masked)]
    if decision.intent == "comparison":
        # an imperative "Compare ..." only says what to do with the periods
        cue_spans += [(m.start(), m.end()) for m in COMPARE_VERB.finditer(text)]
    semantic = semantic_query(text, time_spans + joiners, cue_spans)

    confidence = decision.confidence
    if not re.search(r"[^\W\d_]", text):
        confidence = min(confidence, 0.1 if text.strip() else 0.0)  # no words at all: not a question
    elif len(question) > 1000 or len(atoms) >= _MAX_ATOMS:
        confidence = min(confidence, 0.4)
    expressions = tuple(dict.fromkeys(
        [" ".join(text[lo:hi].split()) for lo, hi in time_spans] + list(decision.cues)
    ))
    return TemporalQuery(
        question=question,
        intent=decision.intent,
        start=decision.start,
        end=decision.end,
        periods=decision.periods,
        semantic_query=semantic,
        as_of=as_of,
        confidence=round(confidence, 2),
        expressions=tuple(e for e in expressions if e),
        reason=decision.reason,
        recency_cue=next((e for e in expressions if e and RECENCY_CUES.search(e)), None),
        ongoing=bool(ONGOING.search(question)),
        time=_time(text, masked, items + ahead, decision.intent),
        figure=bool(FIGURE.search(masked)),
        ahead=_ahead(ahead) if decision.intent == "current" else None,
    )


# A period a thing is for ("the budget for 2033 to 2037", "forecast for 2026", "the figures for
# May 2024") is a time that thing speaks of, whatever verb of saying the question uses.
_FOR = LazyPattern(r"(?:^|\s)(?:for|covering|pour|für|para)\s+(?:the\s+)?$")


def _said(text: str, masked: str, items: list[_Item]) -> bool:
    """Does the question ask what was said in its period: a verb of saying with a period that
    is not what the thing said is for, nor when something it is about was done ("say about new
    cars sold in 2008"), or a report or sitting named by its date?"""
    if any(REPORT_NAMED.match(text, it.hi) for it in items):
        return True
    return bool(SAID_CUES.search(masked)) and not all(
        preceded_by(text, it.lo, _FOR, 16) is not None or _done_before(text, it.lo)
        for it in items)


def _done_before(text: str, lo: int) -> bool:
    """Is the period at `lo` the time of a deed other than a saying ("sold in 2008")?"""
    window = text[max(0, lo - 40):lo].lower()
    if lo > 40:
        window = window.partition(" ")[2]  # not from inside a word ("…rted in")
    m = DONE_BEFORE.search(window)
    # a change over the period is the question's own verb: "How has the view of energy
    # evolved since 2012?" asks what was said over it
    return m is not None and not any(p.fullmatch(m.group(1)) for p in (SAID_CUES, CHANGE_CUES)) \
        and not EVOLUTION_CUES.search(m.group(1))


def _ahead(items: list[_Item]) -> Period | None:
    """The first of the periods after as_of the question names outright ("2030", "in 2027",
    "by 2035", "2033 to 2037"; not "next year"), as written: a deadline is its own period."""
    for item in items:
        if item.how in ("in", "range", "between", "until") and _written_out(item):
            return item.parts[0].found.start, item.parts[-1].found.end
    return None


def _written_out(item: _Item) -> bool:
    """Is every expression of the period a named date or range ("2030", "2033 to 2037")?"""
    return all(a.found.kind in (NAMED, RANGE) for a in item.parts)


def _planned(text: str, masked: str, future: list[_Atom], past: bool) -> Period | None:
    """The one named period after as_of a question asks what was set for, if it names one:
    written out, in the past tense ("What budget was set for 2033 to 2037?"), not "next year"
    or "by 2027", and not a question of what was said. In the present tense ("What is the UK's
    emissions target for 2035?", "What is the 2030 target?") it asks the plan as it stands: a
    current question, answered by the latest documents, those that speak of the period first
    among near-equals (`ahead`), so a target raised since is not quoted at its old level."""
    items = _group(text, future)
    if not past or len(items) != 1 or _said(text, masked, items):
        return None
    item = items[0]
    if item.how not in ("in", "range", "between") or not _written_out(item):
        return None
    start, end, _ = item.span(item.parts[0].found.start)
    return start, end


def _time(text: str, masked: str, items: list[_Item], intent: Intent) -> Time:
    """Which time a question's period refers to: when documents were said (a verb of saying, or
    a report or sitting named by its date) or the time they speak of (any other period)."""
    if intent not in ("point_in_time", "comparison", "evolution"):
        return None
    return "said" if _said(text, masked, items) else "about"


# --- the periods a text speaks of ------------------------------------------------------------


@dataclass(frozen=True)
class Named:
    """A period a text names at [lo, hi), read as seen from the day the text was said."""

    lo: int
    hi: int
    start: dt.date | None
    end: dt.date | None
    how: str  # as `_Item.how`: "in", "range", "between", "since", "until", "week_of", ...
    kinds: tuple[str, ...]  # the rules' kinds of its expressions (NAMED, RELATIVE, FUTURE, ...)
    at: int = -1  # where its last expression starts ("June 2023" of "the year ending June 2023")
    last: tuple[dt.date, dt.date] | None = None  # that expression's own period


def read_periods(text: str, as_of: dt.date) -> list[Named]:
    """Every period a short text names, combined as a question's are ("July to September 2014",
    "between August 2023 and August 2024"), by the same rules, with `as_of` the day the text was
    said; no dateparser fallback (it is slow, and a document's dates are written plainly)."""
    atoms = _share_years(text, _find_atoms(text, as_of, fallback=False))
    return [Named(it.lo, it.hi, *it.span(as_of)[:2], it.how, tuple(a.found.kind for a in it.parts),
                  it.parts[-1].lo, (it.parts[-1].found.start, it.parts[-1].found.end))
            for it in _group(text, atoms)]


# --- how hard retrieval holds to the period ---------------------------------------------------

SOFT_PERIOD_DAYS = 14  # "short": a day, a few days, this week, the past fortnight


def soft_edge(tq: TemporalQuery) -> int:
    """Days before `start` that retrieval may also look at (0: hold to the period exactly).

    A short period ending on (or the day before) as_of ("today", "yesterday", "this week", "the
    past 3 days") has soft edges in real use: a story filed the day before, a Sunday article on
    Monday's vote. The margin is half the period, at least two days; nothing moves past as_of.
    """
    if tq.intent != "point_in_time" or tq.start is None or tq.end is None:
        return 0
    length = (tq.end - tq.start).days + 1
    if length > SOFT_PERIOD_DAYS or tq.end < add_days(tq.as_of, -1) or tq.end > tq.as_of:
        return 0
    return max(2, (length + 1) // 2)
