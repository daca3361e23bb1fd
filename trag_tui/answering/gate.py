"""The gate every generated sentence passes before a reader sees it.

A cited answer that contradicts its own source is the worst thing this product can do, because
people trust the citation. A small model writes "Bank Rate was 3.5% [1]" over a source whose
3.5 per cent is unemployment, or names a Prime Minister none of its sources mention. So each
sentence the model completes is checked on its own: its numbers (units normalised), dates and
names must all occur in ONE sentence of a source it cites (or, when it cites none, of any
source, which it is then attached to), and that sentence must be about the same thing (it
shares most of the claim's words). A supported sentence must also give what the question asks
for (a person, a figure, a date, a place) and the same one as the quoted answer. A sentence
that fails is dropped with its reason; the stream is cut where the model starts a fake source
list, a new question, or a repetition loop. The checks are plain functions of text, so they
hold for any model, however strong; the words they read are English (`lexicon_en`).
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..temporal.calendar import iso_day
from ..temporal.mentions import DatePart, date_matches, dates
from ..text.labels import day_label
from ..text.sentences import quotable, split
from ..text.words import tokens
from . import lexicon_en as en
from .facts import Quantity, atoms, dated, names, quantities
from .kind import WANTED, agrees, gives

# -- sources as sentences -------------------------------------------------------------------


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


def source_facts(sources: Iterable) -> list[SourceFacts]:
    """The gate's view of numbered sources (anything with number, date, passage and heading)."""
    out = []
    for s in sources:
        heading = " ".join(x for x in (getattr(s, "speaker", ""), getattr(s, "role", ""),
                                       getattr(s, "title", "")) if x)
        out.append(SourceFacts(s.number, s.date, heading, s.passage))
    return out


# -- the check -------------------------------------------------------------------------------

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
    attributed = any(w in en.SAYING for w in tokens(claim))
    if sum(1 for a in claim_atoms if not a.startswith("#")) < MIN_ATOMS:
        return Verdict(False, "states nothing the sources can confirm")
    negated = bool(en.NEGATION.search(claim))
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
        if negated and not en.NEGATION.search(s.text):
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
_TOKEN = re.compile(r"\w+", re.UNICODE)
MAX_SENTENCE_WORDS = 80


def cut_point(text: str) -> int | None:
    """Where model output stops being an answer: a fake source list, a new question, a loop."""
    cut = None
    m = en.FAKE_LISTING.search(text)
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


@dataclass
class Gate:
    """Checks model output sentence by sentence as it streams.

    `feed` takes the next piece of output and returns the claims that completed and passed;
    `done` is set once the output stopped being an answer (the caller stops the model), and
    `finish` checks the last sentence. Dropped sentences and invalid citations are recorded.
    """

    sources: Sequence[SourceFacts]
    date_tags: bool = True
    # What a question that wants a person, a figure, a date or a place asks for (`kind.gate_kind`):
    # a supported sentence that gives none ("As Prime Minister I have said…" for "Who is the
    # Prime Minister?") is true but no answer, and the quoted answer serves the reader better;
    # one that gives another than the quote (`quote`, `holders`) is dropped too (`kind.agrees`).
    wants: str | None = None
    quote: str = ""
    holders: Sequence[str] = ()
    as_of: str | None = None  # the day the question is asked: "last week" in a claim is a date
    # The period a question asks the state or figure of ("about" in the contract): a claim from
    # a source published outside it is dated by both times.
    period: tuple[dt.date, dt.date] | None = None
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
        self._asked = set(atoms(self.question)) if en.OPEN_QUESTION.match(self.question) else None
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
        bare = en.LEAD_IN.sub("", body)
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
        wanted = WANTED.get(self.wants or "", "") or "answer"
        if self.wants and not gives(self.wants, body, self.question, self.as_of):
            self.dropped.append(Dropped(body, f"supported, but gives no {wanted} "
                                              "the question asks for"))
            return None
        if self.wants and not agrees(self.wants, body, self.quote, self.question,
                                     every=self.holders):
            self.dropped.append(Dropped(body, f"supported, but gives another {wanted} "
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
        two = dated(support, said)
        if self.date_tags and said and two is not None:
            # Both times: the date of what the claim reports, the one its source sentence names
            # if any, and the day the source was published when that is another.
            label = two.spoken.label if two.spoken else day_label(two.said)
            published = two.published(self.period)
            if published != day_label(two.said):  # "published …": another time, or outside
                text += f" ({label}; {published})" if two.elsewhen and label not in core \
                    else f" ({published})"
            elif label not in core and said not in core:
                text += f" ({label})"
        return text + end
