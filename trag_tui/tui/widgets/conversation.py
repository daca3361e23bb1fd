"""The scrolling conversation: questions and answers, newest at the bottom."""
from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widgets import Static

from .answer import Answer
from .question import Question

WELCOME = (
    "Ask about the documents in the index, with or without a time: “What was the Bank Rate in "
    "November 2022?”, “What is the latest on inflation?”, “How has net migration changed since "
    "2015?”, “Compare unemployment in 2012 and 2024”.\n"
    "Enter sends · Esc stops an answer · F1 keys · Ctrl+P commands · Ctrl+O overrides"
)


class Conversation(VerticalScroll):
    """Questions and answers of the current conversation."""

    def compose(self):
        yield Static(WELCOME, classes="welcome", markup=False)

    async def add_question(self, question: str, *, badge: str = "searching…") -> Answer:
        """Show a question and the empty answer it is being given; return the answer widget
        (stored answers are shown by `add_answered`)."""
        block = Answer(badge=badge, classes="-running")
        await self.mount_all([Question(question), block])
        # Keep the newest text in view while it streams, unless the user scrolls away.
        self.anchor()
        return block

    async def add_answered(self, turns: list[tuple[str, str, str, str]]) -> list[Answer]:
        """Show stored (question, badge, answer, dropped) turns at once: one mount and one
        layout for all of them, not one per turn, so a long conversation appears at once."""
        blocks = [Answer(badge=badge, text=answer, dropped=dropped)
                  for _, badge, answer, dropped in turns]
        widgets = [w for (question, *_), block in zip(turns, blocks)
                   for w in (Question(question), block)]
        if widgets:
            await self.mount_all(widgets)
            self.anchor()
        return blocks

    async def clear(self) -> None:
        """Remove every question and answer (a new conversation)."""
        await self.query("Question, Answer").remove()
        self.query_one(".welcome").display = True

    def hide_welcome(self) -> None:
        """Hide the first-use hint once there is something to read."""
        self.query_one(".welcome").display = False
