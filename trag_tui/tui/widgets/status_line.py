"""One line above the question box: which index, which model, which overrides, what is running.

Overrides change every later answer, so they must stay visible while typing, not only in the
badge of the answer after. The model is named for the same reason, and when there is none the
line says, for as long as it is true, that answers are evidence only: a notice fades, this does
not.
"""
from __future__ import annotations

from textual.reactive import reactive
from textual.widgets import Static


class StatusLine(Static):
    """Index, model, overrides and activity, in one line."""

    index_label: reactive[str] = reactive("")  # "" or "none": no index is open
    model: reactive[str] = reactive("")
    evidence_only: reactive[bool] = reactive(False)
    overrides: reactive[str] = reactive("none")
    activity: reactive[str] = reactive("")

    def __init__(self, **kwargs) -> None:
        super().__init__("", markup=False, **kwargs)

    def render(self) -> str:
        # What is running comes first: it changes, and a narrow terminal cuts the line's end,
        # so the overrides (which change every later answer) come before the model's name.
        parts = [self.activity] if self.activity else []
        label = self.index_label
        parts.append(f"index {label}" if label not in ("", "none") else "no index open")
        parts.append(f"overrides {self.overrides}")
        if self.evidence_only:
            parts.append("evidence only: no model")
        elif self.model:
            parts.append(f"model {self.model.removesuffix('.gguf')}")
        return " · ".join(parts)
