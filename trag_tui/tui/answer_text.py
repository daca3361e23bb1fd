"""The finished answer as Markdown: what the conversation shows, and what is kept and exported.

The answer API renders plain terminal text; the app needs real Markdown (lists, emphasis) that
reads the same in the pane and in an exported file. Quoted document text is escaped so a stray
`*` or `#` in a transcript cannot restyle the answer.
"""
from __future__ import annotations

import re
from typing import Any

from ..render import NO_CITATION_NOTE, NO_MODEL_NOTE, dropped_note

STOPPED = "*(stopped)*"
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
CITE_SCHEME = "cite:"
# `[3]` or `[1, 2]` as the model and the evidence write them; an escaped `\[` (quoted document
# text) or a Markdown link `[text](...)` is not a citation.
_CITATION = re.compile(r"(?<!\\)\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\](?!\()")


def escape(text: str) -> str:
    """Document text made inert in Markdown."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def linkify_citations(markdown: str) -> str:
    """Every citation `[n]` made a link to that source, so it can be clicked."""
    def link(m: re.Match) -> str:
        numbers = re.split(r"\s*[,;]\s*", m.group(1))
        return "\\[" + ", ".join(f"[{n}]({CITE_SCHEME}{n})" for n in numbers) + "\\]"

    return _CITATION.sub(link, markdown)


def shown_markdown(done: Any) -> str:
    """The answer with its notes and evidence, for the conversation pane."""
    placeholder = "" if done.stopped or done.evidence else "_(no answer text)_"
    parts = [done.answer.strip() or placeholder]
    if done.stopped:
        parts.append(STOPPED)
    if done.no_documents:
        return "\n\n".join(p for p in parts if p)
    if done.invalid_citations:
        parts.append("*Removed citations of sources that do not exist: "
                     + ", ".join(f"\\[{n}\\]" for n in done.invalid_citations) + ".*")
    if done.extractive and done.answer.strip():
        parts.append(f"*{NO_CITATION_NOTE if done.messages else NO_MODEL_NOTE}*")
    if done.dropped:
        parts.append(f"*{dropped_note(len(done.dropped))}.*")
    if done.evidence:
        lines = ["**Evidence**", ""]
        lines += [f"- [{e.number}] {e.date or 'undated'} — “{escape(e.sentence)}”"
                  for e in done.evidence]
        parts.append("\n".join(lines))
    return "\n\n".join(p for p in parts if p)


def source_line(source: Any) -> str:
    """One source as a Markdown list item."""
    line = f"- [{source.number}] {source.date or 'undated'} · {escape(source.title or source.doc_id)}"
    if source.speaker:
        line += f" — {escape(source.speaker)}"
    line += f" (`{source.doc_id}`)"
    if source.also:
        line += " · also in: " + ", ".join(f"`{d}`" for d in source.also)
    return line


def stored_markdown(done: Any) -> str:
    """The shown answer plus its numbered sources: the record kept in history and exports."""
    text = shown_markdown(done)
    if done.sources and not done.no_documents:
        text += "\n\n**Sources**\n\n" + "\n".join(source_line(s) for s in done.sources)
    return text


def stopped_markdown(partial: str) -> str:
    """What is kept of an answer stopped by the user before it finished."""
    return (partial.strip() + "\n\n" if partial.strip() else "") + STOPPED
