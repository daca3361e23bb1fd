"""The messages a model reads: the few source sentences that matter, in the mode's order.

A small model follows structure better than instructions, so the retrieval mode decides the
shape (newest first when the present state is asked for, one block per period when periods
are compared, older then newer when change is asked for) and the instructions only name that
shape. It reads sentences, not passages: the ranking's best, a few per source
(`ranking.for_prompt`), each headed by its number, date, speaker and title. The system prompt
is one fixed text so llama.cpp can keep its KV cache. The prompt is written in English.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..temporal.calendar import iso_day
from ..text.labels import day_label, period_label
from .sources import GROUP_ORDER, Source, clean, neg_date, query_periods

ANSWER_SYSTEM_PROMPT = (
    "You answer a question using only the numbered source sentences in the user's message. "
    "Write one to three short sentences. Copy names, numbers and dates exactly as the sources "
    "give them, and end each sentence with the number of its source in square brackets, "
    "like [1]. If the sources do not answer the question, say so."
)
# Where the model starts inventing a source list or a new question, the answer is over.
STOP = ["\nSources:", "\nSOURCES", "\nQuestion:"]
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


def messages(result, picks: Sequence[tuple[Source, str]]) -> list[dict]:
    """The chat for a small model: the few sentences that matter, in the mode's order.

    decay: newest first, with the as-of date; hard_filter: date order inside the period;
    evolution: older then newer blocks; comparison: one block per period; hybrid: as ranked.
    """
    q = result.query
    mode = result.mode
    question = clean(q.question)
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
            ordered.sort(key=lambda x: (x[0].date is None, neg_date(x[0].date)))
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
