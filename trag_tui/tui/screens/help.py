"""Every key binding in one place, generated from the bindings themselves so it cannot drift."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..overrides import SLASH_HELP

# Keys handled by widgets rather than by bindings, which the binding tables cannot list.
WIDGET_KEYS = [
    ("enter", "Send the question (in the question box); open a source (in the sources list)"),
    ("up / down", "Earlier questions (in an empty question box); move through the sources"),
    ("tab / shift+tab", "Move between the question box, the answers and the sources"),
    ("click", "An answer: show its own sources; a citation [n]: open that source"),
    ("right / tab", "Complete a path in the open / index / export dialogs"),
]


def key_label(key: str) -> str:
    """A binding's keys as a person would type them: `ctrl+n` -> `Ctrl+N`."""
    return " / ".join(
        "+".join(part.capitalize() if len(part) > 1 else part.upper() for part in k.split("+"))
        for k in key.split(","))


def binding_rows(sources: Sequence[Sequence[object]], palette_key: str) -> list[tuple[str, str]]:
    """(keys, what they do) for every binding with a description, without duplicates."""
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    for bindings in sources:
        for b in bindings:
            # Bindings without a description are internal (Ctrl+C only says how to quit).
            if not isinstance(b, Binding) or b.key in seen or not b.description:
                continue
            seen.add(b.key)
            # The footer shows the short description; help the whole one (the tooltip).
            rows.append((key_label(b.key), b.tooltip or b.description))
    rows.append((key_label(palette_key), "Command palette: open an index or a stored "
                 "conversation, index a folder, copy, retry, export, explain view, overrides"))
    rows.extend((key_label(k), what) for k, what in WIDGET_KEYS)
    return rows


class HelpScreen(ModalScreen[None]):
    """The list of keys and slash commands; any of Esc, F1 or q closes it."""

    BINDINGS = [
        Binding("escape,f1,q", "dismiss", "Close help"),
    ]

    def __init__(self, rows: list[tuple[str, str]], history: Path | None = None) -> None:
        super().__init__()
        self.rows, self.history = rows, history

    def compose(self) -> ComposeResult:
        width = max(len(k) for k, _ in self.rows) + 2
        lines = [f"{k:<{width}}{what}" for k, what in self.rows]
        lines += ["", "In the question box:", f"  {SLASH_HELP}",
                  "  Typing anywhere but in a text field goes to the question box."]
        if self.history is not None:
            lines += ["", "Conversations are saved as you ask, one JSON line per question, in",
                      f"  {self.history}",
                      "  (Ctrl+P → “Open conversation…” lists them; TRAG_TUI_USER_DIR moves it)."]
        with VerticalScroll(id="help-box") as box:
            box.border_title = "Keys"
            box.border_subtitle = "Esc / F1 to close"
            yield Static("\n".join(lines), markup=False)

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(None)
