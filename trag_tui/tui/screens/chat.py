"""The main screen: conversation, sources, timeline, and the question box.

Answers are produced in a thread worker (retrieval and the model both block), in the manner of
Textual's "mother" example: the worker posts messages, and the handlers here — on the UI thread —
stream text into the answer's Markdown and fill the panes. Each answer carries a turn number so a
late message from a stopped answer never lands in the next one.
"""
from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Input
from textual.worker import Worker, WorkerState, get_current_worker

from ..answer_text import shown_markdown, stopped_markdown, stored_markdown
from ..history import Turn
from ..messages import AnswerDone, AnswerFailed, AnswerRetrieved, AnswerToken, GeneratorFailed
from ..overrides import SLASH_HELP, Overrides, apply_command
from ..widgets.answer import Answer
from ..widgets.conversation import Conversation
from ..widgets.mode_badge import ModeBadge
from ..widgets.sources import SourceOpened, SourcesPane
from ..widgets.status_line import StatusLine
from ..widgets.timeline import Timeline
from .passage import PassageScreen



@dataclass
class Running:
    """The answer being produced: where it is shown and how to stop it."""

    turn: int
    question: str
    answer: Answer
    overrides: Overrides
    cancel: threading.Event
    sources: list[Any]
    result: Any = None


class ChatScreen(Screen):
    """Ask, read the streamed answer, inspect its sources and time reading."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    AUTO_FOCUS = "#question"

    BINDINGS = [
        # Priority: Esc must stop an answer even while the sources list or the conversation has
        # focus and would otherwise take the key.
        Binding("escape", "cancel_answer", "Stop answer", priority=True),
        Binding("ctrl+n", "new_conversation", "New chat"),
        Binding("ctrl+o", "edit_overrides", "Overrides"),
        Binding("ctrl+t", "toggle_explain", "Explain"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.turn = 0
        self.running: Running | None = None
        self.overrides = Overrides()

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield Conversation(id="conversation")
            yield SourcesPane(id="sources")
        yield Timeline(id="timeline")
        yield StatusLine(id="status")
        yield Input(placeholder="Ask a question and press Enter · /asof 2019-01-01 · F1 help",
                    id="question")
        yield Footer()

    async def on_mount(self) -> None:
        await self.app.startup()

    @property
    def conversation(self) -> Conversation:
        """The conversation pane."""
        return self.query_one(Conversation)

    @property
    def sources(self) -> SourcesPane:
        """The sources pane."""
        return self.query_one(SourcesPane)

    @property
    def timeline(self) -> Timeline:
        """The documents-per-year timeline."""
        return self.query_one(Timeline)

    @property
    def status(self) -> StatusLine:
        """The status line above the question box."""
        return self.query_one(StatusLine)

    # -- asking ------------------------------------------------------------------------------

    @on(Input.Submitted, "#question")
    async def submitted(self, event: Input.Submitted) -> None:
        """Enter in the question box: a slash command, or a question to answer."""
        text = event.value.strip()
        if not text:
            return
        if text.startswith("/"):
            event.input.clear()
            self.run_command(text)
            return
        if self.running is not None:
            self.notify("An answer is still being written: wait, or press Esc to stop it.",
                        severity="warning")
            return
        if self.app.engine.index is None:
            self.notify("No index is open. Ctrl+P → “Open an index file” or “Index a folder”.",
                        title="No index", severity="error")
            return
        event.input.clear()
        await self.ask(text)

    async def ask(self, question: str) -> None:
        """Show the question and start answering it in a worker."""
        self.turn += 1
        self.conversation.hide_welcome()
        answer = await self.conversation.add_question(question)
        answer.badge.explain = self.app.explain
        self.running = Running(self.turn, question, answer, self.overrides, threading.Event(), [])
        loading = not self.app.engine.generator_loaded
        self.status.activity = ("loading the model…" if loading else "answering…") + " Esc stops"
        self.answer_worker(self.running.turn, question, self.overrides, self.running.cancel,
                           self.app.today)

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def answer_worker(self, turn: int, question: str, overrides: Overrides,
                      cancel: threading.Event, today: dt.date) -> None:
        """Retrieve and generate in a thread; report every step as a message."""
        from ...answer import Done, Retrieved, Token
        from ...db import IndexFileError
        from ...embedding import EmbedderError
        from ...generation import GenerationError
        from ..engine import ModelUnavailable

        worker = get_current_worker()
        try:
            for event in self.app.engine.ask(question, overrides, today, cancel):
                if worker.is_cancelled:
                    # Tell the generator too: it stops after the current token.
                    cancel.set()
                if isinstance(event, ModelUnavailable):
                    self.post_message(GeneratorFailed(event.message))
                elif isinstance(event, Retrieved):
                    self.post_message(AnswerRetrieved(turn, event.result, list(event.sources)))
                elif isinstance(event, Token):
                    if not cancel.is_set():
                        self.post_message(AnswerToken(turn, event.text))
                elif isinstance(event, Done):
                    self.post_message(AnswerDone(turn, event))
        except (IndexFileError, EmbedderError, GenerationError, LookupError, OSError) as exc:
            self.post_message(AnswerFailed(turn, str(exc)))

    def _current(self, turn: int) -> Running | None:
        running = self.running
        return running if running is not None and running.turn == turn else None

    def on_answer_retrieved(self, message: AnswerRetrieved) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        running.result, running.sources = message.result, message.sources
        self.status.activity = "answering… Esc stops"
        running.answer.badge.show_result(message.result, running.overrides)
        self.sources.show_sources(message.sources, _semantic_query(message.result),
                                  message.result.hits)
        self.timeline.mark_years(_years(message.sources))

    async def on_answer_token(self, message: AnswerToken) -> None:
        running = self._current(message.turn)
        if running is not None:
            await running.answer.write(message.text)

    async def on_answer_done(self, message: AnswerDone) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        done = message.done
        if done.sources and not running.sources:
            self.sources.show_sources(done.sources, _semantic_query(running.result))
        await self._finish(running, shown_markdown(done), stored_markdown(done),
                           stopped=done.stopped)

    async def on_answer_failed(self, message: AnswerFailed) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        self.notify(message.message, title="Cannot answer", severity="error", timeout=10)
        await self._finish(running, f"*Could not answer: {message.message}*", None, stopped=False)

    def on_generator_failed(self, message: GeneratorFailed) -> None:
        self.notify(f"{message.message}. Answers show the evidence from the sources only.",
                    title="No language model", severity="error", timeout=12)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # An unexpected error inside retrieval or generation is a bug, but it must reach the
        # user as a notice and free the question box, not end the app.
        if event.worker.group == "answer" and event.state == WorkerState.ERROR:
            error = event.worker.error
            running = self.running
            self.notify(f"{type(error).__name__}: {error}", title="Answer failed",
                        severity="error", timeout=10)
            if running is not None:
                self.run_worker(self._finish(running, f"*Answer failed: {error}*", None,
                                             stopped=False))

    async def _finish(self, running: Running, shown: str, stored: str | None, *,
                      stopped: bool) -> None:
        """Show the final text, record the turn, and free the question box."""
        if self.running is running:
            self.running = None
        self.status.activity = ""
        await running.answer.finish(shown)
        if stored is None:
            return
        self.app.record_turn(Turn(
            conversation=self.app.conversation_id, question=running.question, answer=stored,
            badge=running.answer.badge.plain.replace("\n", " · "),
            index=str(self.app.engine.index.path) if self.app.engine.index else "",
            overrides=running.overrides.to_dict(), stopped=stopped,
        ))

    # -- actions -----------------------------------------------------------------------------

    async def action_cancel_answer(self) -> None:
        """Esc: stop the running answer now; keep what was written."""
        running = self.running
        if running is None:
            self.clear_selection()
            return
        running.cancel.set()
        self.workers.cancel_group(self, "answer")
        # The question box is free at once; the worker's late messages are ignored by turn.
        stored = stopped_markdown(running.answer.text)
        await self._finish(running, stored, stored, stopped=True)
        self.notify("Answer stopped.", timeout=3)

    async def action_new_conversation(self) -> None:
        """Ctrl+N: stop any answer and start an empty conversation."""
        if self.running is not None:
            await self.action_cancel_answer()
        self.app.new_conversation()
        await self.conversation.clear()
        self.sources.show_sources([], "")
        self.timeline.mark_years([])
        self.query_one("#question", Input).focus()

    def action_edit_overrides(self) -> None:
        """Ctrl+O: the overrides form."""
        from .overrides import OverridesScreen

        def done(result: Overrides | None) -> None:
            if result is not None:
                self.set_overrides(result)

        self.app.push_screen(OverridesScreen(self.overrides, self.app.engine.settings), done)

    def action_toggle_explain(self) -> None:
        """Ctrl+T: show or hide scores and the semantic query."""
        self.app.explain = not self.app.explain

    def set_explain(self, on_: bool) -> None:
        """Show or hide the explain details on every badge and the sources."""
        for badge in self.query(ModeBadge):
            badge.explain = on_
        self.sources.explain = on_
        self.set_class(on_, "-explain")

    def set_overrides(self, overrides: Overrides) -> None:
        """Use these overrides for the next answers."""
        self.overrides = overrides
        self.status.overrides = overrides.summary()
        self.notify(f"Overrides: {overrides.summary()}", timeout=4)

    def run_command(self, text: str) -> None:
        """A slash command typed in the question box."""
        if text.strip() in ("/help", "/?"):
            self.notify(SLASH_HELP, title="Commands", timeout=10)
            return
        try:
            self.set_overrides(apply_command(self.overrides, text))
        except ValueError as exc:
            self.notify(str(exc), title="Command", severity="error", timeout=8)

    def on_source_opened(self, message: SourceOpened) -> None:
        # Wide screens already show the passage beside the list; focus it for scrolling.
        if self.has_class("-wide"):
            self.query_one("#passage").focus()
        else:
            self.app.push_screen(PassageScreen(message.source, message.query))

    # -- index and history -------------------------------------------------------------------

    def show_index(self, label: str, per_year: dict[str, int]) -> None:
        """A newly opened index: its name in the status line, its years in the timeline."""
        self.status.index_label = label
        self.timeline.set_counts(per_year)
        self.timeline.mark_years([])

    async def show_history(self, turns: list[Turn]) -> None:
        """Replay a stored conversation (questions, badges, answers)."""
        if turns:
            self.conversation.hide_welcome()
        for t in turns:
            await self.conversation.add_question(t.question, badge=t.badge or "(from history)",
                                                 answer=t.answer)


def _semantic_query(result: Any) -> str:
    if result is None:
        return ""
    q = result.query
    return getattr(q, "semantic_query", "") or getattr(q, "question", "")


def _years(sources: list[Any]) -> set[int]:
    years = set()
    for s in sources:
        date = getattr(s, "date", None)
        if date:
            years.add(int(str(date)[:4]))
    return years
