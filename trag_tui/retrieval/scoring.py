"""Scores as pure functions over `(chunk_id, score)` lists: fusion, recency, centrality, halting.

Nothing here touches the database or the clock; dates arrive as integer days and `as_of` is
passed in, so every rule can be tested with three hand-written rows.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

Ranked = list[tuple[int, float]]


def rrf(lists: Sequence[Ranked], weights: Sequence[float] | None = None, k: int = 60) -> Ranked:
    """Weighted reciprocal-rank fusion: sum of w / (k + rank) over the lists holding an id.

    Equal scores share a rank, so an arbitrary tie order never becomes a relevance gap.
    """
    weights = weights or [1.0] * len(lists)
    scores: dict[int, float] = {}
    for ranked, w in zip(lists, weights):
        rank, previous = 0, None
        for position, (uid, score) in enumerate(ranked, start=1):
            if score != previous:
                rank, previous = position, score
            scores[uid] = scores.get(uid, 0.0) + w / (k + rank)
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


def weighted_sum(lists: Sequence[Ranked], weights: Sequence[float] | None = None) -> Ranked:
    """Weighted sum of max-normalised scores (each list divided by its best score)."""
    weights = weights or [1.0] * len(lists)
    scores: dict[int, float] = {}
    for ranked, w in zip(lists, weights):
        if not ranked:
            continue
        top = max(s for _, s in ranked)
        if top <= 0:
            continue
        for uid, s in ranked:
            scores[uid] = scores.get(uid, 0.0) + w * max(s, 0.0) / top
    return sorted(scores.items(), key=lambda x: (-x[1], x[0]))


def fuse(lists: Sequence[Ranked], weights: Sequence[float], method: str = "rrf", k: int = 60) -> Ranked:
    """Fuse ranked lists by the named method (`rrf` or `sum`)."""
    if method == "rrf":
        return rrf(lists, weights, k)
    if method == "sum":
        return weighted_sum(lists, weights)
    raise ValueError(f"unknown fusion method {method!r} (rrf or sum)")


def normalise(ranked: Ranked) -> Ranked:
    """Scores scaled to 0..1 by the best one, order kept."""
    if not ranked:
        return []
    top = max(s for _, s in ranked) or 1.0
    return [(uid, s / top) for uid, s in ranked]


def rational_decay(rel: float, age_days: float, alpha: float, lam: float) -> float:
    """(1-α)·sim + α/(1+λ·Δt_years): a floor of relevance plus a share that fades with age."""
    return (1.0 - alpha) * rel + alpha / (1.0 + lam * max(age_days, 0.0) / 365.25)


def exp_boost(age_days: float, delta: float, tau: float) -> float:
    """δ·exp(-Δt/τ): the recency boost, largest for documents dated at the as-of day."""
    return delta * math.exp(-max(age_days, 0.0) / tau)


def recency_params(strength: float, tau_min: float = 365.0, tau_max: float = 730.0,
                   delta_base: float = 2.5) -> tuple[float, float]:
    """δ(q), τ(q) from how strongly a question asks for recency (0 = mildly, 1 = explicitly)."""
    strength = min(max(strength, 0.0), 1.0)
    tau = tau_max - strength * (tau_max - tau_min)
    return delta_base * (0.4 + 0.6 * strength), tau


def cadence(days: Iterable[int | None], top: int = 30) -> float | None:
    """How often the collection speaks on this subject: the median gap, in days, between the
    successive distinct dates of the `top` best candidates (None with fewer than three dates)."""
    distinct = sorted({d for d in list(days)[:top] if d is not None}, reverse=True)
    if len(distinct) < 3:
        return None
    gaps = sorted(a - b for a, b in zip(distinct, distinct[1:]))
    mid = len(gaps) // 2
    return float(gaps[mid]) if len(gaps) % 2 else (gaps[mid - 1] + gaps[mid]) / 2.0


def cadence_tau(days: Iterable[int | None], multiple: float, fallback: float,
                lo: float = 1.0, hi: float = 730.0) -> float:
    """A decay time scale of `multiple` publication gaps: a newer report supersedes an older
    one about as fast as reports on the subject appear (weekly news, six-weekly surveys)."""
    gap = cadence(days)
    if gap is None:
        return fallback
    return min(max(multiple * gap, lo), hi)


def apply_decay(
    ranked: Ranked,
    days: Mapping[int, int | None],
    as_of_day: int,
    method: str,
    *,
    alpha: float = 0.3,
    lam: float = 1.0,
    delta: float = 2.5,
    tau: float = 365.0,
    rrf_k: int = 60,
) -> tuple[Ranked, dict[int, float]]:
    """Re-score relevance-ranked chunks by age at `as_of_day`; returns (ranked, decay factor).

    `exp` multiplies the normalised relevance by (1 + δ·exp(-Δt/τ)); `rational` mixes it with
    α/(1+λ·Δt_years); `rank` adds a freshness list to reciprocal-rank fusion.
    """
    rel = dict(normalise(ranked))
    age = {uid: float(as_of_day - d) if d is not None else 36500.0 for uid, d in
           ((uid, days.get(uid)) for uid in rel)}
    if method == "exp":
        factor = {uid: 1.0 + exp_boost(age[uid], delta, tau) for uid in rel}
        scored = {uid: rel[uid] * factor[uid] for uid in rel}
    elif method == "rational":
        scored = {uid: rational_decay(rel[uid], age[uid], alpha, lam) for uid in rel}
        factor = {uid: scored[uid] / rel[uid] if rel[uid] else 0.0 for uid in rel}
    elif method == "rank":
        fresh = sorted(rel, key=lambda u: (age[u], u))
        fused = dict(rrf([ranked, [(u, -age[u]) for u in fresh]], [1.0, alpha / (1 - alpha + 1e-9)], rrf_k))
        scored = fused
        factor = {uid: fused[uid] / rel[uid] if rel[uid] else 0.0 for uid in rel}
    else:
        raise ValueError(f"unknown decay {method!r} (rational, exp or rank)")
    return sorted(scored.items(), key=lambda x: (-x[1], x[0])), factor


def only(ranked: Ranked, allowed: np.ndarray) -> Ranked:
    """The entries whose id is in `allowed` (sorted ids), order kept."""
    if not ranked or not len(allowed):
        return []
    ids = np.fromiter((u for u, _ in ranked), dtype=np.int64, count=len(ranked))
    keep = _member(ids, allowed)
    return [entry for entry, k in zip(ranked, keep) if k]


def within(ranked: Ranked, share: float) -> Ranked:
    """The entries scoring at least `share` of the best (best first, as ranked). A change over
    time is shown from each stretch of the span; a stretch whose best hit is a poor match
    (a 2005 Senate digest for "How have the climate targets evolved?") has nothing to show."""
    if not ranked or share <= 0:
        return list(ranked)
    top = max(sc for _, sc in ranked)
    return [(u, sc) for u, sc in ranked if sc >= share * top] if top > 0 else list(ranked)


def matched(ranked: Ranked, dense: Mapping[int, float], share: float) -> set[int]:
    """The entries not known to be far less like the question than the likest: a dense
    likeness at least `share` of the best one's, or none measured (a BM25 candidate the dense
    list did not reach). Fused ranks say only where a passage stood in its list, so the best of
    a handful of new passages that merely share a word ("net zero" for "net migration") ranks
    as high as the best of all; the likeness itself tells them apart."""
    top = max((dense.get(u, 0.0) for u, _ in ranked), default=0.0)
    return {u for u, _ in ranked if u not in dense or top <= 0 or dense[u] >= share * top}


def prefer(ranked: Ranked, preferred: np.ndarray, factor: float) -> Ranked:
    """A strong prior: entries outside `preferred` (sorted ids) keep `factor` of their score."""
    if not ranked:
        return []
    ids = np.fromiter((u for u, _ in ranked), dtype=np.int64, count=len(ranked))
    keep = _member(ids, preferred)
    return sorted(((u, s if k else s * factor) for (u, s), k in zip(ranked, keep)),
                  key=lambda x: (-x[1], x[0]))


def _member(ids: np.ndarray, sorted_ids: np.ndarray) -> np.ndarray:
    if not len(sorted_ids):
        return np.zeros(len(ids), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_ids, ids), len(sorted_ids) - 1)
    return sorted_ids[at] == ids


def append_below(first: Ranked, then: Ranked) -> Ranked:
    """`first`, then the entries of `then` not in it, scaled so each ranks below all of `first`."""
    if not first:
        return list(then)
    seen = {u for u, _ in first}
    floor = min(s for _, s in first)
    top = max((s for u, s in then if u not in seen), default=0.0) or 1.0
    # strictly below the lowest score of `first`, order of `then` kept
    return list(first) + [(u, floor * 0.999 * s / top) for u, s in then if u not in seen]


def centrality_boost(ranked: Ranked, centrality: Mapping[int, float], gamma: float) -> Ranked:
    """score·(1 + γ·c): passages many others agree with (high graph centrality) rise a little."""
    return sorted(
        ((uid, s * (1.0 + gamma * centrality.get(uid, 0.0))) for uid, s in ranked),
        key=lambda x: (-x[1], x[0]),
    )


def retold(ranked: Ranked, told: Mapping[int, int | None], start: int, factor: float
           ) -> tuple[Ranked, dict[int, float]]:
    """Passages whose text was told before the period began (`told` days) keep `factor` of their
    score: inside a period, its own news first among near-equals. Returns the re-ranked list and
    each passage's factor."""
    factors = {uid: factor if (t := told.get(uid)) is not None and t < start else 1.0
               for uid, _ in ranked}
    return sorted(((uid, s * factors[uid]) for uid, s in ranked), key=lambda x: (-x[1], x[0])), factors


MONTH_DAYS = 30


def overlap_share(a: tuple[int, int], b: tuple[int, int]) -> float:
    """How much two inclusive day ranges are one: the days they share over the days either
    covers (1 for the same period, 0 for periods apart)."""
    shared = min(a[1], b[1]) - max(a[0], b[0]) + 1
    if shared <= 0:
        return 0.0
    return shared / (max(a[1], b[1]) - min(a[0], b[0]) + 1)


def spoken_fit(ranked: Ranked, spoken: Mapping[int, Sequence[tuple[int, int]]],
               published: Mapping[int, int | None], period: tuple[int, int], fit: float,
               lean: float) -> tuple[Ranked, dict[int, float]]:
    """For a question about `period` (inclusive days): a passage that speaks of that period
    itself (its own periods share at least half their days with it) gains up to `fit` of its
    score, above one merely published in it; of those, one published after the period gains up
    to `lean` more the sooner it came, on the period's own time scale, so a figure's own release
    comes before a later document quoting it. A passage's own day ("Wednesday, July 20, 2005
    Daily Digest", "today") is when it was published, not a time it speaks of: naming it says
    no more than its date does. Returns the re-ranked list and each factor."""
    length = max(MONTH_DAYS, period[1] - period[0] + 1)
    shares = {uid: max((overlap_share(p, period) for p in spoken.get(uid, ())
                        if p != (published.get(uid),) * 2), default=0.0)
              for uid, _ in ranked}
    after = [d for uid, _ in ranked if shares[uid] >= 0.5
             and (d := published.get(uid)) is not None and d > period[1]]
    first = min(after, default=None)  # the first published after the period that speaks of it
    factors: dict[int, float] = {}
    out = []
    for uid, s in ranked:
        factor = 1.0
        if shares[uid] >= 0.5:
            factor += fit * shares[uid]
            day = published.get(uid)
            if first is not None and day is not None and day > period[1]:
                factor *= 1.0 + lean * math.exp(-(day - first) / length)
        factors[uid] = factor
        out.append((uid, s * factor))
    return sorted(out, key=lambda x: (-x[1], x[0])), factors


def latest_told(published: Mapping[int, int | None],
                spoken: Mapping[int, Sequence[tuple[int, int]]]) -> dict[int, int | None]:
    """The newest day each passage speaks of, up to the day it was published (`published`):
    a debate quoting last month's figure speaks of last month, however new the debate. A
    passage that speaks of no period is as new as its publication."""
    out: dict[int, int | None] = {}
    for uid, day in published.items():
        newest = newest_spoken(day, spoken.get(uid, ()))
        out[uid] = newest if newest is not None else day
    return out


def newest_spoken(day: int | None, spoken: Sequence[tuple[int, int]]) -> int | None:
    """The newest day of the periods a text published on `day` speaks of, up to that day (a
    plan ahead counts to its publication), or None when it speaks of none begun by then."""
    if day is None:
        return None
    ends = [min(hi, day) for lo, hi in spoken if lo <= day]
    return max(ends) if ends else None


def agreement(a: Sequence[int], b: Sequence[int], depth: int = 5) -> float:
    """Share of the top `depth` of one list found in the top `depth` of the other."""
    top_a, top_b = set(a[:depth]), set(b[:depth])
    if not top_a or not top_b:
        return 0.0
    return len(top_a & top_b) / min(depth, len(top_a), len(top_b))


def halt(ranked: Ranked, k: int, agree: float, *, min_hits: int = 3, floor: float = 0.35
         ) -> tuple[int, float]:
    """How many of the top k to return, and the confidence that the answer is settled.

    Confidence grows with the margin between the top score and the k-th, and with agreement
    between lexical and dense evidence. Once settled, hits scoring under `floor`·top are cut.
    """
    if not ranked:
        return 0, 0.0
    top = ranked[0][1] or 1e-9
    kth = ranked[min(k, len(ranked)) - 1][1]
    margin = max(0.0, min(1.0, 1.0 - kth / top))
    confidence = round(0.5 * margin + 0.5 * agree, 3)
    n = min(k, len(ranked))
    if confidence >= 0.5:
        keep = [i for i, (_, s) in enumerate(ranked[:n]) if i < min_hits or s >= floor * top]
        n = len(keep)
    return n, confidence


def coverage_pick(items: Sequence[tuple[int, float, int]], k: int, buckets: int, edge: float = 0.25
                  ) -> list[tuple[int, str]]:
    """Evidence spread over a time span: the best hits of each time bucket, oldest to newest.

    items are (uid, score, day). Returns (uid, group) with group older/middle/newer.
    """
    if not items:
        return []
    lo = min(d for _, _, d in items)
    hi = max(d for _, _, d in items)
    width = max(1, (hi - lo + 1))
    buckets = max(2, min(buckets, k))
    by_bucket: dict[int, list[tuple[int, float, int]]] = {}
    for uid, s, d in items:
        b = min(buckets - 1, (d - lo) * buckets // width)
        by_bucket.setdefault(b, []).append((uid, s, d))
    span = width / buckets

    def edge_weight(b: int, d: int) -> float:
        # At the two ends, lean towards the extreme dates: "oldest" and "newest" evidence. A
        # lean, not a rule: at 1.0 a hit of last week at 0.88 beat the best match of all, five
        # months older, and "How has the NHS waiting list changed?" ended on a PMQs answer
        # that does not mention waiting lists.
        if b == 0:
            return 1.0 + edge * (1.0 - (d - lo) / span)
        if b == buckets - 1:
            return 1.0 + edge * ((d - (hi - span)) / span)
        return 1.0

    for b in by_bucket:
        by_bucket[b].sort(key=lambda x: (-x[1] * edge_weight(b, x[2]), x[0]))
    picked: list[tuple[int, int, int]] = []  # (bucket, day, uid)
    depth = 0
    while len(picked) < k and any(len(v) > depth for v in by_bucket.values()):
        # oldest and newest buckets first at each depth, so both ends are always present
        order = sorted(by_bucket, key=lambda b: (0 if b in (0, buckets - 1) else 1, b))
        for b in order:
            if len(picked) >= k:
                break
            if len(by_bucket[b]) > depth:
                uid, _, d = by_bucket[b][depth]
                picked.append((b, d, uid))
        depth += 1
    last = buckets - 1
    out = []
    for b, _day, uid in sorted(picked, key=lambda x: (x[1], x[2])):
        group = "older" if b == 0 else "newer" if b == last else "middle"
        out.append((uid, group))
    return out


def expand(first: Ranked, passes: Sequence[Ranked], weight: float, k: int = 60) -> Ranked:
    """The first pass fused with the passes that followed it, by reciprocal rank: a later
    pass's list counts `weight` (below 1) of the first's, so at equal ranks the first pass's hit
    stays first, and a hit both passes found rises above one either found alone."""
    return rrf([first, *passes], [1.0, *([weight] * len(passes))], k)


def added(before: Ranked, after: Ranked, k: int) -> list[int]:
    """The ids in the top k of `after` that were not in the top k of `before`: what a further
    pass brought in (none: the pass added nothing, and expansion stops)."""
    seen = {u for u, _ in before[:k]}
    return [u for u, _ in after[:k] if u not in seen]

