"""What `ask` streams: Retrieved, Quoted, then Writing and Token as the answer grows, then Done.

The CLI, the chat app and the tests all consume the same stream, so cancelling, citing and the
no-documents rule behave the same everywhere. The quoted answer is known once the sources are
ranked, seconds before the model has written anything, so it comes first (Quoted) and the
model's checked sentences are shown beneath it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .gate import Claim, Dropped
from .hot import HotWindow
from .judge import Verdict
from .sources import Source

if TYPE_CHECKING:
    from ..retrieval.modes import SearchResult


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
class Quoted:
    """The answer quoted from the best source sentences, cited and dated, ready to show before
    the model starts: whatever the model then adds comes beneath it."""

    text: str
    evidence: list[EvidenceLine]
    # What the reader must know beside it: a period asked about without documents, sources
    # far older than the as-of date (shown above the quote).
    notes: list[str] = field(default_factory=list)

    @property
    def shown(self) -> str:
        """The notes, one a line, then the quote: what a shell shows for this event."""
        return "".join(note + "\n" for note in self.notes) + self.text


def paragraph_beneath(text: str) -> str:
    """Model text that opens a paragraph under what is shown above it (the quote): how the CLI
    and the chat app stream the first checked sentence after the quote, and how `beneath`
    lays out the finished answer, so the three read the same."""
    return "\n\n" + text.lstrip()


def beneath(lead: str, generated: str) -> str:
    """The quoted answer (with its notes) and the model's checked sentences as a paragraph
    under it: the finished answer as the shells show it (`Done.shown`)."""
    lead = lead.rstrip("\n")
    if lead and generated:
        return lead + paragraph_beneath(generated)
    return lead or generated


@dataclass(frozen=True)
class Token:
    """A piece of answer text, already cleaned of invalid citations.

    `repeat` marks the quoted answer sent again when no generated sentence passed, so the
    Token texts still add up to `Done.answer`; a shell that showed Quoted skips it.
    """

    text: str
    repeat: bool = False


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
    # What the shells show: the quoted answer, then the model's checked sentences beneath it
    # (`answer` is the model's sentences alone when any passed). Not in to_dict: --json and
    # history keep their fields.
    shown: str = ""
    judged: list[Verdict] = field(default_factory=list)  # the relevance judge's verdicts
    hot: HotWindow | None = None  # the hot window of a question about the present

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
            **({"judge": [v.to_dict() for v in self.judged]} if self.judged else {}),
            **({"hot": self.hot.to_dict()} if self.hot is not None else {}),
        }


Event = Retrieved | Quoted | Writing | Token | Done
