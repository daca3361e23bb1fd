"""Command-line values checked where they enter, so no command runs on a meaningless number.

`-k -1` would return a whole candidate pool, `--alpha nan` poisons every score, an empty
question would still run the model, and an undecodable byte in a question would stop a search
half-way. Each knob gets one click type here, shared by every command that takes it, and the
error names the option and the allowed range, the range the same setting has in the
environment or the config file (`settings.RANGES`).
"""
from __future__ import annotations

import datetime as dt
import math
import os
import stat
from pathlib import Path

import click

from .settings import RANGES
from .text.safe import clean_question, safe_line


class FiniteFloat(click.ParamType):
    """A finite float inside [low, high] (either bound may be open-ended)."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, float) and math.isfinite(value):
            number = value
        else:
            try:
                number = float(value)
            except (TypeError, ValueError):
                self.fail(f"{safe_line(str(value))!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
            self.fail(f"{number:g} is not in {self._range()}", param, ctx)
        return number

    def _range(self) -> str:
        low = "-inf" if self.low is None else f"{self.low:g}"
        high = "inf" if self.high is None else f"{self.high:g}"
        return f"the range {low}..{high}"


class Question(click.ParamType):
    """A question: undecodable bytes replaced (not fatal), an empty or blank one refused."""

    name = "question"

    def convert(self, value, param, ctx):
        text = clean_question(str(value))
        if not text.strip():
            self.fail("the question is empty", param, ctx)
        return text


class Day(click.ParamType):
    """A date in YYYY-MM-DD form anywhere in the calendar (0001-01-01 to 9999-12-31)."""

    name = "date"

    def convert(self, value, param, ctx):
        from .errors import InputError
        from .temporal.calendar import read_day

        if isinstance(value, dt.date):
            return value
        if value == "":
            return None  # `--as-of "$DAY"` with nothing in it: the default, as if not given
        try:
            return read_day(value, "")
        except InputError as exc:
            self.fail(safe_line(exc.message), param, ctx)


def _not_readable(value) -> str | None:
    """Why a path cannot be read to its end (None when it can): a device (`/dev/zero` never ends
    a line, a terminal never ends), a folder or a socket; a regular file or a pipe can."""
    try:
        mode = os.stat(value).st_mode
    except OSError as exc:
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    return "is a folder" if stat.S_ISDIR(mode) else "is not a regular file or a pipe"


class RegularFile(click.Path):
    """An existing regular file (or, with `pipes`, a named pipe): a folder, a device or a socket
    is refused before anything reads it."""

    def __init__(self, *, pipes: bool = False, path_type=None):
        super().__init__(exists=True, dir_okay=False, path_type=path_type)
        self.pipes = pipes

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        why = _not_readable(value)
        if why is None and not self.pipes and not stat.S_ISREG(os.stat(value).st_mode):
            why = "is not a regular file"
        if why is not None:
            self.fail(f"{safe_line(str(value))}: {why}" if not why.startswith("is ")
                      else f"{safe_line(str(value))} {why}", param, ctx)
        return value


class LinesFile(click.File):
    """A file of lines to read (`--batch`): a regular file, a pipe, or `-` for standard input;
    undecodable bytes become U+FFFD. A device or a folder is refused before anything reads it."""

    def __init__(self):
        super().__init__("r", encoding="utf-8", errors="replace")

    def convert(self, value, param, ctx):
        if isinstance(value, (str, os.PathLike)) and os.fspath(value) != "-":
            why = _not_readable(value)
            if why is not None and os.path.lexists(value):
                self.fail(f"{safe_line(str(value))} {why}" if why.startswith("is ")
                          else f"{safe_line(str(value))}: {why}", param, ctx)
        return super().convert(value, param, ctx)


def _whole(name: str) -> click.IntRange:
    """A whole-number option with the range of the setting it stands for."""
    low, high = RANGES[name]
    return click.IntRange(int(low), int(high))


#: -k: how many hits or sources (at least one).
K = _whole("k")
#: --alpha: the weight of recency against relevance, a share.
ALPHA = FiniteFloat(*RANGES["alpha"])
#: --lambda: how fast the rational decay falls, per year.
LAMBDA = FiniteFloat(*RANGES["lam"])
#: --tau: the decay's time scale in days (0: taken from the publication cadence).
TAU = FiniteFloat(*RANGES["tau"])
#: --max-tokens: the longest answer.
MAX_TOKENS = _whole("max_tokens")
#: --workers: embedding processes.
WORKERS = _whole("embed_workers")
QUESTION = Question()
#: --as-of, --since, --until, --default-date.
DAY = Day()
#: --batch: a JSONL file; undecodable bytes become U+FFFD instead of stopping the batch.
BATCH = LinesFile()
#: eval's question file: read to its end, so never a device.
QA_FILE = RegularFile(pipes=True, path_type=Path)
#: --model: a GGUF file, never a pipe or a device that would be read forever.
MODEL_FILE = RegularFile()
