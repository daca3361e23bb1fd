"""The corroboration graph: shingles, MinHash, LSH, centrality, near-duplicate clusters, the DB step."""
from __future__ import annotations

import json
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trag_tui import corroboration as ev
from trag_tui.storage.db import get_meta, set_meta, transaction
from trag_tui.storage.file import connect

BASE = (
    "The committee heard evidence that the new rail timetable reduced delays on the northern "
    "routes by a fifth, while passengers in the south still faced crowded carriages every "
    "morning and the operator blamed late deliveries of new trains from the factory in Derby "
    "for the shortage of seats during the winter months"
)
NEAR = BASE.replace("a fifth", "a quarter")
OTHER = (
    "Farmers told the minister that fertiliser prices had doubled since the spring and asked "
    "for an emergency grant before the autumn sowing season began in earnest across the valley"
)
THIRD = (
    "Hospital waiting lists grew again in March as staff shortages closed two surgical wards "
    "and the trust warned that routine operations would be postponed until the summer"
)


def _random_text(rng: random.Random, n: int = 120) -> str:
    return " ".join(f"word{rng.randrange(5000)}" for _ in range(n))


# -- shingles and signatures ---------------------------------------------------------------

def test_shingles_are_normalised_word_trigrams():
    assert ev.shingles("The cat, sat ON the mat!") == ev.shingles("the cat sat on the mat")
    assert len(ev.shingles("a b c d e")) == 3
    assert len(ev.shingles("two words")) == 1  # shorter than a shingle: still one
    assert ev.shingles("") == set() and ev.shingles(" ... !!") == set()
    assert all(0 <= h < 2**32 for h in ev.shingles(BASE))


def test_minhash_many_matches_single_minhash_and_empty_text():
    texts = [BASE, NEAR, OTHER, "", "one", "?!"]
    many = ev.minhash_many(texts, 64, block=2)
    for text, row in zip(texts, many):
        assert np.array_equal(row, ev.minhash(ev.shingles(text), 64))
    assert many.dtype == np.uint32 and many.shape == (6, 64)
    assert np.all(many[3] == ev.EMPTY) and ev.jaccard_estimate(many[3], many[5]) == 0.0


@pytest.mark.parametrize("target", [0.1, 0.3, 0.5, 0.8])
def test_minhash_estimate_is_close_to_exact_jaccard(target):
    rng = random.Random(7)
    errors = []
    for _ in range(10):
        shared = int(400 * target / (1 + target))  # |A∩B| / |A∪B| = target for |A| = |B| = 200
        pool = rng.sample(range(2**32), 400 - shared)
        a = set(pool[:200])
        b = set(pool[:shared]) | set(pool[200 : 400 - shared])
        exact = ev.jaccard(a, b)
        errors.append(ev.jaccard_estimate(ev.minhash(a, 128), ev.minhash(b, 128)) - exact)
    assert abs(np.mean(errors)) < 0.05  # unbiased
    assert max(abs(e) for e in errors) < 0.15  # ~3.5 standard errors at 128 permutations


def test_lsh_proposes_overlapping_pairs_and_few_others():
    rng = random.Random(3)
    texts = {i: _random_text(rng) for i in range(300)}
    words = texts[0].split()
    texts[500] = " ".join(words[:70] + _random_text(rng, 50).split())  # Jaccard ~0.4 with 0
    sigs = {i: ev.minhash(ev.shingles(t)) for i, t in texts.items()}
    bands, rows = ev.lsh_params(0.3)
    assert (bands, rows) == (32, 2)
    cands = ev.lsh_candidates(sigs, bands, rows)
    assert (0, 500) in cands
    assert len(cands) < 50  # unrelated random texts share almost no shingles
    found = ev.edges(sigs, 0.3)
    assert [(a, b) for a, b, _ in found] == [(0, 500)]
    exact = ev.edges(sigs, 0.3, shingle_sets={0: ev.shingles(texts[0]), 500: ev.shingles(texts[500])})
    assert exact[0][2] == pytest.approx(ev.jaccard(ev.shingles(texts[0]), ev.shingles(texts[500])))


def test_hand_written_texts_give_expected_pairs():
    texts = {1: BASE, 2: BASE.upper(), 3: NEAR, 4: OTHER, 5: THIRD}
    sigs = {i: ev.minhash(ev.shingles(t)) for i, t in texts.items()}
    pairs = {(a, b): w for a, b, w in ev.edges(sigs)}
    assert set(pairs) == {(1, 2), (1, 3), (2, 3)}
    assert pairs[(1, 2)] == 1.0 and 0.8 <= pairs[(1, 3)] < 1.0
    items = [(i, 19000, ev.text_key(t)) for i, t in texts.items()]
    clusters = ev.near_duplicate_clusters(items, [(a, b, w) for (a, b), w in pairs.items()])
    assert clusters == {1: 1, 2: 1, 3: 1, 4: 4, 5: 5}


# -- graph measures -------------------------------------------------------------------------

def _small_graph():
    ids = [10, 11, 12, 13, 14, 15, 16]
    edges = [(10, 11, 0.9), (10, 12, 0.4), (11, 12, 0.5), (12, 13, 0.3), (13, 14, 1.0)]
    return ids, edges  # 15 and 16 are isolated


def test_pagerank_matches_networkx():
    ids, edges = _small_graph()
    g = nx.Graph()
    g.add_nodes_from(ids)
    g.add_weighted_edges_from(edges)
    want = nx.pagerank(g, alpha=0.85, tol=1e-10, max_iter=500)
    got = ev.pagerank(ids, edges, damping=0.85, iters=500, tol=1e-10)
    assert sum(got.values()) == pytest.approx(1.0)
    for k in ids:
        assert got[k] == pytest.approx(want[k], abs=1e-8)
    unweighted = ev.pagerank(ids, [(a, b) for a, b, _ in edges], iters=500, tol=1e-10)
    want_u = nx.pagerank(g, weight=None, tol=1e-10, max_iter=500)
    for k in ids:
        assert unweighted[k] == pytest.approx(want_u[k], abs=1e-8)


def test_degree_centrality_is_normalised():
    ids, edges = _small_graph()
    for scale in ("log", "linear"):
        c = ev.degree_centrality(ids, edges, scale=scale)
        assert all(0.0 <= v <= 1.0 for v in c.values())
        assert max(c.values()) == 1.0 and c[12] == 1.0  # 12 has the most neighbours
        assert c[15] == c[16] == 0.0
    nxd = nx.degree_centrality(nx.Graph([(a, b) for a, b, _ in edges]))
    c = ev.degree_centrality(ids, edges)
    assert sorted(nxd, key=lambda k: (nxd[k], k)) == sorted(nxd, key=lambda k: (c[k], k))
    assert ev.degree_centrality([1, 2], []) == {1: 0.0, 2: 0.0}


# -- near-duplicate clusters ------------------------------------------------------------------

def test_exact_duplicates_more_than_a_day_apart_are_not_clustered():
    key = ev.text_key(BASE)
    items = [(1, 100, key), (2, 102, key), (3, 100, ev.text_key(BASE + "!")), (4, None, key),
             (5, None, key)]
    pairs = [(1, 2, 1.0), (1, 4, 1.0), (2, 4, 1.0)]
    clusters = ev.near_duplicate_clusters(items, pairs)
    assert clusters[1] == clusters[3] == 1  # same normalised text, same day
    assert clusters[2] == 2  # same text two days later: a new report, not a copy
    assert clusters[4] == clusters[5] == 4  # undated only with undated


def test_near_duplicates_within_a_day_cluster_without_drifting():
    items = [(i, 100 + i, None) for i in range(1, 6)]  # one copy per day, days 101..105
    chain = [(i, i + 1, 0.9) for i in range(1, 5)]
    clusters = ev.near_duplicate_clusters(items, chain)
    # strongest-first ties break by id: 1+2 join, 2+3 would span three days, 3+4 join
    assert clusters == {1: 1, 2: 1, 3: 3, 4: 3, 5: 5}
    weak = ev.near_duplicate_clusters(items, [(1, 2, 0.79)])
    assert weak[2] == 2


def test_told_days_are_the_earliest_day_another_document_told_the_text():
    days = [100, 105, 103, None, 90, 104]
    docs = [1, 2, 2, 3, 4, 4]
    i, j = np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 5, 5])
    # 1 retells 0 (another document, earlier); 2 shares only with 1 of its own document and
    # with undated 3; 5 retells 3 (undated: no day) and 4 of its own document (ignored).
    assert ev.told_days(days, docs, i, j) == [100, 100, 103, None, 90, 104]
    assert ev.told_days([7], [1], np.array([], int), np.array([], int)) == [7]


# -- the database step -----------------------------------------------------------------------

def _make_index(path, texts_days):
    conn = connect(path)
    with transaction(conn):
        conn.execute("INSERT INTO files (id, path, size, mtime_ns, content_hash, complete, "
                     "indexed_at) VALUES (1, 'f', 0, 0, '', 1, '')")
        _add(conn, texts_days)
    return conn


def _add(conn, texts_days):
    for text, day in texts_days:
        doc = conn.execute(
            "INSERT INTO documents (file_id, ordinal, source_id, day, date_source, content_hash) "
            "VALUES (1, (SELECT coalesce(max(ordinal), -1) + 1 FROM documents), 'd', ?, "
            "'metadata', '')", (day,)).lastrowid
        conn.execute("INSERT INTO chunks (document_id, ordinal, searchable, text, start_char, "
                     "end_char, day, content_hash) VALUES (?, 0, 1, ?, 0, 0, ?, '')",
                     (doc, text, day))
        # A parent passage: quoted, never searched, so never part of the graph.
        conn.execute("INSERT INTO chunks (document_id, ordinal, searchable, text, start_char, "
                     "end_char, day, content_hash) VALUES (?, 1, 0, ?, 0, 0, ?, '')",
                     (doc, BASE, day))


def _chunks(conn):
    return {r[0]: r[1:] for r in conn.execute(
        "SELECT id, signature, centrality, pagerank, cluster_id FROM chunks WHERE searchable = 1")}


def test_update_corroboration_is_incremental_and_survives_deleted_chunks(tmp_path):
    conn = _make_index(tmp_path / "i.db", [(BASE, 100), (NEAR, 100), (OTHER, 100),
                                           (BASE, 105), (THIRD, 101)])
    first = ev.update_corroboration(conn)
    assert first["new_signatures"] == 5 and first["chunks"] == 5
    rows = _chunks(conn)
    assert all(len(r[0]) == 4 * 64 for r in rows.values())
    assert np.array_equal(np.frombuffer(rows[1][0], "<u4"), ev.minhash(ev.shingles(BASE)))
    edges = conn.execute("SELECT a, b FROM chunk_edges ORDER BY a, b").fetchall()
    assert edges == [(1, 3), (1, 7), (3, 7)]  # ids: BASE=1, NEAR=3, OTHER=5, BASE=7, THIRD=9
    assert {k: r[3] for k, r in rows.items()} == {1: 1, 3: 1, 5: 5, 7: 7, 9: 9}
    assert all(0.0 <= r[1] <= 1.0 for r in rows.values()) and rows[1][1] == 1.0
    assert rows[9][1] == 0.0 and sum(r[2] for r in rows.values()) == pytest.approx(1.0)
    told = dict(conn.execute("SELECT id, told_day FROM chunks WHERE searchable = 1"))
    assert told == {1: 100, 3: 100, 5: 100, 7: 100, 9: 101}  # BASE of day 105 was told on 100
    non_searchable = conn.execute("SELECT count(*) FROM chunks WHERE searchable = 0 AND "
                                  "signature IS NOT NULL").fetchone()[0]
    assert non_searchable == 0

    again = ev.update_corroboration(conn)
    assert again["new_signatures"] == 0 and again["rows_updated"] == 0 and again["edges"] == 3

    with transaction(conn):  # a new copy of NEAR the next day joins the graph and the cluster
        _add(conn, [(NEAR, 101)])
    third = ev.update_corroboration(conn)
    assert third["new_signatures"] == 1 and third["new_edges"] == 3 and third["edges"] == 6
    assert _chunks(conn)[11][3] == 1

    with transaction(conn):  # re-indexing a document deletes its chunks; edges cascade away
        conn.execute("DELETE FROM documents WHERE id = (SELECT document_id FROM chunks WHERE id = 1)")
    assert conn.execute("SELECT count(*) FROM chunk_edges WHERE a = 1 OR b = 1").fetchone()[0] == 0
    fourth = ev.update_corroboration(conn)
    assert fourth["new_signatures"] == 0 and fourth["edges"] == 3
    assert {k: r[3] for k, r in _chunks(conn).items()} == {3: 3, 5: 5, 7: 7, 9: 9, 11: 3}

    conn.execute("PRAGMA foreign_keys = OFF")  # a careless writer: the sweep still cleans up
    conn.execute("DELETE FROM chunks WHERE id = 11")
    conn.execute("PRAGMA foreign_keys = ON")
    fifth = ev.update_corroboration(conn)
    assert fifth["stale_edges_removed"] == 2 and fifth["edges"] == 1
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []

    # An isolated chunk leaves no edge behind, yet every PageRank shifts: the run notices.
    before = _chunks(conn)[3][2]
    with transaction(conn):
        conn.execute("DELETE FROM documents WHERE id = (SELECT document_id FROM chunks WHERE id = 9)")
    sixth = ev.update_corroboration(conn)
    assert sixth["chunks"] == 3 and sixth["rows_updated"] == 3 and _chunks(conn)[3][2] != before
    assert ev.update_corroboration(conn)["rows_updated"] == 0


def _graph(conn):
    edges = conn.execute("SELECT a, b, weight FROM chunk_edges ORDER BY a, b").fetchall()
    values = conn.execute("SELECT id, centrality, pagerank, cluster_id, told_day FROM chunks "
                          "WHERE searchable = 1 ORDER BY id").fetchall()
    return edges, [(i, round(c, 9), round(p, 12), k, t) for i, c, p, k, t in values]


def test_incremental_runs_give_the_graph_a_full_run_gives(tmp_path):
    rng = random.Random(11)
    texts = []
    for k in range(120):
        if k < 10 or rng.random() < 0.6:
            texts.append((_random_text(rng, 80), rng.randrange(100, 110)))
        else:  # a copy with an edit, or a quote of half another text
            src, day = texts[rng.randrange(len(texts))]
            ws = src.split()
            ws = ws[:40] + _random_text(rng, 40).split() if rng.random() < 0.5 else ws[:-1]
            texts.append((" ".join(ws), day + rng.choice([0, 1, 5])))
    stepwise = _make_index(tmp_path / "a.db", texts[:50])
    ev.update_corroboration(stepwise)
    with transaction(stepwise):
        _add(stepwise, texts[50:90])
    ev.update_corroboration(stepwise)
    with transaction(stepwise):
        _add(stepwise, texts[90:])
    last = ev.update_corroboration(stepwise)
    assert last["new_signatures"] == 30
    whole = _make_index(tmp_path / "b.db", texts)
    full = ev.update_corroboration(whole)
    assert full["edges"] > 20 and full["clusters"] > 5
    assert _graph(stepwise) == _graph(whole)


def test_a_graph_computed_before_told_days_were_kept_is_computed_once_more(tmp_path):
    conn = _make_index(tmp_path / "i.db", [(BASE, 100), (BASE, 103), (OTHER, 100)])
    ev.update_corroboration(conn)
    with transaction(conn):  # as an older version left it: no told days, none in its state
        conn.execute("UPDATE chunks SET told_day = NULL")
        state = json.loads(get_meta(conn, "evidence_state"))
        del state["retold"]
        set_meta(conn, "evidence_state", json.dumps(state))
    again = ev.update_corroboration(conn)
    assert again["new_signatures"] == 0 and again["retold"] == 1
    assert dict(conn.execute("SELECT id, told_day FROM chunks WHERE searchable = 1")) == {
        1: 100, 3: 100, 5: 100}
    assert ev.update_corroboration(conn)["rows_updated"] == 0


def test_changed_threshold_rebuilds_the_edges(tmp_path):
    conn = _make_index(tmp_path / "i.db", [(BASE, 100), (NEAR, 100), (OTHER, 100)])
    assert ev.update_corroboration(conn)["edges"] == 1
    strict = ev.update_corroboration(conn, threshold=0.95)
    assert strict["new_signatures"] == 0 and strict["edges"] == 0
    assert ev.update_corroboration(conn, num_perm=32)["new_signatures"] == 3


def test_update_corroboration_on_an_empty_index(tmp_path):
    conn = connect(tmp_path / "e.db")
    stats = ev.update_corroboration(conn)
    assert stats["chunks"] == 0 and stats["edges"] == 0


# -- property -------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(min_value=1, max_value=5))
def test_shingles_and_minhash_never_raise_and_are_deterministic(text, n):
    s = ev.shingles(text, n)
    assert s == ev.shingles(text, n) and all(0 <= h < 2**32 for h in s)
    sig = ev.minhash(s, 16)
    assert sig.dtype == np.uint32 and np.array_equal(sig, ev.minhash(set(s), 16))
    assert np.array_equal(ev.minhash_many([text], 16, n)[0], sig)
