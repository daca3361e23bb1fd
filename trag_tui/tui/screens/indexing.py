"""Indexing a folder inside the app, with a progress bar, in a worker thread.

The indexer reports after every file and batch; those reports are copied and posted as messages
(throttled, so a folder of small files does not flood the UI), and only this screen's handlers
touch the progress bar. The indexer commits whole batches and has no stop switch of its own, so
Esc raises from its progress callback, which it calls only between committed batches: stopping
loses nothing, and the next run resumes where this one stopped.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Label, ProgressBar, Static

from ...errors import EmbedderError, IndexFileError


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
    cancelled: bool = False


class IndexCancelled(Exception):
    """Raised from the progress callback to stop the indexer between two committed batches."""


def summary_line(summary: Any) -> str:
    """What an indexing run did, in one line."""
    failed = len(summary.files_failed)
    return (f"{summary.documents_added} documents added, {summary.documents_kept} unchanged"
            + (f", {failed} file{'s' if failed != 1 else ''} failed" if failed else "")
            + f" ({summary.seconds:.1f}s)")


def problem_lines(summary: Any, limit: int = 200) -> list[str]:
    """Each file that failed or was skipped, with its reason, failures first."""
    rows = [f"✗ {path}: {why}" for path, why in summary.files_failed]
    rows += [f"– {path}: skipped, {why}" for path, why in summary.files_skipped]
    if len(rows) > limit:
        rows = rows[:limit] + [f"… and {len(rows) - limit} more"]
    return rows


class IndexingScreen(ModalScreen[Any]):
    """Indexes folders into the session's index; dismisses with the Summary, or None.

    Esc stops the run between two batches: what was written stays, and indexing the folder
    again resumes. When files failed, the dialog stays open to list them with their reasons.
    """

    BINDINGS = [Binding("escape", "stop", "Stop / close")]

    def __init__(self, engine: Any, paths: list[Path], title: str) -> None:
        super().__init__()
        self.engine = engine
        self.paths, self.title_text = [Path(p) for p in paths], title
        self._last_post = 0.0
        self._cancel = threading.Event()
        self.summary: Any = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="indexing-dialog"):
            yield Label(self.title_text, classes="dialog-title", markup=False)
            where = ", ".join(p.name for p in self.paths)
            yield Static(f"Reading {where}", id="indexing-detail", markup=False)
            yield ProgressBar(total=None, show_eta=True, id="indexing-bar")
            with VerticalScroll(id="indexing-problems"):
                yield Static("", id="indexing-problem-list", markup=False)
            yield Static("Esc stops; what is written is kept, and indexing again resumes.",
                         classes="hint", id="indexing-hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Stop", id="indexing-stop")

    def on_mount(self) -> None:
        self.build()

    @work(thread=True, exclusive=True, group="indexing", exit_on_error=False)
    def build(self) -> None:
        """Run the indexer (in a thread) and report back by messages."""
        engine = self.engine
        if engine.index is None or not engine.embedder_loaded:
            self.post_message(IndexStage("Loading the embedding model…"))
        try:
            summary = engine.build(self.paths, self._report)
        except IndexCancelled:
            self.post_message(IndexBuildFailed(
                "Indexing stopped; what was written is kept, and indexing again resumes.",
                cancelled=True))
            return
        except (IndexFileError, EmbedderError, OSError) as exc:
            self.post_message(IndexBuildFailed(str(exc)))
            return
        self.post_message(IndexBuilt(summary))

    def _report(self, progress: Any) -> None:
        """The indexer's callback (worker thread): post a copy at most ten times a second."""
        if self._cancel.is_set():
            raise IndexCancelled()
        now = time.monotonic()
        if now - self._last_post < 0.1 and progress.files_done < progress.files_total:
            return
        self._last_post = now
        self.post_message(IndexProgress(dataclasses.replace(progress)))

    def action_stop(self) -> None:
        """Esc: stop indexing (or close the finished report)."""
        if self.summary is not None:
            self.dismiss(self.summary)
            return
        self._cancel.set()
        self.query_one("#indexing-detail", Static).update("Stopping after the current batch…")

    @on(Button.Pressed, "#indexing-stop")
    def stop_pressed(self) -> None:
        """The Stop (later: Close) button."""
        self.action_stop()

    def on_index_stage(self, message: IndexStage) -> None:
        if not self._cancel.is_set():
            self.query_one("#indexing-detail", Static).update(message.text)

    def on_index_progress(self, message: IndexProgress) -> None:
        if self._cancel.is_set():
            return
        p = message.progress
        bar = self.query_one(ProgressBar)
        bar.update(total=max(1, p.bytes_total), progress=min(p.bytes_done, p.bytes_total))
        current = Path(p.current).name if p.current else ""
        self.query_one("#indexing-detail", Static).update(
            f"files {p.files_done}/{p.files_total} · documents {p.documents} · "
            f"chunks {p.chunks_embedded} embedded, {p.chunks_reused} reused\n{current}")

    def on_index_built(self, message: IndexBuilt) -> None:
        summary = message.summary
        problems = problem_lines(summary)
        self.app.notify(summary_line(summary), title="Indexing finished",
                        severity="warning" if summary.files_failed else "information")
        if not problems:
            self.dismiss(summary)
            return
        # Stay open: the files that failed, and why, are the point of the report.
        self.summary = summary
        self.query_one(ProgressBar).display = False
        self.query_one("#indexing-detail", Static).update(summary_line(summary))
        self.query_one("#indexing-problem-list", Static).update("\n".join(problems))
        self.query_one("#indexing-problems").display = True
        self.query_one("#indexing-hint", Static).update("Esc or Close to go back.")
        button = self.query_one("#indexing-stop", Button)
        button.label = "Close"
        button.focus()

    def on_index_build_failed(self, message: IndexBuildFailed) -> None:
        self.app.notify(message.message, title="Indexing stopped" if message.cancelled
                        else "Indexing failed", severity="warning" if message.cancelled
                        else "error", timeout=10)
        # A stopped run still wrote whole batches: the timeline must show them.
        self.dismiss(_STOPPED if message.cancelled else None)

    def on_worker_state_changed(self, event) -> None:
        # A bug in the indexer must not leave the dialog up forever, nor crash the app.
        from textual.worker import WorkerState

        if event.state == WorkerState.ERROR:
            self.app.notify(f"{type(event.worker.error).__name__}: {event.worker.error}",
                            title="Indexing failed", severity="error", timeout=10)
            self.dismiss(None)


# What a stopped run dismisses with: not a Summary, but not nothing either.
_STOPPED = "stopped"
