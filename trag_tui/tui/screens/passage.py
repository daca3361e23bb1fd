"""One source's whole passage over the full screen, where there is no room beside the list.

Esc goes back. Typing is never lost here: a printable key closes the reader and lands in the
question box (the app routes it), so no letter is a key of the reader.
"""
from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen

from ..widgets.passage import PassageView


class PassageScreen(ModalScreen[None]):
    """Reads one passage; Esc returns to the conversation."""

    BINDINGS = [Binding("escape", "close", "Back")]

    def __init__(self, source: Any, query: str, markdown: str | None = None) -> None:
        super().__init__()
        self.source, self.query_text, self.markdown = source, query, markdown

    def compose(self) -> ComposeResult:
        view = PassageView(id="passage-full")
        view.border_title = f"Source [{self.source.number}]"
        view.border_subtitle = "Esc to go back"
        yield view

    def on_mount(self) -> None:
        view = self.query_one(PassageView)
        view.show(self.source, self.query_text, self.markdown)
        view.focus()

    def action_close(self) -> None:
        """Back to the conversation."""
        self.dismiss(None)
