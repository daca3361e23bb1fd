"""What a reader must be told beside the quoted answer: a period asked about that has no
documents, and sources much older than the date the question is asked from.

Both follow from the sources alone, so they are known with the quote and shown above it by
every shell; they are notes about the answer, not part of it (the answer text is unchanged).
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ..temporal.calendar import iso_day
from ..text.labels import day_label, period_label
from .sources import period_of, query_periods

STALE_DAYS = 183  # about six months: older than that, "the current" may well have changed
NEAREST = 2  # sources named as the nearest to an empty period


def notes(result: Any, sources: Sequence[Any], quoted: Mapping[str | None, set[int]]) -> list[str]:
    """The notes for an answer from these numbered sources (`quoted`: the numbers its quote
    cites, by the period block it quotes them for), most important first."""
    out = empty_periods(result, sources, quoted)
    stale = staleness(result, sources)
    if stale:
        out.append(stale)
    return out


def empty_periods(result: Any, sources: Sequence[Any],
                  quoted: Mapping[str | None, set[int]]) -> list[str]:
    """One line per period a comparison asks about that no source is dated in and none speaks
    of, with the sources nearest to it ("No documents from 2012: the nearest are [3] (24 March
    2010), …"); one that only sources of another time speak of, with those sources; or one
    whose sources the quote does not cite."""
    if result.mode != "comparison":
        return []
    dated = [(day, s) for s in sources if (day := iso_day(s.date)) is not None]
    cited = set().union(*quoted.values()) if quoted else set()
    lines = []
    for start, end in query_periods(result):
        inside = [s.number for _, s in dated if period_of(s, [(start, end)]) == 0]
        # the period's block also holds what speaks of it from another time (`arrange`), and
        # a line of another block's source quoted for it because it speaks of it
        mine = quoted.get(period_label(start, end), set())
        block = {s.number for s in sources if s.group == period_label(start, end)} | mine
        if inside:
            if cited and not cited & (set(inside) | block):
                listed = ", ".join(f"[{n}]" for n in inside)
                lines.append(f"Nothing from {period_label(start, end)} is quoted; its sources "
                             f"are {listed}.")
            continue
        speak = [pair for pair in dated if pair[1].number in block]
        if speak:
            # "net migration last year", said in May 2025, speaks of December 2024: the period
            # has documents, but none of its own time, and the reader is told so, and when no
            # line of them answers for it, that too
            said = f"Nothing published in {period_label(start, end)} was found"
            if cited and not mine:
                said += ", and nothing quoted speaks of it; its sources are"
            else:
                said += "; it is answered from what speaks of it:"
            lines.append(f"{said} {_nearest(speak, start, end, first=mine)}.")
            continue
        line = f"No documents from {period_label(start, end)}"
        if dated:
            line += (f": the nearest {'are' if len(dated) > 1 else 'is'} "
                     f"{_nearest(dated, start, end)}")
        lines.append(line + ".")
    return lines


def _nearest(dated: list[tuple[dt.date, Any]], start: dt.date | None, end: dt.date | None,
             first: Collection[int] = ()) -> str:
    """The NEAREST of these dated sources to the period, cited with their days; those `first`
    names (the ones quoted for it) before the others."""
    near = sorted(dated, key=lambda pair: (pair[1].number not in first,
                                           _distance(pair[0], start, end), pair[1].number))
    return ", ".join(f"[{s.number}] ({day_label(day)})" for day, s in near[:NEAREST])


def staleness(result: Any, sources: Sequence[Any]) -> str | None:
    """For a question about the present, how old the newest source is when that is long
    before the as-of date ("The newest source is 12 months old: 20 November 2024.")."""
    if result.mode != "decay":
        return None
    days = [day for s in sources if (day := iso_day(s.date)) is not None]
    if not days:
        return None
    newest, as_of = max(days), result.query.as_of
    age = (as_of - newest).days
    if age < STALE_DAYS:
        return None
    months = round(age / 30.44)
    return (f"The newest source is {months} months old ({day_label(newest)}, as of "
            f"{day_label(as_of)}).")


def _distance(day: dt.date, start: dt.date | None, end: dt.date | None) -> int:
    if start is not None and day < start:
        return (start - day).days
    if end is not None and day > end:
        return (day - end).days
    return 0
