"""How answers were made before the gate: whole passages in, the model's text out.

`bench/answer_quality.py` measures this `whole` pipeline beside the grounded and the quoted
ones: the numbered sources' passages cut to a token budget around their match, one prompt
naming the mode's shape, and the model's text shown as written, with only citations of
sources that do not exist removed as it streams. The product no longer answers this way.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from trag_tui.answering.sources import (  # noqa: E402
    Source,
    TokenCounter,
    arrange,
    clean,
    window,
)
from trag_tui.errors import GenerationError  # noqa: E402
from trag_tui.models.generation import MESSAGE_OVERHEAD, estimate_tokens  # noqa: E402
from trag_tui.text.labels import period_label  # noqa: E402

SYSTEM_PROMPT = (
    "You answer questions about dated documents using only the numbered sources in the "
    "user's message. Cite the sources you use by number in square brackets, like [1]. "
    "If the sources do not answer the question, say so. Keep the answer short."
)
# Soft limits that keep prompts quick for a 135M model; the hard limit is n_ctx - max_tokens.
SOURCE_TOKENS = 120
CONTEXT_TOKENS = 1536
MIN_SOURCE_TOKENS = 40


@dataclass(frozen=True)
class Context:
    """The chat to send, the sources it numbers, and what the budget did to them."""

    messages: list[dict]
    sources: list[Source]
    prompt_tokens: int
    budget: int
    trimmed: bool = False  # some passages were shortened to fit
    dropped: tuple[str, ...] = ()  # doc_ids left out to fit


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
    question = clean(q.question)
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
            full = clean(passages.get(h.chunk_id) or h.text)
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


# -- citations as they stream ---------------------------------------------------------------

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
        buf = self._pending + text
        # a citation removed can leave brackets around it that form another ("[[0]0]" is
        # "[0]" once "[0]" goes), the same whole or streamed: remove until none is left
        while (checked := _CITE.sub(self._replace, buf)) != buf:
            buf = checked
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
