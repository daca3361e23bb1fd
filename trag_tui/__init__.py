"""trag-tui: time-aware question answering over dated documents, in one SQLite file.

The public API is imported lazily so `import trag_tui` stays cheap and never pulls in torch,
llama.cpp or Textual: `open_index`, `parse`, `search`, `ask`.
"""
from __future__ import annotations

from typing import Any

__all__ = ["open_index", "parse", "search", "ask", "Settings"]


def __getattr__(name: str) -> Any:
    if name == "open_index":
        from .storage.index import open_index
        return open_index
    if name == "parse":
        from .temporal.question import parse
        return parse
    if name == "search":
        from .retrieval.modes import search
        return search
    if name == "ask":
        from .answering.pipeline import ask
        return ask
    if name == "Settings":
        from .settings import Settings
        return Settings
    raise AttributeError(name)
