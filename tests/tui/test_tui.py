"""The chat app, driven headless through Textual's Pilot on a tiny index with the hash embedder.

The model is a ScriptedGenerator, so every answer, badge and screenshot is reproducible; the
as-of date is fixed for the same reason.
"""
from __future__ import annotations

import asyncio
import datetime as dt
import functools
import json
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("textual")

from textual import events  # noqa: E402
from textual.widgets import Input, Markdown, OptionList, ProgressBar  # noqa: E402
from textual.worker import Worker, WorkerState  # noqa: E402

from tests.conftest import build_index  # noqa: E402
from tests.fakes import ScriptedGenerator  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.settings import Settings, user_dir  # noqa: E402
from trag_tui.storage.index import open_index  # noqa: E402
from trag_tui.tui import app as app_module  # noqa: E402
from trag_tui.tui.app import TragApp  # noqa: E402
from trag_tui.tui.history import ASKED, History, Turn  # noqa: E402
from trag_tui.tui.messages import AnswerFinished, QuestionAsked  # noqa: E402
from trag_tui.tui.overrides import Overrides, apply_command  # noqa: E402
from trag_tui.tui.screens.conversations import ConversationsScreen  # noqa: E402
from trag_tui.tui.screens.first_run import FirstRunScreen  # noqa: E402
from trag_tui.tui.screens.help import HelpScreen  # noqa: E402
from trag_tui.tui.screens.indexing import IndexingScreen  # noqa: E402
from trag_tui.tui.screens.overrides import OverridesScreen  # noqa: E402
from trag_tui.tui.screens.passage import PassageScreen  # noqa: E402
from trag_tui.tui.screens.path_prompt import complete_path  # noqa: E402
from trag_tui.tui.widgets.answer import Answer  # noqa: E402
from trag_tui.tui.widgets.passage import highlight, markdown_text  # noqa: E402
from trag_tui.tui.widgets.question_box import joined  # noqa: E402
from trag_tui.tui.widgets.timeline import (
    EMPTY,
    MARK,
    axis_row,
    bar_rows,
    empty_years,
    mark_row,  # noqa: E402
    with_note,
    year_columns,
)

TODAY = dt.date(2024, 6, 1)
SIZE = (120, 40)
DOCS = {
    "2012-flood.md": ("2012-03-14", "Flood defences debate", "Jane Smith",
                      "The minister said flood defences in Somerset would receive new funding "
                      "for river dredging this year."),
    "2014-flood.md": ("2014-02-10", "Winter floods statement", "John Doe",
                      "After the winter storms the flood defences failed on the Somerset Levels "
                      "and dredging of the rivers began again."),
    "2016-rail.md": ("2016-06-01", "Rail fares question", "Ann Lee",
                     "Rail fares will rise by one per cent in January, the lowest increase in "
                     "years."),
    "2019-flood.md": ("2019-05-01", "Flood funding update", "Jane Smith",
                      "Flood defence funding was increased to two billion pounds, with new "
                      "schemes for coastal towns."),
    "2021-rail.md": ("2021-09-20", "Rail fares freeze", "Ann Lee",
                     "Rail fares are frozen for a year to help commuters return after the "
                     "pandemic."),
}
ANSWER = ["Flood defences ", "failed on the Somerset Levels [1]", "."]


def run_async(test):
    """Run an async test on a fresh asyncio loop (no async plugin needed)."""
    @functools.wraps(test)
    def wrapper(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))
    return wrapper


def write_corpus(folder: Path) -> Path:
    """A few dated Markdown files with front matter."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, (date, title, who, text) in DOCS.items():
        (folder / name).write_text(
            f"---\ndate: {date}\ntitle: {title}\nspeaker: {who}\n---\n{text}\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """An index of the tiny corpus, built once for the module (tests open their own copy)."""
    root = tmp_path_factory.mktemp("index")
    corpus = write_corpus(root / "corpus")
    build_index(root / "t.db", [corpus]).close()
    return root / "t.db"


def make_app(db: Path, generator=None, **kwargs) -> TragApp:
    """The app on an open index of `db`, with a scripted model and the fixed date."""
    settings = Settings(db=db, embedder="hash")
    index = open_index(db, settings)
    return TragApp(settings, generator=generator or ScriptedGenerator(ANSWER), index=index,
                   today=TODAY, **kwargs)


async def wait_for(pilot, condition, timeout: float = 10.0) -> None:
    """Let the app run until `condition()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the app")
        await pilot.pause(0.02)


async def ready(pilot) -> None:
    """Wait until the index is open and shown (stats in the timeline)."""
    await wait_for(pilot, lambda: bool(pilot.app.chat.timeline.per_year))


async def ask(pilot, question: str) -> Answer:
    """Type a question, press Enter, wait for the answer to finish; return its widget."""
    app = pilot.app
    before = len(app.turns)
    app.chat.query_one("#question", Input).value = question
    await pilot.press("enter")
    await wait_for(pilot, lambda: len(app.turns) > before and app.chat.running is None)
    await pilot.pause()
    return app.chat.query(Answer).last()


def no_blink(pilot) -> None:
    """Stop the cursor blinking, so screenshots do not depend on timing."""
    pilot.app.chat.query_one("#question", Input).cursor_blink = False


async def palette(pilot, command: str) -> None:
    """Run a command palette entry by typing part of its name."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*command)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "PathPrompt")


# -- the main flow ----------------------------------------------------------------------------


@run_async
async def test_answer_streams_with_sources_badge_and_timeline(built):
    gen = ScriptedGenerator(ANSWER)
    app = make_app(built, gen)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, "what was said about flood defences in 2014?")

        # the quoted answer first, the model's checked sentence beneath it
        assert answer.text.startswith("John Doe [1] (10 February 2014): “After the winter storms")
        assert "”\n\nFlood defences failed on the Somerset Levels [1] (10 February 2014)." \
            in answer.text
        assert "**Evidence**" in answer.text
        assert len(gen.calls) == 1
        # sources pane: the 2014 statement, and only sources from 2014
        sources = app.chat.sources.sources
        assert sources and {s.date[:4] for s in sources} == {"2014"}
        assert sources[0].title == "Winter floods statement"
        first = app.chat.sources.query_one(OptionList).get_option_at_index(0).prompt.plain
        assert "[1] 2014-02-10" in first and "John Doe" in first
        # the badge reads the time of the question
        badge = answer.badge.plain
        assert "mode hard filter" in badge
        assert "period 2014-01-01..2014-12-31" in badge
        assert "as-of 2024-06-01" in badge and "(override)" not in badge
        assert "why:" in badge and "2014" in badge.split("why:")[1]
        # the timeline: the whole corpus, with the answer's year marked under it
        timeline = app.chat.timeline
        assert timeline.per_year == {2012: 1, 2014: 1, 2016: 1, 2019: 1, 2021: 1}
        assert timeline.marked == {2014}
        assert MARK in str(timeline.query_one("#marks").render())
        assert "2014" in str(timeline.query_one("#axis").render())
        # the turn is kept in the user's history file, not in the index
        history = (user_dir() / "history.jsonl").read_text(encoding="utf-8")
        turn = json.loads(history.splitlines()[-1])
        assert turn["question"] == "what was said about flood defences in 2014?"
        assert "**Sources**" in turn["answer"] and "Winter floods statement" in turn["answer"]


@run_async
async def test_escape_stops_a_streaming_answer_and_keys_still_work(built):
    produced = []
    finished = threading.Event()

    def slow(messages):
        try:
            yield "Rail fares are frozen for a year to help commuters [1]. "
            for n in range(200):
                produced.append(n)
                time.sleep(0.05)
                yield f"word{n} "
        finally:
            finished.set()

    def key(name: str, char: str | None = None) -> None:
        # Posted like a terminal would, without Pilot's wait for an idle CPU (never idle while
        # an answer streams), so the test sees what a user sees.
        app.post_message(events.Key(name, char))

    app = make_app(built, ScriptedGenerator(slow))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box = app.chat.query_one("#question", Input)
        box.value = "what is the latest on rail fares?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(produced) >= 5)
        answer = app.chat.query(Answer).last()
        assert app.chat.running is not None
        # the UI is responsive while the model streams: typing reaches the question box
        key("h", "h")
        key("i", "i")
        await wait_for(pilot, lambda: box.value == "hi", timeout=2)
        assert not finished.is_set()
        key("escape")
        await wait_for(pilot, lambda: app.chat.running is None, timeout=2)
        assert "*(stopped)*" in answer.text
        # the checked sentence stays; the unfinished one is never shown unchecked
        assert "Rail fares are frozen for a year to help commuters [" in answer.text
        assert "word0" not in answer.text
        # the generator is closed promptly: far fewer than its 200 pieces were produced
        await wait_for(pilot, finished.is_set, timeout=3)
        assert len(produced) < 100
        assert app.turns[-1].stopped
        # the question box is free again at once
        box.value = ""
        key("x", "x")
        await wait_for(pilot, lambda: box.value == "x", timeout=2)


@run_async
async def test_overrides_change_the_next_answer_and_the_badge_says_so(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        # the overrides form (Ctrl+O): an as-of date
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "OverridesScreen")
        app.screen.query_one("#as_of", Input).value = "2015-01-01"
        await pilot.click("#apply")
        await wait_for(pilot, lambda: app.screen is app.chat)
        assert app.chat.overrides == Overrides(as_of=dt.date(2015, 1, 1))
        # a slash command in the question box: force the mode
        app.chat.query_one("#question", Input).value = "/mode decay"
        await pilot.press("enter")
        await pilot.pause()
        assert app.chat.overrides.mode == "decay"
        assert "as-of 2015-01-01" in app.chat.status.render()

        answer = await ask(pilot, "what about flood defences?")
        badge = answer.badge.plain
        assert "as-of 2015-01-01 (override)" in badge
        assert "mode decay (override)" in badge
        assert "forced" in badge
        # nothing dated after the as-of date is used
        assert app.chat.sources.sources
        assert all(s.date <= "2015-01-01" for s in app.chat.sources.sources)
        assert app.chat.timeline.marked <= {2012, 2014}

        app.chat.query_one("#question", Input).value = "/clear"
        await pilot.press("enter")
        await pilot.pause()
        assert app.chat.overrides.empty


def test_slash_commands_validate():
    o = apply_command(Overrides(), "/asof 2019-01-01")
    o = apply_command(o, "/k 3")
    o = apply_command(o, "/tau 200")
    assert o == Overrides(as_of=dt.date(2019, 1, 1), k=3, tau=200.0)
    assert apply_command(o, "/asof off").as_of is None
    for bad in ("/asof yesterday", "/mode sideways", "/k 0", "/frobnicate"):
        with pytest.raises(ValueError):
            apply_command(o, bad)


# -- first run, errors ------------------------------------------------------------------------


@run_async
async def test_first_run_builds_the_sample_index(tmp_path, monkeypatch):
    corpus = write_corpus(tmp_path / "sample_corpus")
    # The corpus's own description must not become a document.
    (corpus / "README.md").write_text("# About this corpus\n\nDated 2030-01-01.\n")
    monkeypatch.setattr(app_module, "sample_corpus", lambda: corpus)
    settings = Settings(db=tmp_path / "new.db", embedder="hash")
    app = TragApp(settings, generator=ScriptedGenerator(ANSWER), today=TODAY)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        assert "5 files" in str(app.screen.query_one("#first-run-text").render())
        await pilot.pause()
        await pilot.click("#build")
        await wait_for(pilot, lambda: not isinstance(app.screen, (FirstRunScreen, IndexingScreen)))
        await ready(pilot)
        assert settings.db.exists()
        assert sum(app.chat.timeline.per_year.values()) == 5
        answer = await ask(pilot, "what was said about flood defences in 2014?")
        assert "Somerset Levels [1]" in answer.text


@run_async
async def test_first_run_without_a_sample_corpus_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(app_module, "sample_corpus", lambda: None)
    app = TragApp(Settings(db=tmp_path / "none.db", embedder="hash"), today=TODAY)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, FirstRunScreen))
        assert "no bundled sample corpus" in str(app.screen.query_one("#first-run-text").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)
        app.chat.query_one("#question", Input).value = "anything?"
        await pilot.press("enter")
        await pilot.pause()
        assert any(n.severity == "error" and "No index" in n.title for n in app._notifications)
        assert not (tmp_path / "none.db").exists()


@run_async
async def test_a_corrupt_index_is_a_notice_not_a_crash(tmp_path):
    db = tmp_path / "broken.db"
    db.write_bytes(b"this is not an index" * 10)
    app = TragApp(Settings(db=db, embedder="hash"), today=TODAY)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any(n.severity == "error" for n in app._notifications))
        note = next(n for n in app._notifications if n.severity == "error")
        assert "not a SQLite file" in note.message
        assert app.is_running


@run_async
async def test_a_missing_model_still_answers_with_evidence(built, tmp_path):
    settings = Settings(db=built, embedder="hash", model=str(tmp_path / "missing.gguf"))
    app = TragApp(settings, index=open_index(built, settings), today=TODAY)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, "what was said about flood defences in 2014?")
        assert any(n.title == "No language model" and "missing.gguf" in n.message
                   for n in app._notifications)
        assert "**Evidence**" in answer.text and "Somerset Levels" in answer.text


# -- panes, palette, help, history ---------------------------------------------------------


@run_async
async def test_narrow_layout_opens_a_source_full_screen_with_highlights(built):
    app = make_app(built)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert app.chat.has_class("-narrow") and app.chat.has_class("-short")
        await ask(pilot, "what was said about flood defences in 2014?")
        app.chat.sources.query_one(OptionList).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PassageScreen))
        text = app.screen.query_one("#passage-text").render()
        styled = {text.plain[s.start:s.end].lower() for s in text.spans}
        assert {"flood", "defences"} <= styled
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)


def test_highlight_marks_the_query_words_and_their_forms():
    text = highlight("Taxes on flooding: the tax rose.", "tax flood")
    assert [text.plain[s.start:s.end] for s in text.spans] == ["Taxes", "flooding", "tax"]


def test_timeline_columns_marks_and_labels():
    columns = year_columns(2012, 2021, 40)
    assert len(columns) == 40 and columns[0] == [2012] and columns[-1] == [2021]
    marks = mark_row(columns, {2014})
    assert marks.count(MARK) == 1 and columns[marks.index(MARK)] == [2014]
    axis = axis_row(columns, {2014})
    assert axis.startswith("2012") and axis.rstrip().endswith("2021") and "2014" in axis
    # more years than columns: several years per column, nothing lost
    many = year_columns(1900, 2024, 50)
    assert len(many) <= 50 and sum(len(c) for c in many) == 125


@run_async
async def test_palette_exports_the_conversation(built, tmp_path):
    app = make_app(built)
    out = tmp_path / "chat.md"
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        await palette(pilot, "export")
        app.screen.query_one("#path", Input).value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, out.exists)
        text = out.read_text(encoding="utf-8")
        assert "## 1. what was said about flood defences in 2014?" in text
        assert "Somerset Levels [1]" in text and "mode hard filter" in text


@run_async
@pytest.mark.slow
async def test_palette_indexes_a_folder_and_opens_another_index(built, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copy(built, db)
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "2023-rail.md").write_text(
        "---\ndate: 2023-03-01\ntitle: Rail strike\n---\nRail workers went on strike.\n")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await palette(pilot, "index a folder")
        app.screen.query_one("#path", Input).value = str(extra)
        await pilot.press("enter")
        await wait_for(pilot, lambda: 2023 in app.chat.timeline.per_year)
        assert sum(app.chat.timeline.per_year.values()) == 6
        embedder = app.engine.index.embedder

        await palette(pilot, "open an index")
        app.screen.query_one("#path", Input).value = str(built)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.engine.index.path == built)
        await wait_for(pilot, lambda: sum(app.chat.timeline.per_year.values()) == 5)
        assert "t.db" in app.chat.status.index_label
        assert app.engine.index.embedder is embedder  # the model is not loaded twice


@run_async
async def test_help_lists_every_binding(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-box Static").render())
        for key in ("Escape", "Ctrl+N", "Ctrl+O", "Ctrl+T", "F1", "Ctrl+P", "Ctrl+Q", "Enter"):
            assert key in text, key
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)


@run_async
async def test_explain_view_and_new_conversation(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, "what was said about flood defences in 2014?")
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "semantic query" in str(answer.badge.render())
        prompt = app.chat.sources.query_one(OptionList).get_option_at_index(0).prompt.plain
        assert "final" in prompt and "bm25" in prompt
        # the explain block under the answer says whether a hot window applied
        assert "Hot window: none" in answer.query_one(".dropped", Markdown).source
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert not app.chat.query(Answer) and app.turns == []
        assert app.chat.sources.sources == [] and app.chat.timeline.marked == set()


@run_async
async def test_history_comes_back_in_the_next_session(built):
    first = make_app(built)
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
    second = make_app(built)
    async with second.run_test(size=SIZE) as pilot:
        await ready(pilot)
        shown = [q.question for q in second.chat.query("Question")]
        assert shown == ["what was said about flood defences in 2014?"]
        assert "Somerset Levels [1]" in second.chat.query(Answer).last().text
        assert "mode hard filter" in str(second.chat.query(Answer).last().badge.render())
    assert len(History().turns()) == 1


# -- snapshots --------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_answer(built, snap_compare, size):
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")

    assert snap_compare(make_app(built), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_earlier_answer_selected(built, snap_compare, size):
    """Two answers; the first is selected again, so the pane shows its own sources."""
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        await ask(pilot, "how has flood defence funding changed since 2012?")
        pilot.app.chat.query(Answer).first().focus()
        await pilot.pause()
        options = pilot.app.chat.sources.query_one(OptionList)
        options.focus()
        await pilot.pause()

    assert snap_compare(make_app(built), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_help(built, snap_compare, size):
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause()

    app = make_app(built, history=History(Path("history.jsonl")))  # a path the same everywhere
    assert snap_compare(app, terminal_size=size, run_before=run_before)


# -- typing always reaches the question box ---------------------------------------------------


def box(app) -> Input:
    """The question box."""
    return app.chat.query_one("#question", Input)


async def type_text(pilot, text: str) -> None:
    """Press the keys of `text` one by one, wherever the focus is."""
    await pilot.press(*[("space" if c == " " else c) for c in text])
    await pilot.pause()


@run_async
async def test_typing_after_opening_a_source_asks_a_question(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        # The repro: Tab, Tab, Enter on a source (focus moves to the passage)...
        app.chat.sources.query_one(OptionList).focus()
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.focused, Input)
        # ...then type a question and press Enter: it is asked, not a source opened.
        await type_text(pilot, "rail fares")
        assert app.focused is box(app) and box(app).value == "rail fares"
        before = len(app.turns)
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.turns) == before + 1 and app.chat.running is None)
        assert app.turns[-1].question == "rail fares"


@run_async
@pytest.mark.slow
async def test_focus_returns_to_the_question_box_after_every_dialog(built):
    app = make_app(built)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")

        async def back() -> None:
            await wait_for(pilot, lambda: app.screen is app.chat)
            await pilot.pause()
            assert app.focused is box(app), type(app.focused)

        # the passage reader (narrow screens), opened from the sources list
        app.chat.sources.query_one(OptionList).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PassageScreen))
        await pilot.press("escape")
        await back()
        # help, overrides, and a palette path dialog, each opened with focus elsewhere
        for open_it, kind in ((lambda: pilot.press("f1"), HelpScreen),
                              (lambda: pilot.press("ctrl+o"), OverridesScreen)):
            app.chat.sources.query_one(OptionList).focus()
            await open_it()
            await wait_for(pilot, lambda kind=kind: isinstance(app.screen, kind))
            await pilot.press("escape")
            await back()
        app.chat.sources.query_one(OptionList).focus()
        await palette(pilot, "open an index")
        await pilot.press("escape")
        await back()
        await type_text(pilot, "x")
        assert box(app).value == "x"


@run_async
async def test_up_and_down_recall_earlier_questions(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        await ask(pilot, "rail fares in 2021?")
        box(app).focus()
        await pilot.press("up")
        assert box(app).value == "rail fares in 2021?"
        await pilot.press("up")
        assert box(app).value == "what was said about flood defences in 2014?"
        await pilot.press("up")  # the oldest stays
        assert box(app).value == "what was said about flood defences in 2014?"
        await pilot.press("down")
        assert box(app).value == "rail fares in 2021?"
        await pilot.press("down")
        assert box(app).value == ""
        # a box with text in it is left alone
        box(app).value = "draft"
        await pilot.press("up")
        assert box(app).value == "draft"


@run_async
async def test_a_multi_line_paste_becomes_one_question(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box(app).focus()
        box(app).post_message(events.Paste("What was said about\n  flood defences\n\nin 2014?\n"))
        await wait_for(pilot, lambda: box(app).value != "")
        assert box(app).value == "What was said about flood defences in 2014?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.turns) == 1 and app.chat.running is None)
        assert app.turns[0].question == "What was said about flood defences in 2014?"


def test_joined_keeps_words_and_drops_blank_lines():
    assert joined("one\r\n two \n\n\tthree") == "one two three"
    assert joined("\n\n") == ""


# -- each answer owns its sources -------------------------------------------------------------


def pane_dates(app) -> set[str]:
    return {s.date[:4] for s in app.chat.sources.sources}


@run_async
async def test_each_answer_keeps_its_own_sources_and_citations_open_them(built):
    app = make_app(built)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        first = await ask(pilot, "what was said about flood defences in 2014?")
        second = await ask(pilot, "what was said about rail fares in 2021?")
        assert pane_dates(app) == {"2021"} and app.chat.timeline.marked == {2021}
        # selecting the earlier answer shows its sources, not the latest ones
        first.focus()
        await pilot.pause()
        assert pane_dates(app) == {"2014"} and app.chat.timeline.marked == {2014}
        assert "answer 1" in app.chat.sources.border_subtitle
        assert first.has_class("-selected") and not second.has_class("-selected")
        # its [1] is a link; clicking it opens that answer's source [1] (a reader on 80 columns)
        assert "(cite:1)" in first.markdown.source
        second.markdown.post_message(Markdown.LinkClicked(second.markdown, "cite:1"))
        await wait_for(pilot, lambda: isinstance(app.screen, PassageScreen))
        assert app.screen.source.date.startswith("2021")
        assert pane_dates(app) == {"2021"}
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)
        # a citation of a source the answer does not have says so, and opens nothing
        first.markdown.post_message(Markdown.LinkClicked(first.markdown, "cite:9"))
        await pilot.pause()
        assert app.screen is app.chat
        assert any("no source [9]" in n.message for n in app._notifications)


@run_async
async def test_clicking_a_citation_in_the_wide_layout_previews_it_beside_the_list(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first = await ask(pilot, "how has flood defence funding changed since 2012?")
        await ask(pilot, "what was said about rail fares in 2021?")
        numbers = [s.number for s in first.sources]
        assert len(numbers) >= 2
        app.chat.conversation.scroll_to_widget(first, animate=False, top=True)
        await pilot.pause()
        await pilot.click(first, offset=(3, 0))  # on its badge
        await pilot.pause()
        assert app.chat.selected is first
        first.markdown.post_message(Markdown.LinkClicked(first.markdown, f"cite:{numbers[1]}"))
        await pilot.pause()
        assert app.screen is app.chat
        heading = str(app.chat.query_one("#passage-heading").render())
        assert heading.startswith(f"[{numbers[1]}] ")


@run_async
async def test_a_restored_conversation_is_fully_inspectable(built):
    first = make_app(built)
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        await ask(pilot, "what was said about rail fares in 2021?")
    stored = History().turns()
    assert [t.status for t in stored] == ["answered", "answered"]
    assert stored[0].done["sources"] and stored[0].done["answer"].startswith("Flood defences")
    second = make_app(built)
    async with second.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answers = list(second.chat.query(Answer))
        assert len(answers) == 2
        # the newest answer is selected, and its sources fill the pane at once
        assert pane_dates(second) == {"2021"}
        answers[0].focus()
        await pilot.pause()
        assert pane_dates(second) == {"2014"}
        assert "mode hard filter" in str(answers[0].badge.render())
        passage = str(second.chat.query_one("#passage-text").render())
        assert "Somerset Levels" in passage
        # Markdown source files are shown as written: the front-matter-free body, rendered
        assert answers[0].markdown_passages


@run_async
async def test_the_chat_screen_reports_by_message_and_saves_the_question_at_once(built):
    seen = []
    release = threading.Event()

    def held(messages):
        yield "Flood defences "
        release.wait(5)
        yield "failed [1]."

    app = make_app(built, ScriptedGenerator(held))
    async with app.run_test(size=SIZE, message_hook=seen.append) as pilot:
        await ready(pilot)
        box(app).value = "what was said about flood defences in 2014?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(isinstance(m, QuestionAsked) for m in seen))
        await pilot.pause()
        # the question is in the history file while the answer is still being written
        turns = History().turns()
        assert [(t.question, t.status) for t in turns] == [
            ("what was said about flood defences in 2014?", ASKED)]
        release.set()
        await wait_for(pilot, lambda: any(isinstance(m, AnswerFinished) for m in seen))
        await pilot.pause()
        finished = next(m for m in seen if isinstance(m, AnswerFinished))
        assert finished.turn.id == turns[0].id and finished.turn.status == "answered"
        assert [t.status for t in History().turns()] == ["answered"]  # one turn, updated


@run_async
async def test_quitting_mid_answer_keeps_the_question_and_the_text_so_far(built):
    produced = []

    def slow(messages):
        yield "Rail fares will rise by one per cent in January [1]. "
        for n in range(200):
            produced.append(n)
            time.sleep(0.05)
            yield f"word{n} "

    app = make_app(built, ScriptedGenerator(slow))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box(app).value = "what is the latest on rail fares?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(produced) >= 3)
        await app.action_quit()
    turns = History().turns()
    assert len(turns) == 1 and turns[0].question == "what is the latest on rail fares?"
    assert turns[0].status == "stopped" and "Rail fares will rise" in turns[0].answer


@pytest.mark.parametrize("failure", ["unexpected", "expected"])
@run_async
async def test_a_failing_stopped_answer_does_not_end_the_next_one(built, failure):
    """The stale-worker case: answer 1 is stopped, its thread fails later, answer 2 survives;
    and an unexpected failure of the answer being written does end that one, as a notice."""
    from trag_tui.errors import GenerationError

    release_first = threading.Event()
    first_done = threading.Event()
    second_started = threading.Event()
    release_second = threading.Event()
    calls = []

    def script(messages):
        calls.append(1)
        if len(calls) == 1:
            try:
                yield "Flood defences failed on the Somerset Levels [1]. First"
                release_first.wait(5)
                if failure == "expected":
                    raise GenerationError("the old answer's model broke")
                raise RuntimeError("the old answer's thread broke")
            finally:
                first_done.set()
        if len(calls) == 3:
            raise RuntimeError("this answer's thread broke")
        second_started.set()
        yield "Rail fares are frozen "
        release_second.wait(5)
        yield "for a year [1]."

    app = make_app(built, ScriptedGenerator(script))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box(app).value = "what was said about flood defences in 2014?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat.running is not None and "\n\nFlood defences" in
                       app.chat.running.answer.text)
        first_worker = app.chat.running.worker
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.chat.running is None)
        box(app).value = "what was said about rail fares in 2021?"
        await pilot.press("enter")
        second = app.chat.running
        assert second is not None
        release_first.set()  # the stopped answer's thread now fails
        await wait_for(pilot, first_done.is_set)
        await wait_for(pilot, second_started.is_set)
        # The report of a failure still queued when the answer was stopped arrives now.
        app.chat.post_message(Worker.StateChanged(first_worker, WorkerState.ERROR))
        await pilot.pause(0.2)
        assert app.chat.running is second  # still running: the old failure did not end it
        release_second.set()
        await wait_for(pilot, lambda: app.chat.running is None)
        assert "”\n\nRail fares are frozen for a year [1]" in second.answer.text
        # the answer being written fails unexpectedly: a notice, and the box is free again
        box(app).value = "what was said about flood defences in 2019?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.chat.running is None and len(app.turns) == 3)
        assert any(n.title == "Answer failed" for n in app._notifications)
        assert "this answer's thread broke" in app.chat.query(Answer).last().text
        assert [t.status for t in History().turns()] == ["stopped", "answered", "failed"]


# -- history you can browse -------------------------------------------------------------------


@run_async
@pytest.mark.slow
async def test_the_conversation_list_opens_any_stored_conversation(built):
    history = History()
    for n, (cid, question) in enumerate([("a", "flood defences in 2014?"),
                                         ("b", "rail fares in 2016?"),
                                         ("c", "what about coastal towns?")]):
        history.append(Turn(conversation=cid, question=question, answer=f"answer {n}",
                            time=f"2024-05-0{n + 1}T10:00:00"))
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        # the last conversation comes back by itself
        assert [q.question for q in app.chat.query("Question")] == ["what about coastal towns?"]
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"open conversation")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationsScreen))
        options = app.screen.query_one(OptionList)
        listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert listed == ["c", "b", "a"]  # newest first
        await type_text(pilot, "rail")
        assert options.option_count == 1 and options.get_option_at_index(0).id == "b"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is app.chat)
        await pilot.pause()
        assert [q.question for q in app.chat.query("Question")] == ["rail fares in 2016?"]
        assert app.conversation_id == "b"
        # a question asked now continues that conversation
        await ask(pilot, "what was said about rail fares in 2021?")
        assert [t.question for t in History().conversation("b")] == [
            "rail fares in 2016?", "what was said about rail fares in 2021?"]


@run_async
async def test_help_says_where_the_history_lives(built, tmp_path):
    where = tmp_path / "somewhere" / "history.jsonl"
    app = make_app(built, history=History(where))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        text = str(app.screen.query_one("#help-box Static").render())
        assert str(where) in text


def test_history_keeps_the_latest_line_of_each_turn_and_skips_damage(tmp_path):
    history = History(tmp_path / "h.jsonl")
    turn = Turn(conversation="x", question="q?", status=ASKED)
    history.append(turn)
    with history.path.open("a") as fh:
        fh.write("{not json\n")
    turn.status, turn.answer = "answered", "an answer"
    history.append(turn)
    turns = history.turns()
    assert [(t.question, t.status, t.answer) for t in turns] == [("q?", "answered", "an answer")]
    assert history.skipped_lines == 1
    # a line written by the previous version (no id, no status) still reads as answered
    with history.path.open("a") as fh:
        fh.write(json.dumps({"conversation": "y", "question": "old?", "answer": "old"}) + "\n")
    assert history.turns()[-1].finished


# -- activity, copy and retry -----------------------------------------------------------------


@run_async
async def test_status_names_the_model_and_shows_elapsed_time_and_speed(built):
    produced = []
    release = threading.Event()

    def slow(messages):
        for n in range(40):
            produced.append(n)
            time.sleep(0.03)
            yield f"w{n} "
        release.wait(5)

    app = make_app(built, ScriptedGenerator(slow))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert "model ScriptedGenerator" in app.chat.status.render()
        box(app).value = "what is the latest on rail fares?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(produced) >= 40)
        await wait_for(pilot, lambda: "tok/s" in app.chat.status.activity)
        activity = app.chat.status.activity
        assert activity.startswith("writing…") and "s " in activity and "Esc stops" in activity
        release.set()
        await wait_for(pilot, lambda: app.chat.running is None)
        assert app.chat.status.activity == ""
        assert app.chat._ticker is None  # no timer left running while idle


@run_async
async def test_without_a_model_the_status_says_evidence_only_for_good(built, tmp_path):
    settings = Settings(db=built, embedder="hash", model=str(tmp_path / "missing.gguf"))
    app = TragApp(settings, index=open_index(built, settings), today=TODAY)
    stages = []
    async with app.run_test(size=SIZE, message_hook=lambda m: stages.append(
            getattr(m, "text", None))) as pilot:
        await ready(pilot)
        assert "model missing" in app.chat.status.render()
        await ask(pilot, "what was said about flood defences in 2014?")
        assert "loading the model…" in stages and "searching…" in stages
        app.clear_notifications()
        await pilot.pause()
        assert "evidence only: no model" in app.chat.status.render()


@run_async
async def test_copy_and_retry_the_selected_answer(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        first = await ask(pilot, "what was said about flood defences?")
        await ask(pilot, "what was said about rail fares in 2021?")
        first.focus()
        await pilot.pause()
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.clipboard.startswith("# what was said about flood defences?")
        assert "**Sources**" in app.clipboard
        # retry the selected (first) answer with an as-of date, for that answer only
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, OverridesScreen))
        app.screen.query_one("#as_of", Input).value = "2015-01-01"
        await pilot.click("#apply")
        await wait_for(pilot, lambda: len(app.turns) == 3 and app.chat.running is None)
        retried = app.chat.query(Answer).last()
        assert app.turns[-1].question == "what was said about flood defences?"
        assert "as-of 2015-01-01 (override)" in retried.badge.plain
        assert all(s.date <= "2015-01-01" for s in retried.sources)
        assert app.chat.overrides.empty  # the session's overrides are untouched


# -- timeline, passages, indexing, paths ------------------------------------------------------


def test_empty_years_are_drawn_empty_and_named():
    rows = bar_rows([10, 0, 1], height=2)
    assert rows[1][1] == EMPTY and rows[0][1] == " "  # nothing at all for the empty year
    assert rows[1][2] not in (" ", EMPTY)  # a thin year still shows a bar
    assert empty_years({2013: 4, 2015: 1, 2016: 2}) == [2014]
    assert with_note("  ▲       ", "· 2015") == "  ▲ · 2015"
    assert with_note("  ▲    ", "· 2015") == "  ▲    "  # it would cover the mark: left out


@run_async
async def test_timeline_counts_every_document_and_labels_empty_years(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        timeline = app.chat.timeline
        assert "5 documents" in timeline.border_title
        assert "5 documents" in app.chat.status.index_label
        assert "no documents: 2013, 2015, 2017–2018, 2020" in timeline.border_subtitle
        timeline.set_counts({"2012": 3, "2014": 1}, total=5)
        assert "5 documents (1 undated)" in timeline.border_title


def test_markdown_passages_are_rendered_not_shown_raw():
    text = markdown_text("# Market rates\n\nThe MPC noted **market expectations** and `CPI`.\n\n"
                         "- one\n- two\n")
    assert "#" not in text.plain and "**" not in text.plain and "`" not in text.plain
    assert "Market rates" in text.plain and "• one" in text.plain and "• two" in text.plain
    bold = [text.plain[s.start:s.end] for s in text.spans if "bold" in str(s.style)]
    assert "market expectations" in bold
    lit = highlight(text, "market")
    assert any(lit.plain[s.start:s.end] == "Market" for s in lit.spans)


@run_async
@pytest.mark.slow
async def test_indexing_lists_failed_files_with_reasons(built, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copy(built, db)
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "2023-good.md").write_text("---\ndate: 2023-03-01\ntitle: Good\n---\nFine text.\n")
    (folder / "debates2023-01-01a.xml").write_text("<publicwhip><speech>unclosed")
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await palette(pilot, "index a folder")
        app.screen.query_one("#path", Input).value = str(folder)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexingScreen)
                       and app.screen.summary is not None)
        listed = str(app.screen.query_one("#indexing-problem-list").render())
        assert "debates2023-01-01a.xml" in listed and "✗" in listed
        await pilot.press("escape")
        await wait_for(pilot, lambda: 2023 in app.chat.timeline.per_year)


@run_async
async def test_escape_stops_indexing_and_the_next_run_resumes(built, tmp_path):
    db = tmp_path / "copy.db"
    shutil.copy(built, db)
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(30):
        (folder / f"2022-{n:02d}.md").write_text(
            f"---\ndate: 2022-01-{n % 28 + 1:02d}\ntitle: Note {n}\n---\nNote number {n}.\n")
    app = make_app(db)
    embedder = app.engine.index.embedder
    encode = embedder.encode

    def slow_encode(texts):
        time.sleep(0.1)
        return encode(texts)

    embedder.encode = slow_encode
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.build_folder([folder], "Indexing many")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexingScreen))
        # stop once the first batches are written, well before the last
        await wait_for(pilot, lambda: any(bar.progress > 0 for bar in app.screen.query(ProgressBar)))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.chat)
        await wait_for(pilot, lambda: any(n.title == "Indexing stopped" for n in app._notifications))
        await pilot.pause(0.3)
        added = app.chat.timeline.per_year.get(2022, 0)
        assert 0 < added < 30
    embedder.encode = encode
    idx = open_index(db, Settings(db=db, embedder="hash"))
    summary = Indexer(idx.conn, idx.path, idx.embedder, idx.settings).run([folder])
    total = idx.conn.execute("SELECT count(*) FROM documents WHERE date LIKE '2022%'").fetchone()[0]
    idx.close()
    assert total == 30 and summary.documents_added == 30 - added


def test_path_completion(tmp_path):
    (tmp_path / "corpus_a").mkdir()
    (tmp_path / "corpus_b").mkdir()
    (tmp_path / "chat.db").write_text("")
    (tmp_path / ".hidden").mkdir()
    base = str(tmp_path) + "/"
    assert complete_path(base + "co") == base + "corpus_a/"
    assert complete_path(base + "ch") == base + "chat.db"
    assert complete_path(base + "ch", "dir") is None  # folders only where a folder is asked for
    assert complete_path(base + "zz") is None
    assert complete_path(base + ".h") == base + ".hidden/"
    assert complete_path(base) == base + "chat.db"  # inside a folder: its first visible entry


@run_async
async def test_tab_completes_in_the_path_dialog(built, tmp_path):
    (tmp_path / "my_documents").mkdir()
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await palette(pilot, "index a folder")
        field = app.screen.query_one("#path", Input)
        field.value = str(tmp_path / "my_d")
        await pilot.press("tab")
        assert field.value == str(tmp_path / "my_documents") + "/"


def test_screens_and_widgets_use_only_the_framework_side_of_the_app():
    """Attributes down, messages up: nothing under screens/ or widgets/ reaches into TragApp's
    own state or methods; they may only ask Textual's App to show a screen, a notice or copy."""
    import re

    import trag_tui.tui as package

    root = Path(package.__file__).parent
    used = set()
    for folder in ("screens", "widgets"):
        for path in (root / folder).glob("*.py"):
            used |= set(re.findall(r"\bself\.app\.(\w+)", path.read_text(encoding="utf-8")))
    assert used <= {"push_screen", "notify", "copy_to_clipboard"}, used


def test_source_text_that_a_terminal_would_obey_is_shown_escaped():
    from trag_tui.answering.sources import Source
    from trag_tui.tui.screens.chat import _shown

    hostile = Source(1, "d\x1b[2J", "2024-01-01", "Title\x1b[2J", "Ann\x07", "Clear \x1b[2Jscreen\nnext",
                     role="Chair\x9b")
    shown = _shown(hostile)
    assert "\x1b" not in shown.title + shown.passage + shown.doc_id and "\x07" not in shown.speaker
    assert "\x9b" not in shown.role and "\\x1b[2J" in shown.passage and "\nnext" in shown.passage


# --- round two: the chat app ------------------------------------------------------------------


def keys(app, *names: str) -> None:
    """Post keys the way a terminal does, back to back, without Pilot's wait between them."""
    for name in names:
        char = name if len(name) == 1 else None
        app.post_message(events.Key(name, char))


def typed(app, text: str) -> None:
    """Post the keys of `text` back to back, as a fast typist's terminal sends them."""
    from textual.keys import _character_to_key

    for c in text:
        app.post_message(events.Key(_character_to_key(c), c))


@run_async
async def test_tabbing_quickly_between_answers_with_and_without_sources_never_crashes(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        empty = await ask(pilot, "what was said about flood defences in 2015?")
        assert not empty.sources  # no documents from 2015
        full = await ask(pilot, "what was said about flood defences in 2014?")
        assert full.sources
        # Tab to the conversation, its first answer (no sources), its second (sources)...
        keys(app, "tab", "tab", "tab")
        await pilot.pause(0.3)
        assert app.focused is full
        # ...then back and forth faster than the sources pane can fill
        for _ in range(20):
            keys(app, "shift+tab", "tab", "shift+tab", "tab")
            await pilot.pause(0.01)
        await pilot.pause(0.3)
        assert app.is_running and app.return_code is None
        # the pane shows the sources of the answer the focus ended on
        assert app.focused is full and app.chat.selected is full
        assert app.chat.sources.sources == full.sources
        empty.focus()
        await pilot.pause()
        assert app.chat.sources.sources == []


@run_async
async def test_a_late_highlight_from_earlier_sources_is_ignored(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        full = await ask(pilot, "what was said about flood defences in 2014?")
        pane = app.chat.sources
        for _ in range(5):
            # one answer's sources, then another's (none) before the list's highlight lands
            pane.show_sources(full.sources, full.query_text)
            pane.show_sources([], "")
            await pilot.pause(0.05)
        assert app.is_running and app.return_code is None
        assert pane.sources == [] and not str(pane.query_one("#passage-text").render()).strip()


QUESTION = "what was said about rail fares in 2021 and what did the minister say?"


def answered(app, before: int) -> bool:
    """Whether a question asked after the first `before` turns has been answered."""
    return len(app.turns) > before and app.chat.running is None


@pytest.mark.parametrize("first", [(), ("ctrl+t",)], ids=["answer-focused", "after-ctrl-t"])
@run_async
async def test_enter_submits_every_key_typed_before_it(built, first):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, "what was said about flood defences in 2014?")
        for split in (1, 8, 30):
            answer.focus()
            await pilot.pause()
            before = len(app.turns)
            # The focus is on an answer. A burst of keys, then (while the first of them are
            # still on their way to the question box) the rest and Enter.
            keys(app, *first)
            typed(app, QUESTION[:split])
            await asyncio.sleep(0)
            typed(app, QUESTION[split:])
            keys(app, "enter")
            await wait_for(pilot, functools.partial(answered, app, before), timeout=5)
            assert [t.question for t in app.turns[before:]] == [QUESTION], split
            assert box(app).value == ""


@run_async
async def test_typing_in_the_passage_reader_goes_to_the_question_box(built):
    app = make_app(built)
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")
        app.chat.sources.query_one(OptionList).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PassageScreen))
        before = len(app.turns)
        # "q" is the start of a question here, not a key that closes the reader
        typed(app, "quick question: rail fares in 2021?")
        keys(app, "enter")
        await wait_for(pilot, functools.partial(answered, app, before))
        assert app.screen is app.chat
        assert [t.question for t in app.turns[before:]] == ["quick question: rail fares in 2021?"]


def slow_model(produced: list, pause: float = 0.05):
    """A model that writes one checked sentence, then words slowly until it is stopped; each
    `pause` is spent without looking at the stop (as llama.cpp reads a slice of its prompt)."""
    def script(messages):
        yield "Flood defences failed on the Somerset Levels [1]. "
        for n in range(400):
            produced.append(n)
            time.sleep(pause)
            yield f"word{n} "
    return ScriptedGenerator(script)


@run_async
async def test_escape_mid_answer_keeps_the_evidence_also_after_a_restart(built):
    produced: list[int] = []
    app = make_app(built, slow_model(produced))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box(app).value = "what was said about flood defences in 2014?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(produced) >= 3)
        answer = app.chat.running.answer
        keys(app, "escape")
        await wait_for(pilot, lambda: app.chat.running is None)
        for text in (answer.text, app.turns[-1].answer):
            assert "*(stopped)*" in text and "**Evidence**" in text
            assert "[1] 2014-02-10 — “After the winter storms" in text
    again = make_app(built)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        restored = again.chat.query(Answer).last()
        assert "**Evidence**" in restored.text and "*(stopped)*" in restored.text
        assert [s.date for s in restored.sources] == ["2014-02-10"]


@run_async
async def test_ctrl_q_mid_answer_quits_at_once(built):
    produced: list[int] = []
    app = make_app(built, slow_model(produced, pause=3.0))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box(app).value = "what was said about flood defences in 2014?"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(produced) >= 1)
        pressed = time.monotonic()
        keys(app, "ctrl+q")
        while app.is_running and time.monotonic() - pressed < 5:
            await asyncio.sleep(0.02)
    quit_in = time.monotonic() - pressed  # the app has shut down: unmounted, index closed
    # at once is well inside the model's 3 s pause: it does not wait for the piece in flight
    # (half the pause, not a wall-clock second, so a busy shared machine does not fail it)
    assert quit_in < 1.5, f"{quit_in:.1f}s from Ctrl+Q to the app's end"
    assert History().turns()[-1].status == "stopped"


STRUCTURED = "how has flood defence funding changed since 2012?"
EMPTY_PERIOD = "compare rail fares in 2013 and 2021"


@run_async
async def test_a_structured_answer_keeps_one_block_a_group_on_screen_in_copy_and_export(
        built, tmp_path):
    app = make_app(built, ScriptedGenerator(["Nothing to add."]))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, STRUCTURED)
        shown = answer.markdown.source
        labels = [label for label in ("Older sources:", "Middle sources:", "Newer sources:")
                  if label in shown]
        assert len(labels) >= 2
        for label in labels:  # each group opens a paragraph of its own
            assert f"\n\n{label}" in "\n\n" + shown
        copied = app.turns[-1].answer  # what Ctrl+Y copies and the export writes
        for label in labels:
            assert f"\n\n{label}" in "\n\n" + copied
        # a comparison's quote: one paragraph a period
        answer = await ask(pilot, "compare flood defences in 2012 and 2014")
        text = answer.markdown.source
        assert "\n\n2014: " in text and text.startswith("2012: "), text


@run_async
async def test_a_comparison_says_which_period_has_no_documents(built):
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, EMPTY_PERIOD)
        assert "No documents from 2013: the nearest " in answer.markdown.source
        assert "No documents from 2013: the nearest " in app.turns[-1].answer


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
@pytest.mark.parametrize("question", ["structured", "empty_period"])
def test_snapshot_answer_shape(built, snap_compare, size, question):
    """Older / Middle / Newer sources, one paragraph each; a comparison of a period without
    documents and one with, saying which is empty."""
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await ask(pilot, {"structured": STRUCTURED, "empty_period": EMPTY_PERIOD}[question])
        pilot.app.chat.conversation.scroll_to_widget(pilot.app.chat.query(Answer).last(),
                                                     animate=False, top=True)
        await pilot.pause()

    assert snap_compare(make_app(built, ScriptedGenerator(["Nothing to add."])),
                        terminal_size=size, run_before=run_before)


@run_async
async def test_a_restored_answer_looks_like_the_live_one_and_keeps_its_scores(built):
    first = make_app(built)
    async with first.run_test(size=SIZE) as pilot:
        await ready(pilot)
        live = (await ask(pilot, "what was said about flood defences in 2014?")).text
    again = make_app(built)
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        restored = again.chat.query(Answer).last()
        assert restored.text == live  # the Sources list is the pane's, not the answer's
        await pilot.press("ctrl+t")
        await pilot.pause()
        shown = again.chat.sources.query_one(OptionList).get_option_at_index(0).prompt.plain
        assert "final " in shown


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
@run_async
async def test_the_main_keys_are_in_the_footer_at_every_width(built, size):
    from textual.widgets._footer import FooterKey

    app = make_app(built)
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await pilot.pause()
        shown = {k.description: k for k in app.chat.query(FooterKey)}
        for description in ("Stop", "Copy", "Retry", "Quit", "Help"):
            key = shown[description]
            assert key.region.width and key.region.right <= size[0], description


@run_async
async def test_wording_of_an_answer_without_sources_no_index_and_the_export(built, tmp_path,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2015?")
        first = app.chat.sources.query_one(OptionList).get_option_at_index(0).prompt
        assert str(first) == "No sources for answer 1."
        app.chat.status.index_label = "none"
        assert "no index open" in app.chat.status.render()
        assert "index none" not in app.chat.status.render()
        await palette(pilot, "export")
        hint = str(app.screen.query_one(".hint").render())
        assert "Enter writes" in hint and "opens" not in hint
        app.screen.query_one("#path", Input).value = "out.md"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("written to" in n.message for n in app._notifications))
        note = next(n.message for n in app._notifications if "written to" in n.message)
        assert str(Path("out.md").resolve()) in note


async def two_conversations(pilot) -> None:
    """A stored conversation, then a new one with a question of its own."""
    await ready(pilot)
    await ask(pilot, "what was said about flood defences in 2014?")
    await pilot.press("ctrl+n")
    await pilot.pause()
    await ask(pilot, "what was said about rail fares in 2021?")


@run_async
async def test_the_sidebar_lists_opens_renames_deletes_and_starts_conversations(built):
    from trag_tui.tui.widgets.sidebar import ConversationSidebar

    app = make_app(built)
    async with app.run_test(size=SIZE) as pilot:
        await two_conversations(pilot)
        sidebar = app.chat.query_one(ConversationSidebar)
        assert not sidebar.display
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert sidebar.display and app.focused is sidebar.query_one(OptionList)
        titles = [c.title for c in sidebar.conversations]
        assert titles == ["what was said about rail fares in 2021?",
                          "what was said about flood defences in 2014?"]
        # open the older one
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.conversation_id == sidebar.conversations[1].id)
        assert [t.question for t in app.turns] == ["what was said about flood defences in 2014?"]
        # rename it: the name is kept in the history
        sidebar.query_one(OptionList).focus()
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.screen is not app.chat)
        app.screen.query_one(Input).value = "Floods"
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Floods" in [c.title for c in sidebar.conversations])
        assert "Floods" in [c.title for c in History().conversations()]
        # delete it: it is gone from the list and from the history, and a new one starts
        deleted = app.conversation_id
        sidebar.query_one(OptionList).focus()
        options = sidebar.query_one(OptionList)
        options.highlighted = options.get_option_index(deleted)
        await pilot.press("delete")
        await wait_for(pilot, lambda: app.conversation_id != deleted)
        assert deleted not in [c.id for c in History().conversations()]
        assert [c.title for c in sidebar.conversations] == ["what was said about rail fares in 2021?"]
        # Ctrl+B hides it again; typing goes to the question box
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not sidebar.display and app.focused is box(app)


class Clock:
    """`datetime` for the history module: a minute later at every call, from a fixed time, so
    the sidebar's times and order are the same at every run."""

    class datetime(dt.datetime):  # noqa: N801 - stands in for the datetime class
        calls = 0

        @classmethod
        def now(cls, tz=None):
            cls.calls += 1
            return dt.datetime(2024, 6, 1, 9, 0) + dt.timedelta(minutes=cls.calls)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)], ids=["80x24", "120x36"])
def test_snapshot_sidebar(built, snap_compare, size, monkeypatch):
    from trag_tui.tui import history

    monkeypatch.setattr(history, "dt", Clock)
    monkeypatch.setattr(Clock.datetime, "calls", 0)

    async def run_before(pilot):
        no_blink(pilot)
        await two_conversations(pilot)
        await pilot.press("ctrl+b")
        await pilot.pause()
        no_blink(pilot)

    assert snap_compare(make_app(built), terminal_size=size, run_before=run_before)


def test_a_mark_near_the_end_keeps_its_label_and_the_empty_years_note():
    for width in (40, 64, 78):
        columns = year_columns(2010, 2025, width)
        marks = mark_row(columns, {2024})
        axis = axis_row(columns, {2024})
        at, label = marks.index(MARK), axis.find("2024")
        # the mark's year is labelled, over the mark: no other year's label there
        assert label >= 0 and label <= at < label + 4, (width, axis)
    # the empty-years note moves to the left end when a mark takes the right one
    row = with_note(marks, f"{EMPTY} no documents: 2015")
    assert f"{EMPTY} no documents: 2015" in row and MARK in row


@run_async
async def test_an_answer_about_now_from_old_sources_says_how_old_they_are(built):
    app = make_app(built, ScriptedGenerator(["Nothing to add."]))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        answer = await ask(pilot, "what is the latest on rail fares?")
        assert answer.markdown.source.startswith(
            "The newest source is 32 months old (20 September 2021, as of 1 June 2024).")


def test_a_folded_markdown_snippet_shows_no_heading_marks():
    from trag_tui.tui.widgets.sources import folded_markdown

    folded = "rates rose. ## Outlook The MPC voted 7 to 2. Item #3 stays."
    text = markdown_text(folded_markdown(folded)).plain
    assert "#" not in text.replace("#3", "") and "Outlook The MPC" in text and "#3" in text


def test_blocks_keep_a_period_label_whole():
    from trag_tui.tui.answer_text import blocks

    text = "2012-01-01 .. 2012-12-31: Gordon Brown [4]: “y.” 2024-01-01 .. 2024-12-31: z [5]."
    assert blocks(text).split("\n\n") == ["2012-01-01 .. 2012-12-31: Gordon Brown [4]: “y.”",
                                          "2024-01-01 .. 2024-12-31: z [5]."]
