"""One frozen, typed settings object, so every knob has one name, one type and one default.

Precedence: explicit overrides (command-line flags) > environment (`TRAG_TUI_*`) > the user's
config file (`config.toml` in the user directory) > defaults. Nothing is read at import time.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints

ENV_PREFIX = "TRAG_TUI_"


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
    # Where candidates come from: None, the index file; qdrant://HOST:PORT/COLLECTION or a folder
    # that `trag-tui push --to` filled: the same engine over a Qdrant collection.
    backend: str | None = None
    # generation knobs
    max_tokens: int = 384
    n_ctx: int = 4096
    temperature: float = 0.0
    threads: int = 0  # 0: as many as the machine has cores

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
            values.update(data)
        for name in _field_names():
            env = os.environ.get(ENV_PREFIX + name.upper())
            if env not in (None, ""):
                values[name] = env
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**_coerce_all(values))


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


def _coerce_all(values: dict[str, Any]) -> dict[str, Any]:
    hints = get_type_hints(Settings)
    unknown = set(values) - _field_names()
    if unknown:
        raise ValueError(_unknown(sorted(unknown)))
    return {k: _coerce(k, hints[k], v) for k, v in values.items()}


def _coerce(name: str, hint: Any, value: Any) -> Any:
    """Turn strings from the environment or a file into the field's type, with a clear error."""
    try:
        if hint is Path:
            return Path(value)
        if hint is int:
            return int(value)
        if hint is float:
            return float(value)
        if hint == (str | None):
            return None if value in (None, "") else str(value)
        return value
    except (TypeError, ValueError) as exc:
        raise ValueError(f"setting {name!r}: cannot read {value!r} ({exc})") from exc
