"""Indexing a folder inside the app, with a progress bar, in a worker thread.

The indexer reports after every file and batch; those reports are copied and posted as messages
(throttled, so a folder of small files does not flood the UI), and only this screen's handlers
touch the progress bar.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from ...db import IndexFileError
from ...embedding import EmbedderError


@dataclass
class IndexProgress(Message):
    """A snapshot of the indexer's progress."""

    progress: Any  # trag_tui.indexer.Progress (a copy)


@dataclass
class IndexStage(Message):
    """A step before files are read (loading the embedding model), to say why nothing moves."""

    text: str


@dataclass
class IndexBuilt(Message):
    """The folder is indexed."""

    summary: Any  # trag_tui.indexer.Summary


@dataclass
class IndexBuildFailed(Message):
    """Indexing stopped; `message` is meant for the user."""

    message: str


class IndexingScreen(ModalScreen[Any]):
    """Indexes folders into the session's index; dismisses with the Summary, or None."""

    def __init__(self, paths: list[Path], title: str) -> None:
        super().__init__()
        self.paths, self.title_text = [Path(p) for p in paths], title
        self._last_post = 0.0

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="indexing-dialog"):
            yield Label(self.title_text, classes="dialog-title")
            where = ", ".join(p.name for p in self.paths)
            yield Static(f"Reading {where}", id="indexing-detail", markup=False)
            yield ProgressBar(total=None, show_eta=True, id="indexing-bar")
            yield Static("What is written is kept if you quit; indexing again resumes.",
                         classes="hint", markup=False)

    def on_mount(self) -> None:
        self.build()

    @work(thread=True, exclusive=True, group="indexing", exit_on_error=False)
    def build(self) -> None:
        """Run the indexer (in a thread) and report back by messages."""
        engine = self.app.engine
        if engine.index is None or not engine.embedder_loaded:
            self.post_message(IndexStage("Loading the embedding model…"))
        try:
            summary = engine.build(self.paths, self._report)
        except (IndexFileError, EmbedderError, OSError) as exc:
            self.post_message(IndexBuildFailed(str(exc)))
            return
        self.post_message(IndexBuilt(summary))

    def _report(self, progress: Any) -> None:
        """The indexer's callback (worker thread): post a copy at most ten times a second."""
        now = time.monotonic()
        if now - self._last_post < 0.1 and progress.files_done < progress.files_total:
            return
        self._last_post = now
        self.post_message(IndexProgress(dataclasses.replace(progress)))

    def on_index_stage(self, message: IndexStage) -> None:
        self.query_one("#indexing-detail", Static).update(message.text)

    def on_index_progress(self, message: IndexProgress) -> None:
        p = message.progress
        bar = self.query_one(ProgressBar)
        bar.update(total=max(1, p.bytes_total), progress=min(p.bytes_done, p.bytes_total))
        current = Path(p.current).name if p.current else ""
        self.query_one("#indexing-detail", Static).update(
            f"files {p.files_done}/{p.files_total} · documents {p.documents} · "
            f"chunks {p.chunks_embedded} embedded, {p.chunks_reused} reused\n{current}")

    def on_index_built(self, message: IndexBuilt) -> None:
        self.dismiss(message.summary)

    def on_index_build_failed(self, message: IndexBuildFailed) -> None:
        self.app.notify(message.message, title="Indexing failed", severity="error", timeout=10)
        self.dismiss(None)

    def on_worker_state_changed(self, event) -> None:
        # A bug in the indexer must not leave the dialog up forever, nor crash the app.
        from textual.worker import WorkerState

        if event.state == WorkerState.ERROR:
            self.app.notify(f"{type(event.worker.error).__name__}: {event.worker.error}",
                            title="Indexing failed", severity="error", timeout=10)
            self.dismiss(None)
