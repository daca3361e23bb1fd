"""A question as the user asked it, kept visually apart from the answers."""
from __future__ import annotations

from textual.widgets import Static


class Question(Static):
    """One user question in the conversation."""

    def __init__(self, text: str, **kwargs) -> None:
        # markup off: a question may contain brackets like "[1]" that are not Textual markup.
        super().__init__(text, markup=False, **kwargs)
        self.question = text
