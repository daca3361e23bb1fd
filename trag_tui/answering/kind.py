"""What a question asks for, and whether a sentence gives it.

"Who" wants a person (for a speech, the speaker in the office asked about counts), "when" a
date, "how much" or "what rate" a figure stated as a level, "where" a place. The ranking
leans to sentences that give it, the quote looks for one that does, and the gate drops a
generated sentence that is true but gives none, or another one than the quote. A news quiz
sets the scene before it asks, so the kind is read from the asking sentence. English only.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from functools import lru_cache

from ..temporal.cues import FIGURE
from ..temporal.mentions import date_matches, dates, reported_when
from ..text.sentences import split
from ..text.words import STOPWORDS, content_words
from . import lexicon_en as en
from .facts import (
    Quantity,
    in_figures,
    names,
    new_names,
    quantities,
    surname,
    words_of,
)


@lru_cache(maxsize=64)
def _given(question: str) -> tuple[Quantity, ...]:
    """The figures a question gives, read once for all the sentences scored against it."""
    return tuple(quantities(question))


@lru_cache(maxsize=64)
def _counts_things(question: str) -> bool:
    """Does a how-many question count something other than time ("how many Russians")?"""
    what = counted(question)
    return bool(what) and not what & content_words(en.TIME_UNITS)


@lru_cache(maxsize=64)
def money_asked(question: str) -> bool:
    """Does a how-much question ask for a sum of money, or a question name one as what it asks
    ("Which salary threshold…", "What was the cost of…")?"""
    return bool((en.HOW_MUCH.search(question) and en.MONEY.search(question)
                 or en.PRICE_ASKED.search(question)) and not en.NOT_MONEY.search(question))


@lru_cache(maxsize=64)
def share_asked(question: str) -> bool:
    """Does the question ask for a percentage ("What percentage of babies…")?"""
    return en.SHARE.search(question) is not None


@lru_cache(maxsize=64)
def rate_asked(question: str) -> bool:
    """Does the question ask for a rate ("What was the unemployment rate…")?"""
    return en.RATE.search(asked(question)) is not None


@lru_cache(maxsize=64)
def rate_measure(question: str) -> frozenset[str]:
    """What the rate asked for measures: "inflation" in "What was the inflation rate…?"."""
    m = en.RATE.search(asked(question))
    return frozenset(content_words(m.group(1))) if m else frozenset()


def other_rate(sentence: str, question: str) -> bool:
    """Does the sentence state another rate than the one asked, and not the one asked? "Bank
    Rate has been held at 0.5 per cent" gives no inflation rate, though a report on
    inflation says it."""
    measure = rate_measure(question)
    if not measure or measure & content_words(sentence):
        return False
    return any(content_words(m.group(1)) - measure for m in en.NAMED_RATE.finditer(sentence))


def stated_figures(sentence: str, question: str = "") -> tuple[int, int]:
    """How many figures a sentence states as a level, and how many it hedges or gives as an
    earlier value ("up from 4.8 per cent"). A figure the question itself gives ("Deborah
    James, who has died aged 40") is not an answer to it and counts as neither, nor does one
    that is not money when a sum of money is asked for, nor a count when a rate is, nor a sum
    of money or a share when things are counted ("How many times was Bank Rate cut?" is not
    answered by "cut to 5 per cent")."""
    given = _given(question) if question else ()
    money = money_asked(question) if question else False
    things = bool(question) and _counts_things(question)
    share = bool(question) and share_asked(question)
    rate = bool(question) and rate_asked(question)
    if things:
        # "How many Russians could be conscripted?" counts people: "for less than 10 years"
        # is a span of time, not the count ("for less than ten years" too), and "25 miles"
        # a distance, unless miles are what is counted
        what = counted(question)
        sentence = en.MEASURE.sub(lambda m: m.group(0) if content_words(m.group(0)) & what
                                  else " ", en.SPAN.sub(" ", in_figures(sentence)))

    def wanted(q: Quantity) -> bool:
        # nor is "£120 million" a count of people
        # nor "six baby pythons" a percentage, nor "1.96 million unemployed people" a rate
        return not any(q.matches(g) for g in given) and (q.money or not money) \
            and not (things and (q.money or q.unit in ("%", "pt"))) \
            and (q.unit in ("%", "pt") or not share) \
            and (q.unit in ("%", "pt", "bp") or q.money or not rate)

    found = [q for q in quantities(sentence) if wanted(q)]
    if rate and other_rate(sentence, question):
        return 0, len(found)  # the level of another rate than the one asked
    then = en.THEN.match(sentence)
    if then and then.group(1).lower() not in question.lower():
        return 0, len(found)  # "Back then, the agency estimated $233,610": an earlier value
    # a question that asks for an expectation itself ("how large might the losses be?") is
    # answered by one
    level = sentence if question and en.HEDGE.search(asked(question)) else en.HEDGE.sub(" ", sentence)
    if question and en.BY_ASKED.search(asked(question)):
        # "By how much did it rise?" asks for the change: "to increase Bank Rate by 0.75
        # percentage points", not "when the rate stood at 0.1 per cent"
        level = " … ".join(m.group(0) for m in en.BY_FIGURE.finditer(level))
    stated = sum(1 for q in quantities(level) if not q.earlier and wanted(q))
    return stated, len(found) - stated


@lru_cache(maxsize=64)
def asked(question: str) -> str:
    """The sentence of a question that asks. A news quiz sets the scene first ("Serena Williams
    announced she will retire after the US Open. How many grand slams has she won?"): the
    answer type is read from the asking sentence, and a source sentence that only restates
    the scene does not answer."""
    parts = split(question)
    ask = question if len(parts) < 2 else next(
        (p for p in reversed(parts) if en.WH.search(p) or p.rstrip().endswith(("?", ":"))),
        parts[-1])
    # A clause before the question word sets the scene too: "After Jacob Zuma resigned …, who
    # became the country's acting president?", "In December 2014, whom did Time name…?"
    fronted = en.FRONTED.match(ask)
    return ask[fronted.end():] if fronted else ask


@lru_cache(maxsize=64)
def counted(question: str) -> frozenset[str]:
    """The stems of what a "how many" question counts (the words before its verb). Read once
    per question: the ranking and the figure reading ask it of every sentence."""
    m = en.HOW_MANY.search(asked(question))
    if not m:
        return frozenset()
    words = []
    for w in m.group(1).split():
        if w.lower() in STOPWORDS:
            break
        words.append(w)
    return frozenset(content_words(" ".join(words)))


@lru_cache(maxsize=64)
def _tally(question: str) -> re.Pattern[str] | None:
    """The side of a division's tally a how-many question of votes asks for, if it asks one."""
    if not en.HOW_MANY.search(question):
        return None
    return en.TALLY_AGAINST if en.VOTES_AGAINST.search(question) else \
        en.TALLY_FOR if en.VOTES_FOR.search(question) else None


def counts(sentence: str, what: AbstractSet[str], question: str = "") -> bool:
    """Does a sentence give a figure with what is counted right after it ("23 Grand Slam
    titles", "six months", "2.5 million customers"), or, asked how many voted for or against,
    a division's tally of that side ("The House divided: Ayes 472, Noes 117")?"""
    side = _tally(question) if question else None
    if side is not None and side.search(sentence):
        return True
    return bool(what) and any(content_words(m.group(1)) & what for m in en.COUNT.finditer(sentence))


def answer_type(question: str) -> str | None:
    """`person`, `date`, `number`, or None for an open question."""
    question = asked(question)
    if en.PERSON_QUESTION.search(question):
        return "person"
    if en.DATE_QUESTION.search(question):
        return "date"
    # a measured quantity compared or followed over time ("Compare net migration in 2023 and
    # 2024") is answered by its figures: the time reader's word list of what is measured
    if en.NUMBER_QUESTION.search(question) or (en.OVER_TIME.search(question) and FIGURE.search(question)):
        return "number"
    return None


_TIMES = content_words("times")  # what "how many times" counts

WANTED = {"person": "person", "number": "figure", "date": "date", "place": "place"}


def gate_kind(question: str, kind: str | None) -> str | None:
    """What a generated sentence must give to answer: the answer type, or for an open question
    asking where, a place. Only the check reads it: quotes are ranked as for any open question,
    but "The NASA launch… was a historic achievement for the agency's first commercial
    spaceport [2]" is supported and no answer to "Where did the launch occur?"."""
    return kind or ("place" if en.PLACE_QUESTION.search(asked(question)) else None)


def _new_places(text: str, question: str) -> set[str]:
    return set(names(text)) - set(names(question))


def gives(kind: str | None, text: str, question: str, said_on: str | None = None) -> bool:
    """Does a text give what the answer type asks for: a person the question does not name
    already, a figure stated as a level, a date? A time told relative to the day it was said
    ("last week", "two years ago") is a date once that day is known. A question gives none:
    "To ask the Scottish Executive whether it plans to resurface the Kessock Bridge before
    2012…" names a year, and its answer the day the work starts."""
    if kind is not None and en.ASKS.search(text):
        return False
    if kind == "person":
        return bool(new_names(text, question))
    if kind == "place":
        return bool(_new_places(text, question))
    if kind == "number":
        return stated_figures(text, question)[0] > 0 or (
            bool(counted(question) & _TIMES) and en.NTH_TIME.search(text) is not None)
    if kind == "date":
        if en.YEAR_NAMED.search(asked(question)):
            # "In which year did Ukraine split from the Soviet Union?" is not answered by "on
            # Wednesday" (the year it was said in), but by "Aug. 24, 1991" or "31 years ago"
            if any(year for year, _, _ in dates(text)):
                return True
            when = reported_when(text, said_on) if said_on is not None else None
            return when is not None and (when.end - when.start).days >= 364
        return bool(dates(text)) or (said_on is not None
                                     and reported_when(text, said_on) is not None)
    return True


def agrees(kind: str | None, claim: str, quote: str, question: str,
           every: Sequence[str] = ()) -> bool:
    """Does a generated sentence give the same person, figure or date as the quoted answer?

    The model reads the same ranked sentences the quote is chosen from, and on news quizzes
    its pick held the asked-for fact far less often than the ranking's own best sentence. A
    sentence its source states can still answer with the wrong one ("Serena Williams returns
    to grand slam action" for "Which tennis star pulled out of Wimbledon?"; "Serena Williams,
    40, announced…" for "How many grand slams has she won?"); where the two disagree, the
    quote is shown. Open questions have no one answer to compare, and with nothing quoted
    there is nothing to disagree with: any supported sentence agrees. When the quote names the
    holders of an office in turn (`every`, their names, from `succession`), the sentence must
    name them all: one of them alone is the single-holder answer the quote corrects."""
    if not quote.strip():
        return True
    if every:
        claimed = words_of(claim.lower())
        return all(surname(name) in claimed for name in every)
    if kind == "person":
        quoted = words_of(quote.lower())
        return any(w.lower() in quoted for name in new_names(claim, question)
                   for w in name.split() if w.lower() not in en.STYLES)
    if kind == "place":
        return bool(_new_places(claim, question) & set(names(quote)))
    if kind == "number":
        given = _given(question)
        said = [q for q in quantities(claim) if not any(q.matches(g) for g in given)]
        known = quantities(quote)
        return any(q.matches(k) for q in said for k in known)
    if kind == "date":
        said_dates = dates(claim)
        known_dates = dates(quote)
        # a time told relative to when it was said ("on Wednesday") has no date of its own here
        return not said_dates or any(date_matches(d, known_dates) for d in said_dates)
    return True


def asked_period(q) -> tuple[dt.date, dt.date] | None:
    """The period a question (a TemporalQuery) asks the state, figure or event of ("about" in
    the contract), when it names one: a sentence that speaks of it answers best."""
    if getattr(q, "time", None) != "about" or q.start is None or q.end is None:
        return getattr(q, "ahead", None)  # a plan's period after as_of, asked about now
    return q.start, q.end
