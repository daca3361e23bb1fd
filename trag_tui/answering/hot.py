"""The hot window of a question about the present: what the latest publication interval before
the as-of date says leads the answer, when it is about the question.

"Which show was recently green-lit for a new season?" is asked of this week's news. Retrieval
already brings the latest reports in (the current mode's recent pass, the ongoing prior), but
the sentence ranking weighs every source alike, so an older, wordier report can still be
quoted first. The window is read from the sources themselves: one publication interval, the
typical gap between their successive publication days (`scoring.cadence`), back from the
last of those days on or before the as-of date. A source in it leads when its fused retrieval score (relevance before any
recency boost) is at least `HOT_SHARE` of the best source's: recent but off the subject does
not lead. Nothing dated after the as-of date is ever in the window.
"""
from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..retrieval.scoring import cadence
from ..temporal.calendar import iso_day
from ..text.labels import day_label
from .sources import Source

HOT_SHARE = 0.5  # a source in the window leads when its fused score is this share of the best


@dataclass(frozen=True)
class HotWindow:
    """The window (first and last day, both included) and the numbers of the sources leading."""

    start: dt.date
    end: dt.date
    interval: float  # the publication interval in days, read from the sources
    leading: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"start": self.start.isoformat(), "end": self.end.isoformat(),
                "interval_days": self.interval, "leading": list(self.leading)}


def is_current(result: Any) -> bool:
    """A question about the present: the current mode, or an ongoing one searched without a
    period ("Which menu item has Taco Bell brought back?")."""
    return result.mode == "decay" or (result.mode == "hybrid"
                                      and bool(getattr(result.query, "ongoing", False)))


def window(result: Any, sources: Sequence[Source]) -> HotWindow | None:
    """The hot window of a current question and the sources leading in it, else None."""
    if not is_current(result) or not sources:
        return None
    q = result.query
    limit = min(q.end, q.as_of) if getattr(q, "end", None) else q.as_of
    days = [d for s in sources if (d := iso_day(s.date)) is not None and d <= limit]
    interval = cadence(d.toordinal() for d in days)
    if interval is None:
        return None
    end = max(days)  # the last publication day on or before the as-of date
    start = end - dt.timedelta(days=max(1, math.ceil(interval)))
    relevance = _relevance(result)
    best = max((relevance.get(s.chunk_id, s.score) for s in sources), default=0.0)
    if best <= 0:
        return None
    leading = tuple(
        s.number for s in sources
        if (d := iso_day(s.date)) is not None and start <= d <= end
        and relevance.get(s.chunk_id, s.score) >= HOT_SHARE * best)
    return HotWindow(start, end, float(interval), leading)


def _relevance(result: Any) -> dict[int, float]:
    """Each hit's fused score: its relevance before recency (its final score without one)."""
    return {h.chunk_id: h.scores.get("fused", h.score) for h in result.hits}


def lead(ranked: Sequence[Any], hot: HotWindow | None) -> list[Any]:
    """The ranked sentences with those of the leading sources first, each part in its order."""
    if hot is None or not hot.leading:
        return list(ranked)
    leading = set(hot.leading)
    first = [c for c in ranked if c.source.number in leading]
    return first + [c for c in ranked if c.source.number not in leading]


def hot_note(hot: HotWindow | None) -> str | None:
    """The date line: which sources lead, from which days."""
    if hot is None or not hot.leading:
        return None
    span = day_label(hot.end) if hot.start == hot.end else \
        f"{day_label(hot.start)} to {day_label(hot.end)}"
    cited = ", ".join(f"[{n}]" for n in hot.leading)
    return f"Latest first: the sources from {span} ({cited}) lead the answer."
