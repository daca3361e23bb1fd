"""The prompt an answer is written from: numbered, dated sources framed by the question's time.

A small model follows structure better than instructions, so the retrieval mode decides the
shape of the context (newest first when the present state is asked for, one block per period
when periods are compared, older then newer when change is asked for) and the instructions
only name that shape. The system prompt is one fixed text for every question so llama.cpp can
keep its KV cache; everything that varies goes in the user message. Sources are trimmed to a
token budget here, before the model sees them, so an over-long prompt fails with a clear
message instead of being cut blindly.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import GenerationError
from .models.generation import MESSAGE_OVERHEAD, estimate_tokens
from .temporal.calendar import iso_day
from .text import sentences
from .text.labels import MONTHS, day_label, month_label, period_label  # noqa: F401 (re-exported)

SYSTEM_PROMPT = (
    "You answer questions about dated documents using only the numbered sources in the "
    "user's message. Cite the sources you use by number in square brackets, like [1]. "
    "If the sources do not answer the question, say so. Keep the answer short."
)
# Where the model starts inventing a source list or a new question, the answer is over.
STOP = ["\nSources:", "\nSOURCES", "\nQuestion:"]
# Soft limits that keep prompts quick for a 135M model; the hard limit is n_ctx - max_tokens.
SOURCE_TOKENS = 120
CONTEXT_TOKENS = 1536
MIN_SOURCE_TOKENS = 40
GROUP_ORDER = ("older", "middle", "newer")

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Source:
    """One numbered source as the model and the reader see it."""

    number: int
    doc_id: str
    date: str | None
    title: str
    speaker: str
    passage: str
    also: tuple[str, ...] = ()
    group: str | None = None
    chunk_id: int = 0
    score: float = 0.0
    role: str = ""  # the office a speaker speaks in ("The Prime Minister"), where recorded

    def heading(self) -> str:
        """`date | title | speaker`, the line that introduces the source."""
        parts = [self.date or "undated", self.title or self.doc_id]
        if self.speaker:
            parts.append(self.speaker)
        return " | ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"number": self.number, "doc_id": self.doc_id, "date": self.date,
                "title": self.title, "speaker": self.speaker, "role": self.role,
                "group": self.group,
                "also": list(self.also), "chunk_id": self.chunk_id,
                "score": round(self.score, 6), "passage": self.passage}


@dataclass(frozen=True)
class Context:
    """The chat to send, the sources it numbers, and what the budget did to them."""

    messages: list[dict]
    sources: list[Source]
    prompt_tokens: int
    budget: int
    trimmed: bool = False  # some passages were shortened to fit
    dropped: tuple[str, ...] = ()  # doc_ids left out to fit


# -- periods --------------------------------------------------------------------------------


def query_periods(result) -> list[tuple[dt.date | None, dt.date | None]]:
    """The periods a comparison asks about, in the order the parsed question gives them."""
    periods = list(getattr(result.query, "periods", None) or [])
    if not periods and result.periods:
        periods = list(result.periods)
    if not periods:
        periods = [(result.query.start, result.query.end)]
    return [(iso_day(a), iso_day(b)) for a, b in periods]


# -- passages -------------------------------------------------------------------------------


def fetch_passages(conn, hits: Sequence[Any]) -> dict[int, str]:
    """The passage each hit is quoted with (its parent passage where one exists), one query."""
    return {cid: text for cid, (text, _) in fetch_quotes(conn, hits).items()}


def fetch_quotes(conn, hits: Sequence[Any]) -> dict[int, tuple[str, str]]:
    """For each hit: the passage it is quoted with, and the office its speaker speaks in."""
    ids = [h.chunk_id for h in hits]
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT c.id, coalesce(p.text, c.text), d.meta FROM chunks c "
        "LEFT JOIN chunks p ON p.id = c.parent_id JOIN documents d ON d.id = c.document_id "
        f"WHERE c.id IN ({marks})", ids).fetchall()
    out = {}
    for cid, text, meta in rows:
        out[cid] = (text, _role(meta))
    return {h.chunk_id: out.get(h.chunk_id, (h.text, "")) for h in hits}


def _role(meta: str | None) -> str:
    import json

    try:
        data = json.loads(meta or "{}")
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    role = data.get("speaker_office") or data.get("role") or ""
    return role if isinstance(role, str) else ""


# A Markdown heading ends at its line, which folding the whitespace would lose ("# Net migration:
# 283,000 in the year to September 2018 Net migration to the UK…" read as one sentence); it is
# closed the way Markdown allows, "# Heading #", so the sentence splitter still sees its end.
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]+[^\s#]")


def _close_headings(text: str) -> str:
    if "#" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if _HEADING.match(line):
            lines[i] = line.rstrip(" \t#") + " #"
    return "\n".join(lines)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", _close_headings(text or "")).strip()


def window(passage: str, chunk: str, limit: int, count: TokenCounter) -> tuple[str, bool]:
    """At most `limit` tokens of a passage, centred on the chunk that matched, after the
    passage's opening sentence when that is short (`_with_lead`).

    Returns the text and whether it was shortened. Cuts fall on sentence ends where that
    keeps most of the text, and are marked with an ellipsis.
    """
    passage, chunk = _clean(passage), _clean(chunk)
    if not passage:
        passage = chunk
    if count(passage) <= limit:
        return passage, False
    words = passage.split(" ")
    anchor = passage.find(chunk[:80]) if chunk else -1
    first = len(passage[:anchor].split()) if anchor > 0 else 0
    n_chunk = len(chunk.split()) if anchor >= 0 and chunk else len(words)
    lo, hi = first, min(len(words), first + max(n_chunk, 1))

    def fits(a: int, b: int) -> bool:
        return count(_join(words, a, b)) <= limit

    # Shrink the matched chunk from its end until it fits, then grow around it.
    if not fits(lo, lo + 1):
        return "…", True
    starts: list[int] = []
    if not fits(lo, hi):
        good, bad = lo + 1, hi
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if fits(lo, mid) else (good, mid)
        hi = good
    else:
        n = len(words)
        # Grow evenly on both sides, then into whichever side still has room; each step is a
        # binary search so a long parent costs a few tokenizer calls, not one per word.
        e = _largest(max(lo, n - hi), lambda e: fits(max(0, lo - e), min(n, hi + e)))
        lo, hi = max(0, lo - e), min(n, hi + e)
        hi += _largest(n - hi, lambda r: fits(lo, hi + r))
        lo -= _largest(lo, lambda left: fits(lo - left, hi))
        starts = _sentence_starts(passage) if lo > 0 else []
        lo, hi = _sentence_start(starts, lo, hi, first, min(hi, first + n_chunk), fits)
    text = _sentence_cut(_join(words, lo, hi))
    if lo > 0 and lo in (starts or _sentence_starts(passage)):
        text = "… " + text[1:]  # a whole first sentence: "… " where "…word" is a cut one
    return _with_lead(passage, text, limit, count), True


LEAD_SHARE = 4  # a passage's opening sentence is kept before its window when within 1/4 of it
OPENING_CHARS = 1000  # read for the opening sentence: ~250 tokens, more than a quarter window


def _with_lead(passage: str, text: str, limit: int, count: TokenCounter) -> str:
    """A window that starts past the passage's opening sentence, with that sentence before it.

    A report or a news story says its point first ("More than a million people in Puerto Rico
    … are without power … disabled by Hurricane Fiona"), and a match further down (the
    restoration figures) would leave it out. The opening sentence is added on top of the
    window's limit when it is short (at most a quarter of it), followed by " … " and the
    window from its first whole sentence, so it is quoted and checked as its own sentence
    (without the " … " when the window's first sentence is the one after the opening).
    """
    if not text.startswith("…"):
        return text
    # the opening is in the passage's first characters (a longer one is too long to keep)
    opening = sentences.split(passage[:OPENING_CHARS])[:1]
    if not opening or count(opening[0]) > limit // LEAD_SHARE or not passage.startswith(opening[0]):
        return text
    rest = text[1:].lstrip()
    if not text.startswith("… "):
        # a cut sentence first: the window goes on from the sentence after it
        parts = sentences.split(rest)
        if len(parts) < 2:
            return text
        rest = rest[rest.find(parts[1]):] if parts[1] in rest else ""
        if not rest:
            return text
    if passage[len(opening[0]):].lstrip().startswith(rest[:80]):
        return f"{opening[0]} {rest}"  # the window goes on from the opening: nothing between
    return f"{opening[0]} {sentences.GAP} {rest}"


def _sentence_starts(passage: str) -> list[int]:
    """The word offsets where the passage's sentences start (empty when the segmenter's
    sentences do not add up to the passage's words)."""
    starts, at = [], 0
    for part in sentences.split(passage):
        starts.append(at)
        at += len(part.split())
    return starts if at == len(passage.split(" ")) else []


def _sentence_start(starts: list[int], lo: int, hi: int, first: int, last: int,
                    fits: Callable[[int, int], bool]) -> tuple[int, int]:
    """Move a window's start back to the start of the sentence it falls in, giving up words
    at the end instead, when the matched words (`first` up to `last`) stay inside; else
    forward to the next sentence.

    A window that starts mid-sentence loses that sentence: it cannot be quoted or checked
    against ("…LIHEAP, I want to thank … for introducing the IDEA legislation" was the very
    sentence a question about IDEA needed).
    """
    if not starts or lo in starts:
        return lo, hi
    back = max(s for s in starts if s < lo)
    end = back + _largest(hi - back, lambda r: fits(back, back + r))
    if end >= last and end - back >= 0.6 * (hi - lo):
        return back, end
    ahead = [s for s in starts if lo < s < hi]
    return (ahead[0], hi) if ahead and ahead[0] <= first else (lo, hi)


def _largest(upper: int, ok: Callable[[int], bool]) -> int:
    """The largest x in 0..upper with ok(x), for ok true at 0 and monotone."""
    good, bad = 0, upper + 1
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if ok(mid) else (good, mid)
    return good


def _join(words: list[str], a: int, b: int) -> str:
    text = " ".join(words[a:b])
    if a > 0:
        text = "…" + text
    if b < len(words):
        text = text + "…"
    return text


def _sentence_cut(text: str) -> str:
    """End a shortened passage at its last sentence end when that keeps most of it.

    The segmenter decides where sentences end, so "my right hon. Friend" is not an end.
    """
    if not text.endswith("…"):
        return text
    body = text[:-1]
    parts = sentences.split(body)
    if len(parts) < 2:
        return text
    kept = " ".join(parts[:-1])
    # The last piece is the cut-off sentence; keep what precedes it if that is most of it.
    if len(kept) >= 0.7 * len(body) and kept.rstrip().endswith((".", "!", "?", "\"", "'", ")")):
        start = 1 if body.startswith("…") else 0
        return ("…" if start else "") + kept.lstrip("…")
    return text


# -- ordering -------------------------------------------------------------------------------


def _newest_first(h) -> tuple:
    return (h.date is None, _neg_date(h.date), -h.score)


def _neg_date(date: str | None) -> int:
    d = iso_day(date)
    return -d.toordinal() if d else 0


def _oldest_first(h) -> tuple:
    return (h.date is None, h.date or "", -h.score)


def _period_of(hit, periods: list[tuple[dt.date | None, dt.date | None]]) -> int | None:
    d = iso_day(hit.date)
    if d is None:
        return None
    for i, (a, b) in enumerate(periods):
        if (a is None or d >= a) and (b is None or d <= b):
            return i
    return None


def arrange(result) -> list[tuple[str | None, list[Any]]]:
    """The hits in the order the mode presents them, as (block label, hits) pairs.

    decay: newest first; hard_filter: date order; evolution: older, middle, newer blocks in
    date order; comparison: one block per period (empty periods kept, so the model can say
    so); hybrid: relevance order.
    """
    hits = list(result.hits)
    mode = result.mode
    if mode == "decay":
        return [(None, sorted(hits, key=_newest_first))]
    if mode == "hard_filter":
        return [(None, sorted(hits, key=_oldest_first))]
    if mode == "evolution":
        groups: dict[str, list[Any]] = {}
        for h in hits:
            groups.setdefault(h.group or "newer", []).append(h)
        names = [g for g in GROUP_ORDER if g in groups] + sorted(set(groups) - set(GROUP_ORDER))
        return [(g, sorted(groups[g], key=_oldest_first)) for g in names]
    if mode == "comparison":
        periods = query_periods(result)
        blocks: list[tuple[str | None, list[Any]]] = [(period_label(a, b), []) for a, b in periods]
        extra: dict[str, list[Any]] = {}
        for h in hits:
            i = _period_of(h, periods)
            if i is not None:
                blocks[i][1].append(h)
            else:
                extra.setdefault(h.group or "other", []).append(h)
        blocks += list(extra.items())
        return [(label, sorted(hs, key=_oldest_first)) for label, hs in blocks]
    return [(None, hits)]


# -- assembly -------------------------------------------------------------------------------


@dataclass
class _Draft:
    hit: Any
    group: str | None
    passage: str
    full: str
    trimmed: bool = False


def _render_source(number: int, d: _Draft) -> str:
    h = d.hit
    s = Source(number, h.doc_id, h.date, h.title, h.speaker, d.passage)
    lines = [f"[{number}] {s.heading()}", d.passage]
    if h.also:
        lines.append("(also reported in: " + ", ".join(h.also) + ")")
    return "\n".join(lines)


def _block_heading(mode: str, label: str | None, drafts: list[_Draft]) -> str | None:
    if label is None:
        return None
    if mode == "evolution":
        dates = sorted(d.hit.date for d in drafts if d.hit.date)
        span = f" ({dates[0]} to {dates[-1]})" if len(dates) > 1 and dates[0] != dates[-1] else (
            f" ({dates[0]})" if dates else "")
        return f"{label.upper()} PERIOD{span}:"
    return f"PERIOD {label}:"


def _user_message(result, blocks: list[tuple[str | None, list[_Draft]]]) -> str:
    """The varying part of the prompt: sources in the mode's order, then question and task."""
    q = result.query
    mode = result.mode
    question = _clean(q.question)
    parts: list[str] = []
    number = 0
    intro = {
        "decay": "Sources, newest first:",
        "hard_filter": f"Sources from {period_label(q.start, q.end)}, in date order:",
        "hybrid": "Sources, most relevant first:",
    }.get(mode)
    if intro:
        parts.append(intro)
    for label, drafts in blocks:
        heading = _block_heading(mode, label, drafts)
        rendered = []
        for d in drafts:
            number += 1
            rendered.append(_render_source(number, d))
        if heading is not None:
            body = "\n\n".join(rendered) if rendered else "No documents from this period."
            parts.append(heading + "\n" + body)
        else:
            parts.extend(rendered)
    if mode == "decay":
        task = (f"Today is {q.as_of.isoformat()}. Newer sources supersede older ones: where "
                "sources disagree, the newest is right.\n"
                f"Question: {question}\n"
                "Answer with the most recent information, citing sources like [1].")
    elif mode == "hard_filter":
        task = (f"The question is about {period_label(q.start, q.end)}; use only these sources.\n"
                f"Question: {question}\n"
                "Answer citing sources like [1].")
    elif mode == "evolution":
        task = (f"Question: {question}\n"
                "First say what the older sources say, then what the newer sources say, then "
                "what changed, citing sources like [1]. If nothing changed, say plainly that "
                "nothing changed.")
    elif mode == "comparison":
        task = (f"Question: {question}\n"
                "Answer period by period: one short paragraph per period, starting with the "
                "period's name and using only that period's sources. Do not carry facts from "
                "one period to another. Cite sources like [1].")
    else:
        task = f"Question: {question}\nAnswer citing sources like [1]."
    parts.append(task)
    return "\n\n".join(parts)


def _messages(result, blocks) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": _user_message(result, blocks)}]


def build_context(result, passages: Mapping[int, str], *, n_ctx: int = 4096,
                  max_tokens: int = 384, count_tokens: TokenCounter | None = None,
                  count_messages: Callable[[list[dict]], int] | None = None,
                  source_tokens: int = SOURCE_TOKENS,
                  context_tokens: int = CONTEXT_TOKENS,
                  roles: Mapping[int, str] | None = None) -> Context:
    """The prompt for a search result, numbered in the mode's order and fitted to the budget.

    `passages` maps chunk ids to the text to quote (parent passages); hits without one are
    quoted by their own text. The prompt must fit `n_ctx - max_tokens` (a GenerationError
    otherwise) and aims at `context_tokens`: passages are first cut to `source_tokens` around
    the matched chunk, then all shortened evenly, then the least relevant sources dropped
    (never the last one of a period block).
    """
    count = count_tokens or estimate_tokens
    if count_messages is None:
        def count_messages(msgs: list[dict]) -> int:
            return sum(count(m["content"]) + MESSAGE_OVERHEAD for m in msgs) + 4
    hard = n_ctx - max_tokens
    budget = min(hard, context_tokens)

    blocks: list[tuple[str | None, list[_Draft]]] = []
    for label, hits in arrange(result):
        drafts = []
        for h in hits:
            full = _clean(passages.get(h.chunk_id) or h.text)
            text, cut = window(full, h.text, source_tokens, count)
            drafts.append(_Draft(h, label if result.mode in ("evolution", "comparison") else None,
                                 text, full, cut))
        blocks.append((label, drafts))

    def total() -> int:
        return count_messages(_messages(result, blocks))

    dropped: list[str] = []
    size = total()
    slack = 0  # token counts of joined text are not additive; overshoot tightens the share
    while size > budget:
        drafts = [d for _, ds in blocks for d in ds]
        if not drafts:
            break
        bare = [(lbl, [_Draft(d.hit, d.group, "", "") for d in ds]) for lbl, ds in blocks]
        fixed = count_messages(_messages(result, bare))
        share = (budget - fixed - slack) // len(drafts)
        if share >= (MIN_SOURCE_TOKENS if len(drafts) > 1 else 1):
            changed = False
            for d in drafts:
                if count(d.passage) > share:
                    d.passage, _ = window(d.full, d.hit.text, share, count)
                    d.trimmed = changed = True
            over = total() - budget
            size = budget + over
            if over > 0 and changed:
                slack += over
                continue
            if over <= 0:
                break
        victim = _least_relevant(blocks)
        if victim is None:
            break
        dropped.append(victim.hit.doc_id)
        for _, ds in blocks:
            ds[:] = [d for d in ds if d is not victim]
        size = total()
    if size > hard:
        raise GenerationError(
            f"the question and instructions need {size} tokens, more than the {hard} the model's "
            f"context of {n_ctx} leaves after {max_tokens} for the answer")

    sources: list[Source] = []
    for _, drafts in blocks:
        for d in drafts:
            h = d.hit
            sources.append(Source(len(sources) + 1, h.doc_id, h.date, h.title, h.speaker,
                                  d.passage, tuple(h.also), d.group or h.group, h.chunk_id,
                                  h.score, (roles or {}).get(h.chunk_id, "")))
    return Context(_messages(result, blocks), sources, size, budget,
                   any(d.trimmed for _, ds in blocks for d in ds), tuple(dropped))


def _least_relevant(blocks) -> _Draft | None:
    """The lowest-scoring source that is not the last one of its block (else the lowest)."""
    candidates = [d for _, ds in blocks for d in ds if len(ds) > 1]
    if not candidates:
        candidates = [d for _, ds in blocks for d in ds]
        if len(candidates) <= 1:
            return None
    return min(candidates, key=lambda d: d.hit.score)


# -- the prompt of sentences ------------------------------------------------------------------

ANSWER_SYSTEM_PROMPT = (
    "You answer a question using only the numbered source sentences in the user's message. "
    "Write one to three short sentences. Copy names, numbers and dates exactly as the sources "
    "give them, and end each sentence with the number of its source in square brackets, "
    "like [1]. If the sources do not answer the question, say so."
)
TITLE_WORDS = 10


def _day(value: str | None) -> str:
    d = iso_day(value)
    return day_label(d) if d else "undated"


def _sentence_line(source: Source, sentence: str) -> str:
    who = source.speaker
    if who and source.role:
        who = f"{who} ({source.role})"
    title = " ".join((source.title or source.doc_id).split()[:TITLE_WORDS])
    head = " | ".join(x for x in (_day(source.date), who, title) if x)
    return f"[{source.number}] {head}: {sentence}"


def sentence_messages(result, picks: Sequence[tuple[Source, str]]) -> list[dict]:
    """The chat for a small model: the few sentences that matter, in the mode's order.

    decay: newest first, with the as-of date; hard_filter: date order inside the period;
    evolution: older then newer blocks; comparison: one block per period; hybrid: as ranked.
    """
    q = result.query
    mode = result.mode
    question = _clean(q.question)
    parts: list[str] = []
    if mode in ("evolution", "comparison"):
        labels: list[str] = []
        if mode == "comparison":
            # Every period asked about gets its block, an empty one saying so.
            labels = [period_label(a, b) for a, b in query_periods(result)]
        for src, _ in picks:
            if (src.group or "") not in labels:
                labels.append(src.group or "")
        if mode == "evolution":
            labels.sort(key=lambda g: GROUP_ORDER.index(g) if g in GROUP_ORDER else len(GROUP_ORDER))
        for label in labels:
            lines = [_sentence_line(src, text)
                     for src, text in sorted(((p, t) for p, t in picks if (p.group or "") == label),
                                             key=lambda x: (x[0].date or "", x[0].number))]
            heading = f"{label.upper()} PERIOD:" if mode == "evolution" else f"PERIOD {label}:"
            parts.append(heading + "\n" + ("\n".join(lines) or "No documents from this period."))
    else:
        ordered = list(picks)
        if mode == "decay":
            ordered.sort(key=lambda x: (x[0].date is None, _neg_date(x[0].date)))
            parts.append("Sources, newest first:")
        elif mode == "hard_filter":
            ordered.sort(key=lambda x: (x[0].date or "", x[0].number))
            parts.append(f"Sources from {period_label(q.start, q.end)}:")
        else:
            parts.append("Sources:")
        parts.append("\n".join(_sentence_line(src, text) for src, text in ordered))
    if mode == "decay":
        task = (f"Today is {day_label(q.as_of)}. Where sources disagree, the newest is right.\n"
                f"Question: {question}")
    elif mode == "comparison":
        task = (f"Question: {question}\nAnswer period by period, each from its own sources.")
    elif mode == "evolution":
        task = (f"Question: {question}\nSay what the older sources say, then what the newer "
                "ones say.")
    else:
        task = f"Question: {question}"
    parts.append(task + "\nAnswer in one to three sentences, citing sources like [1].")
    return [{"role": "system", "content": ANSWER_SYSTEM_PROMPT},
            {"role": "user", "content": "\n\n".join(parts)}]


def prompt_text(messages: list[dict]) -> str:
    """A chat as plain text (role headers and contents), for golden files and debugging."""
    return "\n".join(f"=== {m['role']} ===\n{m['content']}" for m in messages) + "\n"
