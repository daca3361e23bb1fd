"""One base for every error a user is meant to read.

The CLI and the chat app show these as a single line and never as a traceback; anything else
that escapes is a bug. Each part of the library keeps its own subclass (an index file that
cannot be opened, an embedder or a model that cannot be loaded, a file that cannot be read),
so callers can still tell them apart, while the shells need only catch `TragError`.
"""
from __future__ import annotations


class TragError(Exception):
    """An error whose message is for the user: one line, saying what to do where it can."""

    def __init__(self, message: object = ""):
        super().__init__(" ".join(str(message).split()))

    @property
    def message(self) -> str:
        return str(self)
