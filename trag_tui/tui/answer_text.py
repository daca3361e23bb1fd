"""The finished answer as Markdown: what the conversation shows, and what is kept and exported.

The answer API renders plain terminal text; the app needs real Markdown (lists, emphasis) that
reads the same in the pane and in an exported file. Quoted document text is escaped so a stray
`*` or `#` in a transcript cannot restyle the answer.
"""
from __future__ import annotations

import re
from typing import Any

from ..render import NO_MODEL_NOTE

STOPPED = "*(stopped)*"
_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")
CITE_SCHEME = "cite:"
# `[3]` or `[1, 2]` as the model and the evidence write them; an escaped `\[` (quoted document
# text) or a Markdown link `[text](...)` is not a citation.
# The start of one block of a structured answer, after a sentence ends: "2022: …",
# "March 2016: …", "2012-01-01 .. 2012-12-31: …", "Older sources: …".
_BLOCK = re.compile(r"(?<=[.!?”)])(?<!\.\.) +(?=(?:(?:[A-Z][a-z]+ )?\d{4}(?:-\d{2}-\d{2})?(?: (?:\.\.|to) "
                    r"[\w -]{4,20})?|(?:Older|Middle|Newer) sources): )")
_CITATION = re.compile(r"(?<!\\)\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\](?!\()")


def escape(text: str) -> str:
    """Document text made inert in Markdown."""
    return _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def blocks(text: str) -> str:
    """An answer as Markdown paragraphs, one a line of the answer and one a period or group
    of a structured answer, so "Older / Middle / Newer sources" and "2022: … 2024: …" keep
    their shape on screen, in the clipboard and in an export (Markdown joins single lines)."""
    lines = (line.strip() for line in _BLOCK.sub("\n", text).splitlines())
    return "\n\n".join(line for line in lines if line)


def starts_block(text: str) -> bool:
    """Whether a sentence streamed after others opens a new period or group block."""
    return _BLOCK.match(". " + text.lstrip(), 1) is not None


def linkify_citations(markdown: str) -> str:
    """Every citation `[n]` made a link to that source, so it can be clicked."""
    def link(m: re.Match) -> str:
        numbers = re.split(r"\s*[,;]\s*", m.group(1))
        return "\\[" + ", ".join(f"[{n}]({CITE_SCHEME}{n})" for n in numbers) + "\\]"

    return _CITATION.sub(link, markdown)


def shown_markdown(done: Any) -> str:
    """The answer with its notes and evidence, for the conversation pane.

    The quoted answer comes first and the model's checked sentences beneath it, as they were
    shown while it wrote; nothing is said of the check here (the explain view lists what it
    kept back).
    """
    placeholder = "" if done.stopped or done.evidence else "_(no answer text)_"
    parts = [blocks(getattr(done, "shown", "") or done.answer) or placeholder]
    if done.stopped:
        parts.append(STOPPED)
    if done.no_documents:
        return "\n\n".join(p for p in parts if p)
    if done.invalid_citations:
        parts.append("*Removed citations of sources that do not exist: "
                     + ", ".join(f"\\[{n}\\]" for n in done.invalid_citations) + ".*")
    if done.extractive and done.answer.strip() and not done.messages:
        parts.append(f"*{NO_MODEL_NOTE}*")
    parts.append(evidence_markdown(done.evidence))
    return "\n\n".join(p for p in parts if p)


def evidence_markdown(evidence: list[Any]) -> str:
    """The quoted source sentences as a Markdown list under a heading ("" when there are none)."""
    if not evidence:
        return ""
    lines = ["**Evidence**", ""]
    lines += [f"- [{e.number}] {e.date or 'undated'} — “{escape(e.sentence)}”" for e in evidence]
    return "\n".join(lines)


def dropped_markdown(dropped: list[Any]) -> str:
    """The model's sentences the check kept back, and why, for the explain view."""
    if not dropped:
        return ""
    lines = ["*Not shown: the model's sentences that the check kept back*", ""]
    lines += [f"- ~~{escape(_field(d, 'sentence'))}~~ ({escape(_field(d, 'reason'))})"
              for d in dropped]
    return "\n".join(lines)


def explain_markdown(done: Any) -> str:
    """The explain view's block under an answer: the hot window and the relevance judge's
    verdicts (`render.explain_lines`), then the model's sentences the check kept back. `done`
    is a Done or, from the history, its dict form."""
    if isinstance(done, dict):
        dropped = done.get("dropped") or []
        lines = _stored_explain(done)
    else:
        from ..render import explain_lines

        dropped = done.dropped
        lines = explain_lines(done)
    block = "\n".join(f"- {escape(line.strip())}" for line in lines)
    return "\n\n".join(p for p in (block, dropped_markdown(dropped)) if p)


def _stored_explain(done: dict) -> list[str]:
    lines = []
    hot = done.get("hot")
    if isinstance(hot, dict):
        lines.append(f"Hot window: {hot.get('start')} to {hot.get('end')}; leading: "
                     + (", ".join(f"[{n}]" for n in hot.get("leading") or []) or "none"))
    for v in done.get("judge") or []:
        if isinstance(v, dict):
            keep = v.get("keep")
            state = "kept" if keep is True else "dropped" if keep is False else "kept, not judged"
            lines.append(f"Relevance judge {state}: [{v.get('number')}] {v.get('date') or 'undated'}"
                         f" | {v.get('title') or v.get('doc_id')} — said {v.get('said')!r}")
    return lines


def _field(item: Any, name: str) -> str:
    return str(item.get(name, "") if isinstance(item, dict) else getattr(item, name, ""))


def source_line(source: Any) -> str:
    """One source as a Markdown list item."""
    line = f"- [{source.number}] {source.date or 'undated'} · {escape(source.title or source.doc_id)}"
    if source.speaker:
        line += f" — {escape(source.speaker)}"
    line += f" (`{source.doc_id}`)"
    if source.also:
        line += " · also in: " + ", ".join(f"`{d}`" for d in source.also)
    return line


SOURCES_HEADING = "\n\n**Sources**\n\n"


def stored_markdown(done: Any) -> str:
    """The shown answer plus its numbered sources: the record kept in history and exports."""
    text = shown_markdown(done)
    if done.sources and not done.no_documents:
        text += SOURCES_HEADING + "\n".join(source_line(s) for s in done.sources)
    return text


def restored_markdown(stored: str) -> str:
    """A stored answer as the conversation showed it live: without the Sources list, which
    the sources pane shows."""
    return stored.split(SOURCES_HEADING, 1)[0]


def stopped_markdown(partial: str, evidence: list[Any] | None = None) -> str:
    """What is kept of an answer stopped by the user before it finished: the text so far and
    the quoted evidence, which was known before the model started."""
    parts = [partial.strip(), STOPPED, evidence_markdown(evidence or [])]
    return "\n\n".join(p for p in parts if p)
