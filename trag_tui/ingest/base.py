"""What every reader shares: the result of reading one file, and reading its bytes safely.

The format readers import this, never the package, so the package can pick a reader by file
kind without an import loop.
"""
from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from pathlib import Path

from trag_tui.documents import Document
from trag_tui.errors import IngestError
from trag_tui.regular import open_regular

DEFAULT_MAX_BYTES = 64 * 2**20
DEFAULT_READ_SECONDS = 20.0
# Windows-1252 punctuation written as C1 control codes (ParlParse's &#146; for an apostrophe,
# &#151; for a dash; JSON "\u0092" from text decoded as Latin-1): no text means a control code
# there, so they are mapped back to what was meant.
_C1 = re.compile("[\x80-\x9f]")


def windows_punctuation(s: str) -> str:
    """The text with C1 control codes read as the Windows-1252 characters they stand for."""
    if not _C1.search(s):
        return s
    return _C1.sub(lambda m: m.group(0).encode("latin-1").decode("cp1252", errors="ignore"), s)


@dataclass(frozen=True)
class FileRead:
    """What one file gave: its documents, non-fatal notes, or why it was deliberately skipped."""

    documents: list[Document]
    notes: list[str] = field(default_factory=list)
    skipped: str | None = None


Reader = Callable[..., FileRead]


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes, refusing to load more than `max_bytes` even if it grew since stat(),
    and anything but a regular file even if one was swapped in since discovery."""
    with open_regular(path) as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise IngestError(f"too large (> {_size(max_bytes, whole=True)} limit)")
    return data


def _os_reason(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _size(n: int, whole: bool = False) -> str:
    """Human size: MB with one decimal (or whole for a round limit), KB or bytes when small."""
    for unit, factor in (("MB", 2**20), ("KB", 2**10)):
        if n >= factor:
            value = n / factor
            if whole and value == int(value):
                return f"{int(value)} {unit}"
            return f"{value:.1f} {unit}"
    return f"{n} bytes"


def size_refusal(size: int, max_bytes: int) -> str | None:
    """Why a file (or a zip member) of `size` bytes is not read, or None: checked on its stat or
    its declared size, before any byte is read, inflated or hashed (a sparse file of 24 GB takes
    no disk and no time to make)."""
    if size > max_bytes:
        return f"too large ({_size(size)} > {_size(max_bytes, whole=True)} limit)"
    return None


class OutOfTime(BaseException):
    """A file's reading ran past its time budget. A BaseException, so that no reader's
    `except Exception` takes it for a fault of the file's content."""


_DEADLINE: ContextVar[float | None] = ContextVar("trag_tui_read_deadline", default=None)


def check_time() -> None:
    """Raise OutOfTime if the file being read is past its budget. Readers call it in their
    loops, which is what stops them outside the main thread, where no alarm can."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise OutOfTime


class ReadBudget:
    """The time one file's reading may take, so one file cannot hold up the files after it.

    In the main thread an interval timer (SIGALRM) interrupts even a single long step, a regular
    expression included; elsewhere the readers' own check_time() calls stop it. A timer
    someone else had set is set again, less the time spent, when the budget ends; stop() is
    idempotent and the handler is inert once it ran, so the alarm can only strike inside the
    reading."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds if seconds and seconds > 0 else None
        self.active = False
        self._token: Token[float | None] | None = None
        self._previous: tuple | None = None  # (handler, timer left, interval, started)

    def __enter__(self) -> ReadBudget:
        if self.seconds is None:
            return self
        self.active = True
        self._token = _DEADLINE.set(time.monotonic() + self.seconds)
        if hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread():
            handler = signal.signal(signal.SIGALRM, self._expire)
            left, interval = signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self._previous = (handler, left, interval, time.monotonic())
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _expire(self, signum, frame) -> None:
        if self.active:
            raise OutOfTime

    def stop(self) -> None:
        """Disarm: nothing of the budget is left behind, whatever was set before it."""
        self.active = False
        if self._previous is not None:
            handler, left, interval, started = self._previous
            self._previous = None
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL if handler is None else handler)
            if left > 0:
                signal.setitimer(signal.ITIMER_REAL,
                                 max(left - (time.monotonic() - started), 1e-3), interval)
        if self._token is not None:
            _DEADLINE.reset(self._token)
            self._token = None

    def reason(self) -> str:
        """The one line a file that ran out of time fails with."""
        return (f"reading took longer than {self.seconds:g} s, the limit for one file "
                "(read_seconds); it is tried again when it changes")
