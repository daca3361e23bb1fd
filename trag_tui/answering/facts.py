"""The facts a sentence states: its figures, its names, the people and offices it names.

The quoted answer and the gate must agree on what a sentence says, whoever wrote it: "3 per
cent" and "3%" are one figure, "six months" states 6 as "6 months" does, "Prime Minister Boris
Johnson" names Boris Johnson, and "the Chancellor, … (Nadhim Zahawi)" gives the office its
holder. Dates are read by `temporal.mentions`, beside the question reader. English only: the
words are `lexicon_en`'s.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import TYPE_CHECKING

from ..facets import initials, name_parts
from ..temporal.calendar import iso_day
from ..temporal.lexicon import TENS
from ..temporal.mentions import DATE_SPANS, Reported, reported_when
from ..text.labels import day_label
from ..text.words import STOPWORDS, content_words, stem
from . import lexicon_en as en

if TYPE_CHECKING:
    from .sources import Source

# -- figures ---------------------------------------------------------------------------------


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


def _figure(m: re.Match) -> str:
    words = m["n"].lower().replace("-", " ").split()
    value = TENS.get(words[0]) or en.NUMBER_SMALL.get(words[0]) or 1
    if len(words) > 1:
        value += en.NUMBER_UNITS[words[1]]
    return str(value * (100 if m["h"] else 1))


def in_figures(text: str) -> str:
    """A text with its numbers written as words put in figures, so "six months" states 6 as
    "6 months" does: the same claim whichever way a source or a model writes it."""
    return en.WORD_FIGURE.sub(_figure, text)


def _dateless(text: str) -> str:
    """A text in figures with its dates blanked out, each character kept in its place: what
    its figures are read from, dates being checked on their own."""
    return DATE_SPANS.sub(lambda m: " " * len(m.group(0)), in_figures(text))


def quantities(text: str) -> list[Quantity]:
    """Every number in a text with its unit; years and parts of dates are left to `dates`."""
    out = []
    text = _dateless(text)
    for m in en.FIGURE.finditer(text):
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
            value *= en.SCALE[scale]
        earlier = en.EARLIER_VALUE.search(text[max(0, m.start() - 24):m.start()]) is not None
        money = bool(m.group("cur")) or en.CURRENCY_AFTER.match(text, m.end()) is not None
        out.append(Quantity(value.normalize(), en.UNIT_NAMES.get(unit, unit), earlier, money))
    return out


_CLAUSE_OPENS = re.compile(r".*[:;(—–]")
_CLAUSE_ENDS = re.compile(r"[,.:;)—–].*", re.S)


def figure_words(text: str, reach: int = 40) -> list[str]:
    """The words on either side of each figure a text states, at most `reach` characters each
    way, not back past a colon, a semicolon, a dash or a bracket, nor on past the clause's end:
    what the figure is a figure of ("regular pay, excluding bonuses, slowed to" 4.6 per cent;
    "the backlog of" 118,000; $5 "That's how much a gallon of regular gas now costs"), and not
    what the next clause speaks of (3.8 per cent ", real regular pay is still growing")."""
    text = _dateless(text)
    return [_CLAUSE_OPENS.sub("", text[max(0, m.start() - reach):m.start()]) + " … "
            + _CLAUSE_ENDS.sub("", text[m.end():m.end() + reach])
            for m in en.FIGURE.finditer(text)]


# -- names -----------------------------------------------------------------------------------

_NAME = re.compile(r"\b[A-Z][\w'’-]*[\w]")


def names(text: str) -> list[str]:
    """Capitalised words a claim rests on (people, places, bodies), stemmed, framing left out."""
    out = []
    for m in _NAME.finditer(text):
        word = m.group(0).lower()
        if word in en.FRAMING or word in en.MONTH_NAMES:
            continue
        out.append(stem(word))
    return out


_ATOM = re.compile(r"[^\W_]+", re.UNICODE)


def atoms(text: str) -> list[str]:
    """A text as the ordered things a claim asserts: meaningful words (stemmed) and numbers.

    Numbers become `#value+unit`, so "3 per cent" and "3%" are one atom; dates are left out
    (they are checked on their own, against the sentence and the day it was said).
    """
    blanked = _dateless(text)
    spans = []
    for m in en.FIGURE.finditer(blanked):
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


# -- people and offices ----------------------------------------------------------------------

_PAREN_NAME = re.compile(r"\(([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){1,3})\)")


def person_names(sentence: str) -> list[str]:
    """Names of people a sentence gives: "(Nadhim Zahawi)", or two to four capitalised words
    that are not an office or a body ("Rachel Reeves", not "Prime Minister"), after any title
    ("Prime Minister Boris Johnson" gives "Boris Johnson")."""
    found = [m.group(1) for m in _PAREN_NAME.finditer(sentence)]
    for m in re.finditer(r"\b[A-Z][a-z][\w'’-]*(?:\s+[A-Z][a-z][\w'’-]*)+", sentence):
        words = m.group(0).split()
        if m.start() == 0 and words[0].lower() in STOPWORDS:
            words = words[1:]  # "The Minister", "This Government": capitalised only when first
            if not words or words[0].lower() not in en.TITLES:
                continue
        # The name is the run's end after a title ("Associate Justice Stephen Breyer", "Senate
        # Majority Leader Chuck Schumer"), or the whole run when no office or body is in it.
        before = sentence[max(0, m.start() - 160):m.start()].rstrip()
        title = en.OFFICE_BEFORE.search(before) if en.ENDS_JOINED.search(before) else None
        if title is not None and en.TITLE_GOES_ON.search(title.group(1)):
            continue  # "Secretary of State for Energy Security and Net Zero": the office's words
        bare = [re.sub(r"['’]s?$", "", w.lower()) for w in words]  # "Court's" is "court"
        last = max((i for i, w in enumerate(bare) if w in en.NOT_NAMES), default=-1)
        if last >= 0 and words[last].lower() not in en.TITLES:
            continue  # "The Star-Spangled Banner", "Bank of England"
        name = words[last + 1:]
        if len(name) == 1 and last >= 0 and bare[last] in en.PEERAGE:
            name = words[last:]  # "Lord Cameron": a peer is named by title and one name
        if name:  # "Jacob Zuma's resignation" names Jacob Zuma
            name = [*name[:-1], re.sub(r"['’]s$", "", name[-1])]
        if 2 <= len(name) <= 4:
            found.append(" ".join(name))
        elif len(name) > 4:
            found.append(" ".join(name[:3]))
    return found


@lru_cache(maxsize=64)
def words_of(text: str) -> frozenset[str]:
    """A question's words, read once for all the sentences checked against it."""
    return frozenset(re.findall(r"[\w'’-]+", text))


def new_names(text: str, question: str) -> list[str]:
    """The people a text names that the question does not name already: "Prince Charles" is
    named by "King Charles III", "Prince William" is not."""
    asked = question.lower()
    said = words_of(asked)
    return [n for n in person_names(text) if n.lower() not in asked
            and not {w for w in n.lower().split() if w not in en.STYLES} <= said]


def speaker_names(source: Source) -> list[str]:
    """What a question may call the source's speaker by: the surname, and a body's initials
    as the index reads them ("the ONS" for the Office for National Statistics)."""
    speaker = source.speaker or ""
    parts = [w for w in re.findall(r"[A-Z][\w'’-]+", speaker) if w.lower() not in en.NOT_NAMES]
    short = initials(name_parts(speaker)[0]) if speaker.strip() else None  # without "(summary)"
    return parts[-1:] + ([short] if short else [])


def names_speaker(question: str, source: Source) -> bool:
    """Does the question name the source's speaker (by `speaker_names`)?"""
    return any(re.search(r"\b" + re.escape(name) + r"\b", question) is not None
               for name in speaker_names(source))


def speaker_answers(question: str, source: Source, sentence: str = "") -> bool:
    """Is the source's speaker, saying `sentence`, the answer to a question of who said, asked
    or answered something: a person (not an outlet or a bank) the question does not name, and,
    unless who asked is asked, not asking themselves? "Which minister answered Lord Chidgey's
    question…?" is answered by Baroness Kinnock's reply, whose words name no one, not by
    another peer's supplementary question."""
    m = en.SPEAKER_ASKED.search(question)
    return m is not None and bool(person_names(source.speaker or "")) \
        and not names_speaker(question, source) \
        and (m.group("verb").lower() == "asked" or not en.ASKS.search(sentence))


def role_match(question_words: AbstractSet[str], role: str) -> bool:
    """Is `role` (a speaker's role, an office a sentence names) the office the question asks
    about?"""
    words = content_words(role)
    if (words & en.OTHER_OFFICE) - question_words:
        return False
    if bool(words) and words <= question_words | {"the"} or bool(words & question_words) \
            and len(words & question_words) >= max(1, len(words) - 1):
        return True
    return bool(words & en.OFFICE_STEMS & question_words) and bool((words - en.FORMAL) & question_words)


@lru_cache(maxsize=64)
def office_words(question: str) -> frozenset[str]:
    """The question's words that may name the office it asks about: not the noun a "which"
    or "what" question opens with, which names the kind of answer ("Which minister was Health
    Secretary in November 2013?" is not asked of a Prime Minister). Read once per question:
    the quote asks it of every candidate sentence."""
    kinds = {m.group(1) for m in en.KIND_NOUN.finditer(question)}
    return frozenset(content_words(question) - content_words(" ".join(kinds)))


def office_asked(question: str) -> bool:
    """Does the question ask who holds an office: does a word of being or holding come before
    the first office it names, other than the noun naming the answer's kind? "Which minister
    was Health Secretary in November 2013?" does; "Whom did the President nominate to the
    Supreme Court?", "Which minister replied to the debate?" and "Who chaired the Leader's
    Group?" ask for someone else, whom no office's holder answers."""
    for m in en.OFFICE_NOUN.finditer(question):
        if not en.KIND_BEFORE.search(question[:m.start()]):
            return en.HOLDING.search(question[:m.start()]) is not None
    return False


def speaks_as_asked(question_words: AbstractSet[str], source: Source) -> bool:
    """Is the source a speech by someone in the office the question asks about?"""
    return bool(source.speaker) and role_match(question_words, source.role or "")


def office_holder(text: str, question: str, role: str = "") -> tuple[str, str] | None:
    """The person a text names as holding the office the question asks about, with the
    office as the text words it: ("Nadhim Zahawi", "Chancellor") from "The Chancellor, my right
    hon. Friend the Member for Stratford-on-Avon (Nadhim Zahawi), has said…". A name the
    question gives already is not an answer to it. An office the text leaves unqualified is
    of the department of whoever says it (`role`, the speaker's office): "the Secretary of
    State, my right hon. Friend the Member for Doncaster North (Ed Miliband)" in an answer by
    the "Minister of State, Department for Energy Security and Net Zero" is the Energy
    Secretary."""
    question_words = office_words(question)
    for name in new_names(text, question):
        at = text.find(name)
        before = en.TO_HOLDER.sub("", text[max(0, at - 160):at])
        m = en.OFFICE_BEFORE.search(before) or en.OFFICE_AFTER.match(text[at + len(name):])
        if m is None:
            continue
        office = en.OPENING_DETERMINER.sub("", m.group(1)).rstrip(", ")
        readings = [office]
        if role and content_words(office) <= en.FORMAL:
            readings.append(f"{office} {' '.join(content_words(role) - en.FORMAL)}")
        if any(role_match(question_words, read) and not _qualified_otherwise(question, read)
               for read in readings):
            return name, office
    return None


def _qualified_otherwise(question: str, office: str) -> bool:
    """Does the question qualify the office's noun with a word the text's office lacks? "The
    Home Secretary, … (James Cleverly)" and "The Secretary of State, … (Claire Coutinho)" do
    not name the Foreign Secretary asked about; "the Secretary of State for Foreign,
    Commonwealth and Development Affairs" does."""
    asked = {m.group(1).lower() for m in en.QUALIFIED.finditer(question) if content_words(m.group(1))}
    return bool(asked) and not asked & words_of(office.lower())


def surname(name: str) -> str:
    """What one holder is known by: "Lord Cameron" and "David Cameron" are one holder."""
    return name.split()[-1].lower()


# -- when ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dated:
    """A source sentence's two times: the day its source was published, and the time it
    speaks of, when it names one ("in the 12 months to May 2024", "yesterday")."""

    said: dt.date
    spoken: Reported | None

    @property
    def elsewhen(self) -> bool:
        """Does it speak of another time than the day it was published?"""
        return self.spoken is not None and not self.spoken.start <= self.said <= self.spoken.end

    def published(self, period: tuple[dt.date, dt.date] | None = None) -> str:
        """The publication day as the reader is told it: "published 19 June 2024" beside a
        time it speaks of, or outside the `period` a question asks about; the bare day
        otherwise."""
        outside = period is not None and not period[0] <= self.said <= period[1]
        return f"published {day_label(self.said)}" if self.elsewhen or outside \
            else day_label(self.said)


def dated(sentence: str, published: str | None) -> Dated | None:
    """The two times of a sentence said on `published` (None when that day is unknown)."""
    said = iso_day(published)
    if said is None:
        return None
    return Dated(said, reported_when(sentence, published))
