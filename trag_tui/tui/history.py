"""Conversation history in the user's folder: every question, the moment it is asked.

It lives beside the user, not inside the index: an index file is meant to be shared or copied
between machines, and what one person asked of it is theirs. The file is only ever appended to:
a question is written when it is asked and written again, under the same turn id, when its
answer is finished, stopped or failed; the last line of a turn wins. So a crash or a quit in the
middle of an answer still keeps the question, and a damaged line costs only that line.

Each finished turn keeps what is needed to inspect it later without the index: the answer as
shown, the badge, and the answer event's own serialised form (`Done.to_dict()`, which carries
the numbered sources and their passages). Renaming or deleting a conversation appends a line
too (`{"conversation": id, "title": …}` or `{"conversation": id, "deleted": true}`), so the
file is still only appended to; a deleted conversation is no longer read.
"""
from __future__ import annotations

import datetime as dt
import json
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..settings import user_dir

FILE_NAME = "history.jsonl"

ASKED, ANSWERED, STOPPED, FAILED = "asked", "answered", "stopped", "failed"
UNFINISHED = "*(no answer: the app was closed before it finished)*"


@dataclass
class Turn:
    """One question and its answer, as shown, stored and exported."""

    conversation: str
    question: str
    answer: str = ""  # Markdown: the answer with its evidence and sources
    badge: str = ""  # how the time of the question was read, in one line
    index: str = ""  # the index file the answer came from
    overrides: dict = field(default_factory=dict)
    stopped: bool = False
    time: str = field(default_factory=lambda: dt.datetime.now().isoformat(timespec="seconds"))
    id: str = field(default_factory=lambda: uuid.uuid4().hex)
    status: str = ANSWERED
    done: dict = field(default_factory=dict)  # trag_tui.answer.Done.to_dict()
    query: str = ""  # the words the search looked for (highlighted in passages)
    markdown: dict = field(default_factory=dict)  # source number -> its Markdown text

    @property
    def finished(self) -> bool:
        """False while the answer is still being written (or was never written)."""
        return self.status != ASKED

    def shown_answer(self) -> str:
        """What the conversation shows for this turn."""
        if not self.finished:
            return UNFINISHED
        return self.answer or "_(no answer)_"


@dataclass(frozen=True)
class ConversationInfo:
    """One stored conversation, for the conversation list."""

    id: str
    started: str
    turns: int
    questions: tuple[str, ...]
    name: str = ""  # the title the user gave it, if any

    @property
    def title(self) -> str:
        """The name given, else the first question, which is how people remember it."""
        return self.name or (self.questions[0] if self.questions else "(empty)")


def new_conversation_id() -> str:
    """A fresh conversation id (time-ordered, so the newest conversation sorts last)."""
    return dt.datetime.now().strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class History:
    """The history file of one user; reads tolerate damage, writes only append."""

    def __init__(self, path: Path | None = None):
        self.path = path or user_dir() / FILE_NAME
        self.skipped_lines = 0

    def turns(self) -> list[Turn]:
        """Every readable turn of the conversations not deleted, in the order asked, each as
        its latest line says."""
        return self._read()[0]

    def _read(self) -> tuple[list[Turn], dict[str, str]]:
        self.skipped_lines = 0
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return [], {}
        latest: dict[str, Turn] = {}
        titles: dict[str, str] = {}
        deleted: set[str] = set()
        names = set(Turn.__dataclass_fields__)
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if "question" not in data and isinstance(data.get("conversation"), str):
                    if data.get("deleted"):
                        deleted.add(data["conversation"])
                    elif isinstance(data.get("title"), str):
                        titles[data["conversation"]] = data["title"]
                    continue
                turn = Turn(**{k: v for k, v in data.items() if k in names})
            except (json.JSONDecodeError, TypeError, AttributeError):
                self.skipped_lines += 1
                continue
            latest[turn.id] = turn  # dicts keep the first position of a key: the order asked
        return [t for t in latest.values() if t.conversation not in deleted], titles

    def rename(self, conversation: str, title: str) -> None:
        """Give a conversation a name of its own (raises OSError like `append`)."""
        self._write({"conversation": conversation, "title": " ".join(title.split())})

    def delete(self, conversation: str) -> None:
        """Delete a conversation: it is no longer read (raises OSError like `append`)."""
        self._write({"conversation": conversation, "deleted": True})

    def conversations(self) -> list[ConversationInfo]:
        """Every stored conversation, newest first."""
        turns, titles = self._read()
        grouped: dict[str, list[Turn]] = {}
        for t in turns:
            grouped.setdefault(t.conversation, []).append(t)
        infos = [ConversationInfo(cid, ts[0].time, len(ts), tuple(t.question for t in ts),
                                  titles.get(cid, ""))
                 for cid, ts in grouped.items()]
        # The last turn's time orders them: a conversation reopened today is a recent one;
        # within one second, the one asked last in the file.
        order = {t.id: n for n, t in enumerate(turns)}
        last = {cid: max((t.time, order[t.id]) for t in ts) for cid, ts in grouped.items()}
        return sorted(infos, key=lambda c: last[c.id], reverse=True)

    def conversation(self, conversation: str) -> list[Turn]:
        """The turns of one conversation, in the order asked."""
        return [t for t in self.turns() if t.conversation == conversation]

    def last_conversation(self) -> tuple[str | None, list[Turn]]:
        """The id and turns of the most recent conversation (None and [] when there is none)."""
        turns = self.turns()
        if not turns:
            return None, []
        last = turns[-1].conversation
        return last, [t for t in turns if t.conversation == last]

    def append(self, turn: Turn) -> None:
        """Write a turn as it stands now; raises OSError when the folder cannot be written."""
        self._write(asdict(turn))

    def _write(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")


def matches(info: ConversationInfo, text: str) -> bool:
    """Whether a conversation's questions contain every word typed (case-insensitive)."""
    words = text.lower().split()
    haystack = " ".join(info.questions).lower()
    return all(w in haystack for w in words)


def conversation_markdown(turns: list[Turn], title: str = "trag-tui conversation") -> str:
    """A conversation as one Markdown document, for export."""
    lines = [f"# {title}", ""]
    for n, t in enumerate(turns, 1):
        lines += [f"## {n}. {t.question}", ""]
        if t.badge:
            lines += [f"*{t.badge}*", ""]
        lines += [t.shown_answer().strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def turn_markdown(turn: Turn) -> str:
    """One question and its answer (with its sources) as Markdown, for the clipboard."""
    return conversation_markdown([turn], title=turn.question).replace(
        f"## 1. {turn.question}\n\n", "", 1)


def stored_sources(turn: Turn) -> list[Any]:
    """The numbered sources of a stored answer, rebuilt as the answer API's Source objects.

    Fields the stored form has and this version does not know are left out, so a history
    written by a newer trag-tui still opens.
    """
    from dataclasses import fields

    from ..answering.sources import Source

    names = {f.name for f in fields(Source)}
    out = []
    for data in turn.done.get("sources", []):
        if not isinstance(data, dict):
            continue
        values = {k: v for k, v in data.items() if k in names}
        values["also"] = tuple(values.get("also") or ())
        try:
            out.append(Source(**values))
        except TypeError:
            continue  # a source missing a required field cannot be shown
    return out
