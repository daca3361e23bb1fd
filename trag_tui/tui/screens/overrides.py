"""The overrides form: as-of date, forced mode, decay knobs and k for the next answers.

Empty fields mean "as the question and settings say"; the form validates before closing, so an
override the engine would reject never leaves it.
"""
from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from ...settings import Settings
from ..overrides import DECAY_METHODS, FORCEABLE_MODES, MODE_LABELS, Overrides, validate


class OverridesScreen(ModalScreen[Overrides | None]):
    """Edit the session's overrides; dismisses with the new Overrides, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, current: Overrides, settings: Settings, *,
                 title: str = "Overrides for the next answers (empty = automatic)") -> None:
        super().__init__()
        self.current, self.settings, self.title_text = current, settings, title

    def compose(self) -> ComposeResult:
        c, s = self.current, self.settings
        with Vertical(classes="dialog", id="overrides-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            with Grid(id="overrides-grid"):
                yield Label("as-of date")
                yield Input(c.as_of.isoformat() if c.as_of else "", placeholder="YYYY-MM-DD (today)",
                            id="as_of", compact=True)
                yield Label("mode")
                yield Select([(MODE_LABELS[m], m) for m in FORCEABLE_MODES], value=c.mode or Select.NULL,
                             prompt="automatic (from the question)", id="mode", compact=True)
                yield Label("decay")
                yield Select([(d, d) for d in DECAY_METHODS], value=c.decay or Select.NULL,
                             prompt=f"setting ({s.decay})", id="decay", compact=True)
                yield Label("tau (days)")
                yield Input(_text(c.tau), placeholder=f"{s.tau:g}" if s.tau > 0 else "auto", id="tau", type="number",
                            compact=True)
                yield Label("alpha")
                yield Input(_text(c.alpha), placeholder=f"{s.alpha:g}", id="alpha", type="number",
                            compact=True)
                yield Label("k (sources)")
                yield Input(_text(c.k), placeholder=str(s.k), id="k", type="integer",
                            compact=True)
            yield Static("", id="overrides-error", classes="error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Apply", variant="primary", id="apply")
                yield Button("Clear all", id="clear")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    @on(Button.Pressed, "#apply")
    def apply(self) -> None:
        """Validate the form and close with the overrides."""
        values: dict[str, object] = {name: self.query_one(f"#{name}", Input).value
                                     for name in ("as_of", "tau", "alpha", "k")}
        for name in ("mode", "decay"):
            value = self.query_one(f"#{name}", Select).value
            values[name] = None if value is Select.NULL else value
        try:
            self.dismiss(validate(**values))
        except ValueError as exc:
            self.query_one("#overrides-error", Static).update(str(exc))

    @on(Button.Pressed, "#clear")
    def clear(self) -> None:
        """Close with no overrides at all."""
        self.dismiss(Overrides())

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        """Close and keep the overrides as they were."""
        self.dismiss(None)


def _text(value) -> str:
    return "" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
