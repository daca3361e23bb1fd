"""The shipped ranking weights are what the bench fits from the committed numbers, no more."""
from __future__ import annotations

import json

import numpy as np
import pytest

from bench import ranker
from trag_tui.answering import ranking


@pytest.fixture(scope="module")
def rows():
    return ranker.load_rows()


def test_the_rows_file_holds_numbers_for_every_feature(rows):
    assert list(rows["features"]) == list(ranking.FEATURES)
    assert rows["x"].shape == (len(rows["y"]), len(ranking.FEATURES))
    assert rows["x"].dtype.kind == "f" and rows["y"].dtype == bool
    assert set(np.unique(rows["sets"])) == set(range(len(rows["names"])))


def test_the_fitted_weights_are_refitted_from_the_committed_rows(rows):
    """Fitting is deterministic: the weights fitted on all sets of the committed rows, from the
    hand-set prior, are the file's fitted weights; the shipped ones are those or the prior."""
    stored = json.loads(ranking.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert sorted(stored["fitted_on"]) == sorted(rows["names"])
    refit = ranker.fit_weights(rows, ranker.prior())
    fitted = np.asarray([stored["fitted"][k] for k in ranking.FEATURES])
    np.testing.assert_allclose(refit, fitted, rtol=0, atol=2e-4)
    assert stored["ships"] in ("fitted", "prior")
    assert stored["weights"] == stored[stored["ships"]]
    assert ranking.ranker_weights() == tuple(stored[stored["ships"]][k] for k in ranking.FEATURES)


def test_the_fit_moves_the_weights_towards_the_positive_sentences():
    """On rows where the positive sentence is the one with the lead, the lead's weight rises."""
    f = len(ranking.FEATURES)
    lead = ranking.FEATURES.index("lead")
    x = np.zeros((6, f))
    x[:, ranking.FEATURES.index("likeness")] = [0.5, 0.6, 0.4, 0.5, 0.6, 0.4]
    x[[0, 3], lead] = 1.0
    data = {"x": x, "y": np.asarray([1, 0, 0, 1, 0, 0], dtype=bool),
            "starts": np.asarray([0, 3]), "sets": np.asarray([0, 0]), "names": np.asarray(["a"])}
    start = ranker.prior()
    assert ranker.fit(data, start)[lead] > start[lead]


def test_the_outcome_fit_takes_a_step_only_when_no_set_does_worse(monkeypatch):
    """A step that quotes one set better and another worse is not taken; one that helps one
    set and leaves the other as it was is; a weight never changes sign."""
    lead, fresh = ranking.FEATURES.index("lead"), ranking.FEATURES.index("fresh")
    long = ranking.FEATURES.index("long")
    start = ranker.prior()

    def quoted(group, w, cuts):
        gain = w - start
        if group == "a":  # a higher lead, freshness and `long` help this set
            held = round(100 * (gain[lead] + gain[fresh] + gain[long]))
        else:  # ... but freshness costs the other one
            held = -round(100 * max(0.0, gain[fresh]))
        return {"held": held, "wrong": 0}

    monkeypatch.setattr(ranker, "quoted", quoted)
    w = ranker.fit_outcome(["a", "b"], start, ranking.Cuts())
    assert w[lead] > start[lead]
    assert w[fresh] == start[fresh]
    assert start[long] < 0 and w[long] == 0.0  # up to zero, never past it
    assert all(a * b >= 0 for a, b in zip(w, start))


def test_the_pull_is_chosen_by_what_carries_from_one_set_to_another(monkeypatch):
    """Each pull is judged by weights fitted on one set quoting another; the best total wins,
    and on a tie the stronger pull (None: the prior itself)."""
    fitted_on: list = []

    def fit_pulled(data, start, keep, pull):
        fitted_on.append((tuple(keep), pull))
        return np.asarray([0.0 if pull is None else pull])

    def merit(group, w, cuts):
        if group == "tie":
            return 5
        return {0.05: 1, 0.2: 3, 1.0: 3, 5.0: 2}.get(float(w[0]), 0)

    monkeypatch.setattr(ranker, "fit_pulled", fit_pulled)
    monkeypatch.setattr(ranker, "_merit", merit)
    data = {"names": np.asarray(["a", "b"]), "sets": np.asarray([0, 1, 1])}
    pull, merits = ranker.choose_pull({"a": "a", "b": "b"}, data, ["a", "b"], np.zeros(1))
    assert pull == 1.0 and merits["1.0"] == 6 and merits["None"] == 0
    assert ((True, False, False), 0.05) in fitted_on and ((False, True, True), 0.05) in fitted_on
    pull, _ = ranker.choose_pull({"a": "tie", "b": "tie"}, data, ["a", "b"], np.zeros(1))
    assert pull is None
