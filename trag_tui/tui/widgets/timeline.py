"""Documents per year of the whole corpus, with the years of the selected answer's sources marked.

It answers two questions at a glance: where in time the collection is thick or thin (so an empty
answer for 1997 is no surprise), and where the current answer's evidence sits within it. Each
year gets the same number of columns, so a mark sits exactly under its year's bar. A year with
no documents is drawn empty (a dotted baseline) and named, never as the lowest bar, which would
read as "a few"; and the count in the title is the index's whole count, undated documents
included, the same number the status line shows.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

MARK = "▲"
EMPTY = "·"
BLOCKS = " ▁▂▃▄▅▆▇█"
MAX_COLUMNS_PER_YEAR = 12


def year_columns(first: int, last: int, width: int) -> list[list[int]]:
    """The years each column stands for: several columns per year, or several years per column."""
    years = list(range(first, last + 1))
    if width <= 0 or not years:
        return []
    if len(years) <= width:
        per = max(1, min(MAX_COLUMNS_PER_YEAR, width // len(years)))
        return [[y] for y in years for _ in range(per)]
    step = math.ceil(len(years) / width)
    return [years[i:i + step] for i in range(0, len(years), step)]


def bar_rows(values: list[int], height: int) -> list[str]:
    """Bars of `height` rows, top row first; a zero is an empty column with a dot at the base,
    and any non-zero value shows at least the lowest block."""
    height = max(1, height)
    top = max(values, default=0)
    steps = height * (len(BLOCKS) - 1)
    levels = [0 if v <= 0 else max(1, round(v / top * steps)) for v in values]
    rows = []
    for row in range(height - 1, -1, -1):
        cells = []
        for v, level in zip(values, levels):
            fill = min(len(BLOCKS) - 1, max(0, level - row * (len(BLOCKS) - 1)))
            cells.append(EMPTY if v <= 0 and row == 0 else BLOCKS[fill])
        rows.append("".join(cells))
    return rows


def empty_years(per_year: dict[int, int]) -> list[int]:
    """The years between the first and the last with no documents at all."""
    if not per_year:
        return []
    return [y for y in range(min(per_year), max(per_year) + 1) if not per_year.get(y)]


def year_span(years: list[int]) -> str:
    """Years as short runs: [2015, 2016, 2017, 2020] -> "2015–2017, 2020"."""
    runs: list[list[int]] = []
    for y in sorted(years):
        if runs and y == runs[-1][-1] + 1:
            runs[-1].append(y)
        else:
            runs.append([y])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)


def with_note(row: str, note: str) -> str:
    """The row with `note` written where it covers nothing but blanks: at its right end, else
    at its left (a mark at the right end must not hide the note)."""
    at = len(row) - len(note)
    if at < 1:
        return row
    if not row[at - 1:].strip():
        return row[:at] + note
    if not row[:len(note) + 1].strip():
        return note + row[len(note):]
    return row


def mark_row(columns: list[list[int]], marked: set[int]) -> str:
    """A MARK under the middle column of each marked year (or of each bin holding one)."""
    row = [" "] * len(columns)
    start = 0
    while start < len(columns):
        end = start
        while end + 1 < len(columns) and columns[end + 1] == columns[start]:
            end += 1
        if marked.intersection(columns[start]):
            row[(start + end) // 2] = MARK
        start = end + 1
    return "".join(row)


def axis_row(columns: list[list[int]], marked: set[int]) -> str:
    """Year labels: the first and last year, and the marked years where they fit."""
    width = len(columns)
    row = [" "] * width
    taken = [False] * width

    def put(text: str, at: int) -> None:
        at = max(0, min(at, width - len(text)))
        span = range(max(0, at - 1), min(width, at + len(text) + 1))
        if at < 0 or at + len(text) > width or any(taken[i] for i in span):
            return
        for i, ch in enumerate(text):
            row[at + i] = ch
            taken[at + i] = True

    if not columns:
        return ""
    # The marked years first: a mark must not sit under the label of another year.
    marks = mark_row(columns, marked)
    for col, ch in enumerate(marks):
        if ch == MARK:
            year = next(y for y in columns[col] if y in marked)
            put(str(year), col - 2)
    put(str(columns[0][0]), 0)
    last = str(columns[-1][-1])
    put(last, width - len(last))
    return "".join(row)


class Timeline(Vertical):
    """Bars of documents per year with the selected answer's years marked under them."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.per_year: dict[int, int] = {}
        self.total = 0  # every document of the index, dated or not
        self.marked: set[int] = set()
        self.empty_text = "No index open."

    def compose(self) -> ComposeResult:
        yield Static("", id="spark", markup=False)
        yield Static("", id="marks", markup=False)
        yield Static(self.empty_text, id="axis", markup=False)

    def set_counts(self, per_year: dict[str, int] | dict[int, int], total: int | None = None) -> None:
        """Show a corpus's documents per year (keys are years) and its whole document count."""
        self.per_year = {int(y): int(n) for y, n in per_year.items()}
        dated = sum(self.per_year.values())
        self.total = dated if total is None else max(int(total), dated)
        self.empty_text = "No dated documents in this index."
        self._draw()

    def mark_years(self, years: Iterable[int | str]) -> None:
        """Mark the years of the current answer's sources (replacing the previous marks)."""
        self.marked = {int(y) for y in years}
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        if not self.is_mounted:
            return
        spark = self.query_one("#spark", Static)
        marks = self.query_one("#marks", Static)
        axis = self.query_one("#axis", Static)
        title = "Documents per year"
        if not self.per_year:
            spark.update("")
            marks.update("")
            axis.update(self.empty_text)
            self.border_title = title
            self.border_subtitle = ""
            return
        first, last = min(self.per_year), max(self.per_year)
        columns = year_columns(first, last, max(1, self.content_size.width))
        values = [sum(self.per_year.get(y, 0) for y in col) for col in columns]
        height = spark.styles.height  # set by the stylesheet: 2 rows, 1 on small screens
        rows = int(height.value) if height is not None and height.is_cells else 2
        spark.update("\n".join(bar_rows(values, rows)))
        shown = {y for y in self.marked if first <= y <= last}
        empty = empty_years(self.per_year)
        row = mark_row(columns, shown)
        if empty and not self.styles.border_bottom[0]:
            # No border to carry the note (the compact layout): it goes beside the marks.
            row = with_note(row, f"{EMPTY} no documents: {year_span(empty)}")
        marks.update(row)
        axis.update(axis_row(columns, shown))
        undated = self.total - sum(self.per_year.values())
        self.border_title = (f"{title} {first}–{last} · {self.total} documents"
                             + (f" ({undated} undated)" if undated else ""))
        notes = []
        if empty:
            notes.append(f"{EMPTY} no documents: {year_span(empty)}")
        if shown:
            notes.append(f"{MARK} sources: {', '.join(str(y) for y in sorted(shown))}")
        self.border_subtitle = " · ".join(notes)
