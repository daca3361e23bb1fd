"""Messages that worker threads post to the UI; the only way work reaches the widgets.

Workers never touch a widget: they post one of these, and the handler (on the UI thread)
updates the screen. Each message carries the turn it belongs to, so a late message from a
cancelled answer cannot land in a newer one.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message


@dataclass
class AnswerRetrieved(Message):
    """Retrieval finished: the mode, the reading of time and the numbered sources."""

    turn: int
    result: Any  # trag_tui.retrieval.modes.SearchResult
    sources: list[Any]


@dataclass
class AnswerToken(Message):
    """A piece of the answer text as the model writes it."""

    turn: int
    text: str


@dataclass
class AnswerDone(Message):
    """The answer is complete (or was stopped)."""

    turn: int
    done: Any  # trag_tui.answer.Done


@dataclass
class AnswerFailed(Message):
    """The answer could not be produced; `message` is meant for the user."""

    turn: int
    message: str


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


@dataclass
class GeneratorFailed(Message):
    """The language model could not be loaded; answers fall back to showing sources only."""

    message: str
