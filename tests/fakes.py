"""Deterministic stand-ins for the models, so answers, badges and screenshots reproduce.

`ScriptedGenerator` streams queued text and records every call; `register_echo` is a plug-in
hook of the kind an installed package exposes through the `trag_tui.generators` entry point;
`jsonl_index` builds a small real index with the hash embedder.
"""
from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from trag_tui.models.generation import estimate_tokens


class ScriptedGenerator:
    """A deterministic stand-in for a model: streams queued chunks and records every call.

    `chunks` is either the list of pieces every call streams, or a callable taking the
    messages and returning the pieces (a generator function may also set a cancel event).
    `enqueue` queues a reply for the next call only, ahead of `chunks`.
    """

    def __init__(self, chunks: Sequence[str] | Callable[[list[dict]], Iterable[str]] = ("An answer.",),
                 *, n_ctx: int = 4096):
        self.chunks = chunks
        self.n_ctx = n_ctx
        self.queue: list[list[str]] = []
        self.calls: list[dict] = []

    @property
    def messages(self) -> list[dict] | None:
        """The messages of the latest call (None before any call)."""
        return self.calls[-1]["messages"] if self.calls else None

    def enqueue(self, chunks: Sequence[str]) -> None:
        """Stream these chunks on the next call."""
        self.queue.append(list(chunks))

    def count_tokens(self, text: str) -> int:
        """The tokenizer-free estimate, so budgets in tests are stable."""
        return estimate_tokens(text)

    def stream(self, messages: list[dict], *, max_tokens: int, temperature: float = 0.0,
               stop: Sequence[str] | None = None,
               cancel: threading.Event | None = None) -> Iterator[str]:
        """Record the call, then stream the scripted reply, cut at the first stop sequence."""
        self.calls.append({"messages": [dict(m) for m in messages], "max_tokens": max_tokens,
                           "temperature": temperature, "stop": list(stop or []),
                           "cancel": cancel})
        if self.queue:
            pieces: Iterable[str] = self.queue.pop(0)
        elif callable(self.chunks):
            pieces = self.chunks(messages)
        else:
            pieces = list(self.chunks)
        return self._emit(pieces, list(stop or []))

    @staticmethod
    def _emit(pieces: Iterable[str], stop: list[str]) -> Iterator[str]:
        text = ""
        for piece in pieces:
            new = text + piece
            cut = min((new.find(s) for s in stop if s in new), default=-1)
            if cut >= 0:
                if cut > len(text):
                    yield new[len(text):cut]
                return
            text = new
            yield piece


def register_echo(register) -> None:
    """A generator plug-in: `--model echo:TEXT` streams TEXT."""
    register("echo", lambda choice, settings: ScriptedGenerator([choice.split(":", 1)[1]]))


def jsonl_index(folder: Path, rows: list[dict], *, name: str = "t.db", **knobs: Any):
    """A real index file of JSONL documents with the hash embedder, left open (`knobs` are
    Settings fields)."""
    from tests.conftest import build_index

    (folder / "docs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    return build_index(folder / name, [folder / "docs.jsonl"], **knobs)
