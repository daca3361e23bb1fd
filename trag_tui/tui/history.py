"""Conversation history in the user's folder, one JSON object per answered question.

It lives beside the user, not inside the index: an index file is meant to be shared or copied
between machines, and what one person asked of it is theirs. Appending one line per turn means
a crash loses at most the answer being written, and a damaged line costs only that line.
"""
from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..settings import user_dir

FILE_NAME = "history.jsonl"


@dataclass
class Turn:
    """One question and its answer, as shown and as exported."""

    conversation: str
    question: str
    answer: str  # Markdown: the answer with its evidence and sources
    badge: str = ""  # how the time of the question was read, in one line
    index: str = ""  # the index file the answer came from
    overrides: dict = field(default_factory=dict)
    stopped: bool = False
    time: str = field(default_factory=lambda: dt.datetime.now().isoformat(timespec="seconds"))


def new_conversation_id() -> str:
    """A fresh conversation id (time-ordered, so the newest conversation sorts last)."""
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class History:
    """The history file of one user; reads tolerate damage, writes only append."""

    def __init__(self, path: Path | None = None):
        self.path = path or user_dir() / FILE_NAME
        self.skipped_lines = 0

    def turns(self) -> list[Turn]:
        """Every readable turn in file order; unreadable lines are counted, not fatal."""
        self.skipped_lines = 0
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        names = set(Turn.__dataclass_fields__)
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                out.append(Turn(**{k: v for k, v in data.items() if k in names}))
            except (json.JSONDecodeError, TypeError):
                self.skipped_lines += 1
        return out

    def last_conversation(self) -> tuple[str | None, list[Turn]]:
        """The id and turns of the most recent conversation (None and [] when there is none)."""
        turns = self.turns()
        if not turns:
            return None, []
        last = turns[-1].conversation
        return last, [t for t in turns if t.conversation == last]

    def append(self, turn: Turn) -> None:
        """Add one turn; raises OSError when the folder cannot be written."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(asdict(turn), ensure_ascii=False) + "\n")


def conversation_markdown(turns: list[Turn], title: str = "trag-tui conversation") -> str:
    """A conversation as one Markdown document, for export."""
    lines = [f"# {title}", ""]
    for n, t in enumerate(turns, 1):
        lines += [f"## {n}. {t.question}", ""]
        if t.badge:
            lines += [f"*{t.badge}*", ""]
        lines += [t.answer.strip() or "_(no answer)_", ""]
    return "\n".join(lines).rstrip() + "\n"
