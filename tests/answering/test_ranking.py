"""The answer ranking's score is its features weighed by the data file, nothing else."""
from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pytest

from trag_tui.answering import ranking
from trag_tui.answering.ranking import FEATURES, WEIGHTS_FILE, rank, ranker_weights
from trag_tui.answering.sources import Source


def test_the_weights_file_weighs_every_feature_once():
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))["weights"]
    assert list(data) == list(FEATURES)
    assert all(isinstance(v, float) and np.isfinite(v) for v in data.values())
    assert ranker_weights() == tuple(data[k] for k in FEATURES)


@pytest.mark.parametrize("mode,kind", [("hybrid", None), ("decay", "person"), ("hard_filter", "number")])
def test_a_score_is_the_features_weighed(mode, kind):
    sources = [
        Source(1, "a", "2024-05-01", "Consumer price inflation, May 2024", "",
               "CPI inflation was 2.0 per cent in the 12 months to May 2024. Rates held."),
        Source(2, "b", "2023-01-10", "Debate", "Rishi Sunak",
               "The Prime Minister said inflation would halve this year, from 10.7 per cent."),
    ]
    ranked = rank("inflation rate", sources, mode=mode, kind=kind, full="What was the inflation rate?",
                  as_of=dt.date(2024, 7, 1), period=(dt.date(2024, 5, 1), dt.date(2024, 5, 31)))
    assert ranked
    w = np.asarray(ranker_weights())
    for c in ranked:
        assert len(c.features) == len(FEATURES)
        assert c.score == pytest.approx(float(np.asarray(c.features) @ w))


def test_other_weights_reorder_the_same_features(monkeypatch):
    """Weights are data: weighing only the lead sentence puts each source's first sentence first."""
    sources = [Source(1, "a", "2024-05-01", "t", "",
                      "Rates held at five per cent today. Inflation fell to two per cent in May.")]
    by_hand = rank("inflation", sources)
    assert "Inflation fell" in by_hand[0].sentence
    only_lead = tuple(1.0 if k == "lead" else 0.0 for k in FEATURES)
    monkeypatch.setattr(ranking, "ranker_weights", lambda: only_lead)
    assert "Rates held" in rank("inflation", sources)[0].sentence


def test_words_every_source_s_title_carries_are_where_the_sources_come_from_not_the_topic():
    q = "Wages according to the Tenth District: April 2009 compared with September 2015"
    title = "Beige Book, {}: Federal Reserve Bank of Kansas City (Tenth District)"
    sources = [Source(n, f"d{n}", date, title.format(month), "Federal Reserve Bank of Kansas City",
                      text, score=0.9)
               for n, date, month, text in (
                   (1, "2009-04-15", "April 2009", "The Tenth District economy continued to "
                    "decline in March. Wage pressures remained low in the weak labour market."),
                   (2, "2015-09-02", "September 2015", "Tenth District energy activity "
                    "stabilized somewhat. Wages rose modestly for skilled workers."))]
    ranked = rank(q, sources, mode="comparison")
    assert "Wage" in ranked[0].sentence
    # who speaks is no scope: a conversation's title names its speakers on every session
    q = "What did Melanie paint?"
    sources = [Source(n, f"s{n}", "2023-05-0" + str(n), "conv-26 session 1: Caroline and Melanie",
                      speaker, text, score=0.9)
               for n, speaker, text in ((1, "Caroline", "Caroline: I painted a sunset last week."),
                                        (2, "Melanie", "Melanie: I painted a lake with my kids."))]
    assert rank(q, sources, mode="hybrid")[0].source.speaker == "Melanie"


def test_a_reports_title_names_what_each_of_its_sentences_is_about():
    # "The Consumer Prices Index (CPI) rose by 3.4 per cent…" is about inflation: its title says so
    q = "What was the inflation rate in the 12 months to February 2024?"
    release = Source(1, "r", "2024-03-20", "Consumer price inflation, February 2024",
                     "Office for National Statistics",
                     "The Consumer Prices Index (CPI) rose by 3.4 per cent in the 12 months to "
                     "February 2024.", score=0.9)
    speech = Source(2, "s", "2023-03-15", "House of Commons: Budget Statement", "Jeremy Hunt",
                    "The OBR forecasts that inflation will fall to 2.9 per cent by the end of this "
                    "year.", score=0.8)
    shared = FEATURES.index("shared_words")

    def words(sources):
        return {c.source.doc_id: c.features[shared]
                for c in rank("What was the inflation rate", sources, mode="hard_filter", full=q)}

    assert words([release, speech]) == {"r": 1.0, "s": 1.0}
    untitled = Source(1, "r", "2024-03-20", "Statistical bulletin", "Office for National Statistics",
                      release.passage, score=0.9)
    assert words([untitled, speech]) == {"r": 0.0, "s": 1.0}
    # a title naming no period is a line of its own, not a report's subject and period
    undated = Source(1, "r", "2024-03-20", "Consumer price inflation", "Office for National "
                     "Statistics", release.passage, score=0.9)
    assert words([undated, speech]) == {"r": 0.0, "s": 1.0}
    # not over news: a page's title there is a headline of its own or a page name
    story = Source(3, "n", "2024-03-20", "consumer-price-inflation-february", "cnn.com",
                   "Prices rose by 3.4 per cent.", score=0.9)
    headed = Source(4, "h", "2024-03-20", "Inflation falls again as food prices ease in February",
                    "cnn.com", "Prices rose by 3.4 per cent in February.", score=0.8)
    rows = {(c.source.doc_id, c.sentence[:6]): c.features[shared]
            for c in rank("What was the inflation rate", [story, headed], mode="hard_filter",
                          full=q)}
    assert rows[("n", "Prices")] == 0.0


def test_words_every_headline_carries_are_the_story_not_the_scope():
    # news reports of one story carry its words in every headline: they are what it is about
    q = "Which kind of animal watched the Queen's funeral procession?"
    sources = [Source(n, f"n{n}", "2022-09-19", title, "cnn.com", text, score=0.9)
               for n, title, text in (
                   (1, "Queen's funeral: Britain bids farewell to the monarch in London",
                    "The funeral procession passed thousands of mourners."),
                   (2, "Queen's funeral: the final goodbye at a state funeral and burial",
                    "Her pony watched the funeral procession."))]
    shared = FEATURES.index("shared_words")
    rows = ranking.featured(q, sources, mode="hard_filter")
    assert all(c.features[shared] > 0 for c in rows if "funeral" in c.sentence.lower())
