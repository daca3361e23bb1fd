"""One line of text asked for in a dialog (a conversation's new name)."""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class TextPrompt(ModalScreen[str | None]):
    """A title and an input; dismisses with the text typed (None on Esc or when empty)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, value: str = "") -> None:
        super().__init__()
        self.title_text, self.value = title, value

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, id="text")
            yield Static("Enter keeps it · Esc cancels", classes="hint", markup=False)

    @on(Input.Submitted)
    def submit(self, event: Input.Submitted) -> None:
        """Enter: the text, or None when it is blank."""
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        """Esc: nothing changes."""
        self.dismiss(None)
