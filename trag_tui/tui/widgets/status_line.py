"""One line above the question box: which index, which overrides, and what is running.

Overrides change every later answer, so they must stay visible while typing, not only in the
badge of the answer after.
"""
from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static


class StatusLine(Static):
    """Index, overrides and activity, in one line."""

    index_label: reactive[str] = reactive("no index")
    overrides: reactive[str] = reactive("none")
    activity: reactive[str] = reactive("")

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)

    def render(self) -> str:
        parts = [f"index {self.index_label}", f"overrides {self.overrides}"]
        if self.activity:
            parts.append(self.activity)
        return "  ·  ".join(parts)
