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
from textual.widgets import Input, OptionList  # noqa: E402

from trag_tui.generation import ScriptedGenerator  # noqa: E402
from trag_tui.index import open_index  # noqa: E402
from trag_tui.indexer import Indexer  # noqa: E402
from trag_tui.settings import Settings, user_dir  # noqa: E402
from trag_tui.tui import app as app_module  # noqa: E402
from trag_tui.tui.app import TragApp  # noqa: E402
from trag_tui.tui.history import History  # noqa: E402
from trag_tui.tui.overrides import Overrides, apply_command  # noqa: E402
from trag_tui.tui.screens.first_run import FirstRunScreen  # noqa: E402
from trag_tui.tui.screens.help import HelpScreen  # noqa: E402
from trag_tui.tui.screens.indexing import IndexingScreen  # noqa: E402
from trag_tui.tui.screens.passage import PassageScreen  # noqa: E402
from trag_tui.tui.widgets.answer import Answer  # noqa: E402
from trag_tui.tui.widgets.passage import highlight  # noqa: E402
from trag_tui.tui.widgets.timeline import MARK, axis_row, mark_row, year_columns  # noqa: E402

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
    settings = Settings(db=root / "t.db", embedder="hash")
    idx = open_index(settings.db, settings, create=True)
    Indexer(idx.conn, idx.path, idx.embedder, settings).run([corpus])
    idx.close()
    return settings.db


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

        assert answer.text.startswith("Flood defences failed on the Somerset Levels [1].")
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
        assert "word0" in answer.text and "word199" not in answer.text
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


def test_snapshot_answer(built, snap_compare):
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await ask(pilot, "what was said about flood defences in 2014?")

    assert snap_compare(make_app(built), terminal_size=SIZE, run_before=run_before)


def test_snapshot_source_selected(built, snap_compare):
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await ask(pilot, "how has flood defence funding changed since 2012?")
        options = pilot.app.chat.sources.query_one(OptionList)
        options.focus()
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(make_app(built), terminal_size=SIZE, run_before=run_before)


def test_snapshot_help(built, snap_compare):
    async def run_before(pilot):
        no_blink(pilot)
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(make_app(built), terminal_size=SIZE, run_before=run_before)
