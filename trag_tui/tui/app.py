"""The chat app: wiring between the screens, the worker threads and the session's state.

The app owns what outlives a screen — the engine (index, embedder, model), the conversation
history, the explain switch — and the actions reachable from the command palette. Index files
are opened and built in thread workers; results come back as messages.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive

from ..db import IndexFileError, sqlite3
from ..embedding import EmbedderError
from ..index import Index
from ..settings import Settings
from .commands import TragCommands
from .engine import Engine
from .history import History, Turn, conversation_markdown, new_conversation_id
from .messages import IndexFailed, IndexOpened
from .overrides import Overrides
from .screens.chat import ChatScreen
from .screens.first_run import FirstRunScreen, corpus_paths, sample_corpus
from .screens.help import HelpScreen, binding_rows
from .screens.indexing import IndexingScreen
from .screens.path_prompt import PathPrompt


class TragApp(App):
    """trag-tui's chat app. `generator`, `index` and `today` may be injected (tests, demos)."""

    CSS_PATH = "app.tcss"
    TITLE = "trag-tui"
    SUB_TITLE = "time-aware answers from dated documents"
    COMMANDS = App.COMMANDS | {TragCommands}
    BINDINGS = [Binding("f1", "help", "Help")]

    explain: reactive[bool] = reactive(False, init=False)

    def __init__(self, settings: Settings, *, generator: Any = None, index: Index | None = None,
                 today: dt.date | None = None, history: History | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.engine = Engine(settings, index=index, generator=generator)
        self._today = today
        self.history = history or History()
        self.conversation_id = new_conversation_id()
        self.turns: list[Turn] = []

    @property
    def today(self) -> dt.date:
        """The date questions are asked from: today, or the fixed date given (reproducible badges)."""
        return self._today or dt.date.today()

    def get_default_screen(self) -> ChatScreen:
        """The chat screen is the app's base screen."""
        return ChatScreen()

    @property
    def chat(self) -> ChatScreen:
        """The main screen (always at the bottom of the screen stack)."""
        return self.screen_stack[0]  # type: ignore[return-value]

    async def startup(self) -> None:
        """Called by the chat screen once it is composed: history, then the index."""
        await self._restore_history()
        if self.engine.index is not None:
            self.load_index(None)
        elif self.settings.db.exists():
            self.load_index(self.settings.db)
        else:
            self.offer_first_run()

    async def _restore_history(self) -> None:
        try:
            conversation, turns = self.history.last_conversation()
        except OSError as exc:
            self.notify(f"cannot read the conversation history: {exc}", severity="warning")
            return
        if self.history.skipped_lines:
            self.notify(f"{self.history.skipped_lines} damaged line(s) in the history were skipped",
                        severity="warning")
        if conversation is not None:
            self.conversation_id, self.turns = conversation, turns
            await self.chat.show_history(turns)

    # -- the index ---------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="index-open", exit_on_error=False)
    def load_index(self, path: Path | None) -> None:
        """Open an index file (None: the one already open) and read its stats, in a thread."""
        try:
            if path is not None:
                self.engine.open(path)
            stats = self.engine.stats()
        except (IndexFileError, sqlite3.Error, OSError) as exc:
            self.post_message(IndexFailed(path or self.settings.db, str(exc)))
            return
        self.post_message(IndexOpened(self.engine.index.path, stats))
        # Load the embedder now, while the user types, rather than on the first question.
        try:
            self.engine.warm_embedder()
        except EmbedderError as exc:
            self.call_from_thread(self.notify, str(exc), title="Cannot load the embedder",
                                  severity="error", timeout=10)

    def on_index_opened(self, message: IndexOpened) -> None:
        stats = message.stats
        documents = stats.get("documents", 0)
        self.sub_title = message.path.name
        self.chat.show_index(f"{message.path.name} ({documents} documents)",
                             stats.get("documents_per_year", {}))
        if documents == 0:
            self.notify("This index holds no documents yet: Ctrl+P → “Index a folder”.",
                        severity="warning", timeout=8)

    def on_index_failed(self, message: IndexFailed) -> None:
        # A failed switch keeps the index that was open; only say "none" when there is none.
        if self.engine.index is None:
            self.chat.status.index_label = "none"
        self.notify(message.message, title="Cannot open the index", severity="error", timeout=10)

    def on_worker_state_changed(self, event) -> None:
        # Anything unexpected while opening an index becomes a notice, not a crash.
        from textual.worker import WorkerState

        if event.worker.group == "index-open" and event.state == WorkerState.ERROR:
            error = event.worker.error
            self.notify(f"{type(error).__name__}: {error}", title="Cannot open the index",
                        severity="error", timeout=10)

    def offer_first_run(self) -> None:
        """No index file yet: offer to build one from the bundled sample corpus."""
        corpus = sample_corpus()

        def chosen(build: bool | None) -> None:
            if build and corpus is not None:
                self.build_folder(corpus_paths(corpus), "Building the sample index")

        self.push_screen(FirstRunScreen(self.settings.db, corpus), chosen)

    def build_folder(self, paths: list[Path], title: str) -> None:
        """Index files and folders in a progress dialog, then refresh the timeline."""
        if self.chat.running is not None:
            self.notify("Wait for the answer to finish (or press Esc) before indexing.",
                        severity="warning")
            return

        def built(summary: Any) -> None:
            if summary is None:
                return
            failed = len(summary.files_failed)
            self.notify(
                f"{summary.documents_added} documents added, {summary.documents_kept} unchanged"
                + (f", {failed} files failed" if failed else "") + f" ({summary.seconds:.1f}s)",
                title="Indexing finished", severity="warning" if failed else "information")
            self.load_index(None)

        self.push_screen(IndexingScreen(paths, title), built)

    # -- conversation ------------------------------------------------------------------------

    def record_turn(self, turn: Turn) -> None:
        """Keep a finished answer for export and in the history file."""
        self.turns.append(turn)
        try:
            self.history.append(turn)
        except OSError as exc:
            self.notify(f"cannot save the history: {exc}", severity="warning")

    def new_conversation(self) -> None:
        """Start a new conversation id; the old one stays in the history file."""
        self.conversation_id = new_conversation_id()
        self.turns = []

    def watch_explain(self, explain: bool) -> None:
        if self.screen_stack:
            self.chat.set_explain(explain)

    # -- actions (keys and command palette) --------------------------------------------------

    def action_help(self) -> None:
        """F1: every key binding."""
        if isinstance(self.screen, HelpScreen):
            return
        rows = binding_rows([self.BINDINGS, ChatScreen.BINDINGS, App.BINDINGS],
                            self.COMMAND_PALETTE_BINDING)
        self.push_screen(HelpScreen(rows))

    def action_toggle_explain(self) -> None:
        """Show or hide scores and the semantic query."""
        self.explain = not self.explain

    async def action_new_conversation(self) -> None:
        """Start an empty conversation."""
        await self.chat.action_new_conversation()

    def action_edit_overrides(self) -> None:
        """The overrides form."""
        self.chat.action_edit_overrides()

    def action_clear_overrides(self) -> None:
        """Drop every override."""
        self.chat.set_overrides(Overrides())

    def action_open_index(self) -> None:
        """Ask for an index file and open it."""
        def chosen(path: Path | None) -> None:
            if path is not None:
                if self.chat.running is not None:
                    self.notify("Wait for the answer to finish (or press Esc) first.",
                                severity="warning")
                    return
                self.load_index(path)

        self.push_screen(PathPrompt("Open an index file:", placeholder="path/to/index.db",
                                    value=str(self.settings.db), must_exist="file"), chosen)

    def action_index_folder(self) -> None:
        """Ask for a folder and index it into the open index (or a new one)."""
        def chosen(path: Path | None) -> None:
            if path is not None:
                self.build_folder([path], f"Indexing {path.name or path}")

        self.push_screen(PathPrompt("Index a folder of documents (XML, JSONL, .txt, .md):",
                                    placeholder="path/to/folder", must_exist="dir"), chosen)

    def action_build_sample(self) -> None:
        """Index the bundled sample corpus."""
        corpus = sample_corpus()
        if corpus is None:
            self.notify("This installation has no bundled sample corpus.", severity="error")
            return
        self.build_folder(corpus_paths(corpus), "Building the sample index")

    def action_export(self) -> None:
        """Ask for a file name and write the conversation there as Markdown."""
        if not self.turns:
            self.notify("Nothing to export yet: ask a question first.", severity="warning")
            return
        turns = list(self.turns)

        def chosen(path: Path | None) -> None:
            if path is None:
                return
            try:
                path.write_text(conversation_markdown(turns), encoding="utf-8")
            except OSError as exc:
                self.notify(f"cannot write {path}: {exc.strerror or exc}", title="Export failed",
                            severity="error")
                return
            self.notify(f"{len(turns)} answer(s) written to {path}", title="Exported")

        default = f"trag-conversation-{self.conversation_id[:15]}.md"
        self.push_screen(PathPrompt("Export the conversation as Markdown to:", value=default),
                         chosen)

    async def action_quit(self) -> None:
        """Quit, telling a running answer to stop first."""
        if self.chat.running is not None:
            self.chat.running.cancel.set()
        await super().action_quit()

    def on_unmount(self) -> None:
        self.engine.close()


def run_app(settings: Settings) -> None:
    """Open the chat app on the settings' index (the `trag-tui` command without arguments)."""
    TragApp(settings).run()
