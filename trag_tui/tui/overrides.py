"""What the user changed for the next answers, kept apart from the settings they started with.

Overrides live only for the session: the badge must be able to say which part of an answer came
from the user rather than from the question, so they are never folded into `Settings` for good.
The slash commands typed in the question box are parsed here too, without Textual, so the rules
are testable on their own.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass

from ..settings import RANGES, Settings

# The modes a user may force; "blind" is an evaluation baseline, not an answer mode.
FORCEABLE_MODES = ("hard_filter", "decay", "evolution", "comparison", "hybrid")
DECAY_METHODS = ("rational", "exp", "rank")
MODE_LABELS = {
    "hard_filter": "hard filter",
    "decay": "decay",
    "evolution": "evolution",
    "comparison": "comparison",
    "hybrid": "hybrid",
    "blind": "time-blind",
}

SLASH_HELP = (
    "/asof YYYY-MM-DD | /asof off · /mode NAME | /mode auto · /decay rational|exp|rank · "
    "/tau DAYS · /alpha X · /k N · /clear"
)


@dataclass(frozen=True)
class Overrides:
    """Session choices that win over the question and the settings; None means "not overridden"."""

    as_of: dt.date | None = None
    mode: str | None = None
    decay: str | None = None
    tau: float | None = None
    alpha: float | None = None
    k: int | None = None

    @property
    def empty(self) -> bool:
        """True when nothing is overridden."""
        return all(getattr(self, f.name) is None for f in dataclasses.fields(self))

    def apply(self, settings: Settings) -> Settings:
        """The settings an answer runs with: the base ones with the decay knobs and k replaced."""
        return settings.replace(decay=self.decay, tau=self.tau, alpha=self.alpha, k=self.k)

    def knob_labels(self) -> list[str]:
        """Short labels of the overridden retrieval knobs, for the badge."""
        out = []
        if self.decay is not None:
            out.append(f"decay={self.decay}")
        if self.tau is not None:
            out.append(f"tau={self.tau:g}")
        if self.alpha is not None:
            out.append(f"alpha={self.alpha:g}")
        if self.k is not None:
            out.append(f"k={self.k}")
        return out

    def summary(self) -> str:
        """One line for the status bar: every override, or "none"."""
        parts = []
        if self.as_of is not None:
            parts.append(f"as-of {self.as_of.isoformat()}")
        if self.mode is not None:
            parts.append(f"mode {MODE_LABELS.get(self.mode, self.mode)}")
        parts.extend(self.knob_labels())
        return ", ".join(parts) if parts else "none"

    @classmethod
    def from_dict(cls, data: dict) -> Overrides:
        """Overrides from their `to_dict` form (a stored turn's); anything invalid is dropped."""
        try:
            return validate(**{k: (str(v) if k in ("as_of", "tau", "alpha", "k") else v)
                               for k, v in data.items() if k in _FIELDS})
        except (ValueError, TypeError):
            return cls()

    def to_dict(self) -> dict:
        """JSON-ready form (for the conversation history)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if self.as_of is not None:
            out["as_of"] = self.as_of.isoformat()
        return {k: v for k, v in out.items() if v is not None}


_FIELDS = {f.name for f in dataclasses.fields(Overrides)}


def parse_date(text: str) -> dt.date:
    """A YYYY-MM-DD date, with a message a user can act on."""
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text.strip()!r} is not a date in YYYY-MM-DD form") from None


def validate(**values) -> Overrides:
    """Overrides from raw form values (strings or None); raises ValueError naming the bad one."""
    as_of = values.get("as_of")
    mode = values.get("mode")
    decay = values.get("decay")
    out = Overrides(
        as_of=parse_date(as_of) if isinstance(as_of, str) and as_of.strip() else (
            as_of if isinstance(as_of, dt.date) else None),
        mode=mode or None,
        decay=decay or None,
        tau=_number("tau", values.get("tau"), float, minimum=1.0),
        alpha=_number("alpha", values.get("alpha"), float, minimum=0.0),
        k=_number("k", values.get("k"), int, minimum=1),
    )
    if out.mode is not None and out.mode not in FORCEABLE_MODES:
        raise ValueError(f"unknown mode {out.mode!r}; one of {', '.join(FORCEABLE_MODES)}")
    if out.decay is not None and out.decay not in DECAY_METHODS:
        raise ValueError(f"unknown decay {out.decay!r}; one of {', '.join(DECAY_METHODS)}")
    return out


def _number(name: str, value, kind, *, minimum: float):
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a {'whole ' if kind is int else ''}number, not {value!r}") from None
    # The most a setting may be, as anywhere else it is given (NaN is not a number here either).
    maximum = RANGES[name][1]
    if not math.isfinite(number) or not minimum <= number <= maximum:
        raise ValueError(f"{name} must be a number from {minimum:g} to {maximum:.0f}")
    return number


def apply_command(current: Overrides, text: str) -> Overrides:
    """The overrides after one slash command such as `/asof 2019-01-01` or `/mode decay`.

    Raises ValueError with a usage hint for anything it does not understand.
    """
    name, _, arg = text.strip().lstrip("/").partition(" ")
    name, arg = name.lower(), arg.strip()
    off = arg.lower() in ("", "off", "auto", "none", "default")
    if name == "clear":
        return Overrides()
    field = {"asof": "as_of", "as-of": "as_of", "as_of": "as_of", "mode": "mode", "decay": "decay",
             "tau": "tau", "alpha": "alpha", "k": "k"}.get(name)
    if field is None:
        raise ValueError(f"unknown command /{name}; try {SLASH_HELP}")
    if off:
        return dataclasses.replace(current, **{field: None})
    values = current.to_dict()
    values[field] = arg
    return validate(**values)
