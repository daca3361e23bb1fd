"""Answering a question, stage by stage: retrieve, sources, rank, quote, prompt, generate, gate.

The default model is tiny: it names people its sources never mention and copies the prompt's
source format with invented dates. So it is shown only the few source sentences that matter,
every sentence it writes passes the gate before it is streamed, and when none survives, or
there is no model, the answer is quoted from the best source sentences, cited and dated. Each
stage is a module of this package; `answer` calls them in order.
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import GenerationError
from ..models.generation import Generator, count_messages, load_generator
from ..settings import Settings
from ..temporal.calendar import iso_day
from ..text.labels import day_label, month_label, one_line, period_label
from . import prompt
from .events import Done, Event, Quoted, Retrieved, Token, Writing, beneath
from .gate import Gate, source_facts
from .hot import hot_note, lead, window
from .judge import judge as run_judge
from .judge import judge_note, kept_sources
from .kind import answer_type, asked_period, gate_kind
from .notes import notes
from .quote import choose, unmentioned_note
from .ranking import evidence, for_prompt, rank_query
from .sources import fetch_quotes, numbered, query_periods

if TYPE_CHECKING:
    from ..retrieval.modes import SearchResult

ANSWER_TOKENS = 160  # one to three sentences; past that a small model only wanders
# The model is stopped once this many of its sentences failed the gate with none passing: its
# later sentences fare no better, and the reader is waiting for the quoted answer.
GIVE_UP_AFTER = 2

log = logging.getLogger(__name__)

GeneratorSource = Generator | Callable[[], Generator] | None


def ask(index, question, *, as_of=None, generator: GeneratorSource = None,
        settings: Settings | None = None, k: int | None = None, mode: str | None = None,
        retriever=None, cancel: threading.Event | None = None,
        evidence_only: bool = False, judge: GeneratorSource = None) -> Iterator[Event]:
    """Answer a question from an index as a stream of events: Retrieved, Quoted, Token..., Done.

    Quoted is the answer quoted from the sources, known before the model starts; Writing
    events report the model's progress while its text waits for the gate; a Token is a checked
    sentence (or the quoted answer, repeated), ready to show.

    `generator` may be a Generator, a zero-argument factory, or None (the model from
    settings, loaded only when an answer is actually generated). Setting `cancel`, or
    Ctrl-C while the model runs, ends the stream with Done(stopped=True) and the text so far.
    `evidence_only` skips the model: the answer is quoted from the sources. A model that
    cannot be loaded or a prompt that cannot fit raises GenerationError before Retrieved.
    `judge` is the relevance judge's model (else `settings.judge`'s; none: no judge).
    """
    from ..retrieval.modes import search

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
    embedder = _embedder_of(index) if result.hits else None
    yield from answer(result, {c: t for c, (t, _) in quotes.items()}, generator=generator,
                      settings=settings, cancel=cancel, evidence_only=evidence_only,
                      roles={c: r for c, (_, r) in quotes.items()}, embedder=embedder,
                      judge=judge, _timings={"retrieval": retrieval}, _started=started)


def answer(result: SearchResult, passages: Mapping[int, str], *,
           generator: GeneratorSource = None, settings: Settings | None = None,
           cancel: threading.Event | None = None, evidence_only: bool = False,
           roles: Mapping[int, str] | None = None, embedder=None,
           judge: GeneratorSource = None, _timings: dict[str, float] | None = None,
           _started: float | None = None) -> Iterator[Event]:
    """The answer events for an already retrieved result (no database needed).

    `roles` maps chunk ids to the office their speaker speaks in; `embedder` ranks the
    source sentences by meaning (without one, by shared words); `judge` is the relevance
    judge's model (else `settings.judge`'s).
    """
    settings = settings or Settings()
    clock = _Clock(_started if _started is not None else time.perf_counter(), _timings)
    q = result.query
    about: dict[str, Any] = {"question": q.question, "mode": result.mode,
                             "as_of": q.as_of.isoformat(),
             "scope": result.scope.label() if result.scope is not None else None}
    empty = no_documents_message(result)
    if empty is not None:
        # Nothing to answer from: the model is not asked, so it cannot invent an answer.
        yield Retrieved(result, [])
        yield Token(empty)
        yield Done(empty, [], [], [], [], no_documents=True, timings=clock.done(), shown=empty,
                   **about)
        return
    gen = None if evidence_only else _resolve(generator, settings)
    judge_gen = _judge(judge, settings)
    clock.mark("load")
    sources = numbered(result, passages, roles)                                # sources
    verdicts = []
    if judge_gen is not None:                                                  # judge
        began = time.perf_counter()
        verdicts = run_judge(judge_gen, q.question, sources, budget=settings.judge_seconds)
        sources = kept_sources(sources, verdicts)
        clock.timings["judge"] = time.perf_counter() - began
    kind = answer_type(q.question)
    period = asked_period(q)
    ranked = rank_query(q, result.mode, sources, embedder=embedder, kind=kind)  # rank
    hot = window(result, sources) if settings.hot == "on" else None             # hot window
    led = lead(ranked, hot)  # the quote and the prompt; the Evidence lines stay as ranked
    messages = prompt.messages(result, for_prompt(led)) if gen is not None else []  # prompt
    prompt_tokens = _fits(gen, messages, settings)
    quote = choose(q, result.mode, led, sources, evidence(ranked),             # quote
                   kind=kind)
    by_block: dict[str | None, set[int]] = {}  # the sources the quote cites, by period block
    for c in quote.picks:
        by_block.setdefault(c.source.group, set()).add(c.source.number)
    picked = set().union(*by_block.values())  # ... all of them
    clock.mark("assembly")
    yield Retrieved(result, quote.sources)
    shown: list[str] = []
    if quote.unmentioned:
        # Said first, so nothing below reads as an answer about them.
        shown.append(unmentioned_note(quote.unmentioned))
        yield Token(shown[-1])
    told = [line for line in (hot_note(hot), judge_note(verdicts)) if line]
    quoted_event = Quoted(quote.shown, quote.evidence,
                          notes(result, quote.sources, by_block) + told)
    lead_text = "".join(shown) + quoted_event.shown  # on screen before the model writes a word
    if quoted_event.shown:
        yield quoted_event
    gate = Gate(source_facts(quote.sources), date_tags=q.intent != "none",     # gate
                wants=gate_kind(q.question, kind), quote=quote.text, holders=quote.holders,
                as_of=q.as_of.isoformat(), question=q.question, period=period,
                quoted_from=frozenset() if kind
                else frozenset(picked))
    stopped = False
    before = len(shown)
    if gen is not None:                                                        # generate
        stopped = yield from _generate(gen, messages, settings, cancel, clock, gate, shown)
    generated = "".join(shown[before:]).strip()
    quoted = not gate.claims and not stopped
    _log_outcome(gate, quoted and gen is not None)
    if quoted and quote.shown:
        shown.append(quote.shown)
        clock.first_shown()
        yield Token(quote.shown, repeat=True)
    cited = sorted(picked) if quoted \
        else sorted({c.source for c in gate.claims})
    yield Done("".join(shown), cited, sorted(gate.invalid_citations), quote.sources,
               quote.evidence, stopped=stopped, unsupported=not gate.claims, messages=messages,
               prompt_tokens=prompt_tokens, timings=clock.done(gate.claims),
               claims=list(gate.claims), dropped=list(gate.dropped), extractive=quoted,
               unmentioned=quote.unmentioned, shown=beneath(lead_text, generated),
               judged=verdicts, hot=hot, **about)


# -- the stages' helpers --------------------------------------------------------------------


def no_documents_message(result) -> str | None:
    """The plain statement for a question whose period holds no documents, else None.

    Applies to a point-in-time question with an empty period, a comparison whose every
    period is empty, and any question that found nothing at all.
    """
    if result.hits:
        return None
    q = result.query
    if result.mode == "hard_filter" and result.spoken_elsewhen:
        # what was said in the period is asked, and nothing was published in it; documents of
        # other times that speak of it are named, so "no documents" does not read as none at all
        label = period_label(q.start, q.end)
        named = "; ".join(f"{one_line(d['title'] or d['doc_id'])} ({day_label(day)})"
                          if (day := iso_day(d["date"])) else one_line(d["title"] or d["doc_id"])
                          for d in result.spoken_elsewhen)
        return (f"There are no documents published in {label} in this index. Published at "
                f"other times, these speak of {label}: {named}.")
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
        # Nearest in time among what the search found: not a claim that they answer it.
        text += " The nearest periods the search found documents in: " + ", ".join(parts) + "."
    elif result.mode == "hard_filter":
        text += " The search found no documents in any other period either."
    return text


def _resolve(generator: GeneratorSource, settings: Settings) -> Generator:
    if generator is None:
        return load_generator(settings)
    if hasattr(generator, "stream"):
        return generator  # type: ignore[return-value]  # a Generator, told apart by duck typing
    return generator()


def _judge(judge: GeneratorSource, settings: Settings) -> Generator | None:
    """The relevance judge's model: the one given, else the one settings name, else none."""
    if judge is not None:
        return _resolve(judge, settings)
    return load_generator(settings.replace(model=settings.judge)) if settings.judge else None


def _embedder_of(index):
    try:
        return index.embedder
    except Exception:  # noqa: BLE001 - ranking falls back to word overlap; retrieval already ran
        return None


def _fits(gen: Generator | None, messages: list[dict], settings: Settings) -> int:
    """The prompt's tokens; a GenerationError when they leave the model no room to answer."""
    if gen is None:
        return 0
    tokens = count_messages(gen, messages)
    if tokens > gen.n_ctx - settings.max_tokens:
        raise GenerationError(
            f"the question and its sources need {tokens} tokens, more than the "
            f"{gen.n_ctx - settings.max_tokens} the model's context leaves for the answer")
    return tokens


def _log_outcome(gate: Gate, fell_back: bool) -> None:
    for d in gate.dropped:
        log.info("not shown: %r (%s)", d.sentence, d.reason)
    if fell_back:
        log.info("no generated sentence survived the check: the answer is quoted")


class _Clock:
    """The answer's timings, in seconds from the start of `ask`: retrieval, load, assembly,
    first_token, first_shown, total, and the model's pieces per second."""

    def __init__(self, started: float, timings: dict[str, float] | None):
        self.started = started
        self.timings = dict(timings or {})

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def mark(self, stage: str) -> None:
        """The time a stage took: since retrieval for "load", since loading for "assembly"."""
        before = sum(self.timings.get(s, 0.0) for s in ("retrieval", "load"))
        self.timings[stage] = self.elapsed() - before

    def first_token(self) -> None:
        self.timings["first_token"] = self.elapsed()

    def first_shown(self) -> None:
        self.timings.setdefault("first_shown", self.elapsed())

    def done(self, claims=()) -> dict[str, float]:
        self.timings["total"] = self.elapsed()
        if "first_token" in self.timings and claims:
            gen_time = self.timings["total"] - self.timings["first_token"]
            if self.timings.get("pieces", 0) > 1 and gen_time > 0:
                self.timings["tokens_per_second"] = (self.timings["pieces"] - 1) / gen_time
        return self.timings


def _generate(gen: Generator, messages: list[dict], settings: Settings, cancel,
              clock: _Clock, gate: Gate, shown: list[str]):
    """Stream the model's answer through the gate, yielding each sentence that passes.

    Returns whether the answer was stopped by the user. The model is stopped as soon as the
    gate sees its output stop being an answer (a fake source list, a new question, a loop).
    """
    stopped = False
    pieces = 0
    if cancel is not None and cancel.is_set():
        return True  # cancelled before the model started
    stream = gen.stream(messages, max_tokens=min(settings.max_tokens, ANSWER_TOKENS),
                        temperature=settings.temperature, stop=prompt.STOP, cancel=cancel)

    def release(claims):
        for claim in claims:
            text = (" " if shown and not shown[-1].endswith("\n") else "") + claim.text
            shown.append(text)
            clock.first_shown()
            yield Token(text)

    try:
        for piece in stream:
            if pieces == 0:
                clock.first_token()
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
    clock.timings["pieces"] = pieces
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
