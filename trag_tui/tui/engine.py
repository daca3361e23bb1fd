"""The session's index, embedder and model, shared by the app's worker threads.

Loading a model takes seconds, so each is loaded once, on first need, in a worker thread, and
kept: the embedder lives on the open Index, the generator here. One lock serialises use of the
SQLite connection between the answer worker and the indexing worker. Nothing here imports
Textual, so it can be exercised without a terminal.
"""
from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..settings import Settings
from ..storage.index import Index, open_index
from .overrides import Overrides

MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass(frozen=True)
class ModelUnavailable:
    """Yielded before an answer's events when the model cannot be loaded (evidence only)."""

    message: str


@dataclass(frozen=True)
class Stage:
    """Yielded before a step that may take seconds, so the user knows what is being waited for."""

    text: str


class Engine:
    """What the app's workers need to answer and to index, loaded lazily and reused."""

    def __init__(self, settings: Settings, *, index: Index | None = None, generator: Any = None):
        self.settings = settings
        self.index = index
        self._generator = generator
        self._generator_error: str | None = None
        self._generator_lock = threading.Lock()
        # Reentrant: building a first index opens it while holding the lock.
        self.lock = threading.RLock()

    # -- index -------------------------------------------------------------------------------

    def open(self, path: Path, *, create: bool = False) -> Index:
        """Open (or create) an index file and make it the session's index, closing the old one.

        Raises trag_tui.storage.db.IndexFileError with a message for the user.
        """
        settings = self.settings.replace(db=Path(path))
        new = open_index(path, settings, create=create)
        loaded = self._loaded_embedder()
        if loaded is not None and new.meta("embedder") == loaded.name:
            new.use_embedder(loaded)  # same model: switching files must not reload it
        with self.lock:
            old, self.index = self.index, new
            self.settings = settings
        if old is not None:
            old.close()
        return new

    def stats(self) -> dict[str, Any]:
        """Counts and documents per year of the open index ({} when none is open)."""
        from ..stats import index_stats

        with self.lock:
            return index_stats(self.index) if self.index is not None else {}

    def _loaded_embedder(self) -> Any:
        # Index loads its embedder lazily and has no public "is it loaded" question; peeking
        # avoids triggering a multi-second model load just to ask.
        return self.index._embedder if self.index is not None else None

    @property
    def embedder_loaded(self) -> bool:
        """Whether the open index's embedder is in memory already."""
        return self._loaded_embedder() is not None

    def warm_embedder(self) -> None:
        """Load the open index's embedder (raises EmbedderError when it cannot be loaded)."""
        with self.lock:
            if self.index is not None:
                self.index.embedder  # noqa: B018  (the property loads and keeps it)

    def build(self, paths: list[Path], progress: Callable[[Any], None]) -> Any:
        """Index folders into the open index (creating the settings' file when none is open).

        Returns the indexer's Summary. Raises IndexFileError or EmbedderError for the user.
        """
        from ..indexer import Indexer

        with self.lock:
            if self.index is None:
                self.open(self.settings.db, create=True)
            idx = self.index
            assert idx is not None  # opened just above
            indexer = Indexer(idx.conn, idx.path, idx.embedder, idx.settings, progress=progress)
            return indexer.run([Path(p) for p in paths])

    # -- answers -----------------------------------------------------------------------------

    def generator(self) -> Any:
        """The language model, loaded on first use and then reused by every answer.

        Raises GenerationError; a failure is remembered so later questions do not retry it.
        """
        from ..errors import GenerationError
        from ..models.generation import load_generator

        with self._generator_lock:
            if self._generator is None:
                if self._generator_error is not None:
                    raise GenerationError(self._generator_error)
                try:
                    self._generator = load_generator(self.settings)
                except GenerationError as exc:
                    self._generator_error = str(exc)
                    raise
            return self._generator

    def model_label(self) -> str:
        """The model answers come from, by file name ("none" when there is none to load)."""
        from ..models.files import bundled_model_path

        if self._generator is not None:
            path = getattr(self._generator, "path", None)
            return Path(str(path)).name if path else type(self._generator).__name__
        if self.settings.model:
            return Path(self.settings.model).name
        bundled = bundled_model_path()
        return bundled.name if bundled is not None else "none"

    @property
    def evidence_only(self) -> bool:
        """True once the model failed to load: answers are the sources' evidence only."""
        return self._generator_error is not None

    @property
    def generator_loaded(self) -> bool:
        """Whether the model is already in memory (the first answer waits for it otherwise)."""
        return self._generator is not None

    def ask(self, question: str, overrides: Overrides, today: dt.date,
            cancel: threading.Event) -> Iterator[Any]:
        """The answer events for a question, with the session's overrides applied.

        Without a loadable model the answer still comes, as evidence quoted from the sources,
        after a ModelUnavailable event that says why (once per session).
        """
        from ..answering.events import Quoted
        from ..answering.pipeline import ask
        from ..errors import GenerationError

        first_failure = self._generator_error is None
        if self._generator is None and first_failure:
            yield Stage("loading the model…")
        try:
            generator, evidence_only = self.generator(), False
        except GenerationError as exc:
            generator, evidence_only = None, True
            if first_failure:
                yield ModelUnavailable(str(exc))
        yield Stage("searching…")
        with self.lock:
            if self.index is None:
                raise LookupError("no index is open: use Ctrl+P → “Open an index file”")
            events = ask(
                self.index, question,
                as_of=overrides.as_of or today,
                generator=generator,
                settings=overrides.apply(self.index.settings),
                k=overrides.k,
                mode=overrides.mode,
                cancel=cancel,
                evidence_only=evidence_only,
            )
            for event in events:
                yield event
                if isinstance(event, Quoted):
                    break  # the index is done with: the model needs only its prompt
        # Outside the lock: quitting or opening another index need not wait for the model.
        yield from events

    def markdown_passages(self, sources: list[Any]) -> dict[int, str]:
        """The whole stored passage of each source that comes from a Markdown file, by number.

        The numbered sources carry a window of their passage with the line breaks folded, which
        is right for a prompt but loses headings and lists; a reader gets the passage as written.
        """
        from ..retrieval.candidates import passage

        ids = [s.chunk_id for s in sources if getattr(s, "chunk_id", 0)]
        if not ids:
            return {}
        with self.lock:
            if self.index is None:
                return {}
            conn = self.index.conn
            marks = ",".join("?" * len(ids))
            paths = dict(conn.execute(
                "SELECT c.id, f.path FROM chunks c JOIN documents d ON d.id = c.document_id "
                f"JOIN files f ON f.id = d.file_id WHERE c.id IN ({marks})", ids).fetchall())
            return {s.number: passage(conn, s.chunk_id) for s in sources
                    if str(paths.get(s.chunk_id, "")).lower().endswith(MARKDOWN_SUFFIXES)}

    def close(self, timeout: float = 2.0) -> None:
        """Close the index file, unless a worker still holds it after `timeout` seconds.

        At exit a worker may still be finishing a token; the process ending closes the file
        then, which is safe for SQLite, while closing it under the worker's feet is not.
        """
        if not self.lock.acquire(timeout=timeout):
            return
        try:
            if self.index is not None:
                self.index.close()
                self.index = None
        finally:
            self.lock.release()
