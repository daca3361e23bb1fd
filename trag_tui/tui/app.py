"""The chat app: wiring between the screens, the worker threads and the session's state.

The app owns what outlives a screen — the engine (index, embedder, model) and the conversation
history file — and the actions reachable from the command palette. It hands the chat screen what
it needs (the engine, the date) and tells it what changed (an index opened, a conversation
restored); the screen answers with messages (a question asked, an answer finished), which is the
only way the history is written. Index files are opened and built in thread workers; results
come back as messages too.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.widgets import Input, TextArea

from ..errors import EmbedderError, IndexFileError
from ..settings import Settings
from ..storage.db import sqlite3
from ..storage.index import Index
from .commands import TragCommands
from .engine import Engine
from .history import History, Turn, conversation_markdown
from .messages import (
    AnswerFinished,
    ChatReady,
    ConversationStarted,
    IndexFailed,
    IndexOpened,
    QuestionAsked,
    SidebarShown,
)
from .overrides import Overrides
from .screens.chat import ChatScreen
from .screens.conversations import ConversationsScreen
from .screens.first_run import FirstRunScreen, corpus_paths, sample_corpus
from .screens.help import HelpScreen, binding_rows
from .screens.indexing import IndexingScreen
from .screens.passage import PassageScreen
from .screens.path_prompt import PathPrompt
from .screens.text_prompt import TextPrompt
from .widgets.sidebar import ConversationSidebar, SidebarChose


class TragApp(App):
    """trag-tui's chat app. `generator`, `index` and `today` may be injected (tests, demos)."""

    CSS_PATH = "app.tcss"
    TITLE = "trag-tui"
    SUB_TITLE = "time-aware answers from dated documents"
    COMMANDS = App.COMMANDS | {TragCommands}
    BINDINGS = [Binding("f1", "help", "Help"),
                Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="Quit (an answer being "
                        "written is stopped and kept)")]

    def __init__(self, settings: Settings, *, generator: Any = None, index: Index | None = None,
                 today: dt.date | None = None, history: History | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.engine = Engine(settings, index=index, generator=generator)
        self._today = today
        self.history = history or History()
        self.conversation_id = ""
        self.turns: list[Turn] = []  # the shown conversation's turns, for export
        self.answering = False  # between a QuestionAsked and its AnswerFinished

    def today(self) -> dt.date:
        """The date questions are asked from: today, or the fixed date given (reproducible badges)."""
        return self._today or dt.date.today()

    async def on_event(self, event: events.Event) -> None:
        # Typing is routed here, where keys arrive one by one in the order typed, not after
        # they bubbled up from the focused widget: a key bubbling from an answer to the screen
        # could be overtaken by later keys and by Enter once the question box had the focus,
        # which sent questions cut off. Moving the focus now sends every key after this one
        # straight to the question box, in order, Enter last.
        if isinstance(event, events.Key) and not event.is_forwarded and self._is_typing(event):
            if isinstance(self.screen, PassageScreen):
                self.pop_screen()  # the reader gives way to the question being typed
            if self.screen is self.chat:
                self.chat.set_focus(self.chat.question_box, scroll_visible=False)
        await super().on_event(event)

    def _is_typing(self, event: events.Key) -> bool:
        """A printable key meant for the question box: not for a text field that has focus."""
        if not event.is_printable or not event.character:
            return False
        if not isinstance(self.screen, (ChatScreen, PassageScreen)):
            return False
        return not isinstance(self.focused, (Input, TextArea))

    def get_default_screen(self) -> ChatScreen:
        """The chat screen is the app's base screen."""
        return ChatScreen(self.engine, self.today)

    @property
    def chat(self) -> ChatScreen:
        """The main screen (always at the bottom of the screen stack)."""
        return self.screen_stack[0]  # type: ignore[return-value]

    async def on_chat_ready(self, message: ChatReady) -> None:
        """The chat screen is composed: history, then the index."""
        self.conversation_id = self.chat.conversation_id
        await self._restore_history()
        if self.engine.index is not None:
            self.load_index(None)
        elif self.settings.db.exists():
            self.load_index(self.settings.db)
        else:
            self.offer_first_run()

    def _read_history(self, read: Callable[[], Any]) -> Any:
        try:
            result = read()
        except OSError as exc:
            self.notify(f"cannot read the conversation history: {exc}", severity="warning")
            return None
        if self.history.skipped_lines:
            self.notify(f"{self.history.skipped_lines} damaged line(s) in the history were skipped",
                        severity="warning")
        return result

    async def _restore_history(self) -> None:
        found = self._read_history(self.history.last_conversation)
        if found and found[0] is not None:
            await self.open_conversation(*found)

    async def open_conversation(self, conversation: str, turns: list[Turn]) -> None:
        """Show a stored conversation; new questions continue it."""
        self.conversation_id, self.turns = conversation, list(turns)
        await self.chat.show_conversation(conversation, turns)
        self.refresh_sidebar()

    # -- the conversation, as the chat screen reports it ---------------------------------------

    def _save(self, turn: Turn) -> None:
        try:
            self.history.append(turn)
        except OSError as exc:
            self.notify(f"cannot save the history: {exc}", severity="warning")

    def on_question_asked(self, message: QuestionAsked) -> None:
        """Keep the question the moment it is asked: quitting mid-answer must not lose it."""
        self.answering = True
        self._save(message.turn)

    def on_answer_finished(self, message: AnswerFinished) -> None:
        """Keep the finished answer, for export and in the history file."""
        self.answering = False
        turn = message.turn
        self.turns = [t for t in self.turns if t.id != turn.id] + [turn]
        self._save(turn)
        self.refresh_sidebar()

    def on_conversation_started(self, message: ConversationStarted) -> None:
        """A new conversation: the old one stays in the history file."""
        self.conversation_id, self.turns = message.conversation, []
        self.refresh_sidebar()

    # -- the conversation sidebar --------------------------------------------------------------

    def refresh_sidebar(self) -> None:
        """List the stored conversations in the sidebar, when it is shown."""
        if not self.screen_stack:
            return  # the app is closing: an answer stopped at quit reports after the screens
        sidebar = self.chat.query_one(ConversationSidebar)
        if sidebar.display:
            sidebar.show(self._read_history(self.history.conversations) or [],
                         self.conversation_id)

    def on_sidebar_shown(self, message: SidebarShown) -> None:
        self.refresh_sidebar()

    async def on_sidebar_chose(self, message: SidebarChose) -> None:
        """Open, rename or delete the conversation chosen in the sidebar, or start a new one."""
        conversation = message.conversation
        if message.action == "new":
            await self.chat.action_new_conversation()
        elif message.action == "open" and not self._busy():
            turns = self._read_history(lambda: self.history.conversation(conversation)) or []
            await self.open_conversation(conversation, turns)
        elif message.action == "rename":
            info = next((c for c in self.chat.query_one(ConversationSidebar).conversations
                         if c.id == conversation), None)

            def renamed(title: str | None) -> None:
                if title:
                    self._change(lambda: self.history.rename(conversation, title))

            self.push_screen(TextPrompt("Rename the conversation:", info.title if info else ""),
                             renamed)
        elif message.action == "delete" and not (conversation == self.conversation_id
                                                 and self._busy()):
            self._change(lambda: self.history.delete(conversation))
            if conversation == self.conversation_id:
                await self.chat.action_new_conversation()
            self.notify("Conversation deleted.", timeout=3)

    def _change(self, write: Callable[[], None]) -> None:
        try:
            write()
        except OSError as exc:
            self.notify(f"cannot write the history: {exc}", severity="warning")
        self.refresh_sidebar()

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
        opened = self.engine.index
        assert opened is not None  # stats() succeeded on it
        self.post_message(IndexOpened(opened.path, stats))
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
                             stats.get("documents_per_year", {}), documents)
        if documents == 0:
            self.notify("This index holds no documents yet: Ctrl+P → “Index a folder”.",
                        severity="warning", timeout=8)

    def on_index_failed(self, message: IndexFailed) -> None:
        # A failed switch keeps the index that was open; only say "none" when there is none.
        self.chat.index_failed()
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

    def _busy(self) -> bool:
        if self.answering:
            self.notify("Wait for the answer to finish (or press Esc) first.", severity="warning")
        return self.answering

    def build_folder(self, paths: list[Path], title: str) -> None:
        """Index files and folders in a progress dialog, then refresh the timeline."""
        if self._busy():
            return

        def built(summary: Any) -> None:
            if summary is not None:
                self.load_index(None)

        self.push_screen(IndexingScreen(self.engine, paths, title), built)

    # -- actions (keys and command palette) --------------------------------------------------

    def action_help(self) -> None:
        """F1: every key binding, and where the history is kept."""
        if isinstance(self.screen, HelpScreen):
            return
        rows = binding_rows([self.BINDINGS, ChatScreen.BINDINGS, App.BINDINGS],
                            self.COMMAND_PALETTE_BINDING)
        self.push_screen(HelpScreen(rows, self.history.path))

    def action_toggle_explain(self) -> None:
        """Show or hide scores and the semantic query."""
        self.chat.explain = not self.chat.explain

    async def action_new_conversation(self) -> None:
        """Start an empty conversation."""
        await self.chat.action_new_conversation()

    def action_edit_overrides(self) -> None:
        """The overrides form."""
        self.chat.action_edit_overrides()

    def action_clear_overrides(self) -> None:
        """Drop every override."""
        self.chat.set_overrides(Overrides())

    def action_retry_answer(self) -> None:
        """Ask the selected answer's question again with other overrides."""
        self.chat.action_retry_answer()

    def action_copy_answer(self) -> None:
        """The selected answer and its sources to the clipboard."""
        self.chat.action_copy_answer()

    def action_open_conversation(self) -> None:
        """The stored conversations, newest first, searchable; open one."""
        conversations = self._read_history(self.history.conversations)
        if not conversations:
            self.notify(f"No stored conversations yet (they are kept in {self.history.path}).",
                        severity="warning")
            return

        async def chosen(conversation: str | None) -> None:
            if conversation is None or self._busy():
                return
            turns = self._read_history(lambda: self.history.conversation(conversation)) or []
            await self.open_conversation(conversation, turns)

        self.push_screen(ConversationsScreen(conversations, self.history.path), chosen)

    def action_open_index(self) -> None:
        """Ask for an index file and open it."""
        def chosen(path: Path | None) -> None:
            if path is not None and not self._busy():
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
            self.notify(f"{len(turns)} answer(s) written to {path.resolve()}", title="Exported")

        default = f"trag-conversation-{self.conversation_id[:15]}.md"
        self.push_screen(PathPrompt("Export the conversation as Markdown to:", value=default,
                                    action="writes"), chosen)

    async def action_quit(self) -> None:
        """Quit; an answer being written is stopped and kept as far as it got."""
        stopped = await self.chat.stop_answer()
        if stopped is not None:
            self._save(stopped)
        await super().action_quit()

    def on_unmount(self) -> None:
        self.engine.close()


def run_app(settings: Settings) -> None:
    """Open the chat app on the settings' index (the `trag-tui` command without arguments).

    The app runs on a loop of its own so that quitting does not wait, terminal blank, for a
    stopped answer's thread: llama.cpp finishes the slice of the prompt it is reading before it
    sees the stop, which can take seconds. That thread holds nothing worth waiting for (the
    answer is saved, the index released), so the process ends without it.
    """
    import asyncio
    import os
    import sys
    import threading

    loop = asyncio.new_event_loop()
    app = TragApp(settings)
    try:
        app.run(loop=loop)
    finally:
        loop.close()  # does not wait for the executor's threads
    if any(t.is_alive() and not t.daemon for t in threading.enumerate()
           if t is not threading.main_thread()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(app.return_code or 0)
