"""One answer: its badge and its Markdown, streamed while the model writes.

Tokens arrive faster than Markdown can re-parse, so they go through Textual's MarkdownStream,
which batches fragments; the finished answer then replaces the streamed text once, so what is
shown is exactly what is stored and exported.
"""
from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownStream

from .mode_badge import ModeBadge


class Answer(Vertical):
    """The badge and the answer text of one turn."""

    def __init__(self, badge: str = "searching…", text: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self._badge_text = badge
        self._initial = text
        self._stream: MarkdownStream | None = None
        self.text = text  # everything received so far (or the final answer)

    def compose(self) -> ComposeResult:
        yield ModeBadge(self._badge_text)
        yield Markdown(self._initial or None)

    @property
    def badge(self) -> ModeBadge:
        """The badge above the answer."""
        return self.query_one(ModeBadge)

    @property
    def markdown(self) -> Markdown:
        """The answer text widget."""
        return self.query_one(Markdown)

    async def write(self, fragment: str) -> None:
        """Append streamed text (starting the stream on the first fragment)."""
        if self._stream is None:
            self._stream = Markdown.get_stream(self.markdown)
        self.text += fragment
        await self._stream.write(fragment)

    async def finish(self, markdown: str) -> None:
        """Stop streaming and show the final answer text."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None
        self.text = markdown
        await self.markdown.update(markdown)
        self.remove_class("-running")
