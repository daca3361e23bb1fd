"""Asking for one file or folder path, completed as it is typed and checked before the dialog
closes.

The check happens here, in the dialog, so a typo is fixed in place instead of surfacing later
as an error from a worker; completion (Right or Tab accepts it, as in a shell) saves typing a
long path exactly.
"""
from __future__ import annotations

from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Button, Input, Label, Static

MAX_LISTED = 200  # entries read from one folder while completing


def complete_path(text: str, kind: str | None = None) -> str | None:
    """The typed path extended to the first entry it can only mean, or None.

    `kind` "dir" completes folders only; otherwise folders and files. A folder completes with a
    trailing slash so the next Tab goes inside it. Hidden entries come only after a typed dot.
    """
    if not text:
        return None
    typed = Path(text).expanduser()
    folder, prefix = (typed, "") if text.endswith(("/", "\\")) else (typed.parent, typed.name)
    try:
        entries = []
        for n, entry in enumerate(folder.iterdir()):
            if n >= MAX_LISTED:
                break
            entries.append(entry)
    except OSError:
        return None
    names = sorted(
        (e.name + "/" if e.is_dir() else e.name) for e in entries
        if e.name.startswith(prefix) and (prefix.startswith(".") or not e.name.startswith("."))
        and (kind != "dir" or e.is_dir()))
    if not names:
        return None
    head = text[: len(text) - len(prefix)] if prefix else text
    completion = head + names[0]
    return completion if completion != text else None


class PathSuggester(Suggester):
    """Suggests the completion of a path as it is typed."""

    def __init__(self, kind: str | None = None) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.kind = kind

    async def get_suggestion(self, value: str) -> str | None:
        """The first completion of the path typed so far."""
        return complete_path(value, self.kind)


class PathPrompt(ModalScreen[Path | None]):
    """A title, an input for a path, OK and Cancel; dismisses with the Path or None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"),
                Binding("tab", "complete", "Complete the path", show=False, priority=True)]

    def __init__(self, title: str, *, placeholder: str = "", value: str = "",
                 must_exist: str | None = None, action: str = "opens") -> None:
        """must_exist: "file", "dir", or None (the path may be new, e.g. an export); `action`
        says what Enter does ("opens", "writes")."""
        super().__init__()
        self.action = action
        self.title_text, self.placeholder, self.value = title, placeholder, value
        self.must_exist = must_exist
        self._kind = "dir" if must_exist == "dir" else None  # what completion offers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(value=self.value, placeholder=self.placeholder, id="path",
                        suggester=PathSuggester(self._kind))
            yield Static("", id="path-error", classes="error", markup=False)
            yield Static(f"→ or Tab completes the path · Enter {self.action} · Esc cancels",
                         classes="hint", markup=False)
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

    def action_complete(self) -> None:
        """Tab: accept the suggested completion in the path box (elsewhere: the next field)."""
        box = self.query_one("#path", Input)
        completion = complete_path(box.value, self._kind) if self.focused is box else None
        if completion:
            box.value = completion
            box.cursor_position = len(completion)
        else:
            self.focus_next()

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close without a path."""
        self.dismiss(None)
