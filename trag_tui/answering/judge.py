"""A relevance judge: a strict yes/no check of each source against the question, before the
answer is built from them.

Retrieval ranks by likeness, so a passage on the right subject but about another event can
still be among the sources and be quoted. A language model reading the question and one
passage at a time can say whether that passage helps answer it. The judge is a plug-in step,
off unless a model is named (`--judge MODEL`, any generator the registry knows): each source
gets one short call that asks for one word, all under one time budget per question; a source
the budget leaves unjudged is kept, and when the judge keeps none the answer is built from all
of them (an empty answer would be worse than an unjudged one). The question comes first in
every call, so llama.cpp evaluates the shared prefix once for a question's sources.
"""
from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import GenerationError
from .sources import Source, clean

JUDGE_SYSTEM_PROMPT = (
    "You decide whether a passage helps answer a question. Reply with one word: yes if the "
    "passage states the answer or facts needed for it, no otherwise."
)
JUDGE_TOKENS = 3  # "yes", "no", with room for a capital or a full stop
PASSAGE_TOKENS = 400  # a source's window is about 320 estimated tokens; a longer one is cut
_ANSWER = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Verdict:
    """The judge's answer on one source: kept or dropped, what it said, how long it took.

    `keep` is None when the source was not judged (the time budget ran out first, or the reply
    was neither yes nor no): such a source is kept.
    """

    number: int  # the source's number before the judge (its number in the explain list)
    chunk_id: int
    doc_id: str
    keep: bool | None
    said: str
    seconds: float = 0.0
    date: str | None = None
    title: str = ""

    @property
    def kept(self) -> bool:
        return self.keep is not False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"number": self.number, "chunk_id": self.chunk_id, "doc_id": self.doc_id,
                "date": self.date, "title": self.title, "keep": self.keep, "said": self.said, "seconds": round(self.seconds, 4)}


def messages(question: str, source: Source, count: Callable[[str], int] | None = None) -> list[dict]:
    """The chat for one source: the question first (shared by all of a question's calls),
    then the dated passage, then the yes/no question."""
    passage = clean(source.passage)
    if count is not None and count(passage) > PASSAGE_TOKENS:
        words = passage.split(" ")
        while words and count(" ".join(words)) > PASSAGE_TOKENS:
            words = words[: int(len(words) * 0.9)]
        passage = " ".join(words) + "…"
    head = " | ".join(x for x in (source.date or "undated", source.title or source.doc_id) if x)
    return [{"role": "system", "content": JUDGE_SYSTEM_PROMPT},
            {"role": "user", "content": f"Question: {clean(question)}\n\nPassage ({head}): "
                                        f"{passage}\n\nDoes this passage help answer the "
                                        "question? Answer yes or no."}]


def read_verdict(text: str) -> bool | None:
    """True for a reply that starts "yes", False for "no", None for anything else."""
    word = _ANSWER.search(text or "")
    if word is None:
        return None
    first = word.group(0).lower()
    return True if first == "yes" else False if first == "no" else None


def judge(generator, question: str, sources: Sequence[Source], *, budget: float,
          clock: Callable[[], float] = time.perf_counter) -> list[Verdict]:
    """One verdict per source, in order; sources reached after `budget` seconds are not
    judged (kept). A GenerationError from the model ends judging: the rest are kept."""
    out: list[Verdict] = []
    started = clock()
    count = getattr(generator, "count_tokens", None)
    stopped = False
    for s in sources:
        if stopped or clock() - started >= budget:
            out.append(Verdict(s.number, s.chunk_id, s.doc_id, None, "(not judged: time budget)",
                               date=s.date, title=s.title))
            continue
        t0 = clock()
        try:
            said = "".join(generator.stream(messages(question, s, count), max_tokens=JUDGE_TOKENS,
                                            temperature=0.0, stop=["\n"]))
        except GenerationError as exc:
            stopped = True
            out.append(Verdict(s.number, s.chunk_id, s.doc_id, None, f"(not judged: {exc})",
                               date=s.date, title=s.title))
            continue
        out.append(Verdict(s.number, s.chunk_id, s.doc_id, read_verdict(said), said.strip(),
                           clock() - t0, s.date, s.title))
    return out


def kept_sources(sources: Sequence[Source], verdicts: Sequence[Verdict]) -> list[Source]:
    """The sources the judge kept, numbered again from 1 in the same order; all of them when it
    kept none."""
    dropped = {v.chunk_id for v in verdicts if not v.kept}
    kept = [s for s in sources if s.chunk_id not in dropped]
    if not kept:
        return list(sources)
    return [dataclasses.replace(s, number=i) for i, s in enumerate(kept, 1)]


def judge_note(verdicts: Sequence[Verdict]) -> str | None:
    """The line a reader is told when the judge dropped sources (or would have dropped all)."""
    dropped = [v for v in verdicts if not v.kept]
    if not dropped:
        return None
    if len(dropped) == len(verdicts):
        return "The relevance judge kept none of the sources; the answer reads them all."
    n = len(dropped)
    return f"The relevance judge set aside {n} source{'s' if n > 1 else ''} as not about the question."
