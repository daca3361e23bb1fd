"""The messages that carry work upwards: from worker threads to the screen, from the screen to
the app.

Workers never touch a widget: they post one of these, and the handler (on the UI thread)
updates the screen. Each answer message carries the turn it belongs to, so a late message from
a cancelled answer cannot land in a newer one. The chat screen never calls into the app either:
it posts what happened (a question asked, an answer finished, a new conversation) and the app,
which owns the history file, decides what to keep.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from ..answering.events import Done
    from ..answering.sources import Source
    from ..retrieval.modes import SearchResult
    from .history import Turn


@dataclass
class AnswerStage(Message):
    """What the answer is waiting for now ("loading the model…", "searching…")."""

    turn: int
    text: str


@dataclass
class AnswerRetrieved(Message):
    """Retrieval finished: the mode, the reading of time and the numbered sources."""

    turn: int
    result: SearchResult
    sources: list[Source]
    markdown: dict[int, str] = field(default_factory=dict)  # number -> Markdown text


@dataclass
class AnswerQuoted(Message):
    """The answer quoted from the sources, known before the model writes: shown at once."""

    turn: int
    text: str
    evidence: list[Any] = field(default_factory=list)  # the quoted sentences, numbered, dated


@dataclass
class AnswerWriting(Message):
    """The model has written this many pieces; its text is shown once checked."""

    turn: int
    pieces: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, AnswerWriting) and message.turn == self.turn


@dataclass
class AnswerToken(Message):
    """A sentence of the model's that passed the check (or a note that opens the answer)."""

    turn: int
    text: str


@dataclass
class AnswerDone(Message):
    """The answer is complete (or was stopped)."""

    turn: int
    done: Done


@dataclass
class AnswerFailed(Message):
    """The answer could not be produced; `message` is meant for the user."""

    turn: int
    message: str


@dataclass
class GeneratorFailed(Message):
    """The language model could not be loaded; answers fall back to showing sources only."""

    message: str


# -- from the chat screen to the app ----------------------------------------------------------


@dataclass
class ChatReady(Message):
    """The chat screen is composed: the app may restore history and open the index."""


@dataclass
class QuestionAsked(Message):
    """A question was asked; `turn` is its history record, not yet answered."""

    turn: Turn


@dataclass
class AnswerFinished(Message):
    """An answer was finished, stopped or failed; `turn` is its complete history record."""

    turn: Turn


@dataclass
class SidebarShown(Message):
    """The conversation sidebar was opened: the app fills it from the history file."""


@dataclass
class ConversationStarted(Message):
    """The user started a new, empty conversation with this id."""

    conversation: str


# -- index files --------------------------------------------------------------------------------


@dataclass
class IndexOpened(Message):
    """An index file is open and ready; `stats` feed the timeline."""

    path: Path
    stats: dict[str, Any] = field(default_factory=dict)


@dataclass
class IndexFailed(Message):
    """An index file could not be opened; `message` is meant for the user."""

    path: Path
    message: str
