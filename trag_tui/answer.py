"""Answering a question: retrieval, the prompt, the checked answer, and what backs it.

The CLI, the chat app and the tests all consume the same stream of events from `ask`, so
cancelling, citing and the no-documents rule behave the same everywhere. The default model is
tiny: it names people its sources never mention and copies the prompt's source format with
invented dates. So it is shown only the few source sentences that matter, every sentence it
writes passes the grounding gate (trag_tui.grounding) before it is streamed, and when none
survives, or there is no model, the answer is quoted from the best source sentences, cited and
dated (trag_tui.extractive). Each answer also carries a short Evidence section.
"""
from __future__ import annotations

import contextlib
import logging
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from . import extractive
from .context import (
    STOP,
    Source,
    build_context,
    fetch_quotes,
    month_label,
    period_label,
    query_periods,
    sentence_messages,
)
from .errors import GenerationError
from .grounding import Claim, Dropped, Gate, source_facts
from .models.generation import Generator, count_messages, load_generator
from .settings import Settings

EVIDENCE_LINES = 4
EVIDENCE_WORDS = 45
NO_CITATION_NOTE = ("No generated sentence passed the check against the sources; the answer "
                    "above is quoted from them.")
NO_MODEL_NOTE = "No model was used; the answer above is quoted from the sources."
CONTEXT_SENTENCES = 6  # what a small model is shown
ANSWER_TOKENS = 160  # one to three sentences; past that a small model only wanders
# The model is stopped once this many of its sentences failed the gate with none passing: its
# later sentences fare no better, and the reader is waiting for the quoted answer.
GIVE_UP_AFTER = 2
SOURCE_WINDOW = 320  # estimated tokens of each source's passage kept around its match
UNBOUNDED = 10**9
PER_SOURCE = 2

if TYPE_CHECKING:
    from .retrieval.modes import SearchResult

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EvidenceLine:
    """One sentence quoted from a source, with the source's number and date."""

    number: int
    date: str | None
    sentence: str


@dataclass(frozen=True)
class Retrieved:
    """Retrieval is done: the search result and the numbered sources the answer may cite."""

    result: SearchResult
    sources: list[Source]


@dataclass(frozen=True)
class Token:
    """A piece of answer text, already cleaned of invalid citations."""

    text: str


@dataclass(frozen=True)
class Writing:
    """The model is writing: how many pieces so far (its text waits for the gate)."""

    pieces: int


@dataclass(frozen=True)
class Done:
    """The finished (or stopped) answer; `answer` equals the concatenated Token texts."""

    answer: str
    citations: list[int]
    invalid_citations: list[int]
    sources: list[Source]
    evidence: list[EvidenceLine]
    no_documents: bool = False
    stopped: bool = False
    unsupported: bool = False  # no generated sentence survived the gate
    messages: list[dict] = field(default_factory=list)  # the prompt sent (empty: no model call)
    prompt_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    claims: list[Claim] = field(default_factory=list)  # generated sentences that passed
    dropped: list[Dropped] = field(default_factory=list)  # generated sentences not shown
    extractive: bool = False  # the answer is quoted from the sources
    question: str = ""
    mode: str = ""
    as_of: str | None = None
    scope: str | None = None  # who the question named, when retrieval kept to them
    unmentioned: list[str] = field(default_factory=list)  # names the question gives, in no source

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (without the prompt): what `ask --json` prints and history keeps."""
        return {
            "question": self.question, "mode": self.mode, "as_of": self.as_of,
            "scope": self.scope,
            "answer": self.answer, "extractive": self.extractive,
            "citations": self.citations,
            "invalid_citations": self.invalid_citations,
            "no_documents": self.no_documents, "stopped": self.stopped,
            "unsupported": self.unsupported, "unmentioned": self.unmentioned,
            "claims": [c.to_dict() for c in self.claims],
            "dropped": [d.to_dict() for d in self.dropped],
            "evidence": [{"number": e.number, "date": e.date, "sentence": e.sentence}
                         for e in self.evidence],
            "sources": [s.to_dict() for s in self.sources],
            "prompt_tokens": self.prompt_tokens,
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }


Event = Retrieved | Writing | Token | Done


# -- citations ------------------------------------------------------------------------------

_CITE = re.compile(r"([ \t]*)\[(\s*\d{1,3}(?:\s*[,;]\s*\d{1,3})*\s*)\]")
# A tail that may still turn out to be (the whitespace before) a citation: hold it back.
_HOLD = re.compile(r"\s*(?:\[[\d,;\s]{0,16})?\Z")


class CitationFilter:
    """Checks `[n]` citations in streamed text against the numbered sources, as it streams.

    A citation of a number the context does not have is removed (with the space before it)
    and recorded; text is held back only while a citation may still be forming, so what is
    emitted never needs retracting and the pieces add up to the final answer exactly.
    """

    def __init__(self, valid: set[int]):
        self.valid = valid
        self.cited: list[int] = []
        self.invalid: list[int] = []
        self._pending = ""
        self._started = False

    def _replace(self, m: re.Match) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", m.group(2))]
        good = [n for n in numbers if n in self.valid]
        for n in numbers:
            bucket = self.cited if n in self.valid else self.invalid
            if n not in bucket:
                bucket.append(n)
        if not good:
            return ""
        if len(good) == len(numbers):
            return m.group(0)
        return m.group(1) + "[" + ", ".join(str(n) for n in good) + "]"

    def feed(self, text: str) -> str:
        """Take the next piece of model output; return the part that is safe to show."""
        buf = _CITE.sub(self._replace, self._pending + text)
        hold = _HOLD.search(buf)
        cut = hold.start() if hold else len(buf)
        out, self._pending = buf[:cut], buf[cut:]
        return self._emit(out)

    def flush(self) -> str:
        """The end of output: anything held that is not trailing whitespace."""
        rest, self._pending = self._pending, ""
        return self._emit(rest.rstrip())

    def _emit(self, out: str) -> str:
        if not self._started:
            out = out.lstrip()
            self._started = bool(out)
        return out


def check_citations(text: str, valid: set[int]) -> tuple[str, list[int], list[int]]:
    """Text with invalid citations removed, the valid numbers cited, and the invalid ones."""
    f = CitationFilter(valid)
    cleaned = f.feed(text) + f.flush()
    return cleaned, sorted(f.cited), sorted(f.invalid)


# -- evidence -------------------------------------------------------------------------------

def _shorten(sentence: str, words: int = EVIDENCE_WORDS) -> str:
    parts = sentence.split()
    return sentence if len(parts) <= words else " ".join(parts[:words]) + "…"


def _blocks_first(ranked: Sequence[extractive.Candidate]) -> list[extractive.Candidate]:
    """The same sentences with the first of each period block moved to the front, so the
    prompt and the evidence cover every period an evolution or comparison answer speaks of."""
    firsts: list[extractive.Candidate] = []
    seen: set[str] = set()
    for c in ranked:
        g = c.source.group
        if g is not None and g not in seen:
            seen.add(g)
            firsts.append(c)
    return firsts + [c for c in ranked if not any(c is f for f in firsts)]


def evidence(ranked: Sequence[extractive.Candidate], limit: int = EVIDENCE_LINES) -> list[EvidenceLine]:
    """The best sentence of each of the top sources (one per source), in source order.

    The sentence is the one the answer ranking puts first for its source; sources are taken
    by retrieval score, every period block's best first. A source whose best line scores
    under the period floor's share of the best line of all has nothing to show for this
    question (a 1997 speech about a NATO trip under a question on climate targets), as the
    answer itself leaves such a period out.
    """
    best: dict[int, extractive.Candidate] = {}
    for c in ranked:
        if extractive.off_subject(c, ranked):
            break  # ranked is best first: every later line scores lower still
        best.setdefault(c.source.number, c)
    by_score = sorted(best.values(), key=lambda c: (-c.source.score, c.source.number))
    out: list[EvidenceLine] = []
    seen_text: set[str] = set()
    for c in _blocks_first(by_score):
        key = c.sentence.lower()
        if key in seen_text:
            continue  # near-duplicate sources quote the same sentence
        seen_text.add(key)
        out.append(EvidenceLine(c.source.number, c.source.date, _shorten(c.sentence)))
        if len(out) >= limit:
            break
    return sorted(out, key=lambda e: e.number)


# -- no documents ---------------------------------------------------------------------------


def no_documents_message(result) -> str | None:
    """The plain statement for a question whose period holds no documents, else None.

    Applies to a point-in-time question with an empty period, a comparison whose every
    period is empty, and any question that found nothing at all.
    """
    if result.hits:
        return None
    q = result.query
    if result.mode == "hard_filter":
        text = f"There are no documents from {period_label(q.start, q.end)} in this index."
        if q.start is not None and q.start > q.as_of:
            text += f" That period starts after the as-of date, {q.as_of.isoformat()}."
    elif result.mode == "comparison":
        labels = [period_label(a, b) for a, b in query_periods(result)]
        text = f"There are no documents from {' or '.join(labels)} in this index."
    else:
        return "No documents in this index match the question."
    near = result.nearest or []
    if near:
        parts = [f"{month_label(n['month'])} ({n['side']})" for n in near]
        text += " The nearest periods with matching documents: " + ", ".join(parts) + "."
    elif result.mode == "hard_filter":
        text += " No other period has matching documents either."
    return text


# -- asking ---------------------------------------------------------------------------------


GeneratorSource = Generator | Callable[[], Generator] | None


def _resolve(generator: GeneratorSource, settings: Settings) -> Generator:
    if generator is None:
        return load_generator(settings)
    if hasattr(generator, "stream"):
        return generator  # type: ignore[return-value]  # a Generator, told apart by duck typing
    return generator()


def ask(index, question, *, as_of=None, generator: GeneratorSource = None,
        settings: Settings | None = None, k: int | None = None, mode: str | None = None,
        retriever=None, cancel: threading.Event | None = None,
        evidence_only: bool = False) -> Iterator[Event]:
    """Answer a question from an index as a stream of events: Retrieved, Token..., Done.

    Writing events report the model's progress while its text waits for the gate; a Token is
    a checked sentence (or the quoted answer), ready to show.

    `generator` may be a Generator, a zero-argument factory, or None (the model from
    settings, loaded only when an answer is actually generated). Setting `cancel`, or
    Ctrl-C while the model runs, ends the stream with Done(stopped=True) and the text so far.
    `evidence_only` skips the model: the answer is quoted from the sources. A model that
    cannot be loaded or a prompt that cannot fit raises GenerationError before Retrieved (the
    sources are numbered with the model's own tokenizer, so they wait for it).
    """
    from .retrieval.modes import reported_later, search

    if not isinstance(question, str) or not question.strip():
        raise ValueError("the question is empty")
    settings = settings or index.settings
    started = time.perf_counter()
    result = search(index, question, as_of=as_of, k=k or settings.k, mode=mode,
                    settings=settings, retriever=retriever)
    quotes = fetch_quotes(index.conn, result.hits)
    retrieval = time.perf_counter() - started
    log.info("%s: %s; %d sources in %.0f ms", result.mode, result.reason, len(result.hits),
             retrieval * 1000)
    later = None
    if result.hits and extractive.answer_type(result.query.question) == "number":
        # a past period's figure may be given only by a source dated after it
        found = reported_later(index, result, k or settings.k, settings, retriever)
        if found is not None and found.hits:
            got = fetch_quotes(index.conn, found.hits)
            later = Later(found, {c: t for c, (t, _) in got.items()},
                          {c: r for c, (_, r) in got.items()})
        retrieval = time.perf_counter() - started
    embedder = _embedder_of(index) if result.hits else None
    yield from answer(result, {c: t for c, (t, _) in quotes.items()}, generator=generator,
                      settings=settings, cancel=cancel, evidence_only=evidence_only,
                      roles={c: r for c, (_, r) in quotes.items()}, embedder=embedder,
                      later=later, _timings={"retrieval": retrieval}, _started=started)


def _embedder_of(index):
    try:
        return index.embedder
    except Exception:  # noqa: BLE001 - ranking falls back to word overlap; retrieval already ran
        return None


@dataclass(frozen=True)
class Later:
    """Sources dated after a past period asked about (`reported_later`), with their passages."""

    result: Any
    passages: Mapping[int, str]
    roles: Mapping[int, str]


def answer(result, passages: Mapping[int, str], *, generator: GeneratorSource = None,
           settings: Settings | None = None, cancel: threading.Event | None = None,
           evidence_only: bool = False, roles: Mapping[int, str] | None = None,
           embedder=None, later: Later | None = None, _timings: dict[str, float] | None = None,
           _started: float | None = None) -> Iterator[Event]:
    """The answer events for an already retrieved result (no database needed).

    `roles` maps chunk ids to the office their speaker speaks in; `embedder` ranks the
    source sentences by meaning (without one, by shared words). `later` may give a figure
    asked for in a past period that none of the period's own sources gives.
    """
    settings = settings or Settings()
    started = _started if _started is not None else time.perf_counter()
    timings = dict(_timings or {})
    q = result.query
    scope = result.scope
    about = {"question": q.question, "mode": result.mode, "as_of": q.as_of.isoformat(),
             "scope": scope.label() if scope is not None else None}

    def elapsed() -> float:
        return time.perf_counter() - started

    empty = no_documents_message(result)
    if empty is not None:
        # Nothing to answer from: the model is not asked, so it cannot invent an answer.
        yield Retrieved(result, [])
        yield Token(empty)
        timings["total"] = elapsed()
        yield Done(empty, [], [], [], [], no_documents=True, timings=timings, **about)
        return

    gen = None if evidence_only else _resolve(generator, settings)
    timings["load"] = elapsed() - timings.get("retrieval", 0.0)
    # The model reads a few sentences, not the passages, so the numbered sources need no
    # prompt budget: each keeps a window of its passage around the match, the same with or
    # without a model, and that is what is ranked, quoted and checked against.
    sources = _windowed(result, passages, roles)
    question = q.semantic_query or q.question
    kind = extractive.answer_type(q.question)
    ranked = extractive.rank(question, sources, mode=result.mode, embedder=embedder, kind=kind,
                             full=q.question, as_of=q.as_of)
    lines = evidence(ranked)
    picks = _context_picks(ranked)
    messages = sentence_messages(result, picks) if gen is not None else []
    if gen is not None:
        prompt_tokens = count_messages(gen, messages)
        if prompt_tokens > gen.n_ctx - settings.max_tokens:
            raise GenerationError(
                f"the question and its sources need {prompt_tokens} tokens, more than the "
                f"{gen.n_ctx - settings.max_tokens} the model's context leaves for the answer")
    else:
        prompt_tokens = 0
    # The quoted answer is chosen before the model runs: it is what a generated sentence must
    # agree with to be shown, and what is shown when none is.
    groups = [g for g in dict.fromkeys(s.group for s in sources) if g]
    # An office asked about over a period may have changed hands in it: each holder is quoted.
    turns = extractive.succession(q.question, ranked, kind) if result.mode == "hard_filter" else []
    holders = [name for c in turns if (name := extractive.holder(c, q.question))]
    picks_ = turns or extractive.extract(question, ranked, mode=result.mode, kind=kind,
                                         groups=groups, full=q.question)
    labels = {g: (g.capitalize() + " sources" if result.mode == "evolution" else g)
              for g in groups}
    quote = extractive.quoted_answer(q.question, picks_, kind=kind, labels=labels)
    given = None
    if later is not None and q.intent == "point_in_time" and q.start and q.end and ranked \
            and not turns:
        given = _given_later(later, question, q, kind, embedder, len(sources) + 1,
                             extractive.PERIOD_FLOOR * ranked[0].score)
    # the quoted figure is dated to another time than the one asked about
    elsewhen = q.intent == "point_in_time" and extractive.figure_elsewhen(picks_, kind, q.start,
                                                                          q.end)
    lacking = elsewhen or extractive.no_figure(picks_, kind, q.question)
    if given is not None:
        # Said to be dated later: first when the period's own sources give no figure for it or
        # a worse answer than it, after their quote otherwise.
        better = given.score > max((c.score for c in picks_), default=0.0)
        sources = [*sources, given.source]
        period = period_label(q.start, q.end)
        told = extractive.quoted_answer(q.question, [given], kind=kind)
        if lacking or better:
            quote = (later_note(period, lacking) + told + f"\nFrom {period} itself, the closest "
                     f"the sources come:\n{quote}")
        else:
            quote = f"{quote}\nGiven later, by a source dated after {period}:\n{told}"
        picks_ = [*picks_, given]
        lines = [*lines, EvidenceLine(given.source.number, given.source.date,
                                      _shorten(given.sentence))]
    timings["assembly"] = elapsed() - timings["load"] - timings.get("retrieval", 0.0)
    yield Retrieved(result, sources)
    missing = extractive.unmentioned(q.question, sources)
    shown: list[str] = []
    if missing:
        # Said first, so nothing below reads as an answer about them.
        note = unmentioned_note(missing)
        shown.append(note)
        yield Token(note)

    wants = extractive.gate_kind(q.question, kind)
    gate = Gate(source_facts(sources), date_tags=q.intent != "none",
                answers=(lambda text: extractive.gives(wants, text, q.question, q.as_of.isoformat()))
                if wants else None,
                agrees=(lambda text: extractive.agrees(wants, text, quote, q.question, every=holders))
                if wants else None,
                wanted=extractive.WANTED.get(wants or "", ""), question=q.question,
                quoted_from=frozenset() if kind
                else frozenset(c.source.number for c in picks_))
    stopped = False
    if gen is not None:
        stopped = yield from _generate(gen, messages, settings, cancel, timings, elapsed, gate,
                                       shown)
    quoted = not gate.claims and not stopped
    for d in gate.dropped:
        log.info("not shown: %r (%s)", d.sentence, d.reason)
    if quoted and gen is not None:
        log.info("no generated sentence survived the check: the answer is quoted")
    if quoted:
        text = quote
        if text and turns:
            text = succession_note(len(turns), period_label(q.start, q.end)) + text
        elif text and not missing and extractive.holder_unnamed(q.question, picks_, kind):
            # the quote speaks of the office asked about but names no one holding it
            text = closest_note("names who held that office") + text
        elif text and given is None and elsewhen:
            text = closest_note(f"gives the figure for {period_label(q.start, q.end)}") + text
        if text:
            shown.append(text)
            timings.setdefault("first_shown", elapsed())
            yield Token(text)
        cited = sorted({c.source.number for c in picks_})
    else:
        cited = sorted({c.source for c in gate.claims})
    timings["total"] = elapsed()
    if "first_token" in timings and gate.claims:
        gen_time = timings["total"] - timings["first_token"]
        if timings.get("pieces", 0) > 1 and gen_time > 0:
            timings["tokens_per_second"] = (timings["pieces"] - 1) / gen_time
    yield Done("".join(shown), cited, sorted(gate.invalid_citations), sources, lines,
               stopped=stopped, unsupported=not gate.claims, messages=messages,
               prompt_tokens=prompt_tokens, timings=timings, claims=list(gate.claims),
               dropped=list(gate.dropped), extractive=quoted, unmentioned=missing, **about)


def _context_picks(ranked: Sequence[extractive.Candidate]) -> list[tuple[Source, str]]:
    """The best sentences for the prompt, a few per source, every period block represented."""
    picks: list[tuple[Source, str]] = []
    per: dict[int, int] = {}
    for c in _blocks_first(ranked):
        if len(picks) >= CONTEXT_SENTENCES:
            break
        if (c.source, c.sentence) in picks or per.get(c.source.number, 0) >= PER_SOURCE:
            continue
        picks.append((c.source, c.sentence))
        per[c.source.number] = per.get(c.source.number, 0) + 1
    return picks


def _generate(gen: Generator, messages: list[dict], settings: Settings, cancel, timings,
              elapsed, gate: Gate, shown: list[str]):
    """Stream the model's answer through the gate, yielding each sentence that passes.

    Returns whether the answer was stopped by the user. The model is stopped as soon as the
    gate sees its output stop being an answer (a fake source list, a new question, a loop).
    """
    stopped = False
    pieces = 0
    if cancel is not None and cancel.is_set():
        return True  # cancelled before the model started
    stream = gen.stream(messages, max_tokens=min(settings.max_tokens, ANSWER_TOKENS),
                        temperature=settings.temperature, stop=STOP, cancel=cancel)

    def release(claims):
        for claim in claims:
            text = (" " if shown and not shown[-1].endswith("\n") else "") + claim.text
            shown.append(text)
            timings.setdefault("first_shown", elapsed())
            yield Token(text)

    try:
        for piece in stream:
            if pieces == 0:
                timings["first_token"] = elapsed()
            pieces += 1
            yield Writing(pieces)
            yield from release(gate.feed(piece))
            if gate.done or (not gate.claims and len(gate.dropped) >= GIVE_UP_AFTER):
                break
            if cancel is not None and cancel.is_set():
                stopped = True
                break
    except KeyboardInterrupt:
        # Ctrl-C in the CLI lands here while llama.cpp runs: keep what was shown.
        stopped = True
    else:
        # A generator may end early on its own when cancelled (during prompt evaluation).
        stopped = stopped or (cancel is not None and cancel.is_set())
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    timings["pieces"] = pieces
    if not stopped:
        yield from release(gate.finish())
    return stopped


@contextlib.contextmanager
def sigint_cancels(cancel: threading.Event) -> Iterator[threading.Event]:
    """While inside, the first Ctrl-C sets `cancel` (the answer stops cleanly after the
    current token); a second Ctrl-C interrupts as usual. Only the main thread can do this;
    elsewhere it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield cancel
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum, frame):
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()

    signal.signal(signal.SIGINT, handler)
    try:
        yield cancel
    finally:
        signal.signal(signal.SIGINT, previous)


# -- rendering ------------------------------------------------------------------------------


def unmentioned_note(names: Sequence[str]) -> str:
    """The line that opens an answer whose sources never name who or what was asked about."""
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    return closest_note(f"mentions {listed}")


def succession_note(n: int, period: str) -> str:
    """The line before the quoted holders of an office that changed hands in the period."""
    return f"The sources of {period} name {n} holders of that office in turn, in date order:\n"


def _windowed(result, passages: Mapping[int, str], roles: Mapping[int, str] | None) -> list[Source]:
    """A result's numbered sources, each a window of its passage around the match: what is
    ranked, quoted and checked against, with or without a model."""
    return build_context(result, passages, n_ctx=UNBOUNDED, max_tokens=0, roles=roles,
                         source_tokens=SOURCE_WINDOW, context_tokens=UNBOUNDED).sources


def later_note(period: str, lacking: bool = True) -> str:
    """The line before a figure for a past period quoted from a source dated after it: first
    because the period's own sources give none, or because it answers better."""
    if lacking:
        return f"No source dated in {period} gives the figure for {period}; one dated later does:\n"
    return f"A source dated after {period} gives the figure for {period}:\n"


def _given_later(later: Later, question: str, q, kind: str | None, embedder, number: int,
                 floor: float) -> extractive.Candidate | None:
    """The sentence of a source dated after the period that gives its figure, numbered on
    after the period's own sources."""
    ranked = extractive.rank(question, _windowed(later.result, later.passages, later.roles),
                             mode="hard_filter", embedder=embedder, kind=kind, full=q.question,
                             as_of=q.as_of)
    c = extractive.given_later(q.question, ranked, q.start, q.end, floor)
    return None if c is None else replace(c, source=replace(c.source, number=number))


def closest_note(lacking: str) -> str:
    """The line before a quote that is the nearest the sources come to an answer."""
    return f"No source found {lacking}; the closest they come:\n"


def dropped_note(n: int) -> str:
    """What the reader is told of generated sentences the gate kept back (both shells)."""
    return (f"Not shown: {n} generated sentence{'s' if n > 1 else ''} that the check kept "
            "back: not stated by the sources, or not an answer to the question")


def render_answer(done: Done, *, with_answer: bool = True) -> str:
    """The answer, its Evidence and its Sources as Markdown-ish text for a terminal.

    `with_answer=False` leaves out the answer text, for a caller that already streamed it.
    """
    lines: list[str] = []
    if done.answer and with_answer:
        lines.append(done.answer)
    if done.stopped:
        lines += ["", "(stopped)"]
    if done.no_documents:
        return "\n".join(lines) + "\n"
    if done.extractive and not done.messages:
        lines += ["", NO_MODEL_NOTE]
    elif done.extractive:
        lines += ["", NO_CITATION_NOTE]
    if done.dropped:
        lines += ["", dropped_note(len(done.dropped)) + " (listed under `dropped` in --json)."]
    if done.invalid_citations:
        lines += ["", "Removed citations of sources that do not exist: "
                  + ", ".join(f"[{n}]" for n in done.invalid_citations) + "."]
    if done.evidence:
        lines += ["", "Evidence:"]
        for e in done.evidence:
            lines.append(f"- [{e.number}] {e.date or 'undated'}: \"{e.sentence}\"")
    if done.sources:
        lines += ["", "Sources:"]
        for s in done.sources:
            line = f"[{s.number}] {s.date or 'undated'} | {s.title or s.doc_id}"
            if s.speaker:
                line += f" | {s.speaker}"
            line += f" ({s.doc_id})"
            if s.also:
                line += " — also reported in: " + ", ".join(s.also)
            lines.append(line)
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines) + "\n"
