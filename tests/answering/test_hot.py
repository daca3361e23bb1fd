"""The hot window: a current question's latest sources on the subject lead the answer."""
from __future__ import annotations

import datetime as dt

from tests.answering.results import AS_OF, TQ, hit, passages_for, result
from trag_tui.answering.events import Quoted
from trag_tui.answering.hot import hot_note, lead, window
from trag_tui.answering.pipeline import answer
from trag_tui.answering.ranking import rank
from trag_tui.answering.sources import numbered
from trag_tui.render import render_answer_explain
from trag_tui.settings import Settings

QUESTION = "Which fruit is now the most popular?"


def _hits(fused_recent: float = 0.8, after: bool = False):
    # publication every ten days or so; the latest report (21 May) names the new favourite
    hits = [hit(1, "2024-04-01", "Apples are the most popular fruit, a survey of shoppers "
                                 "found, ahead of pears and plums in every region.", score=0.9),
            hit(2, "2024-04-20", "The orchard season opened with cherries.", score=0.5),
            hit(3, "2024-05-10", "Plums sold well at markets this month.", score=0.4),
            hit(4, "2024-05-21", "Shoppers now buy more mangoes than any other fruit, the grocers "
                                 "said.", score=0.7)]
    fused = {1: 0.9, 2: 0.3, 3: 0.2, 4: fused_recent}
    for h in hits:
        h.scores["fused"] = fused[h.chunk_id]
    if after:
        late = hit(5, "2024-06-03", "Kiwis are the most popular fruit.", score=0.95)
        late.scores["fused"] = 0.95
        hits.append(late)
    return hits


def _current(hits, mode="decay"):
    tq = TQ(QUESTION, "current", end=AS_OF, semantic_query="most popular fruit", as_of=AS_OF)
    return result(mode, tq, hits)


def test_the_window_is_one_publication_interval_back_from_the_last_day_before_as_of():
    res = _current(_hits(after=True))
    sources = numbered(res, passages_for(res.hits))
    hot = window(res, sources)
    # the gaps between publication days are 19, 20, 11 days: the interval is their median, 19;
    # the source dated after the as-of date is neither the window's end nor inside it
    assert hot.end == dt.date(2024, 5, 21) and hot.interval == 19
    assert hot.start == dt.date(2024, 5, 2)
    # doc-3 is in the window but far below the best fused score
    assert [s.doc_id for s in sources if s.number in hot.leading] == ["doc-4"]


def test_a_recent_source_off_the_subject_does_not_lead():
    res = _current(_hits(fused_recent=0.3))
    hot = window(res, numbered(res, passages_for(res.hits)))
    assert hot is not None and hot.leading == ()
    assert hot_note(hot) is None


def test_only_questions_about_the_present_have_a_window():
    res = _current(_hits(), mode="hard_filter")
    assert window(res, numbered(res, passages_for(res.hits))) is None


def test_the_leading_sources_sentences_come_first_in_their_order():
    res = _current(_hits())
    sources = numbered(res, passages_for(res.hits))
    ranked = rank("most popular fruit", sources, mode="decay")
    hot = window(res, sources)
    led = lead(ranked, hot)
    n = sum(1 for c in ranked if c.source.number in hot.leading)
    assert {c.source.number for c in led[:n]} == set(hot.leading)
    assert led[:n] == [c for c in ranked if c.source.number in hot.leading]
    assert sorted(led, key=id) == sorted(ranked, key=id)


def test_the_latest_report_is_quoted_and_the_date_line_says_so():
    res = _current(_hits())
    events = list(answer(res, passages_for(res.hits), evidence_only=True,
                         settings=Settings(hot="on")))
    done = events[-1]
    assert done.answer.startswith("Jane Smith [1] (21 May 2024): “Shoppers now buy more mangoes")
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert "Latest first: the sources from 2 May 2024 to 21 May 2024" in quoted.shown
    assert done.to_dict()["hot"]["leading"] == [1]  # decay numbers the newest first
    assert "Hot window: 2024-05-02 to 2024-05-21" in render_answer_explain(done)
    off = list(answer(res, passages_for(res.hits), evidence_only=True,
                      settings=Settings(hot="off")))[-1]
    assert off.answer.startswith("Jane Smith [4] (1 April 2024): “Apples") and "mangoes" not in off.answer
    assert off.hot is None
