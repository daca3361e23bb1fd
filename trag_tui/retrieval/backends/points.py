"""A collection's points read as the types `push` wrote them: a collection is outside input.

Whatever a collection holds (written by another program, by hand, or by an older push) is
checked value by value before it reaches the file or the engine, so a missing id, a text id,
a bad date or a wrong type is refused in one line that names the collection and the point, and
never blamed on the user's index (a value the file's own checks would reject otherwise reads
as a damaged index file).
"""
from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from ...errors import CollectionError
from ...storage.store import EPOCH, UNKNOWN_DAY

MAX_ID = 2**63 - 1
FIRST_DAY = (dt.date.min - EPOCH).days  # the days a calendar date can have
LAST_DAY = (dt.date.max - EPOCH).days


class _Missing:
    """No default: a missing value is refused."""


_MISSING = _Missing()
_PERIOD = re.compile(r"^(?:[0-9]{1,4}0s|[0-9]{1,4}|undated)$")  # what `period_of` names


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def bad(where: str, what: str) -> CollectionError:
    """The one line for a collection that holds something `push` never writes."""
    return CollectionError(f"{where}: {what}; the collection holds what trag-tui push never writes "
                           "(the fault is the collection's, not your index's)")


def checked_meta(meta: Any, where: str) -> dict:
    """The collection's trag-tui metadata, with the values retrieval and pull act on checked."""
    periods = meta.get("periods", []) if isinstance(meta, dict) else None
    if (not isinstance(periods, list) or not isinstance(meta.get("sharded", False), bool)
            or meta.get("shard_by", "decade") not in ("decade", "year")
            or not all(isinstance(p, str) and _PERIOD.match(p) for p in periods)):
        raise bad(where, "its metadata is not the one push records (sharding, periods)")
    return meta


def point_id(where: str, value: Any) -> int:
    """A point's id: a chunk id, so a whole number (Qdrant also allows UUID strings)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_ID:
        raise bad(where, f"a point has the id {_shown(value)}, not a chunk number")
    return value


class Point:
    """One point's id and payload, each value read with its type and range checked."""

    def __init__(self, where: str, point: Any):
        self.where = where
        self.id = point_id(where, getattr(point, "id", None))
        payload = getattr(point, "payload", None)
        if not isinstance(payload, dict):
            raise bad(where, f"point {self.id} has no payload")
        self.payload = payload
        self.vector = getattr(point, "vector", None)

    def _value(self, key: str, default: Any) -> Any:
        """The value, or the default for a missing or null one (refused when there is none)."""
        value = self.payload.get(key)
        if value is None:
            value = default
        if value is _MISSING:
            raise bad(self.where, f"point {self.id} has no {key}")
        return value

    def _wrong(self, key: str, value: Any, wanted: str) -> CollectionError:
        return bad(self.where, f"point {self.id} has {key} {_shown(value)}, not {wanted}")

    def whole(self, key: str, default: int | _Missing = _MISSING, lo: int = 0, hi: int = MAX_ID) -> int:
        """A whole number from lo to hi (the default when missing or null; refused without one)."""
        value = self._value(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise self._wrong(key, value, f"a whole number from {lo} to {hi}")
        return value

    def optional_whole(self, key: str, lo: int = 0, hi: int = MAX_ID) -> int | None:
        """A whole number from lo to hi, or None when missing or null."""
        return None if self.payload.get(key) is None else self.whole(key, lo=lo, hi=hi)

    def text(self, key: str, default: str | _Missing = _MISSING) -> str:
        """Text (the default when missing or null; refused without one)."""
        value = self._value(key, default)
        if not isinstance(value, str):
            raise self._wrong(key, value, "text")
        return value

    def optional_text(self, key: str) -> str | None:
        return None if self.payload.get(key) is None else self.text(key)

    def flag(self, key: str, default: bool | _Missing = _MISSING) -> bool:
        value = self._value(key, default)
        if not isinstance(value, bool):
            raise self._wrong(key, value, "true or false")
        return value

    def number(self, key: str) -> float | None:
        value = self.payload.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise self._wrong(key, value, "a finite number")
        return float(value)

    def date(self, key: str) -> dt.date | None:
        value = self.payload.get(key)
        if value is None or value == "":
            return None
        try:
            if not isinstance(value, str) or len(value) != 10:
                raise ValueError
            return dt.date.fromisoformat(value)
        except ValueError:
            raise self._wrong(key, value, "a date (YYYY-MM-DD)") from None

    def day(self, key: str) -> int | None:
        """A day number (None when unknown): the days a calendar date can have."""
        value = self.payload.get(key)
        if value is None or value == UNKNOWN_DAY:
            return None
        return self.whole(key, lo=FIRST_DAY, hi=LAST_DAY)

    def mapping(self, key: str) -> dict:
        value = self.payload.get(key) or {}
        if not isinstance(value, dict):
            raise self._wrong(key, value, "a mapping")
        return value

    def dense(self, dim: int) -> list[float] | None:
        """The stored dense vector, `dim` finite numbers, or None when the point holds none."""
        found = self.vector.get("dense") if isinstance(self.vector, dict) else None
        if found is None:
            return None
        if (not isinstance(found, list) or len(found) != dim
                or not all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
                           for x in found)):
            raise bad(self.where, f"point {self.id} holds a vector that is not {dim} finite numbers")
        return found


__all__ = ["Point", "bad", "checked_meta", "point_id"]
