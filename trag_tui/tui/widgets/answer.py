"""One answer: its badge, its Markdown streamed while the model writes, and its own sources.

The quoted answer is shown first, the moment it is known; the model's checked sentences then
stream beneath it through Textual's MarkdownStream, which batches fragments; the finished answer
replaces the streamed text once, so what is shown is exactly what is stored and exported. What
the check kept back waits, hidden, for the explain view. Every answer keeps the sources it was written
from: scrolling back to an earlier answer and selecting it (or clicking one of its `[n]`) shows
that answer's sources, not the latest ones.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from ..answer_text import CITE_SCHEME, linkify_citations
from .mode_badge import ModeBadge


@dataclass
class AnswerSelected(Message):
    """The user selected an answer: show its sources (and open `number` when one was clicked)."""

    answer: Answer
    number: int | None = None


class Answer(Vertical, can_focus=True):
    """The badge, the answer text and the numbered sources of one turn."""

    def __init__(self, badge: str = "searching…", text: str = "", dropped: str = "",
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self._badge_text = badge
        self._initial = text
        self._dropped = dropped
        self._stream: MarkdownStream | None = None
        self.text = text  # everything received so far (or the final answer)
        self.sources: list[Any] = []
        self.query_text = ""  # the words the search looked for
        self.markdown_passages: dict[int, str] = {}  # number -> Markdown text of the source
        self.result: Any = None  # the retrieval result (scores for the explain view)
        self.record: Any = None  # the history Turn, once the answer is finished

    def compose(self) -> ComposeResult:
        yield ModeBadge(self._badge_text)
        yield Markdown(linkify_citations(self._initial) or None, open_links=False, id="text")
        yield Markdown(self._dropped or None, classes="dropped")

    @property
    def badge(self) -> ModeBadge:
        """The badge above the answer."""
        return self.query_one(ModeBadge)

    @property
    def markdown(self) -> Markdown:
        """The answer text widget."""
        return self.query_one("#text", Markdown)

    def set_sources(self, sources: list[Any], query: str, markdown: dict[int, str] | None = None,
                    result: Any = None) -> None:
        """The numbered sources this answer cites from."""
        self.sources, self.query_text = list(sources), query
        self.markdown_passages = dict(markdown or {})
        self.result = result

    async def write(self, fragment: str) -> None:
        """Append streamed text (starting the stream on the first fragment)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, markdown: str, dropped: str = "") -> None:
        """Stop streaming and show the final answer text, its citations clickable, and keep
        what the check dropped for the explain view."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.text = markdown
        await self.markdown.update(linkify_citations(markdown))
        await self.query_one(".dropped", Markdown).update(dropped)
        self.remove_class("-running")

    @on(Markdown.LinkClicked)
    def _citation(self, event: Markdown.LinkClicked) -> None:
        event.stop()
        href = event.href or ""
        if href.startswith(CITE_SCHEME):
            number = href.removeprefix(CITE_SCHEME)
            self.post_message(AnswerSelected(self, int(number) if number.isdigit() else None))

    def _on_focus(self, event: events.Focus) -> None:
        self.post_message(AnswerSelected(self))

    async def _on_click(self, event: events.Click) -> None:
        # A click anywhere on the answer (not on a citation, which posts its own) selects it.
        self.post_message(AnswerSelected(self))
