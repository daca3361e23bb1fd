"""The main screen: conversation, sources, timeline, and the question box.

Answers are produced in a thread worker (retrieval and the model both block), in the manner of
Textual's "mother" example: the worker posts messages, and the handlers here — on the UI thread —
stream text into the answer's Markdown and fill the panes. Each answer carries a turn number so a
late message from a stopped answer never lands in the next one.

State flows down and events flow up, as in Textual's guide and elia's chat screen: the app
hands this screen the engine and the date to answer from, and sets what it learns about the
index; the screen posts what happened (a question asked, an answer finished, a conversation
started) and never calls into the app. The question box is where typing goes: the app routes
printable keys pressed anywhere but in a text field to it, and it gets the focus back after
every dialog.
"""
from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.reactive import reactive
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input
from textual.worker import Worker, WorkerState, get_current_worker

from ..answer_text import (
    blocks,
    explain_markdown,
    restored_markdown,
    shown_markdown,
    starts_block,
    stopped_markdown,
    stored_markdown,
)
from ..engine import Engine
from ..history import (
    ANSWERED,
    ASKED,
    FAILED,
    STOPPED,
    Turn,
    new_conversation_id,
    stored_sources,
    turn_markdown,
)
from ..messages import (
    AnswerDone,
    AnswerFailed,
    AnswerFinished,
    AnswerQuoted,
    AnswerRetrieved,
    AnswerStage,
    AnswerToken,
    AnswerWriting,
    ChatReady,
    ConversationStarted,
    GeneratorFailed,
    QuestionAsked,
    SidebarShown,
)
from ..overrides import SLASH_HELP, Overrides, apply_command
from ..widgets.answer import Answer, AnswerSelected
from ..widgets.conversation import Conversation
from ..widgets.mode_badge import ModeBadge
from ..widgets.question_box import QuestionBox
from ..widgets.sidebar import ConversationSidebar
from ..widgets.sources import SourceOpened, SourcesPane
from ..widgets.status_line import StatusLine
from ..widgets.timeline import Timeline
from .passage import PassageScreen

PLACEHOLDER = "Ask a question · ↑ earlier questions · /asof 2019-01-01 · ^P commands · F1 help"


@dataclass
class Running:
    """The answer being produced: where it is shown, how to stop it, how far it has got."""

    turn: int
    record: Turn
    answer: Answer
    overrides: Overrides
    cancel: threading.Event
    started: float = field(default_factory=time.monotonic)
    stage: str = "starting…"
    worker: Worker | None = None
    first_token: float | None = None
    tokens: int = 0
    quoted: bool = False  # the quoted answer is on screen: the model's sentences go beneath it
    generated: bool = False  # a sentence of the model's is on screen
    evidence: list[Any] = field(default_factory=list)  # the quoted sentences, kept if stopped


class ChatScreen(Screen):
    """Ask, read the streamed answer, inspect each answer's sources and time reading."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    AUTO_FOCUS = "#question"

    BINDINGS = [
        # Priority: Esc must stop an answer even while the sources list or the conversation has
        # focus and would otherwise take the key.
        # The footer holds every main key at 80 columns too: short words there, the whole
        # description in help (F1).
        Binding("escape", "cancel_answer", "Stop", priority=True, tooltip="Stop the answer"),
        Binding("ctrl+y", "copy_answer", "Copy",
                tooltip="Copy the selected answer and its sources"),
        Binding("ctrl+r", "retry_answer", "Retry",
                tooltip="Retry the selected answer with other overrides"),
        Binding("ctrl+n", "new_conversation", "New", tooltip="A new conversation"),
        Binding("ctrl+b", "toggle_sidebar", "Chats",
                tooltip="Show or hide the conversations (open, rename with F2, delete with Del)"),
        # Not in the footer at 80 columns: the status line shows the overrides, and help and
        # the command palette name the key.
        Binding("ctrl+o", "edit_overrides", "Overrides", show=False,
                tooltip="Overrides for the next answers"),
        Binding("ctrl+t", "toggle_explain", "Explain",
                tooltip="Explain: scores, and the model's sentences the check kept back"),
    ]

    explain: reactive[bool] = reactive(False, init=False)

    def __init__(self, engine: Engine, today: Callable[[], dt.date]) -> None:
        super().__init__()
        self.engine = engine
        self.today = today
        self.turn = 0
        self.running: Running | None = None
        self.overrides = Overrides()
        self.conversation_id = new_conversation_id()
        self.selected: Answer | None = None  # whose sources the pane shows
        self._ticker: Timer | None = None

    # -- layout ------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            yield ConversationSidebar(id="sidebar")
            yield Conversation(id="conversation")
            yield SourcesPane(id="sources")
        yield Timeline(id="timeline")
        yield StatusLine(id="status")
        yield QuestionBox(placeholder=PLACEHOLDER, id="question")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.status.model = self.engine.model_label()
        self.post_message(ChatReady())

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

    @property
    def question_box(self) -> QuestionBox:
        """Where questions are typed."""
        return self.query_one(QuestionBox)

    # -- where typing goes -------------------------------------------------------------------

    def on_screen_resume(self) -> None:
        # Back from any dialog or passage reader: typing goes to the question box again.
        self.question_box.focus()

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
        if self.engine.index is None:
            self.notify("No index is open. Ctrl+P → “Open an index file” or “Index a folder”.",
                        title="No index", severity="error")
            return
        event.input.clear()
        await self.ask(text)

    async def ask(self, question: str, overrides: Overrides | None = None) -> None:
        """Show the question, save it, and start answering it in a worker."""
        overrides = self.overrides if overrides is None else overrides
        self.turn += 1
        self.question_box.remember(question)
        self.conversation.hide_welcome()
        answer = await self.conversation.add_question(question)
        answer.badge.explain = self.explain
        record = Turn(conversation=self.conversation_id, question=question, status=ASKED,
                      index=str(self.engine.index.path) if self.engine.index else "",
                      overrides=overrides.to_dict())
        self.post_message(QuestionAsked(replace(record)))
        running = Running(self.turn, record, answer, overrides, threading.Event())
        self.running = running
        self._select(answer)
        self._ticker = self.set_interval(0.5, self._tick)
        self._tick()
        running.worker = self.answer_worker(running.turn, question, overrides, running.cancel,
                                            self.today())

    @work(thread=True, exclusive=True, group="answer", exit_on_error=False)
    def answer_worker(self, turn: int, question: str, overrides: Overrides,
                      cancel: threading.Event, today: dt.date) -> None:
        """Retrieve and generate in a thread; report every step as a message."""
        from ...answering.events import Done, Quoted, Retrieved, Token, Writing
        from ...errors import EmbedderError, GenerationError, IndexFileError
        from ..engine import ModelUnavailable, Stage

        worker = get_current_worker()
        try:
            for event in self.engine.ask(question, overrides, today, cancel):
                if worker.is_cancelled:
                    # Tell the generator too: it stops after the current token.
                    cancel.set()
                if isinstance(event, Stage):
                    self.post_message(AnswerStage(turn, event.text))
                elif isinstance(event, ModelUnavailable):
                    self.post_message(GeneratorFailed(event.message))
                elif isinstance(event, Retrieved):
                    sources = [_shown(source) for source in event.sources]
                    markdown = self.engine.markdown_passages(sources)
                    self.post_message(AnswerRetrieved(turn, event.result, sources, markdown))
                elif isinstance(event, Quoted):
                    self.post_message(AnswerQuoted(turn, _safe(event.shown),
                                                   _safe_evidence(event.evidence)))
                elif isinstance(event, Writing):
                    self.post_message(AnswerWriting(turn, event.pieces))
                elif isinstance(event, Token):
                    if not cancel.is_set() and not event.repeat:
                        self.post_message(AnswerToken(turn, _safe(event.text)))
                elif isinstance(event, Done):
                    self.post_message(AnswerDone(turn, replace(
                        event, answer=_safe(event.answer), shown=_safe(event.shown),
                        sources=[_shown(source) for source in event.sources],
                        evidence=_safe_evidence(event.evidence))))
        except (IndexFileError, EmbedderError, GenerationError, LookupError, OSError) as exc:
            self.post_message(AnswerFailed(turn, str(exc)))

    def _current(self, turn: int) -> Running | None:
        running = self.running
        return running if running is not None and running.turn == turn else None

    def _tick(self) -> None:
        """The activity in the status line: what is awaited, for how long, how fast it writes."""
        running = self.running
        if running is None:
            return
        now = time.monotonic()
        parts = [running.stage, f"{now - running.started:.0f}s"]
        if running.first_token is not None and running.tokens > 1 and now > running.first_token:
            rate = (running.tokens - 1) / (now - running.first_token)
            parts.append(f"{rate:.1f} tok/s" if rate < 10 else f"{rate:.0f} tok/s")
        self.status.activity = " ".join(parts) + " · Esc stops"

    def on_answer_stage(self, message: AnswerStage) -> None:
        running = self._current(message.turn)
        if running is not None:
            running.stage = message.text
            self._tick()

    def on_answer_retrieved(self, message: AnswerRetrieved) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        # The model reads the numbered sources (the prompt) before its first word.
        running.stage = "reading the sources…"
        running.answer.badge.show_result(message.result, running.overrides)
        running.answer.set_sources(message.sources, _semantic_query(message.result),
                                   message.markdown, message.result)
        if self.selected is running.answer:
            self._show_sources(running.answer)
        self._tick()

    async def on_answer_quoted(self, message: AnswerQuoted) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        # The answer as far as the sources give it, before the model has read its prompt.
        running.quoted, running.evidence = True, list(message.evidence)
        await running.answer.write(blocks(message.text))

    def _writing(self, turn: int) -> Running | None:
        """The running answer of `turn`, marked as being written from its first piece on."""
        running = self._current(turn)
        if running is not None and running.first_token is None:
            running.first_token = time.monotonic()
            running.stage = "writing…"
        return running

    def on_answer_writing(self, message: AnswerWriting) -> None:
        running = self._writing(message.turn)
        if running is not None:
            running.tokens = message.pieces

    async def on_answer_token(self, message: AnswerToken) -> None:
        from ...answering.events import paragraph_beneath

        running = self._writing(message.turn)
        if running is None:
            return
        text = message.text
        if running.quoted:  # else a note that opens the answer, before the quote
            if not running.generated or starts_block(text):
                # the model's sentences: a paragraph under the quote, and one a period or group
                text = paragraph_beneath(text)
            running.generated = True
        await running.answer.write(text)

    async def on_answer_done(self, message: AnswerDone) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        done = message.done
        answer = running.answer
        if done.sources and not answer.sources:
            answer.set_sources(done.sources, _semantic_query(answer.result), {}, answer.result)
            if self.selected is answer:
                self._show_sources(answer)
        record = replace(running.record, answer=stored_markdown(done),
                         status=STOPPED if done.stopped else ANSWERED, stopped=done.stopped,
                         done=done.to_dict())
        await self._finish(running, shown_markdown(done), record, explain_markdown(done))

    async def on_answer_failed(self, message: AnswerFailed) -> None:
        running = self._current(message.turn)
        if running is None:
            return
        self.notify(message.message, title="Cannot answer", severity="error", timeout=10)
        text = f"*Could not answer: {message.message}*"
        await self._finish(running, text, replace(running.record, answer=text, status=FAILED))

    def on_generator_failed(self, message: GeneratorFailed) -> None:
        self.status.evidence_only = True
        self.notify(f"{message.message}. Answers show the evidence from the sources only.",
                    title="No language model", severity="error", timeout=12)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        # An unexpected error inside retrieval or generation is a bug, but it must reach the
        # user as a notice and free the question box, not end the app. Only the worker of the
        # answer being written may finish it: a stopped answer's thread can fail much later.
        if event.worker.group != "answer" or event.state != WorkerState.ERROR:
            return
        running = self.running
        if running is not None and running.worker is event.worker:
            error = event.worker.error
            self.notify(f"{type(error).__name__}: {error}", title="Answer failed",
                        severity="error", timeout=10)
            text = f"*Answer failed: {error}*"
            await self._finish(running, text, replace(running.record, answer=text, status=FAILED))

    async def _finish(self, running: Running, shown: str, record: Turn, dropped: str = "") -> None:
        """Show the final text, report the finished turn, and free the question box."""
        if self.running is running:
            self.running = None
            if self._ticker is not None:
                self._ticker.stop()
                self._ticker = None
        record = replace(record, badge=running.answer.badge.plain.replace("\n", " · "),
                         query=running.answer.query_text,
                         markdown={str(k): v for k, v in running.answer.markdown_passages.items()})
        running.answer.record = record
        self.status.activity = ""
        await running.answer.finish(shown, dropped)
        self.post_message(AnswerFinished(record))

    # -- each answer's sources ---------------------------------------------------------------

    def _select(self, answer: Answer) -> None:
        for other in self.query(Answer):
            other.set_class(other is answer, "-selected")
        self.selected = answer
        self._show_sources(answer)

    def _show_sources(self, answer: Answer) -> None:
        number = list(self.query(Answer)).index(answer) + 1 if answer.is_attached else 0
        hits = getattr(answer.result, "hits", None)
        self.sources.show_sources(answer.sources, answer.query_text, hits,
                                  markdown=answer.markdown_passages,
                                  owner=f"answer {number}" if number else "")
        self.timeline.mark_years(_years(answer.sources))

    def on_answer_selected(self, message: AnswerSelected) -> None:
        focused = self.focused
        if message.number is None and isinstance(focused, Answer) and focused is not message.answer:
            # Each answer posts from its own queue, so after quick tabbing a message from an
            # answer the focus has already left can arrive last: the focused one is selected.
            return
        if message.answer is not self.selected:
            self._select(message.answer)
        if message.number is None:
            return
        source = self.sources.select(message.number)
        if source is None:
            self.notify(f"This answer has no source [{message.number}].", severity="warning")
            return
        self.on_source_opened(self.sources.opened(source))

    def on_source_opened(self, message: SourceOpened) -> None:
        # Wide screens already show the passage beside the list; narrow ones open a reader.
        if not self.has_class("-wide"):
            self.app.push_screen(PassageScreen(message.source, message.query, message.markdown))

    # -- actions -----------------------------------------------------------------------------

    async def action_cancel_answer(self) -> None:
        """Esc: stop the running answer now; keep what was written."""
        if await self.stop_answer() is not None:
            self.notify("Answer stopped.", timeout=3)
        else:
            self.clear_selection()

    async def stop_answer(self) -> Turn | None:
        """Stop the running answer, keeping what was written; its record, or None if none ran."""
        running = self.running
        if running is None:
            return None
        running.cancel.set()
        self.workers.cancel_group(self, "answer")
        # The question box is free at once; the worker's late messages are ignored by turn.
        stored = stopped_markdown(running.answer.text, running.evidence)
        # The sources and the quoted evidence were known before the model started: keep them,
        # so the stopped answer can still be inspected after a restart.
        partial = {"stopped": True,
                   "sources": [s.to_dict() for s in running.answer.sources],
                   "evidence": [{"number": e.number, "date": e.date, "sentence": e.sentence}
                                for e in running.evidence]}
        record = replace(running.record, answer=stored, status=STOPPED, stopped=True,
                         done=partial)
        await self._finish(running, stored, record)
        return running.answer.record

    async def action_new_conversation(self) -> None:
        """Ctrl+N: stop any answer and start an empty conversation."""
        await self.stop_answer()
        await self.show_conversation(new_conversation_id(), [])
        self.post_message(ConversationStarted(self.conversation_id))

    def action_edit_overrides(self) -> None:
        """Ctrl+O: the overrides form."""
        from .overrides import OverridesScreen

        def done(result: Overrides | None) -> None:
            if result is not None:
                self.set_overrides(result)

        self.app.push_screen(OverridesScreen(self.overrides, self.engine.settings), done)

    def action_retry_answer(self) -> None:
        """Ctrl+R: ask the selected answer's question again, with overrides chosen for it."""
        from .overrides import OverridesScreen

        answer = self.selected
        if answer is None or answer.record is None:
            self.notify("Select a finished answer to retry.", severity="warning")
            return
        if self.running is not None:
            self.notify("Wait for the answer to finish (or press Esc) first.", severity="warning")
            return
        question = answer.record.question

        async def chosen(result: Overrides | None) -> None:
            if result is not None:
                await self.ask(question, result)

        self.app.push_screen(OverridesScreen(Overrides.from_dict(answer.record.overrides),
                                             self.engine.settings,
                                             title=f"Retry “{question}” with:"), chosen)

    def action_copy_answer(self) -> None:
        """Ctrl+Y: the selected answer, with its sources, to the clipboard."""
        answer = self.selected
        if answer is None or answer.record is None:
            self.notify("Select a finished answer to copy.", severity="warning")
            return
        self.app.copy_to_clipboard(turn_markdown(answer.record))
        self.notify("The answer and its sources are on the clipboard.", timeout=3)

    def action_toggle_sidebar(self) -> None:
        """Ctrl+B: show the conversations beside the chat (focused), or hide them."""
        sidebar = self.query_one(ConversationSidebar)
        sidebar.display = not sidebar.display
        self.set_class(sidebar.display, "-sidebar")
        if sidebar.display:
            self.post_message(SidebarShown())
            sidebar.query_one("#chat-list").focus()
        else:
            self.question_box.focus()

    def action_toggle_explain(self) -> None:
        """Ctrl+T: show or hide scores and the semantic query."""
        self.explain = not self.explain

    def watch_explain(self, on_: bool) -> None:
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

    # -- what the app tells the screen -------------------------------------------------------

    def show_index(self, label: str, per_year: dict[str, int], total: int) -> None:
        """A newly opened index: its name in the status line, its years in the timeline."""
        self.status.index_label = label
        self.timeline.set_counts(per_year, total)
        self.timeline.mark_years(_years(self.selected.sources) if self.selected else [])

    def index_failed(self) -> None:
        """Opening an index failed and none is open."""
        if self.engine.index is None:
            self.status.index_label = "none"

    async def show_conversation(self, conversation: str, turns: list[Turn]) -> None:
        """Show a stored conversation (questions, badges, answers and their sources)."""
        self.conversation_id = conversation
        self.selected = None
        await self.conversation.clear()
        self.sources.show_sources([], "")
        self.timeline.mark_years([])
        self.question_box.asked = []
        if turns:
            self.conversation.hide_welcome()
        answers = await self.conversation.add_answered([
            (t.question, t.badge or "(from history)", restored_markdown(t.shown_answer()),
             explain_markdown(t.done)) for t in turns])
        for t, answer in zip(turns, answers):
            answer.set_sources(stored_sources(t), t.query,
                               {int(k): v for k, v in t.markdown.items() if str(k).isdigit()})
            answer.record = t
            self.question_box.remember(t.question)
        if answers:
            self._select(answers[-1])
        self.question_box.focus()


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


def _safe(text: str) -> str:
    from ...text.safe import safe

    return safe(text)


def _safe_evidence(lines):
    """Evidence lines with their quoted sentences made safe to show."""
    return [replace(e, sentence=_safe(e.sentence)) for e in lines]


def _shown(source):
    """A source with what a terminal would obey (escape sequences, control characters) made
    visible instead: an index file from someone else must not redraw the screen."""
    from ...text.safe import safe, safe_line

    return replace(source, title=safe_line(source.title), speaker=safe_line(source.speaker),
                   role=safe_line(source.role), doc_id=safe_line(source.doc_id),
                   passage=safe(source.passage))
