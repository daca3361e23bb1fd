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


class RegularFile(click.Path):
    """An existing regular file: a folder, a pipe or a device is refused before anything reads it."""

    def __init__(self):
        super().__init__(exists=True, dir_okay=False)

    def convert(self, value, param, ctx):
        value = super().convert(value, param, ctx)
        try:
            mode = os.stat(value).st_mode
        except OSError as exc:
            self.fail(f"{safe_line(str(value))}: {exc.strerror or exc}", param, ctx)
        if not stat.S_ISREG(mode):
            self.fail(f"{safe_line(str(value))} is not a regular file", param, ctx)
        return value


#: -k: how many hits or sources (at least one).
K = click.IntRange(*RANGES["k"])
#: --alpha: the weight of recency against relevance, a share.
ALPHA = FiniteFloat(*RANGES["alpha"])
#: --lambda: how fast the rational decay falls, per year.
LAMBDA = FiniteFloat(*RANGES["lam"])
#: --tau: the decay's time scale in days (0: taken from the publication cadence).
TAU = FiniteFloat(*RANGES["tau"])
#: --max-tokens: the longest answer.
MAX_TOKENS = click.IntRange(*RANGES["max_tokens"])
#: --workers: embedding processes.
WORKERS = click.IntRange(*RANGES["embed_workers"])
QUESTION = Question()
#: --as-of, --since, --until, --default-date.
DAY = Day()
#: --batch: a JSONL file; undecodable bytes become U+FFFD instead of stopping the batch.
BATCH = click.File("r", encoding="utf-8", errors="replace")
#: --model: a GGUF file, never a pipe or a device that would be read forever.
MODEL_FILE = RegularFile()
