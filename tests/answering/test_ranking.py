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
