"""One frozen, typed settings object, so every knob has one name, one type and one default.

Precedence: explicit overrides (command-line flags) > environment (`TRAG_TUI_*`) > the user's
config file (`config.toml` in the user directory) > defaults. Nothing is read at import time.
"""
from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints

from .errors import SettingError

ENV_PREFIX = "TRAG_TUI_"

#: The values each numeric setting may take (both ends included): what the program can use,
#: so a negative, zero, NaN or absurdly large setting is named where it enters, not met as a
#: traceback deep in a search. The command-line flags for the same knobs share these ranges.
RANGES: dict[str, tuple[float, float]] = {
    "chunk_words": (1, 100_000), "chunk_overlap": (0, 99_999), "parent_words": (1, 1_000_000),
    "embed_batch": (1, 65_536), "embed_workers": (1, 64), "write_batch_chunks": (1, 1_000_000),
    "max_file_mb": (0.001, 1024), "k": (1, 10_000), "candidates": (1, 100_000),
    "rrf_k": (0, 1_000_000), "bm25_weight": (0, 1e6), "dense_weight": (0, 1e6),
    "alpha": (0, 1), "lam": (0, 1e6), "tau": (0, 1e6), "gamma": (0, 1e6),
    "evolution_pool": (1, 100_000), "evolution_floor": (0, 1), "max_tokens": (1, 131_071),
    "n_ctx": (256, 131_072), "temperature": (0, 10), "threads": (0, 1024),
    "read_seconds": (0, 86_400), "expand_passes": (0, 3), "judge_seconds": (0.001, 86_400),
    "quantise_above": (0, 10**12), "rescore": (1, 4096),
}
#: The words each word-valued setting may be.
CHOICES: dict[str, tuple[str, ...]] = {
    "device": ("cpu", "cuda", "auto"), "fusion": ("rrf", "sum"),
    "decay": ("rational", "exp", "rank"), "scope": ("auto", "none"),
    "time": ("auto", "said", "about"), "hot": ("on", "off"), "quantise": ("auto", "on", "off"),
}
#: The settings whose value is a comma-separated list of these words ("none" or "" for none).
LISTS: dict[str, tuple[str, ...]] = {
    "expand": ("hard_filter", "evolution", "comparison", "hybrid"),
}


def user_dir() -> Path:
    """The per-user data folder (conversation history, config); never inside an index file."""
    if explicit := os.environ.get(ENV_PREFIX + "USER_DIR"):
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "trag-tui"


@dataclass(frozen=True)
class Settings:
    """Every tunable of trag-tui. Field names map to env vars: `db` <- `TRAG_TUI_DB`."""

    db: Path = Path("trag.db")
    # None means the bundled all-MiniLM-L6-v2; otherwise a local sentence-transformers folder.
    embedder: str | None = None
    # None means the bundled SmolLM2-135M-Instruct GGUF; a path or a name `models` lists.
    model: str | None = None
    # Folders of the user's own GGUF files (os.pathsep-separated), listed beside Ollama's,
    # LM Studio's, the Hugging Face cache and llm-gguf's.
    model_dir: str | None = None
    chunk_words: int = 200
    chunk_overlap: int = 40
    parent_words: int = 600
    embed_batch: int = 32
    embed_workers: int = 1  # processes embedding big batches (sentence-transformers' pool)
    device: str = "cpu"  # cpu | cuda | auto (CUDA when present)
    write_batch_chunks: int = 256
    max_file_mb: float = 64.0
    read_seconds: float = 20.0  # reading one file may take this long (0: no limit); then it fails
    k: int = 10
    # retrieval knobs
    candidates: int = 100
    rrf_k: int = 60
    fusion: str = "rrf"  # rrf | sum
    bm25_weight: float = 1.0
    dense_weight: float = 1.0
    decay: str = "exp"  # rational | exp | rank
    alpha: float = 0.3
    lam: float = 1.0
    tau: float = 0.0  # days; 0: a few publication gaps of the relevant candidates
    gamma: float = 0.5  # weight of the evidence-graph centrality term
    evolution_pool: int = 50
    evolution_floor: float = 0.5  # a change over time is shown from hits this good against the best
    scope: str = "auto"  # auto: scope by the speakers and sources a question names; none: off
    # Which of a document's two times a question's period is matched against: auto, as the
    # question reads ("said" or "about"); said: publication date only; about: or a period spoken of
    time: str = "auto"
    # Expansion inside the period: the modes in which a second pass searches again, inside the
    # same period, for the named things of the first pass's best hits (comma-separated of
    # hybrid, hard_filter, comparison, evolution; "none": off), and at most how many passes
    # follow the first. Off by default: measured on whole question sets it helps no mode
    # (docs/measurements.md).
    expand: str = ""
    expand_passes: int = 1
    # Where candidates come from: None, the index file; qdrant://HOST:PORT/COLLECTION or a folder
    # that `trag-tui push --to` filled: the same engine over a Qdrant collection.
    backend: str | None = None
    # Dense search over the vectors' sign bits first, then the best `rescore` of them (at least
    # four times the candidates asked for) exactly:
    # auto from `quantise_above` searchable chunks up (exact below), on, or off (always exact).
    quantise: str = "auto"
    quantise_above: int = 250_000
    rescore: int = 300
    # generation knobs
    max_tokens: int = 384
    n_ctx: int = 4096
    temperature: float = 0.0
    threads: int = 0  # 0: as many as the machine has cores
    # The relevance judge: None (off) or a generator the registry knows, asked yes or no of each
    # source before the answer is built, within `judge_seconds` per question.
    judge: str | None = None
    judge_seconds: float = 20.0
    # A question about the present: the latest publication interval's sources on the subject
    # lead the quote and the prompt (on | off). Off: measured, it changed no answer's accuracy
    # (bench/judge.py; docs/measurements.md).
    hot: str = "off"

    def __post_init__(self) -> None:
        # The checks that span two settings: a chunk must move on by at least a word, and the
        # answer must leave room in the model's context for the question and its sources.
        for small, big in (("chunk_overlap", "chunk_words"), ("max_tokens", "n_ctx")):
            if getattr(self, small) >= getattr(self, big):
                raise SettingError(
                    f"{small} ({ENV_PREFIX}{small.upper()}) is {getattr(self, small)}; it must be "
                    f"less than {big} ({ENV_PREFIX}{big.upper()}), {getattr(self, big)}")

    def replace(self, **changes: Any) -> Settings:
        """A copy with some fields changed; None values are ignored so unset flags keep defaults."""
        changes = {k: v for k, v in changes.items() if v is not None}
        return dataclasses.replace(self, **_coerce_all(changes))

    @classmethod
    def load(cls, **overrides: Any) -> Settings:
        """Build settings from defaults, the user's config file, the environment, then overrides."""
        values: dict[str, Any] = {}
        config = user_dir() / "config.toml"
        if config.is_file():
            with config.open("rb") as fh:
                try:
                    data = tomllib.load(fh)
                except tomllib.TOMLDecodeError as exc:
                    raise ValueError(f"{config}: not valid TOML ({exc})") from exc
            unknown = sorted(set(data) - _field_names())
            if unknown:  # a misspelt key silently ignored would leave the default in force
                raise ValueError(f"{config}: {_unknown(unknown)}")
            values.update(_coerce_all(data, f"{config}: "))
        for name in _field_names():
            env = os.environ.get(ENV_PREFIX + name.upper())
            if env not in (None, ""):
                values.update(_coerce_all({name: env}, ENV_PREFIX))
        values.update(_coerce_all({k: v for k, v in overrides.items() if v is not None}))
        return cls(**values)


def _field_names() -> set[str]:
    return {f.name for f in fields(Settings)}


def _unknown(names: list[str]) -> str:
    """'unknown setting 'kk' (did you mean 'k'?)' for each name, with the closest real one."""
    import difflib

    parts = []
    for name in names:
        close = difflib.get_close_matches(str(name), sorted(_field_names()), n=1)
        parts.append(f"{name!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"unknown setting{'s' if len(names) > 1 else ''} " + ", ".join(parts)


def _coerce_all(values: dict[str, Any], origin: str = "") -> dict[str, Any]:
    """Values from one place (`origin`: the environment's prefix, the config file, or "" for
    flags and code) as the fields' types, each checked against its range."""
    hints = get_type_hints(Settings)
    unknown = set(values) - _field_names()
    if unknown:
        raise SettingError(_unknown(sorted(unknown)))
    return {k: _coerce(k, hints[k], v, origin) for k, v in values.items()}


def _coerce(name: str, hint: Any, value: Any, origin: str = "") -> Any:
    """Turn strings from the environment or a file into the field's type, in its range, or
    SettingError naming the setting where it was given and what it may be."""
    label = f"{ENV_PREFIX}{name.upper()}" if origin == ENV_PREFIX else f"{origin}{name}"
    if hint is Path:
        if not isinstance(value, (str, os.PathLike)) or not str(value):
            raise SettingError(f"{label} is {_shown(value)}; it must be a file name")
        return Path(value)
    if hint == (str | None):
        return None if value in (None, "") else str(value)
    if name in LISTS:
        words = [w.strip() for w in str(value).split(",") if w.strip() not in ("", "none")]
        if not isinstance(value, str) or any(w not in LISTS[name] for w in words):
            raise SettingError(f"{label} is {_shown(value)}; it must be a comma-separated list "
                               "of " + ", ".join(LISTS[name]) + " (or none)")
        return ",".join(words)
    if name in CHOICES:
        if value not in CHOICES[name]:
            raise SettingError(f"{label} is {_shown(value)}, an unknown {name}; it must be one of "
                               + ", ".join(CHOICES[name]))
        return value
    if hint not in (int, float):
        return value
    low, high = RANGES[name]
    number = _number(value, hint)
    if number is None or not low <= number <= high:
        what = "a whole number" if hint is int else "a number"
        raise SettingError(f"{label} is {_shown(value)}; it must be {what} {range_text(name)}")
    return number


def range_text(name: str) -> str:
    """'from 1 to 10000': the range of a numeric setting as a message says it."""
    low, high = RANGES[name]
    return "from " + " to ".join(str(int(x)) if float(x).is_integer() else f"{x:g}" for x in (low, high))


def _number(value: Any, hint: type) -> int | float | None:
    """`value` (text from the environment, or a number from the config file) as an int or a
    finite float, or None when it is not one (a bool, "1.5" for a whole number, "nan")."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        value = value.strip()
        try:
            value = int(value) if hint is int else float(value)
        except ValueError:  # not a number, or more digits than Python reads
            return None
    if hint is int:
        if isinstance(value, float) and value.is_integer():
            return int(value)  # `k = 5.0` in the config file
        return value if isinstance(value, int) else None
    if not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _shown(value: Any) -> str:
    """A value as the user gave it, short enough for one line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
