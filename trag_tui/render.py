"""Plain-text rendering of search results and answers for the terminal (no Textual).

The chat app shows the same note (`NO_MODEL_NOTE`), so the
reader is told the same thing in both shells.

Titles, speakers, ids and the rest come from someone else's files: each is printed through
`safe_line`, so a newline in a title cannot begin a line that reads as another hit, and
zero-width or bidirectional characters show as escapes. A passage's own line breaks are only
layout: it is reflowed into spaces, and what else is hidden in it is escaped.
"""
from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from .retrieval.modes import SearchResult
from .text.safe import safe_line

if TYPE_CHECKING:
    from .answering.events import Done

NO_MODEL_NOTE = "No model was used; the answer above is quoted from the sources."


def render_search(res: SearchResult, *, explain: bool = False) -> str:
    """Hits as a numbered, dated, cited list; the mode and why on top."""
    q = res.query
    span = ""
    if q.periods:
        span = " vs ".join(f"{a or '…'}..{b or '…'}" for a, b in
                           ((s.isoformat() if s else None, e.isoformat() if e else None) for s, e in q.periods))
    elif q.start or q.end:
        span = f"{q.start.isoformat() if q.start else '…'}..{q.end.isoformat() if q.end else '…'}"
    lines = [f"mode: {res.mode} ({q.intent}{', ' + span if span else ''}; as of {q.as_of.isoformat()})"]
    if res.scope is not None:
        lines.append(f"scope: {safe_line(res.scope.label())}")
    if explain:
        lines.append(f"why:  {safe_line(res.reason)}")
        lines.append(f"query: {q.semantic_query!r}; confidence {res.confidence:.2f}")
    if res.empty_reason:
        lines.append(f"No results: {res.empty_reason}.")
        for n in res.nearest:
            lines.append(f"  nearest {n['side']}: {n['month']} ({n['documents']} matching passages)")
        for d in res.spoken_elsewhen:
            lines.append(f"  speaks of it: {safe_line(d['date'] or 'undated')} "
                         f"{safe_line(d['title'])} ({safe_line(d['doc_id'])})")
    group = None
    for i, h in enumerate(res.hits, 1):
        if h.group and h.group != group:
            group = h.group
            lines.append(f"-- {safe_line(group)} --")
        who = f" — {safe_line(h.speaker)}" if h.speaker else ""
        lines.append(f"[{i}] {safe_line(h.date or 'undated')} {safe_line(h.title)}{who}  "
                     f"({safe_line(h.doc_id)})")
        lines.append(textwrap.indent(textwrap.fill(passage(h.snippet()), 96), "    "))
        if h.also:
            lines.append(f"    also in: {', '.join(safe_line(a) for a in h.also)}")
        if explain:
            s = h.scores
            keys: tuple[str, ...] = ("bm25", "dense", "fused", "decay", "centrality", "final")
            if "retold" in s:  # inside a named period: told before it (0.9) or not (1)
                keys = (*keys[:3], "retold", *keys[3:])
            if "spoken" in s:  # a question about a period: speaks of it exactly (> 1) or not
                keys = (*keys[:-1], "spoken", keys[-1])
            lines.append("    " + "  ".join(f"{k}={s.get(k, 0.0):.4f}" for k in keys))
            if h.about:
                lines.append(f"    speaks of: {safe_line(h.about)}")
            if h.via:
                lines.append(f"    found for: {safe_line(h.via)} (named by a first-pass hit)")
    return "\n".join(lines)


def passage(text: str) -> str:
    """A passage or a quoted sentence on one line: its line breaks (layout) become spaces,
    anything else hidden is escaped."""
    return safe_line(" ".join(text.split()))


def dropped_note(n: int) -> str:
    """What the reader is told of generated sentences the gate kept back (both shells)."""
    return (f"Not shown: {n} generated sentence{'s' if n > 1 else ''} that the check kept "
            "back: not stated by the sources, or not an answer to the question")


def explain_lines(done: Done) -> list[str]:
    """The hot window and the relevance judge's verdicts, one a line, for the explain views."""
    lines: list[str] = []
    hot = done.hot
    if hot is not None:
        lines.append(f"Hot window: {hot.start.isoformat()} to {hot.end.isoformat()} (one publication "
                     f"interval, {hot.interval:g} days); leading: "
                     + (", ".join(f"[{n}]" for n in hot.leading) or "none about the question"))
    elif done.mode and not done.no_documents:
        lines.append("Hot window: none (turned off, not a question about the present, or too few "
                     "dated sources)")
    if done.judged:
        kept = [v for v in done.judged if v.kept]
        lines.append(f"Relevance judge: kept {len(kept)} of {len(done.judged)} "
                     "(numbers as retrieved)")
        for v in done.judged:
            state = "kept" if v.keep else "dropped" if v.keep is False else "kept, not judged"
            lines.append(f"  {state}: [{v.number}] {safe_line(v.date or 'undated')} | "
                         f"{safe_line(v.title or v.doc_id)} — said {safe_line(v.said)!r}")
    return lines


def render_answer_explain(done: Done) -> str:
    """`ask --explain`'s block under the answer: the hot window and the judge's verdicts."""
    lines = explain_lines(done)
    return ("Explain:\n" + "\n".join(lines) + "\n") if lines else ""


def render_answer(done: Done, *, with_answer: bool = True) -> str:
    """The answer, its Evidence and its Sources as Markdown-ish text for a terminal.

    The answer reads as the shells show it: the quote, the model's checked sentences beneath.
    `with_answer=False` leaves out the answer text, for a caller that already streamed it.
    """
    lines: list[str] = []
    if (done.shown or done.answer) and with_answer:
        lines.append(done.shown or done.answer)
    if done.stopped:
        lines += ["", "(stopped)"]
    if done.no_documents:
        return "\n".join(lines) + "\n"
    if done.extractive and not done.messages:
        lines += ["", NO_MODEL_NOTE]
    if done.dropped and done.claims:
        # Nothing is said of the check when the model added nothing: the quote stands alone.
        lines += ["", dropped_note(len(done.dropped)) + " (listed under `dropped` in --json)."]
    if done.invalid_citations:
        lines += ["", "Removed citations of sources that do not exist: "
                  + ", ".join(f"[{n}]" for n in done.invalid_citations) + "."]
    if done.evidence:
        lines += ["", "Evidence:"]
        for e in done.evidence:
            lines.append(f"- [{e.number}] {safe_line(e.date or 'undated')}: \"{passage(e.sentence)}\"")
    if done.sources:
        lines += ["", "Sources:"]
        for s in done.sources:
            line = f"[{s.number}] {safe_line(s.date or 'undated')} | {safe_line(s.title or s.doc_id)}"
            if s.speaker:
                line += f" | {safe_line(s.speaker)}"
            line += f" ({safe_line(s.doc_id)})"
            if s.also:
                line += " — also reported in: " + ", ".join(safe_line(a) for a in s.also)
            lines.append(line)
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines) + "\n"
