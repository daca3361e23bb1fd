"""Asking for one file or folder path, checked before the dialog closes.

The check happens here, in the dialog, so a typo is fixed in place instead of surfacing later
as an error from a worker.
"""
from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class PathPrompt(ModalScreen[Path | None]):
    """A title, an input for a path, OK and Cancel; dismisses with the Path or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, *, placeholder: str = "", value: str = "",
                 must_exist: str | None = None) -> None:
        """must_exist: "file", "dir", or None (the path may be new, e.g. an export)."""
        super().__init__()
        self.title_text, self.placeholder, self.value = title, placeholder, value
        self.must_exist = must_exist

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="path")
            yield Static("", id="path-error", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("OK", variant="primary", id="ok")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#ok")
    def submit(self) -> None:
        """Check the path and close with it, or say what is wrong."""
        text = self.query_one("#path", Input).value.strip()
        error = self.query_one("#path-error", Static)
        if not text:
            error.update("Type a path first.")
            return
        path = Path(text).expanduser()
        if self.must_exist == "file" and not path.is_file():
            error.update(f"No file at {path}.")
            return
        if self.must_exist == "dir" and not path.is_dir():
            error.update(f"No folder at {path}.")
            return
        self.dismiss(path)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without a path."""
        self.dismiss(None)
