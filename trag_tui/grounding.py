"""The gate every generated sentence passes before a reader sees it.

A cited answer that contradicts its own source is the worst thing this product can do, because
people trust the citation. A small model writes "Bank Rate was 3.5% [1]" over a source whose
3.5 per cent is unemployment, or names a Prime Minister none of its sources mention. So each
sentence the model completes is checked on its own: its numbers (units normalised), dates and
names must all occur in ONE sentence of a source it cites (or, when it cites none, of any
source, which it is then attached to), and that sentence must be about the same thing (it
shares most of the claim's words). A sentence that fails is dropped with its reason; the
stream is cut where the model starts a fake source list, a new question, or a repetition loop.
The checks are plain functions of text, so they hold for any model, however strong.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from .temporal.calendar import iso_day, month_span, shift, unit_span
from .temporal.lexicon import TEENS, TENS, UNITS_1_9
from .text.labels import MONTHS, day_label, period_label
from .text.sentences import quotable, split
from .text.words import STOPWORDS, stem, tokens

# -- numbers --------------------------------------------------------------------------------

_SCALE = {"thousand": 10**3, "k": 10**3, "million": 10**6, "mn": 10**6, "m": 10**6,
          "billion": 10**9, "bn": 10**9, "trillion": 10**12, "tn": 10**12}
# A digit inside a name is no figure ("4moms", "COVID-19", "F-35"); a short unit or an
# ordinal's ending after it still leaves one ("-23C", "5km", "3rd").
_NUMBER = re.compile(
    r"(?<![\w.])(?<![^\W\d_]-)(?P<cur>[£$€])?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|mn|bn|tn|k|m)\b)?"
    r"(?:\s?(?P<unit>%|per\s?cent\b|percent\b|percentage[\s-]points?\b|points?\b|pp\b"
    r"|basis\s+points?\b|bps\b))?"
    r"(?!\d|[^\W\d_]{4})",
    re.I)
_CURRENCY_AFTER = re.compile(r"\s*(?:dollars?|pounds?|euros?|cents?|pence|yen|yuan|rupees?)\b",
                             re.I)
_FROM = re.compile(r"\b(?:from|previously|compared with|against)\s*\W?\s*$", re.I)
_UNIT = {"%": "%", "per cent": "%", "percent": "%", "percentage point": "pt",
         "percentage points": "pt", "point": "pt", "points": "pt", "pp": "pt",
         "basis point": "bp", "basis points": "bp", "bps": "bp"}


@dataclass(frozen=True)
class Quantity:
    """A number as a claim states it: the value (scale applied) and its unit (% / pt / bp / '')."""

    value: Decimal
    unit: str
    earlier: bool = False  # introduced by "from" ("up from 4.8 per cent"): a previous value
    money: bool = field(default=False, compare=False)  # "$22", "£7m", "500 euros"

    def __str__(self) -> str:
        return format(self.value, "f") + self.unit

    def matches(self, other: Quantity) -> bool:
        """Same value, and the same unit unless this one states none."""
        return (self.value == other.value and (not self.unit or self.unit == other.unit)
                and self.earlier == other.earlier)


_UNITS = {word: n for n, word in enumerate(UNITS_1_9, 1)}
_SMALL = dict(zip((*UNITS_1_9[1:], *TEENS), range(2, 20)))
_CARDINAL = (rf"(?:{'|'.join(TENS)})(?:[- ](?:{'|'.join(_UNITS)}))?|{'|'.join(_SMALL)}")
# A number written as words: "six months", "twenty-five", "two hundred", "one million". "One"
# alone is left as a word ("one of the few"), and so is a fraction ("two-thirds"). Lower case,
# or capitalised where a sentence starts: "Big Ten" and "Seven Network" are names.
_WORD_FIGURE = re.compile(
    r"(?:(?<![\w-])(?=[a-z])|(?:^|(?<=[.!?:;\"“(] )|(?<=[\"“(]))(?=[A-Z]))"
    rf"(?P<n>(?i:{_CARDINAL}|one(?=\s+(?:hundred|thousand|million|billion|trillion)\b)))"
    r"(?P<h>\s+hundred)?"
    r"(?!\w|-(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|thirds|quarters?"
    r"|halves|fifths|sixths|sevenths|eighths|ninths|tenths)\b)",
    re.M)


def _figure(m: re.Match) -> str:
    words = m["n"].lower().replace("-", " ").split()
    value = TENS.get(words[0]) or _SMALL.get(words[0]) or 1
    if len(words) > 1:
        value += _UNITS[words[1]]
    return str(value * (100 if m["h"] else 1))


def in_figures(text: str) -> str:
    """A text with its numbers written as words put in figures, so "six months" states 6 as
    "6 months" does: the same claim whichever way a source or a model writes it."""
    return _WORD_FIGURE.sub(_figure, text)


def quantities(text: str) -> list[Quantity]:
    """Every number in a text with its unit; years and parts of dates are left to `dates`."""
    out = []
    text = _DATE_SPANS.sub(lambda m: " " * len(m.group(0)), in_figures(text))
    for m in _NUMBER.finditer(text):
        raw = m.group("num").replace(",", "")
        try:
            value = Decimal(raw)
        except InvalidOperation:
            continue
        scale = (m.group("scale") or "").lower()
        unit = re.sub(r"[\s-]+", " ", (m.group("unit") or "").lower())
        if not scale and not unit and not m.group("cur") and "." not in raw and \
                1800 <= value <= 2100:
            continue  # a year: read as a date
        if scale:
            value *= _SCALE[scale]
        earlier = _FROM.search(text[max(0, m.start() - 24):m.start()]) is not None
        money = bool(m.group("cur")) or _CURRENCY_AFTER.match(text, m.end()) is not None
        out.append(Quantity(value.normalize(), _UNIT.get(unit, unit), earlier, money))
    return out


# -- dates ----------------------------------------------------------------------------------

_MONTH_WORDS = "|".join(f"{m[:3]}(?:{m[3:]})?" for m in MONTHS)
_ISO = r"(?P<iy>\d{4})-(?P<im>\d{2})-(?P<id>\d{2})"
_DMY = rf"(?P<dd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<dm>{_MONTH_WORDS})\.?(?:,?\s+(?P<dy>\d{{4}}))?"
_MDY = rf"(?P<mm>{_MONTH_WORDS})\.?\s+(?P<md>\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(?P<my>\d{{4}}))?(?!\d)"
_MY = rf"(?P<ym>{_MONTH_WORDS})\.?(?:\s+(?:of\s+)?(?P<yy>\d{{4}}))?"
_YEAR = r"(?P<year>(?:18|19|20)\d{2})(?!\d)"
_DATE = re.compile(rf"\b(?:{_ISO}|{_DMY}|{_MDY}|{_MY}|{_YEAR})\b", re.I)
_DATE_SPANS = re.compile(rf"\b(?:{_ISO}|{_DMY}|{_MDY}|(?P<ym2>{_MONTH_WORDS})\.?\s+\d{{4}})\b", re.I)

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


# -- names ----------------------------------------------------------------------------------

_NAME = re.compile(r"\b[A-Z][\w'’-]*[\w]")
# Capitalised words that carry no claim of their own: sentence openers and answer framing.
_FRAMING = frozenset("""
according additionally also answer answers although however therefore overall yes no the a an
in on at of for to from by with as it its this that these those there their they he she his her
we our you your i source sources question today yesterday while when where who what which why
how since after before during under between both each some many most more less first then thus
so but and or if not nor based
""".split())
_MONTH_NAMES = frozenset(m.lower() for m in MONTHS) | frozenset(m[:3].lower() for m in MONTHS)


def names(text: str) -> list[str]:
    """Capitalised words a claim rests on (people, places, bodies), stemmed, framing left out."""
    out = []
    for m in _NAME.finditer(text):
        word = m.group(0).lower()
        if word in _FRAMING or word in _MONTH_NAMES:
            continue
        out.append(stem(word))
    return out


_ATOM = re.compile(r"[^\W_]+", re.UNICODE)


def atoms(text: str) -> list[str]:
    """A text as the ordered things a claim asserts: meaningful words (stemmed) and numbers.

    Numbers become `#value+unit`, so "3 per cent" and "3%" are one atom; dates are left out
    (they are checked on their own, against the sentence and the day it was said).
    """
    blanked = _DATE_SPANS.sub(lambda m: " " * len(m.group(0)), in_figures(text))
    spans = []
    for m in _NUMBER.finditer(blanked):
        q = quantities(m.group(0))
        if q:
            spans.append((m.start(), m.end(), f"#{q[0].value}{q[0].unit}"))
    for m in _ATOM.finditer(blanked):
        if any(a <= m.start() < b for a, b, _ in spans):
            continue
        word = m.group(0)
        if len(word) > 2 and word.lower() not in STOPWORDS and not word.isdigit():
            spans.append((m.start(), m.end(), stem(word)))
    return [atom for _, _, atom in sorted(spans)]


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence (the claim's atoms in the source's order)."""
    if not a or not b:
        return 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|without)\b|n't\b", re.I)

# -- sources as sentences -------------------------------------------------------------------


@dataclass(frozen=True)
class SourceSentence:
    """One sentence of a numbered source, with what the checks compare."""

    number: int
    text: str
    words: frozenset[str]  # stemmed words of the sentence and of the source's heading
    quantities: tuple[Quantity, ...]
    dates: tuple[DatePart, ...]
    atoms: tuple[str, ...] = ()  # the sentence's atoms, in order
    heading: frozenset[str] = frozenset()  # atoms of the source's speaker, office and title


@dataclass(frozen=True)
class SourceFacts:
    """What the gate needs of one source: its number, date and heading words."""

    number: int
    date: str | None
    heading: str  # speaker, role and title: names a claim may take from them
    passage: str


def index_sources(sources: Sequence[SourceFacts]) -> list[SourceSentence]:
    """Every sentence of every source, ready for the checks."""
    out = []
    for s in sources:
        meta_date = iso_day(s.date)
        head_words = set(tokens(s.heading))
        head_atoms = frozenset(atoms(s.heading))
        for sentence in quotable(s.passage):
            found = dates(sentence)
            if meta_date is not None:
                # "on 3 November" in a report dated 2022-11-16 means 3 November 2022
                found = [(d[0] if d[0] is not None else meta_date.year, d[1], d[2]) for d in found]
                found.append((meta_date.year, meta_date.month, meta_date.day))
            out.append(SourceSentence(
                s.number, sentence, frozenset(set(tokens(sentence)) | head_words),
                tuple(quantities(sentence)), tuple(found), tuple(atoms(sentence)), head_atoms))
    return out


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
    from .temporal.question import parse

    q = parse(sentence, day)
    if q.intent != "point_in_time" or q.start is None or q.end is None or not q.expressions \
            or q.end > day or not _LOOKS_BACK.fullmatch(q.expressions[0].strip(" .,!?")):
        return planned
    return Reported(q.expressions[0].strip(" .,!?"), q.start, q.end)


# -- the check ------------------------------------------------------------------------------

MIN_COVERAGE = 0.75  # what the supporting sentence must state of the claim, in its order
MIN_STATED = 0.8  # of the claim's atoms, the share the sentence (or its heading) must hold
MIN_ATOMS = 2  # a claim of fewer meaningful words states nothing to check


@dataclass(frozen=True)
class Verdict:
    """Whether a claim stands, on which source sentence, and if not, why not."""

    supported: bool
    reason: str = ""
    source: int | None = None
    support: str = ""
    coverage: float = 0.0


_SAYING = frozenset(stem(w) for w in """
said says say told tells argued argues stated states announced announces asked asks warned
warns claimed claims added explained explains confirmed confirms promised promises described
called calls urged urges according spoke speaking reported reports insisted insists
""".split())


def ordered_coverage(claim_atoms: Sequence[str], s: SourceSentence,
                     attributed: bool = False) -> float:
    """How much of a claim a source sentence states, in the claim's order (0 to 1).

    Every atom must be stated (in the sentence, or in the source's heading: its speaker,
    office, title) but for at most a fifth, and the stated ones must mostly come in the
    claim's order. Order is what tells "The Prime Minister is David Cameron" from "David
    Cameron: will the Prime Minister…"; a missing word tells "the rate today is 4.8%" from
    "the rate rose to 5.0%, up from 4.8%".
    """
    if not claim_atoms:
        return 0.0
    in_sentence = [a for a in claim_atoms if a in s.atoms]
    # The speaker's name backs "Keir Starmer said …", not "The Prime Minister is Keir Starmer".
    heading = s.heading if attributed else frozenset()
    heading_only = sum(1 for a in claim_atoms if a not in s.atoms and a in heading)
    stated = len(in_sentence) + heading_only
    if stated == 0 or stated < MIN_STATED * len(claim_atoms):
        return stated / len(claim_atoms) * 0.5
    order = (_lcs(in_sentence, s.atoms) + heading_only) / stated
    return stated / len(claim_atoms) * order


def check(claim: str, candidates: Sequence[SourceSentence]) -> Verdict:
    """Does one sentence of `candidates` state everything `claim` states? The best one if so."""
    nums = quantities(claim)
    when = dates(claim)
    people = names(claim)
    claim_atoms = atoms(claim)
    attributed = any(w in _SAYING for w in tokens(claim))
    if sum(1 for a in claim_atoms if not a.startswith("#")) < MIN_ATOMS:
        return Verdict(False, "states nothing the sources can confirm")
    negated = bool(_NEGATION.search(claim))
    best: Verdict | None = None
    closest = ""
    for s in candidates:
        missing_num = [q for q in nums if not any(q.matches(o) for o in s.quantities)]
        missing_date = [d for d in when if not date_matches(d, s.dates)]
        missing_name = [n for n in people if n not in s.words]
        coverage = ordered_coverage(claim_atoms, s, attributed)
        if missing_num or missing_date or missing_name:
            if coverage >= 0.5 and not closest:
                parts = [str(q) for q in missing_num[:2]]
                parts += ["-".join(str(x) for x in d if x is not None) for d in missing_date[:2]]
                parts += missing_name[:2]
                closest = f"[{s.number}] does not state {', '.join(parts)}"
            continue
        if coverage < MIN_COVERAGE:
            if coverage >= 0.5 and not closest:
                closest = f"[{s.number}] does not state it in those terms ({coverage:.0%} of it)"
            continue
        if negated and not _NEGATION.search(s.text):
            closest = closest or f"[{s.number}] does not state the negation"
            continue
        if best is None or coverage > best.coverage:
            best = Verdict(True, "", s.number, s.text, coverage)
    if best is not None:
        return best
    if closest:
        return Verdict(False, closest)
    detail = []
    if nums:
        detail.append("its numbers")
    if people:
        detail.append("its names")
    if when:
        detail.append("its dates")
    what = " and ".join(detail) if detail else "what it says"
    return Verdict(False, f"no source sentence states {what}")


# -- streamed model output ------------------------------------------------------------------

_CITE = re.compile(r"\s*\[(\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*)\]")
# A heading copied from the prompt ("[1] 19 November 2025 | Keir Starmer | ...", with or
# without the number, ISO or spelled-out date), a source list, or the next turn of a chat.
_FAKE_LISTING = re.compile(
    r"(?im)(?:^|(?<=[.!?\]])\s)\s*(?:[-*]\s*)?(?:\[\d{1,3}\]\s*)?[.:)]?\s*"
    rf"(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}\s+(?:{_MONTH_WORDS})\s+\d{{4}}|undated)\s*\|"
    r"|^\s*(?:sources?|references?|evidence)\s*:|\b(?:question|user|assistant)\s*:"
    r"|(?:^|(?<=[.!?\]])\s)[^\n|.!?]*\s\|\s[^\n|]*\s\|\s")  # "2011 | Ed Miliband | House of …"
_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_SENTENCE_WORDS = 80


def cut_point(text: str) -> int | None:
    """Where model output stops being an answer: a fake source list, a new question, a loop."""
    cut = None
    m = _FAKE_LISTING.search(text)
    if m:
        cut = m.start()
    seen: dict[tuple[str, ...], int] = {}
    words = [(w.group(0).lower(), w.start()) for w in _TOKEN.finditer(text)]
    for i in range(len(words) - 3):
        gram = tuple(w for w, _ in words[i:i + 4])
        seen[gram] = seen.get(gram, 0) + 1
        if seen[gram] == 3:  # the same four words a third time: a repetition loop
            start = words[i][1]
            cut = start if cut is None else min(cut, start)
            break
    return cut


def citations(sentence: str) -> tuple[str, list[int]]:
    """A sentence without its `[n]` markers, and the numbers it cited, in order."""
    cited: list[int] = []
    for m in _CITE.finditer(sentence):
        for n in re.findall(r"\d+", m.group(1)):
            if int(n) not in cited:
                cited.append(int(n))
    body = _CITE.sub("", sentence)
    body = re.sub(r"\s+([.,;:!?])", r"\1", body).strip()
    return body, cited


@dataclass(frozen=True)
class Dropped:
    """A generated sentence not shown, and why."""

    sentence: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        """JSON-ready form."""
        return {"sentence": self.sentence, "reason": self.reason}


@dataclass(frozen=True)
class Claim:
    """A generated sentence that passed, as shown: text, its source and the date it reports."""

    text: str
    source: int
    date: str | None
    support: str

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"text": self.text, "source": self.source, "date": self.date,
                "support": self.support}


# What a small model puts before its sentence: "The answer is:", "Response:", or a period label
# copied from the prompt ("2022:", "Newer sources:"). It says nothing; the sentence after it is
# what is checked and shown.
_LEAD_IN = re.compile(r"^\s*(?:(?:the\s+)?(?:answer|response|reply)(?:\s+is)?\s*:\s*"
                      r"|(?:\d{4}|older sources|newer sources|middle sources)\s*:\s*)+", re.I)


# A question that asks for something (not "True or false: …", not "Did…?"): a claim must add
# to it.
_OPEN_QUESTION = re.compile(r"(?is)^(?!\W*true or false).*\b(?:who|whom|whose|what|which|when|"
                            r"where|why|how)\b")


@dataclass
class Gate:
    """Checks model output sentence by sentence as it streams.

    `feed` takes the next piece of output and returns the claims that completed and passed;
    `done` is set once the output stopped being an answer (the caller stops the model), and
    `finish` checks the last sentence. Dropped sentences and invalid citations are recorded.
    """

    sources: Sequence[SourceFacts]
    date_tags: bool = True
    # For a question that wants a person, a figure or a date: does a sentence give one? A
    # supported sentence that does not ("As Prime Minister I have said…" for "Who is the Prime
    # Minister?") is true but no answer, and the quoted answer serves the reader better.
    answers: Callable[[str], bool] | None = None
    wanted: str = ""
    # ...and is it the one the quoted answer gives? (see `extractive.agrees`)
    agrees: Callable[[str], bool] | None = None
    # For an open question ("Which blockbuster movie…?"), the sources the quoted answer comes
    # from: a sentence the model takes from another ("Olivia Newton-John: a life in pictures")
    # is true but, on news quizzes, less often the answer than the ranking's best source.
    quoted_from: frozenset[int] = frozenset()
    # The question, when it asks who, what, which…: a sentence that says only what the
    # question already says ("The strawberry supermoon illuminated the skies this week" for
    # "…Where does the 'strawberry' moniker come from?") is true but answers nothing.
    question: str = ""
    claims: list[Claim] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    invalid_citations: list[int] = field(default_factory=list)
    done: bool = False

    def __post_init__(self) -> None:
        self._sentences = index_sources(self.sources)
        self._dates = {s.number: s.date for s in self.sources}
        self._buffer = ""
        self._released = 0  # sentences of the buffer already judged
        self._seen: set[str] = set()
        self._asked = set(atoms(self.question)) if _OPEN_QUESTION.match(self.question) else None
        self._asked_dates = dates(self.question)
        self._said: list[set[str]] = []  # the atoms of each claim shown so far

    def feed(self, piece: str) -> list[Claim]:
        """The next piece of model output; the claims it completed that passed the checks."""
        if self.done:
            return []
        self._buffer += piece
        cut = cut_point(self._buffer)
        if cut is not None:
            self._buffer = self._buffer[:cut]
            self.done = True
        parts = split(self._buffer)
        ready = parts if self.done else parts[:-1]
        return self._judge(ready)

    def finish(self) -> list[Claim]:
        """The end of output: judge what is left."""
        if self.done and self._released >= len(split(self._buffer)):
            return []
        self.done = True
        return self._judge(split(self._buffer))

    def _judge(self, parts: list[str]) -> list[Claim]:
        out = []
        for sentence in parts[self._released:]:
            claim = self._one(sentence)
            if claim is not None:
                out.append(claim)
        self._released = max(self._released, len(parts))
        return out

    def _one(self, sentence: str) -> Claim | None:
        body, cited = citations(sentence)
        bare = _LEAD_IN.sub("", body)
        if bare != body:  # "The answer is: the Bank…" → "The Bank…"; "iPhone sales…" stays
            body = bare[:1].upper() + bare[1:]
        if not body or not _TOKEN.search(body):
            return None
        valid = [n for n in cited if n in self._dates]
        for n in cited:
            if n not in self._dates and n not in self.invalid_citations:
                self.invalid_citations.append(n)
        key = " ".join(body.lower().split())
        if key in self._seen:
            self.dropped.append(Dropped(body, "repeats an earlier sentence"))
            return None
        self._seen.add(key)
        if len(body.split()) > MAX_SENTENCE_WORDS:
            self.dropped.append(Dropped(body, "runs on past any sentence a source states"))
            return None
        pool = [s for s in self._sentences if s.number in valid] if valid else self._sentences
        verdict = check(body, pool)
        if not verdict.supported and valid:
            # A right fact under a wrong number: keep it only under the source that states it.
            other = check(body, [s for s in self._sentences if s.number not in valid])
            if other.supported:
                verdict = other
        if not verdict.supported:
            reason = verdict.reason
            if valid:
                reason += f" (cited {', '.join(f'[{n}]' for n in valid)})"
            self.dropped.append(Dropped(body, reason))
            return None
        if self.quoted_from and verdict.source not in self.quoted_from:
            # the same fact may be stated by the quoted source too: it is shown under that one
            verdict = check(body, [s for s in self._sentences if s.number in self.quoted_from])
            if not verdict.supported:
                self.dropped.append(Dropped(body, "supported, but by another source than the "
                                                  "best-matching ones"))
                return None
        said = set(atoms(body))
        if self._asked is not None and said <= self._asked \
                and all(date_matches(d, self._asked_dates) for d in dates(body)):
            self.dropped.append(Dropped(body, "supported, but only says what the question says"))
            return None
        if any(said <= before for before in self._said):
            self.dropped.append(Dropped(body, "repeats an earlier sentence"))
            return None
        if self.answers is not None and not self.answers(body):
            self.dropped.append(Dropped(body, f"supported, but gives no {self.wanted or 'answer'} "
                                              "the question asks for"))
            return None
        if self.agrees is not None and not self.agrees(body):
            self.dropped.append(Dropped(body, f"supported, but gives another {self.wanted or 'answer'} "
                                              "than the best-matching source sentence"))
            return None
        assert verdict.source is not None  # a supported verdict names its source
        claim = Claim(self._render(body, verdict.source, verdict.support), verdict.source,
                      self._dates.get(verdict.source), verdict.support)
        self.claims.append(claim)
        self._said.append(said)
        return claim

    def _render(self, body: str, number: int, support: str) -> str:
        end = body[-1] if body[-1] in ".!?" else "."
        core = body.rstrip(".!? ")
        text = f"{core} [{number}]"
        said = self._dates.get(number)
        day = iso_day(said)
        if self.date_tags and said and day is not None:
            # The date of what the claim reports: the one its source sentence names, if any.
            reported = reported_when(support, said)
            label = reported.label if reported else day_label(day)
            if label not in core and said not in core:
                text += f" ({label})"
        return text + end


def source_facts(sources: Iterable) -> list[SourceFacts]:
    """The gate's view of numbered sources (anything with number, date, passage and heading)."""
    out = []
    for s in sources:
        heading = " ".join(x for x in (getattr(s, "speaker", ""), getattr(s, "role", ""),
                                       getattr(s, "title", "")) if x)
        out.append(SourceFacts(s.number, s.date, heading, s.passage))
    return out
