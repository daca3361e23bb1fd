"""The relevance judge: one yes/no call per source, within a time budget, its drops listed."""
from __future__ import annotations

import itertools

from tests.answering.results import AS_OF, TQ, hit, passages_for, result
from tests.fakes import ScriptedGenerator
from trag_tui.answering.events import Done, Quoted
from trag_tui.answering.judge import judge, kept_sources, messages, read_verdict
from trag_tui.answering.pipeline import answer
from trag_tui.answering.sources import numbered
from trag_tui.errors import GenerationError
from trag_tui.render import render_answer_explain
from trag_tui.settings import Settings

QUESTION = "Which show was green lit for a second season?"


def _result():
    tq = TQ(QUESTION, "none", semantic_query="show green lit second season", as_of=AS_OF)
    hits = [hit(1, "2024-05-20", "The cooking contest drew record ratings this spring.", score=0.9),
            hit(2, "2024-05-28", "Netflix green lit a second season of Squid Game on Sunday.",
                score=0.8),
            hit(3, "2024-05-10", "A storm closed the harbour for two days.", score=0.7)]
    return result("hybrid", tq, hits)


def _on_squid(messages_):
    """A judge that says yes only to the passage about Squid Game."""
    return ["Yes."] if "Squid Game" in messages_[-1]["content"] else ["No"]


def test_a_reply_is_read_as_yes_no_or_neither():
    assert read_verdict(" Yes, it does.") is True
    assert read_verdict("no.") is False
    assert read_verdict("Maybe") is None and read_verdict("") is None


def test_the_question_comes_first_so_a_questions_calls_share_their_prefix():
    sources = numbered(_result(), passages_for(_result().hits))
    first, second = (messages(QUESTION, s)[1]["content"] for s in sources[:2])
    prefix = f"Question: {QUESTION}\n\nPassage ("
    assert first.startswith(prefix) and second.startswith(prefix)
    assert messages(QUESTION, sources[0])[0] == messages(QUESTION, sources[1])[0]


def test_each_source_is_judged_and_the_kept_ones_are_numbered_again():
    sources = numbered(_result(), passages_for(_result().hits))
    gen = ScriptedGenerator(_on_squid)
    verdicts = judge(gen, QUESTION, sources, budget=60)
    assert [v.keep for v in verdicts] == [False, True, False]
    assert len(gen.calls) == 3 and all(c["max_tokens"] <= 3 for c in gen.calls)
    kept = kept_sources(sources, verdicts)
    assert [(s.number, s.doc_id) for s in kept] == [(1, "doc-2")]


def test_sources_past_the_time_budget_are_kept_unjudged():
    sources = numbered(_result(), passages_for(_result().hits))
    ticks = itertools.count(0, 5)  # each look at the clock is five seconds later
    verdicts = judge(ScriptedGenerator(["No"]), QUESTION, sources, budget=12,
                     clock=lambda: float(next(ticks)))
    assert [v.keep for v in verdicts] == [False, None, None]
    assert [s.doc_id for s in kept_sources(sources, verdicts)] == ["doc-2", "doc-3"]


def test_a_failing_model_ends_judging_and_keeps_the_rest():
    class Failing(ScriptedGenerator):
        def stream(self, *a, **kw):
            raise GenerationError("the prompt does not fit")

    sources = numbered(_result(), passages_for(_result().hits))
    verdicts = judge(Failing(), QUESTION, sources, budget=60)
    assert all(v.keep is None for v in verdicts)
    assert len(kept_sources(sources, verdicts)) == 3


def test_the_answer_is_built_from_the_kept_sources_and_lists_the_dropped():
    res = _result()
    events = list(answer(res, passages_for(res.hits), evidence_only=True,
                         judge=ScriptedGenerator(_on_squid)))
    done = events[-1]
    assert isinstance(done, Done)
    assert [s.doc_id for s in done.sources] == ["doc-2"]
    assert "Squid Game" in done.answer and "[1]" in done.answer
    assert [(v.doc_id, v.keep, v.said) for v in done.judged] == \
        [("doc-1", False, "No"), ("doc-2", True, "Yes."), ("doc-3", False, "No")]
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert "set aside 2 sources" in quoted.shown
    assert [d["keep"] for d in done.to_dict()["judge"]] == [False, True, False]
    shown = render_answer_explain(done)
    assert "Relevance judge: kept 1 of 3" in shown
    assert "dropped: [1] 2024-05-20 | Debate 1 — said 'No'" in shown


def test_a_judge_that_keeps_nothing_leaves_every_source_and_says_so():
    res = _result()
    events = list(answer(res, passages_for(res.hits), evidence_only=True,
                         judge=ScriptedGenerator(["No"])))
    done = events[-1]
    assert len(done.sources) == 3 and [v.keep for v in done.judged] == [False] * 3
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert "kept none of the sources" in quoted.shown


def test_without_a_judge_nothing_is_judged_and_no_model_is_loaded():
    res = _result()
    settings = Settings()
    assert settings.judge is None
    done = list(answer(res, passages_for(res.hits), evidence_only=True, settings=settings))[-1]
    assert done.judged == [] and "judge" not in done.to_dict() and len(done.sources) == 3


def test_the_app_explain_view_lists_the_verdicts_now_and_from_history():
    from trag_tui.tui.answer_text import explain_markdown

    res = _result()
    done = list(answer(res, passages_for(res.hits), evidence_only=True,
                       judge=ScriptedGenerator(_on_squid)))[-1]
    now, stored = explain_markdown(done), explain_markdown(done.to_dict())
    assert "Relevance judge: kept 1 of 3" in now and "dropped: \\[1\\] 2024-05-20" in now
    assert "Relevance judge dropped: \\[3\\] 2024-05-10" in stored
