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


class IndexFileError(TragError):
    """An index file that cannot be opened as asked; the message is meant for the user."""


class IndexBusy(IndexFileError):
    """A sound file another process holds longer than the wait allows: busy, never damaged."""


class IngestError(TragError):
    """A file that cannot be read; the message is the one-line reason shown in the summary."""


class EmbedderError(TragError):
    """An embedder that cannot be loaded or does not match the index; the message is for users."""


class GenerationError(TragError):
    """A model that cannot be loaded or a prompt that cannot be run."""


class UnknownModel(GenerationError):
    """No model file and no listed model has the name asked for."""


class PluginError(TragError):
    """A plug-in that cannot be loaded or registers something unusable."""


class QdrantError(TragError):
    """A push target or backend that cannot be used, in one line for the user."""


class PullError(QdrantError):
    """A slice that cannot be pulled as asked, in one line for the user."""


class CollectionError(QdrantError):
    """A value in a Qdrant collection that trag-tui push never writes: the collection's fault,
    not the index file's."""


class InputError(TragError, ValueError):
    """A value from outside (a date, a batch or eval row, a setting) that cannot be used; the
    message names it and what it may be. A ValueError too, for callers that check values so."""


class SettingError(InputError):
    """A setting (environment, config file or flag) outside the range the program can use."""
