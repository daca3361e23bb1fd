"""Scoring rules on hand-written rows, no database."""
from __future__ import annotations

import math

import pytest

from trag_tui.retrieval import scoring


def test_rrf_rewards_agreement():
    a = [(1, 9.0), (2, 5.0), (3, 1.0)]
    b = [(2, 0.9), (4, 0.8), (1, 0.1)]
    fused = scoring.rrf([a, b], k=60)
    assert fused[0][0] in (1, 2) and {fused[0][0], fused[1][0]} == {1, 2}
    assert [u for u, _ in fused][-1] in (3, 4)


def test_weighted_sum_normalises_each_list():
    a = [(1, 100.0), (2, 50.0)]
    b = [(2, 1.0), (3, 0.5)]
    fused = dict(scoring.weighted_sum([a, b], [1.0, 1.0]))
    assert math.isclose(fused[2], 1.5) and math.isclose(fused[1], 1.0)


def test_exp_decay_prefers_recent_among_equals():
    ranked = [(1, 1.0), (2, 1.0)]
    days = {1: 1000, 2: 1300}
    out, factor = scoring.apply_decay(ranked, days, 1300, "exp", delta=2.5, tau=365)
    assert out[0][0] == 2 and factor[2] > factor[1]


def test_rational_decay_formula():
    assert math.isclose(scoring.rational_decay(1.0, 0, 0.3, 1.0), 1.0)
    assert math.isclose(scoring.rational_decay(0.5, 365.25, 0.3, 1.0), 0.35 + 0.15)


def test_rank_decay_keeps_relevance_in_play():
    ranked = [(1, 1.0), (2, 0.2), (3, 0.1)]
    out, _ = scoring.apply_decay(ranked, {1: 0, 2: 100, 3: 99}, 100, "rank", alpha=0.3)
    assert {u for u, _ in out} == {1, 2, 3}


def test_recency_params_range():
    d1, t1 = scoring.recency_params(1.0)
    d0, t0 = scoring.recency_params(0.0)
    assert t1 == 365 and t0 == 730 and d1 == 2.5 and d0 < d1


def test_halt_cuts_weak_tail_when_settled():
    ranked = [(1, 1.0), (2, 0.9), (3, 0.8), (4, 0.1), (5, 0.05)]
    n, conf = scoring.halt(ranked, 5, agree=1.0)
    assert n == 3 and conf >= 0.5
    n, conf = scoring.halt(ranked, 5, agree=0.0)
    assert n <= 5


def test_coverage_pick_spans_oldest_to_newest():
    items = [(i, 1.0 - i / 100, day) for i, day in enumerate([0, 1, 2, 500, 501, 998, 999])]
    picked = scoring.coverage_pick(items, 4, buckets=3)
    groups = [g for _, g in picked]
    assert groups[0] == "older" and groups[-1] == "newer" and "middle" in groups


def test_coverage_pick_leans_to_the_ends_without_dropping_their_best_match():
    # the newest stretch's best match (1.0, five months before the newest day) is kept over
    # two weaker hits of the last weeks; the lean only breaks near ties
    items = [(1, 0.9, 0), (2, 0.8, 400), (3, 1.0, 845), (4, 0.88, 975), (5, 0.85, 1000)]
    picked = [u for u, _ in scoring.coverage_pick(items, 4, buckets=4)]
    assert 3 in picked and picked[0] == 1
    near = [(1, 0.9, 0), (2, 0.8, 400), (3, 0.95, 845), (4, 0.94, 1000)]
    assert scoring.coverage_pick(near, 3, buckets=3)[-1][0] == 4


def test_centrality_boost():
    out = scoring.centrality_boost([(1, 1.0), (2, 0.9)], {2: 1.0}, 0.5)
    assert out[0][0] == 2


def test_retold_ranks_what_was_told_before_the_period_below_its_own_news():
    ranked = [(1, 1.0), (2, 0.95), (3, 0.5), (4, 0.4)]
    told = {1: 99, 2: 100, 3: 90, 4: None}  # 1 retold the day before, 2 new, 4 undated
    out, factor = scoring.retold(ranked, told, start=100, factor=0.9)
    assert [u for u, _ in out] == [2, 1, 3, 4]
    assert factor == {1: 0.9, 2: 1.0, 3: 0.9, 4: 1.0}
    assert dict(out)[3] == pytest.approx(0.45)
    assert scoring.retold(ranked, told, start=90, factor=0.9)[0] == ranked  # none told before


def test_rrf_ties_share_a_rank():
    fused = dict(scoring.rrf([[(1, 2.0), (2, 2.0), (3, 1.0)]], k=60))
    assert fused[1] == fused[2] > fused[3]


def test_cadence_is_the_median_gap_between_distinct_dates():
    assert scoring.cadence([100, 58, 100, 16, None, 10]) == 42.0  # gaps 42, 42, 6 (distinct days)
    assert scoring.cadence([5, 5, 4]) is None  # fewer than three dates
    assert scoring.cadence([30, 20, 0, 1000], top=3) == 15.0  # only the best three count


def test_cadence_tau_scales_and_clamps():
    assert scoring.cadence_tau([126, 84, 42, 0], multiple=3.0, fallback=365.0) == 126.0
    assert scoring.cadence_tau([3, 2, 1, 0], multiple=3.0, fallback=365.0, lo=7.0) == 7.0
    assert scoring.cadence_tau([4000, 2000, 0], multiple=3.0, fallback=365.0) == 730.0
    assert scoring.cadence_tau([1, 1], multiple=3.0, fallback=365.0) == 365.0


def test_within_keeps_the_hits_near_the_best():
    ranked = [(1, 1.0), (2, 0.8), (3, 0.5), (4, 0.3)]
    assert scoring.within(ranked, 0.5) == [(1, 1.0), (2, 0.8), (3, 0.5)]
    assert scoring.within(ranked, 0.0) == ranked
    assert scoring.within([], 0.5) == []


def test_matched_keeps_what_is_about_the_question_whatever_its_fused_rank():
    # fused ranks put the newest passage sharing one word (4) beside the best match (1)
    ranked = [(1, 1.0), (4, 0.98), (2, 0.9), (3, 0.8)]
    dense = {1: 0.6, 2: 0.3, 3: 0.16, 4: 0.1}
    assert scoring.matched(ranked, dense, 0.25) == {1, 2, 3}
    assert scoring.matched(ranked, dense, 0.0) == {1, 2, 3, 4}
    assert scoring.matched(ranked, {1: 0.6, 2: 0.3, 4: 0.1}, 0.25) == {1, 2, 3}  # 3: not measured
    assert scoring.matched(ranked, {}, 0.25) == {1, 2, 3, 4}  # no likeness known: all alike
    assert scoring.matched([], dense, 0.25) == set()


def test_a_passage_naming_its_own_day_does_not_speak_of_it_more_than_its_date_does():
    day = 12984  # 20 July 2005
    ranked = [(1, 1.0), (2, 0.9)]
    published = {1: day, 2: day}
    # 1 opens with its own dateline ("Wednesday, July 20, 2005 Daily Digest"); 2 names no day
    out, factors = scoring.spoken_fit(ranked, {1: [(day, day)]}, published, (day, day), 0.3, 0.0)
    assert factors == {1: 1.0, 2: 1.0} and out == ranked
    # a passage published the next day that speaks of that day still does
    out, factors = scoring.spoken_fit(ranked, {2: [(day, day)]}, {1: day, 2: day + 1}, (day, day),
                                      0.3, 0.0)
    assert factors[2] == 1.3 and out[0][0] == 2
