"""Which source sentences answer a question, and the quoted answer when the model fails.

Retrieval finds the right documents; what the reader needs is the sentence in them that
answers. The same ranking feeds two things: the few sentences a small model is shown (it
cannot use more), and, when no generated sentence survives the gate or there is no model, the
answer itself, quoted from the sources, cited and dated. The question's answer type steers the
choice: "who" wants a person (for a speech, the speaker and the office they speak in count),
"when" a date, "how much" or "what rate" a number with its unit.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .grounding import Quantity, date_matches, dates, in_figures, names, quantities, reported_when
from .temporal.calendar import iso_day, month_span, year_span
from .temporal.lexicon import MONTHS, WEEKDAYS
from .text.labels import day_label
from .text.sentences import runs, split
from .text.words import STOPWORDS, content_words

if TYPE_CHECKING:
    from .context import Source

QUOTE_WORDS = 60

_PERSON = re.compile(
    r"^\s*(?:who|whom|whose)\b"
    # a person asked for by what they are: "which minister", "which Republican governor"
    r"|\bwhich (?:[\w-]+ ){0,3}?(?:person|minister|member|mp|senator|official|leader|politician|"
    r"secretary|chancellor|president|spokesperson|star|player|actor|actress|singer|governor|"
    r"athlete|rapper|comedian|author|billionaire|head of state)\b"
    r"|\bwho\s+(?:is|was|were|are)\b",
    re.I)
# A blank to fill in with a time: "…the highest hike since:" (a year, as "since when" is)
_SINCE_BLANK = r"\b(?:since|until|till)\s*:\s*$"
_DATE = re.compile(r"^\s*when\b|\b(?:what|which) (?:year|date|day|month)\b|\bhow long ago\b|"
                   rf"\b(?:from|since|until|till|by) when\b|{_SINCE_BLANK}", re.I)
_NUMBER = re.compile(
    r"^\W*(?:(?:approximately|roughly|about|around|so far|in total|overall),? )?"
    r"how (?:much|many|high|low|big|large|fast)\b"
    r"|\bhow (?:much|many)\b[^?]*\?\W*$"  # "…in which he won how many titles?"
    r"|\b(?:what|which) (?:was|is|were|are)? ?(?:the )?(?:[\w-]+ ){0,3}(?:rate|percentage|share|"
    r"figure|level|number|amount|cost|price|total|score|count|size)\b|\bby how much\b", re.I)


# Capitalised words that are offices, bodies or forms of address, not parts of a person's name.
_NOT_NAMES = frozenset("""
secretary state minister prime member members friend house government chancellor exchequer
bank office department committee national united kingdom british european union labour
conservative liberal democrats party lords commons parliament mr mrs ms miss dr lord lady sir
hon right the council court act bill deputy leader opposition speaker president senator
representative governor federal reserve district treasury ministry foreign home defence health
justice education affairs general attorney judge associate chief north south east west new great royal
police hospital school university college city county town village street road avenue church
centre center club company corporation association foundation fund service services agency
board authority institute museum library airport station park river lake mount palace
castle abbey cathedral chapel stadium square bridge island
""".split())
# The nouns offices are named by, and with them the words every office shares ("the Defence
# Secretary", "the Health Minister"): a source that says them names another office as readily
# as the one asked about.
_OFFICE_NOUNS = "secretary minister chancellor president governor leader senator speaker"
_OFFICE_WORDS = frozenset(f"{_OFFICE_NOUNS} ministers state prime member deputy shadow".split())
# Words that stand before a name as its title or office.
_TITLES = frozenset(f"mr mrs ms miss dr lord lady sir hon right prime {_OFFICE_NOUNS} "
                    "representative judge justice associate chief deputy shadow former".split())
_PEERAGE = frozenset("lord lady baron baroness dame sir".split())
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
            if not words or words[0].lower() not in _TITLES:
                continue
        # The name is the run's end after a title ("Associate Justice Stephen Breyer", "Senate
        # Majority Leader Chuck Schumer"), or the whole run when no office or body is in it.
        bare = [re.sub(r"['’]s?$", "", w.lower()) for w in words]  # "Court's" is "court"
        last = max((i for i, w in enumerate(bare) if w in _NOT_NAMES), default=-1)
        if last >= 0 and words[last].lower() not in _TITLES:
            continue  # "The Star-Spangled Banner", "Bank of England"
        name = words[last + 1:]
        if len(name) == 1 and last >= 0 and bare[last] in _PEERAGE:
            name = words[last:]  # "Lord Cameron": a peer is named by title and one name
        if 2 <= len(name) <= 4:
            found.append(" ".join(name))
        elif len(name) > 4:
            found.append(" ".join(name[:3]))
    return found


_ASKS = re.compile(r"^\s*to ask\b|\?\W*$", re.I)
_ANNOUNCES = re.compile(r"^\W*(?:with (?:your )?permission,? (?:mr|madam) (?:deputy )?speaker,? )?"
                        r"I (?:will|shall|should like to|would like to|wish to) make a statement "
                        r"(?:on|about)\b[^.;:]*[.;:]?\W*$", re.I)

# A figure after these words is an expectation, a goal or an extreme, not the level itself:
# "expects inflation to average 7.4 per cent", "inflation peaked at 3.8 per cent".
_HEDGE = re.compile(r"\b(?:expect|forecast|project|predict|target|peak|ambition|aim|could|"
                    r"would|might|may|hope|plan)\w*[^,;:()]*", re.I)
# A change asked for by its size ("By how much did it rise?", "plunged by what percentage?"),
# and the figure that gives it, after "by" ("by 0.75 percentage points", "by nearly 60%").
_BY_ASKED = re.compile(r"\bby\s+(?:how\s+(?:much|many)|what\s+(?:percentage|per\s?cent|"
                       r"proportion|amount|margin|factor))\b", re.I)
_BY_FIGURE = re.compile(r"\bby\s+(?:(?:about|around|almost|nearly|roughly|some|over|more\s+than|"
                        r"less\s+than|a\s+further|another|just|only|up\s+to)\s+)*\S+(?:\s+\S+){0,2}",
                        re.I)
# A sentence opening so tells of an earlier time than the one it was written in.
_THEN = re.compile(r"\W*(back then|at the time|previously|before that|until then|earlier|"
                   r"in the past|a year earlier|last year)\b", re.I)
# Words that name the kind of answer ("rate", "figure"), not what it is about: "the current
# inflation rate" is about inflation, and a sentence saying "rate" is no closer to it.
_MEASURE_WORDS = "rate rates level figure figures number amount percentage share total " \
                 "current currently latest now today present"


@lru_cache(maxsize=64)
def _given(question: str) -> tuple[Quantity, ...]:
    """The figures a question gives, read once for all the sentences scored against it."""
    return tuple(quantities(question))


# "How much does it cost…", "…a starting pay of how much?": a sum of money is asked for, so a
# figure that is not one ("a 10-member council") is no answer. Not so for a rate or a change.
_MONEY = re.compile(r"\b(?:costs?|pay|paid|salary|salaries|wages?|worth|earn\w*|spen[dt]\w*|"
                    r"fund\w*|budget|fines?|fined|compensation|forgiveness|loans?|debt|aid|"
                    r"jackpot|prize|raised?|sold|bought|money)\b", re.I)
_NOT_MONEY = re.compile(r"\b(?:rates?|per ?cent|percent\w*|points?)\b|%", re.I)


_TIME_UNITS = "years months weeks days hours minutes seconds decades centuries"
# "10 years", "3-day", "1 century": a figure with a unit of time after it
_SPAN = re.compile(r"\b\d[\d,.]*(?:\s+|-)(?:"
                   + "|".join(re.sub(r"(?:ies|s)$", "", u) for u in _TIME_UNITS.split())
                   + r")(?:y|ies|s)?\b", re.I)


@lru_cache(maxsize=64)
def _counts_things(question: str) -> bool:
    """Does a how-many question count something other than time ("how many Russians")?"""
    what = counted(question)
    return bool(what) and not what & content_words(_TIME_UNITS)


@lru_cache(maxsize=64)
def money_asked(question: str) -> bool:
    """Does a how-much question ask for a sum of money?"""
    return bool(re.search(r"\bhow much\b", question, re.I) and _MONEY.search(question)
                and not _NOT_MONEY.search(question))


_SHARE = re.compile(r"\b(?:what|which) (?:share|percentage|proportion)\b|\bwhat per ?cent\b|"
                    r"\bby (?:what|how many) (?:percentage|per ?cent|%)", re.I)


@lru_cache(maxsize=64)
def share_asked(question: str) -> bool:
    """Does the question ask for a percentage ("What percentage of babies…")?"""
    return _SHARE.search(question) is not None


def stated_figures(sentence: str, question: str = "") -> tuple[int, int]:
    """How many figures a sentence states as a level, and how many it hedges or gives as an
    earlier value ("up from 4.8 per cent"). A figure the question itself gives ("Deborah
    James, who has died aged 40") is not an answer to it and counts as neither, nor does one
    that is not money when a sum of money is asked for, nor a sum of money when things are
    counted."""
    given = _given(question) if question else ()
    money = money_asked(question) if question else False
    things = bool(question) and _counts_things(question)
    share = bool(question) and share_asked(question)
    if things:
        # "How many Russians could be conscripted?" counts people: "for less than 10 years"
        # is a span of time, not the count ("for less than ten years" too)
        sentence = _SPAN.sub(" ", in_figures(sentence))

    def wanted(q: Quantity) -> bool:
        # nor is "£120 million" a count of people
        # nor "six baby pythons" a percentage
        return not any(q.matches(g) for g in given) and (q.money or not money) \
            and not (things and q.money) and (q.unit in ("%", "pt") or not share)

    found = [q for q in quantities(sentence) if wanted(q)]
    then = _THEN.match(sentence)
    if then and then.group(1).lower() not in question.lower():
        return 0, len(found)  # "Back then, the agency estimated $233,610": an earlier value
    level = _HEDGE.sub(" ", sentence)
    if question and _BY_ASKED.search(asked(question)):
        # "By how much did it rise?" asks for the change: "to increase Bank Rate by 0.75
        # percentage points", not "when the rate stood at 0.1 per cent"
        level = " … ".join(m.group(0) for m in _BY_FIGURE.finditer(level))
    stated = sum(1 for q in quantities(level) if not q.earlier and wanted(q))
    return stated, len(found) - stated


_WH = re.compile(r"^\W*(?:who|whom|whose|what|which|when|where|why|how|true or false)\b", re.I)


def asked(question: str) -> str:
    """The sentence of a question that asks. A news quiz sets the scene first ("Serena Williams
    announced she will retire after the US Open. How many grand slams has she won?"): the
    answer type is read from the asking sentence, and a source sentence that only restates
    the scene does not answer."""
    parts = split(question)
    if len(parts) < 2:
        return question
    return next((p for p in reversed(parts) if _WH.search(p) or p.rstrip().endswith(("?", ":"))),
                parts[-1])


# A name the question gives: two to five capitalised words ("Roger Federer", "Edinburgh
# Fringe", "Secretary of State for Defence"), "of"/"the" allowed inside.
_NAME_PHRASE = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:of\s+|the\s+|for\s+)*[A-Z][\w'’.-]*){1,4}")
_CALENDAR = frozenset(MONTHS) | frozenset(WEEKDAYS)
# A name of one word is too often a common word capitalised ("Christmas", "Britain" for "UK");
# an acronym ("GDP", "NATO") is a name of its own.
_ACRONYM = re.compile(r"[A-Z]{3,6}")
_NAME_PHRASE_OR_ACRONYM = re.compile(rf"{_NAME_PHRASE.pattern}|\b{_ACRONYM.pattern}\b")


def _spelled_out(acronym: str, text: str) -> bool:
    """Does the text write the acronym with stops ("U.S.A.") or in words ("gross domestic
    product", "United States of America")? Reading too much as spelled out only leaves a note
    unsaid."""
    stops = r"\.?\s?".join(acronym)
    words = r"\s+(?:(?:of|and|the|for|&)\s+)*".join(rf"{c}[\w'’-]*" for c in acronym)
    return re.search(rf"(?<!\w)(?:{stops}\.?|{words})(?!\w)", text, re.I) is not None


def unmentioned(question: str, sources: Sequence[Source]) -> list[str]:
    """The names the question gives that no source mentions.

    Retrieval always finds the closest passages; when the person or thing the question is
    about is not among them ("How did Serena Williams do?" over debates), the quote is the
    nearest the sources come, not an answer, and the reader is told so. A name counts as
    mentioned when any of its words is: a surname is enough, and so is "Boston" for "the
    Boston Fed" (the report says "Federal Reserve Bank of Boston"). Saying a name is missing
    when it is there would mislead; missing one that is absent only leaves the quote as it was.
    """
    told = " ".join(f"{s.passage} {s.title} {s.speaker} {s.role}" for s in sources)
    seen = told.lower()
    out = []

    def plain(word: str) -> str:
        return re.sub(r"['’]s$", "", word).strip(".").lower()

    for m in (m for part in split(question) for m in _NAME_PHRASE_OR_ACRONYM.finditer(part)):
        words = m.group(0).split()
        while words and (plain(words[0]) in STOPWORDS or plain(words[0]) in _CALENDAR
                         or _WH.match(words[0])):
            words = words[1:]  # "Did Rishi Sunak…", "On Monday Keir Starmer…"
        acronym = len(words) == 1 and _ACRONYM.fullmatch(words[0]) is not None
        if (len(words) < 2 and not acronym) or any(plain(w) in _CALENDAR for w in words):
            continue
        if acronym and _spelled_out(words[0], told):
            continue
        keys = [w for w in map(plain, words) if len(w) >= 3 and w not in STOPWORDS]
        # "Secretary" does not mention the Defence Secretary: an office is named by its own word
        keys = [w for w in keys if w not in _OFFICE_WORDS] or keys
        if keys and not any(re.search(r"(?<!\w)" + re.escape(w) + r"(?!\w)", seen) for w in keys):
            out.append(re.sub(r"['’]s$", "", " ".join(words).rstrip(".")))
    return list(dict.fromkeys(out))


# A measured quantity set against itself over time ("Compare Bank Rate in August 2024 and
# November 2025", "How has inflation changed since 2022?") is answered by its levels.
_OVER_TIME = re.compile(
    r"\b(?:compar\w*|versus|vs|differ\w*|chang\w*|evolv\w*|develop\w*|trend\w*|moved?)\b", re.I)
_MEASURED = re.compile(r"\b(?:rates?|inflation|unemployment|prices?|levels?|percentages?)\b", re.I)


# "How many grand slams has she won?" counts grand slams: a figure with another noun after it
# ("Serena Williams, 40, announced…") is not the count asked for, "23 Grand Slam titles" is.
_HOW_MANY = re.compile(r"\bhow many\s+((?:[\w'’-]+\s+){0,2}[\w'’-]+)", re.I)
_COUNT = re.compile(r"(?<![\w.])(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|"
                    r"eleven|twelve|twenty|thirty|forty|fifty|hundred|dozens?|hundreds|thousands|"
                    r"millions)\b((?:\s+[\w'’-]+){1,4})", re.I)


COUNT_BONUS = 0.25  # what a figure with the counted noun after it adds to a sentence's score


def counted(question: str) -> set[str]:
    """The stems of what a "how many" question counts (the words before its verb)."""
    m = _HOW_MANY.search(asked(question))
    if not m:
        return set()
    words = []
    for w in m.group(1).split():
        if w.lower() in STOPWORDS:
            break
        words.append(w)
    return content_words(" ".join(words))


def counts(sentence: str, what: set[str]) -> bool:
    """Does a sentence give a figure with what is counted right after it ("23 Grand Slam
    titles", "six months", "2.5 million customers")?"""
    return bool(what) and any(content_words(m.group(1)) & what for m in _COUNT.finditer(sentence))


def answer_type(question: str) -> str | None:
    """`person`, `date`, `number`, or None for an open question."""
    question = asked(question)
    if _PERSON.search(question):
        return "person"
    if _DATE.search(question):
        return "date"
    if _NUMBER.search(question) or (_OVER_TIME.search(question) and _MEASURED.search(question)):
        return "number"
    return None


@dataclass(frozen=True)
class Candidate:
    """A source sentence with how well it answers the question."""

    source: Source
    sentence: str
    score: float
    position: int = 0  # the sentence's place in its source's passage (HEADLINE: its headline)
    headline: str = ""  # of a quoted excerpt: the source's headline, quoted before it


# Words that make a role another office than the one they qualify: the Shadow Home Secretary is
# not the Home Secretary, nor is a deputy or a former one.
_OTHER_OFFICE = content_words("shadow deputy former vice junior assistant under parliamentary")
# An office's formal title and its everyday name share its noun and its own word: "the
# Secretary of State for the Home Department" is the Home Secretary, "Secretary of State for
# Foreign, Commonwealth and Development Affairs" the Foreign Secretary.
_NOUNS = content_words(_OFFICE_NOUNS)
_FORMAL = _NOUNS | content_words("state department affairs office")


def _role_match(question_words: set[str], role: str) -> bool:
    """Is `role` (a speaker's role, an office a sentence names) the office the question asks
    about?"""
    words = content_words(role)
    if (words & _OTHER_OFFICE) - question_words:
        return False
    if bool(words) and words <= question_words | {"the"} or bool(words & question_words) \
            and len(words & question_words) >= max(1, len(words) - 1):
        return True
    return bool(words & _NOUNS & question_words) and bool((words - _FORMAL) & question_words)


def _speaks_as_asked(question_words: set[str], source: Source) -> bool:
    """Is the source a speech by someone in the office the question asks about?"""
    return bool(source.speaker) and _role_match(question_words, source.role or "")


# What stands between an office and its holder's name: "the Chancellor, my right hon. Friend
# the Member for Stratford-on-Avon (Nadhim Zahawi)", "the Chancellor of the Exchequer, George
# Osborne", "Defence Secretary Ben Wallace".
_TO_HOLDER = re.compile(r"(?:,\s*)?(?:my\s+(?:right\s+)?hon(?:ourable)?\.?\s+(?:and\s+\w+\s+)?"
                        r"friend\s*)?(?:the\s+(?:right\s+hon(?:ourable)?\.?\s+)?member\s+for\s+"
                        r"(?:[^(),]|\([^()]*\))*?)?\s*\(?\s*$", re.I)
_OFFICE_BEFORE = re.compile(rf"((?:[A-Z][\w'’-]+ ){{0,3}}(?:{'|'.join(_OFFICE_NOUNS.title().split())})"
                            r"(?: (?:of|for|the|and|[A-Z][\w'’-]+,?))*?)$")


def office_holder(text: str, question: str) -> tuple[str, str] | None:
    """The person a text names as holding the office the question asks about, with the
    office as the text words it: ("Nadhim Zahawi", "Chancellor") from "The Chancellor, my right
    hon. Friend the Member for Stratford-on-Avon (Nadhim Zahawi), has said…". A name the
    question gives already is not an answer to it."""
    question_words = content_words(question)
    for name in _new_names(text, question):
        at = text.find(name)
        before = _TO_HOLDER.sub("", text[max(0, at - 160):at])
        m = _OFFICE_BEFORE.search(before)
        if m is None:
            continue
        office = re.sub(r"^(?:The|This|That|Our|Their|His|Her) ", "", m.group(1)).rstrip(", ")
        if _role_match(question_words, office) and not _qualified_otherwise(question, office):
            return name, office
    return None


_QUALIFIED = re.compile(rf"\b([\w'’-]+)\s+(?:{'|'.join(_OFFICE_NOUNS.split())})\b", re.I)


def _qualified_otherwise(question: str, office: str) -> bool:
    """Does the question qualify the office's noun with a word the text's office lacks? "The
    Home Secretary, … (James Cleverly)" and "The Secretary of State, … (Claire Coutinho)" do
    not name the Foreign Secretary asked about; "the Secretary of State for Foreign,
    Commonwealth and Development Affairs" does."""
    asked = {m.group(1).lower() for m in _QUALIFIED.finditer(question) if content_words(m.group(1))}
    return bool(asked) and not asked & _words_of(office.lower())


_STYLES = _TITLES | frozenset("king queen prince princess duke duchess earl count".split())


def _new_names(text: str, question: str) -> list[str]:
    """The people a text names that the question does not name already: "Prince Charles" is
    named by "King Charles III", "Prince William" is not."""
    asked = question.lower()
    said = _words_of(asked)
    return [n for n in person_names(text) if n.lower() not in asked
            and not {w for w in n.lower().split() if w not in _STYLES} <= said]


@lru_cache(maxsize=64)
def _words_of(text: str) -> frozenset[str]:
    """A question's words, read once for all the sentences checked against it."""
    return frozenset(re.findall(r"[\w'’-]+", text))


def _named(question: str, source: Source) -> bool:
    """Does the question name the source's speaker (a surname is enough)?"""
    speaker = source.speaker or ""
    parts = [w for w in re.findall(r"[A-Z][\w'’-]+", speaker) if w.lower() not in _NOT_NAMES]
    return bool(parts) and re.search(r"\b" + re.escape(parts[-1]) + r"\b", question) is not None


# Words that say who speaks or that they spoke, not what about: offices, forms of address, verbs.
_NOT_TOPIC = frozenset(content_words(
    "say said says tell told speak spoke talk talked mention mentioned state stated announce "
    "announced " + " ".join(sorted(_NOT_NAMES))))


# Names a question about change over time may give that are not its subject: "How did the UK
# position on Israel and Gaza evolve?" is about Israel and Gaza.
_NOT_SUBJECT = content_words("uk british britain government parliament house commons " +
                             _MEASURE_WORDS)


# Words of a question about change over time that say how it is asked, not what about.
_NOT_ABOUT = _NOT_SUBJECT | content_words(
    "how has have did does the trend trends evolve evolved evolution develop developed change "
    "changed compare compared comparison differ difference between versus over years time since "
    "position stance view views discussion debate debates said say official plans decide "
    "decided decision")


def _topic(question_words: set[str], sources: Sequence[Source], theirs: set[int]) -> set[str]:
    """The question's words that are not who speaks, their office, or a verb of saying."""
    who: set[str] = set(_NOT_TOPIC)
    for s in sources:
        if id(s) in theirs:
            who |= content_words(f"{s.speaker or ''} {s.role or ''}")
    return question_words - who


HEADLINE = -1  # the position of a source's headline among its sentences
ASKING = 0.6  # the asking sentence's share of a sentence's likeness to a question set in a scene
_SITE = re.compile(r"\s+[|–—-]\s+(?:[\w.'’&]+\s*){1,3}$")
_PLAIN_WORD = re.compile(r"(?<![\w-])[a-z]{3,}(?![\w-])")


def headline(title: str | None) -> str | None:
    """A title that states something, as a headline does, without the site's name after it
    ("… | CNN Business"); a cut title keeps its "…". A heading or a series name ("Prime
    Minister / Engagements", "Beige Book, May 1970: Federal Reserve Bank of Boston",
    "conv-26 session 1: Caroline and Melanie") has fewer than three plain lower-case words
    and states nothing."""
    text = (title or "").strip()
    cut = text.endswith(("...", "…"))
    text = _SITE.sub("", text.rstrip(".… ").strip()).strip()
    plain = [w for w in _PLAIN_WORD.findall(text) if w not in STOPWORDS]
    if len(plain) < 3:
        return None
    return text + ("…" if cut else "")


# "the government's policy", and a position, policy or stance asked about with no one named as
# holding it ("the UK position on Israel", "the official position"): a country's is its
# government's
_GOVERNMENT = re.compile(r"\bgovernment(?:'s|’s|s)?\b|^(?:(?!\b(?:labour|conservatives?|tor(?:y|ies)|"
                         r"lib ?dems?|party|parties)\b).)*\b(?:position|policy|stance)\b", re.I)
_OPPOSITION = content_words("shadow opposition")
_PRESENT = re.compile(r"\b(?:is|are|has|have|will|can|could|does|do)\b", re.I)


FRESH, FRESH_HALF_LIFE = 0.2, 7  # the lean to fresh news, and the days it takes to halve


def _unlabelled(sentence: str, source: Source) -> str:
    """A turn's first sentence without its speaker's label ("Nate: Can't wait to hear about
    it."), as it is embedded: the label names who speaks, which every sentence of the turn
    shares, and embedded with it a turn's opening chit-chat read as close to any question
    naming the speaker ("What did Nate take to the beach in Tampa?") as the sentence that
    answers it. Its words still count among those the question shares."""
    speaker = (source.speaker or "").strip()
    if speaker and sentence.startswith(speaker + ":"):
        return sentence[len(speaker) + 1:].lstrip() or sentence
    return sentence


def rank(question: str, sources: Sequence[Source], *, mode: str | None = None, embedder=None,
         kind: str | None = None, full: str | None = None,
         as_of: object = None) -> list[Candidate]:
    """Every sentence of the sources, best answer first.

    The score adds the embedding similarity to the question and to its asking sentence (when an
    embedder is given), the share of the question's words the sentence holds, and bonuses for
    holding what the answer type asks for; newer sources win ties when the present state is
    asked for. `question` is what retrieval searched for (the time taken out); `full`, the
    question as asked, says what kind of figure is wanted ("How many…", "How much does it
    cost…"); `as_of`, the day it is asked on, how fresh each news report is.
    """
    full = full or question
    kind = kind if kind is not None else answer_type(full)
    qwords = content_words(question)
    ask = asked(question)
    what = counted(full) if kind == "number" else set()
    focus = content_words(ask) if ask != question else set()
    if kind is not None:
        measure = content_words(_MEASURE_WORDS)
        qwords = qwords - measure or qwords
        focus = focus - measure or focus
    rows: list[tuple[Source, str, int]] = []
    lead: list[float] = []
    for s in sources:
        head = headline(s.title)
        if head:
            # A news headline is the story's point in a line, often the very name a quiz asks
            # for ("'Squid Game': Netflix green lights season 2"), where the text describes it.
            rows.append((s, head, HEADLINE))
            lead.append(1.0)
        at = 0
        for r, run in enumerate(runs(s.passage)):
            at += r > 0  # a gap between runs: their sentences do not follow on
            for i, sentence in enumerate(run):
                if len(sentence.split()) >= 4:
                    rows.append((s, sentence, at + i))
                    # Reports and news put the fact first; a passage that starts mid-text has
                    # no lead.
                    lead.append(max(0.0, 1.0 - i / 4)
                                if r == 0 and not s.passage.startswith("…") else 0.0)
            at += len(run)
    if not rows:
        return []
    news = sum(1 for r in rows if r[2] == HEADLINE) >= 0.5 * len(sources)  # most carry a headline
    sims = np.zeros(len(rows), dtype=np.float32)
    if embedder is not None:
        # A news quiz sets the scene before it asks ("Britain bid farewell to Queen Elizabeth II
        # with a grand funeral this week. … Which kind of animal was it?"), and every report of
        # the story restates the scene: likeness to the whole question rewards those lines, so
        # over news the asking sentence weighs on its own as well. Over debates the scene names
        # the subject the question refers back to ("The government announced a deal with
        # Rwanda. What was the scheme meant to do?"), and "a similar scheme" is no answer. A
        # question in the sources ('What does "PSL" stand for?') is like the asking sentence
        # but answers nothing, so it is held to the whole question.
        heads = [question, ask] if ask != question and news else [question]
        vecs = embedder.encode(heads + [_unlabelled(r[1], r[0]) for r in rows])
        m = vecs[len(heads):]
        lengths = np.linalg.norm(m, axis=1)

        def likeness(q: np.ndarray) -> np.ndarray:
            norms = lengths * (np.linalg.norm(q) or 1.0)
            return (m @ q) / np.where(norms > 0, norms, 1.0)

        sims = likeness(vecs[0])
        if len(heads) == 2:
            asks = np.array([bool(_ASKS.search(r[1])) for r in rows])
            sims = np.where(asks, sims, (1 - ASKING) * sims + ASKING * likeness(vecs[1]))
    dated = sorted({s.date for s in sources if s.date}, reverse=True)
    newness = {d: 1.0 - i / max(len(dated), 1) for i, d in enumerate(dated)}
    # News asked about in the present ("Which state has the most cases?", "What is the name of
    # the hurricane that has left…") with no time cue: a later report of a developing story
    # supersedes an earlier one. A conversation or a speech is not superseded so: what someone
    # said of themselves once ("my grandma is from Sweden") holds in every later session.
    lean = 0.2 if mode == "hybrid" and _PRESENT.search(ask) and news else 0.0
    # News asked about with no time named is the news of the days before it is asked: "Which
    # league is LeBron James buying a team in?" is this week's pickleball deal, not August's
    # contract. A report loses half of the lean for each week before the day asked.
    asked_on = iso_day(as_of) if mode == "hybrid" and news else None
    order = {id(s): i for i, s in enumerate(sorted(sources, key=lambda s: -s.score))}
    # Who said it is part of the question: "What did the Chancellor say…", "What did Senator
    # Lott say…". When some source is theirs, the others' sentences are not the answer.
    named = {id(s) for s in sources if _named(question, s)}
    theirs = named | {id(s) for s in sources if _speaks_as_asked(qwords, s)}
    gist = kind is None and bool(theirs) and not _topic(qwords, sources, theirs)
    # "the government's policy", unless the opposition's is asked about too
    governing = bool(_GOVERNMENT.search(question)) and not qwords & _OPPOSITION
    longest = max((len(s.passage.split()) for s in sources if id(s) in theirs), default=1) \
        if gist else 1
    out = []
    for (s, sentence, position), sim, first in zip(rows, sims, lead):
        words = content_words(sentence)
        lex = len(qwords & words) / len(qwords) if qwords else 0.0
        if focus:
            # the asking sentence's words weigh more: the scene alone does not answer
            lex = 0.7 * lex + 0.3 * len(focus & words) / len(focus)
        score = float(sim) + 0.5 * lex + 0.1 * first
        if gist and id(s) in theirs:
            # "What did Senator Lott say on 28 January 1997?" names who and when but no
            # subject, so likeness to the question means nothing: the gist of what they said
            # is the opening of their longest statement.
            score += 0.4 * max(0.0, 1.0 - max(position, 0) / 4) + 0.3 * len(s.passage.split()) / longest
        n = len(sentence.split())
        if n > QUOTE_WORDS:
            score -= 0.1
        if n < 7:
            score -= 0.3  # a heading or a fragment ("The Prime Minister was asked—")
        if _ASKS.search(sentence) or _ANNOUNCES.search(sentence):
            # a question ("To ask the Chancellor…?") asks, and "I will make a statement on the
            # situation in Gaza" announces; neither answers
            score -= 0.3
        if id(s) in theirs:
            # For "who is the Chancellor" the speaker in that office IS the answer; for "who
            # did Harry Reid honor" the speaker is named, so the answer is someone else.
            score += 0.6 if kind == "person" and not named else 0.3
        elif theirs:
            score -= 0.2
        if governing and content_words(s.role or "") & _OPPOSITION:
            score -= 0.2  # the Shadow Home Secretary's words are not the government's policy
        if kind == "person" and gives(kind, sentence, full):
            score += 0.25
        elif kind == "date" and gives(kind, sentence, full, s.date):
            score += 0.15
        elif kind == "number":
            stated, other = stated_figures(sentence, full)
            score += 0.15 if stated else -0.15 if other else 0.0
            if counts(sentence, what):
                score += COUNT_BONUS
        if lean and s.date:
            score += lean * newness.get(s.date, 0.0)
        day = iso_day(s.date) if asked_on else None
        if asked_on and day:
            score += FRESH * 0.5 ** (max(0, (asked_on - day).days) / FRESH_HALF_LIFE)
        if mode == "decay" and s.date:
            # The present state is what the newest sources say; a typed question ("who is",
            # "what rate") wants that state, an open one only leans towards it.
            score += (0.3 if kind else 0.15) * newness.get(s.date, 0.0)
        score += 0.05 * (1.0 - order.get(id(s), 0) / max(len(sources), 1))
        out.append(Candidate(s, sentence, score, position))
    out.sort(key=lambda c: -c.score)
    return out


def _trim(sentence: str) -> str:
    words = sentence.split()
    return sentence if len(words) <= QUOTE_WORDS else " ".join(words[:QUOTE_WORDS]) + "…"


def _quote(text: str) -> str:
    return "“" + text.strip().strip("“”\"") + "”"


def _excerpt(picks: Sequence[Candidate]) -> Candidate:
    """Sentences of one source as one quote, in the order they were said ("…" for a gap)."""
    head = next((c.sentence for c in picks if c.position == HEADLINE), "")
    ordered = sorted((c for c in picks if c.position != HEADLINE), key=lambda c: c.position)
    if not ordered:
        return replace(picks[0], sentence="", headline=head)
    text = _trim(ordered[0].sentence)
    for prev, c in zip(ordered, ordered[1:]):
        text += (" " if c.position == prev.position + 1 else " … ") + _trim(c.sentence)
    return replace(picks[0], sentence=text, headline=head)


def _date(value: str | None) -> str | None:
    day = iso_day(value)
    return day_label(day) if day else value


def render_pick(c: Candidate, question: str, kind: str | None) -> str:
    """One quoted sentence, attributed, cited and dated."""
    s = c.source
    when = _date(s.date)
    speaker = s.speaker or ""
    role = s.role or ""
    # "yesterday" in a sentence said on 8 May 2023 is 7 May 2023: say so after the quote.
    said_text = c.sentence or c.headline
    reported = reported_when(said_text, s.date)
    said = s.date[:10] if s.date else ""
    after = ""
    if reported and not reported.start.isoformat() <= said <= reported.end.isoformat() \
            and reported.label.lower() not in said_text.lower():
        # "(yesterday: 7 May 2023)"; a sentence that already says "October 2025" needs no tag,
        # and one saying "5 September" only the year: "(5 September 2022)"
        partial = reported.label.lower().startswith(reported.expression.lower())
        after = f" ({reported.label})" if partial else f" ({reported.expression}: {reported.label})"
    dated = f" ({when})" if when else ""
    cited = f"{speaker} [{s.number}]{dated}" if speaker else f"[{s.number}]{dated}"
    if not c.sentence:
        # the headline alone: "cnn.com [1] (12 July 2022), headline: “…”"
        return f"{cited}, headline: {_quote(c.headline)}{after}"
    under = f", under the headline {_quote(c.headline)}" if c.headline else ""
    if kind == "person" and _speaks_as_asked(content_words(question), s):
        office = re.sub(r"^the\s+", "", role, flags=re.I)  # "speaking as Prime Minister"
        head = f"{speaker}, speaking as {office}" + (f" on {when}" if when else "")
        return f"{head} [{s.number}]{under}: {_quote(c.sentence)}{after}"
    holder = office_holder(c.sentence, question) if kind == "person" else None
    if holder is not None:
        # Who holds the office first, then who said so: "Who was Chancellor in July 2022?" is
        # answered "Nadhim Zahawi, named as Chancellor by Simon Clarke…", not "Simon Clarke…".
        name, office = holder
        head = f"{name}, named as {office}" + (f" by {speaker}" if speaker else "") + \
            (f" on {when}" if when else "")
        return f"{head} [{s.number}]{under}: {_quote(c.sentence)}{after}"
    if speaker or under:
        return f"{cited}{under}: {_quote(c.sentence)}{after}"
    return f"{_quote(c.sentence)} [{s.number}]{dated}{after}"


PERIOD_FLOOR = 0.5  # a period's best line under this share of the best line of all is no answer
PERIOD_NEAR = 0.8  # a period's line this good against its best may be quoted in its place


def off_subject(c: Candidate, ranked: Sequence[Candidate]) -> bool:
    """Whether a line scores under the period floor's share of the best line of all (`ranked`
    is best first): over sources that do not speak of the subject (a 1997 speech about a NATO
    trip for "How has the discussion on climate targets evolved?") the best line is no answer.
    A best line at or below zero gives no scale to measure by, so nothing is off it then."""
    floor = PERIOD_FLOOR * ranked[0].score
    return floor > 0 and c.score < floor


EXCERPT_WORDS = 100  # an open question's quoted excerpt from one source, at most
# How good, against the best sentence, another sentence of the same source must be to join an
# open question's excerpt; the one right after a quoted sentence needs less.
JOIN, JOIN_NEXT = 0.5, 0.4


WANTED = {"person": "person", "number": "figure", "date": "date", "place": "place"}
# "Where did the launch occur?", "Which country…", "In which state…": a place is the answer
_PLACE = re.compile(r"^\W*(?:where\b|(?:in |to |from )?which (?:country|countries|city|cities|"
                    r"state|states|town|region|island|nation|continent)\b)", re.I)


def gate_kind(question: str, kind: str | None) -> str | None:
    """What a generated sentence must give to answer: the answer type, or for an open question
    asking where, a place. Only the check reads it: quotes are ranked as for any open question,
    but "The NASA launch… was a historic achievement for the agency's first commercial
    spaceport [2]" is supported and no answer to "Where did the launch occur?"."""
    return kind or ("place" if _PLACE.search(asked(question)) else None)


def _new_places(text: str, question: str) -> set[str]:
    return set(names(text)) - set(names(question))


_YEAR_NAMED = re.compile(rf"\b(?:what|which) year\b|{_SINCE_BLANK}", re.I)
# a year or longer is asked for: any date in the right year answers
_YEAR_ASKED = re.compile(rf"{_YEAR_NAMED.pattern}|\bhow long\b|\bdecade\b|\bcentury\b", re.I)


def gives(kind: str | None, text: str, question: str, said_on: str | None = None) -> bool:
    """Does a text give what the answer type asks for: a person the question does not name
    already, a figure stated as a level, a date? A time told relative to the day it was said
    ("last week", "two years ago") is a date once that day is known."""
    if kind == "person":
        return bool(_new_names(text, question))
    if kind == "place":
        return bool(_new_places(text, question))
    if kind == "number":
        return stated_figures(text, question)[0] > 0
    if kind == "date":
        if _YEAR_NAMED.search(asked(question)):
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
        claimed = _words_of(claim.lower())
        return all(_surname(name) in claimed for name in every)
    if kind == "person":
        quoted = _words_of(quote.lower())
        return any(w.lower() in quoted for name in _new_names(claim, question)
                   for w in name.split() if w.lower() not in _STYLES)
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


def _holds(c: Candidate, question: str, kind: str | None) -> bool:
    """Does the sentence hold what the answer type asks for?"""
    if kind == "person" and not _named(question, c.source) \
            and _speaks_as_asked(content_words(question), c.source):
        return True  # the speaker, in the office asked about
    return gives(kind, c.sentence, question, c.source.date)


def holder_unnamed(question: str, picks: Sequence[Candidate], kind: str | None) -> bool:
    """Is an office's holder asked for ("Who was Home Secretary in 2020?") and named by none of
    the quoted sentences, nor the speaker in it? Then "Chris Philp [6]: “The Home Secretary has
    appointed…”" must not read as naming him."""
    return kind == "person" and bool(content_words(question) & _NOUNS) and bool(picks) \
        and not any(_holds(c, question, kind) for c in picks)


def figure_elsewhen(picks: Sequence[Candidate], kind: str | None, start: dt.date | None,
                    end: dt.date | None) -> bool:
    """Is a figure asked for in a named period, and does each quoted sentence date its figure
    to another time? "How many small boat arrivals were there in 2022?" over 2022 debates is
    quoted "Last year more than 28,000 people crossed the channel" (said in April 2022: 2021);
    the quote stays, the nearest the sources come, but must not read as the 2022 figure."""
    if kind != "number" or start is None or end is None:
        return False
    said = [c for c in picks if c.position != HEADLINE]
    if not said:
        return False
    for c in said:
        when = reported_when(c.sentence, c.source.date)
        # the time must frame the sentence: "…want to do it again next month!" dates a plan,
        # not the 7 people who came
        if when is None or (when.start <= end and when.end >= start) or not re.match(
                rf"\W*(?:(?:back\s+)?in\s+)?{re.escape(when.expression)}\b", c.sentence, re.I):
            return False
    return True


def no_figure(picks: Sequence[Candidate], kind: str | None, question: str) -> bool:
    """Does a quote for a how-many or how-much question state no figure at all ("crossings in
    2023 are running about a third lower")?"""
    return kind == "number" and not any(
        stated_figures(c.sentence, question)[0] for c in picks if c.position != HEADLINE)


def _names_period(c: Candidate, start: dt.date, end: dt.date) -> bool:
    """Does a sentence date something it says to within the period: "29,437 in 2023" for 2023,
    "last year" said in 2024? A wider time ("in 2022" for March 2022) does not."""
    for year, month, day in dates(c.sentence):
        if year is None:
            continue
        if day:
            lo = hi = dt.date(year, month, day)
        else:
            lo, hi = month_span(year, month) if month else year_span(year)
        if start <= lo and hi <= end:
            return True
    when = reported_when(c.sentence, c.source.date)
    return when is not None and start <= when.start and when.end <= end


def given_later(question: str, ranked: Sequence[Candidate], start: dt.date, end: dt.date,
                floor: float) -> Candidate | None:
    """The best sentence of sources dated after the period that states the figure asked for
    and dates it to the period, scoring at least `floor`."""
    what = counted(question)
    # and what the question names, whole: "Bank Rate", not "the Bank of England's 2 per cent
    # target" in a report on inflation
    whole = [m.group(0).lower() for m in _NAME_PHRASE_OR_ACRONYM.finditer(asked(question))
             if not _WH.match(m.group(0))]
    for c in ranked:
        if c.score < floor:
            break
        if c.position == HEADLINE or off_subject(c, ranked) or not _names_period(c, start, end):
            continue
        if not all(name in c.sentence.lower() for name in whole):
            continue
        # what is counted must be named, if not right after the figure ("45,700 people crossed
        # the channel in small boats in 2022" counts small boat arrivals)
        if stated_figures(c.sentence, question)[0] and (not what or what & _words_of(c.sentence)):
            return c
    return None


def _surname(name: str) -> str:
    """What one holder is known by: "Lord Cameron" and "David Cameron" are one holder."""
    return name.split()[-1].lower()


def holder(c: Candidate, question: str) -> str | None:
    """Whom a sentence gives the office the question asks about: its speaker, speaking in that
    office, or the person it names as holding it."""
    if not _named(question, c.source) and _speaks_as_asked(content_words(question), c.source):
        return c.source.speaker
    found = office_holder(c.sentence, question) if c.sentence else None
    return found[0] if found else None


def succession(question: str, ranked: Sequence[Candidate], kind: str | None) -> list[Candidate]:
    """The holders of an office asked about over a period, when the period's sources give it
    to several people in turn: the best sentence of each, in date order; else [].

    "Who was Prime Minister in 2022?" over that year's debates had been answered by Boris
    Johnson's March statement alone, while the same sources name Liz Truss in September and
    Rishi Sunak in November: one name is a wrong answer for the year. The holders count as a
    succession only when their dates do not overlap (each holder's sources all dated before
    the next one's), so a passing mention of a predecessor, or another country's prime minister
    on the same day, leaves the single answer as it was. Sentences under the period floor's
    share of the best one are not read.
    """
    if kind != "person" or not ranked or not content_words(question) & _NOUNS:
        return []
    best: dict[str, Candidate] = {}
    days: dict[str, list[str]] = {}
    for c in ranked:
        if off_subject(c, ranked) or not c.source.date:
            continue
        name = holder(c, question)
        if not name:
            continue
        key = _surname(name)
        best.setdefault(key, c)
        days.setdefault(key, []).append(c.source.date[:10])
    if len(best) < 2:
        return []
    spans = sorted((min(d), max(d), key) for key, d in days.items())
    if any(earlier[1] >= later[0] for earlier, later in zip(spans, spans[1:])):
        return []
    return [best[key] for _, _, key in spans]


def _finer_than_year(c: Candidate) -> bool:
    """Does the sentence name a month or a day (or a day relative to when it was said)?"""
    return any(month or day for _, month, day in dates(c.sentence)) or \
        reported_when(c.sentence, c.source.date) is not None


def _salience(c: Candidate, question: str) -> int:
    """How often the source mentions the people a sentence names (by any part of the name)."""
    counts = [max(len(re.findall(rf"\b{re.escape(part)}\b", c.source.passage)) for part in name.split())
              for name in _new_names(c.sentence, question)]
    return max(counts, default=0)


# A sentence whose subject is a pronoun, after at most a short opening phrase ("Tuesday night,")
_PRONOUN_SUBJECT = re.compile(r"^\W*(?:[^,.;:]{1,30},\s*)?(?:he|she|they)\b", re.I)


def _story(c: Candidate, ranked: Sequence[Candidate]) -> Candidate:
    """For a headline, its story's best sentence (the headline itself when the source has none
    to quote); any other sentence is its own story."""
    if c.position != HEADLINE:
        return c
    return next((o for o in ranked if o.source is c.source and o.position != HEADLINE), c)


def extract(question: str, ranked: Sequence[Candidate], *, mode: str | None = None,
            kind: str | None = None, groups: Sequence[str] | None = None,
            full: str | None = None) -> list[Candidate]:
    """The sentences the quoted answer consists of.

    One per period block for comparisons and evolution (in block order), so each period is
    answered from its own sources. Otherwise the best sentence; when it lacks what the answer
    type asks for (no person, no figure), the best one from the same source that has it. An
    open question ("what did X say about Y") gets a short excerpt: the best sentence and the
    source's other strong ones, in the order they were said, and a second source when it is
    nearly as good. A headline that answers best is shown above its story's best sentence.
    `full` is the question as asked, as for `rank`.
    """
    if not ranked:
        return []
    full = full or question
    kind = kind if kind is not None else answer_type(full)
    if mode in ("comparison", "evolution") and groups:
        picks = []
        # the names the question gives ("Israel", "Gaza", "NHS"): a name has no synonym
        subject = content_words(" ".join(re.findall(r"(?<!^)(?<![.?!] )\b[A-Z][\w'’-]+",
                                                    question))) - _NOT_SUBJECT
        best_of = {g: [c for c in ranked if c.source.group == g and not off_subject(c, ranked)]
                   for g in groups}
        said = {id(c): content_words(c.sentence) for g in groups for c in best_of[g]}
        told = any(subject & words for words in said.values())
        about = content_words(question) - _NOT_ABOUT
        for g in groups:
            # The period's best line that speaks of the subject when another period's does:
            # "The UK has lost its clear global leadership position on climate action" shares
            # only "UK" and "position" with "How did the UK position on Israel and Gaza evolve?"
            lines = [c for c in best_of[g] if not told or subject & said[id(c)]]
            if not lines:
                continue  # a period with nothing on the subject is left out, not misquoted
            # of the lines nearly as good, the one that says most of what was asked about:
            # 2010's "Total NHS spending will rise…" shares only "spending" with "Trend in
            # defence spending", "spending 2 per cent of GDP on defence" both words
            near = [c for c in lines[1:] if c.score >= PERIOD_NEAR * lines[0].score
                    and not _ASKS.search(c.sentence)]
            first = max(lines[:1] + near, key=lambda c: len(about & said[id(c)]))
            picks.append(first)
            # a period whose best line is a headline is quoted from the story under it
            story = _story(first, ranked)
            if story is not first:
                picks.append(story)
        if picks:
            return picks
    best = ranked[0]
    top = _story(best, ranked)  # a headline says what the story is; the quote comes from it
    picks = [top] + ([best] if best is not top else [])
    if kind == "person" and _PRONOUN_SUBJECT.match(top.sentence):
        # "Tuesday night, he picked up his first Hart Trophy" answers "who?" only with the
        # sentence before it, which says who "he" is
        before = next((c for c in ranked if c.source is top.source
                       and c.position == top.position - 1 >= 0), None)
        if before is not None:
            picks.append(before)
    rest = [c for c in ranked if all(c is not p for p in picks)]
    if kind is not None:
        if not any(_holds(p, full, kind) for p in picks):
            typed = [c for c in rest if _holds(c, full, kind)]
            if kind == "person" and content_words(full) & _NOUNS:
                typed = [c for c in typed if office_holder(c.sentence, full) is not None
                         or _speaks_as_asked(content_words(full), c.source)]
            if kind == "person":
                # Of the source's good sentences that name someone, the one naming whom the
                # source talks about most: a tribute says "Verlie" ten times, "Las Vegas" once.
                good = [c for c in typed if c.score >= 0.6 * top.score]
                typed = sorted(good, key=lambda c: -_salience(c, full)) + \
                    [c for c in typed if c not in good]
            if kind == "date" and not _YEAR_ASKED.search(asked(full)):
                # "from when?" asks for a day: "set to begin on 5 September", not "since 2006"
                typed.sort(key=lambda c: not _finer_than_year(c))
            same = next((c for c in typed if c.source is top.source), None)
            extra = same or (typed[0] if typed and typed[0].score >= 0.7 * top.score else None)
            if extra is not None:
                picks.append(extra)
        elif kind == "person" and gives(kind, top.sentence, full):
            # The best sentence names someone; a nearly as good one may name whom the sources
            # are about (a place or a passer-by is named once, the person honoured throughout).
            good = [c for c in rest if c.score >= 0.6 * top.score
                    and c.source is top.source and gives(kind, c.sentence, full)]
            pick = max(good, key=lambda c: _salience(c, full), default=None)
            if pick is not None and _salience(pick, full) > _salience(top, full):
                picks.append(pick)
        return picks
    words = sum(len(p.sentence.split()) for p in picks)
    for c in rest:
        # The sentence right after a quoted one usually carries its point on ("This issue, in
        # terms of … special needs …" after "for introducing the IDEA legislation"), so it
        # needs less to join than one from elsewhere in the speech.
        follows = any(c.position == p.position + 1 for p in picks)
        if c.source is top.source and c.sentence != top.sentence \
                and c.score >= (JOIN_NEXT if follows else JOIN) * best.score \
                and words + len(c.sentence.split()) <= EXCERPT_WORDS:
            picks.append(c)
            words += len(c.sentence.split())
        if len(picks) == 3:
            break
    second = next((c for c in rest if c.source.number != top.source.number
                   and c.sentence != top.sentence), None)
    # A second source nearly as good joins when it speaks of what was asked about: a Budget
    # speech on "the Government's NHS workforce plan" is no answer to "the government's
    # immigration policy".
    about = content_words(question) - _NOT_ABOUT - _NOT_TOPIC
    if second is not None and second.score >= 0.85 * best.score \
            and (not about or about & content_words(second.source.passage)):
        picks.append(second)
        # a second source's headline is quoted with its story too, as the first's is: "Hyundai
        # and Kia recall: Some SUVs should be parked outside over…" says why only in its story
        story = _story(second, ranked)
        if story is not second:
            picks.append(story)
    return picks


def quoted_answer(question: str, picks: Sequence[Candidate], *, kind: str | None = None,
                  labels: dict[str, str] | None = None) -> str:
    """The extractive answer's text: one line per source quoted, a period label before each in
    blocks."""
    kind = kind if kind is not None else answer_type(question)
    lines = []
    by_source: dict[int, list[Candidate]] = {}
    for c in picks:
        by_source.setdefault(id(c.source), []).append(c)
    for same in by_source.values():
        c = _excerpt(same)
        text = render_pick(c, question, kind)
        group = c.source.group
        if labels and group in labels:
            text = f"{labels[group]}: {text}"
        lines.append(text + ("" if text.endswith((".", "”")) else "."))
    return "\n".join(lines)
