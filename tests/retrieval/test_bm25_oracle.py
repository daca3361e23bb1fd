"""FTS5's BM25, as the engine queries it, against rank-bm25 as an independent oracle.

The engine never computes BM25 itself: it trusts SQLite's `bm25()` over the contentless FTS5
table, with the title as a second, half-weighted column. If a migration, a column weight or the
query syntax went wrong, rankings would quietly degrade, so a small corpus is scored both ways
over the very tokens FTS5 stored (read back through an fts5vocab table, so the stemmer is not
re-implemented here) and the scores must agree, not just the order.
"""
from __future__ import annotations

import datetime as dt
import random

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from tests.fakes import jsonl_index
from trag_tui.retrieval.candidates import DayRange, Vocabulary, fts_candidates

# Zipf-like use of a small vocabulary: some words common, most rare, lengths varied.
WORDS = ("harbour cargo freight tanker pilot berth crane dredging tide customs quay anchor ballast "
         "container manifest tug lighthouse buoy jetty wharf bollard hull keel rudder").split()
# Queries from the rarer half, some words stemmed by FTS5 ("jetty" is stored as "jetti").
QUERIES = ["manifest tug", "lighthouse buoys", "jetty wharf bollard", "hull keel rudder", "manifests bollards",
           "lighthouses jetty tugs"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    rng = random.Random(11)
    weights = [1 / (i + 1) ** 1.5 for i in range(len(WORDS))]
    rows = []
    for n in range(90):
        text = " ".join(rng.choices(WORDS, weights, k=rng.randrange(8, 90)))
        day = dt.date(2010, 1, 1) + dt.timedelta(days=n * 30)
        rows.append({"id": f"p{n}", "date": day.isoformat(), "title": "Port notice", "text": text})
    tmp = tmp_path_factory.mktemp("bm25")
    index = jsonl_index(tmp, rows, name="o.db", chunk_words=200, parent_words=200)
    conn = index.conn
    conn.execute("CREATE VIRTUAL TABLE temp.fts_tokens USING fts5vocab(main, chunk_fts, instance)")
    # FTS5 sets a row's length against the average over all its columns (text and title), so
    # the oracle's documents are both columns' tokens; no query word is in a title ("Port notice").
    tokens: dict[int, list[tuple[str, int, str]]] = {}
    for term, rowid, col, offset in conn.execute("SELECT term, doc, col, offset FROM temp.fts_tokens"):
        tokens.setdefault(rowid, []).append((col, offset, term))
    docs = {rowid: [t for _, _, t in sorted(parts)] for rowid, parts in tokens.items()}
    (rows_in_fts,) = conn.execute("SELECT count(*) FROM chunks WHERE id IN (SELECT rowid FROM chunk_fts)").fetchone()
    yield index, docs, rows_in_fts
    index.close()


def test_the_oracle_sees_every_row_fts5_scores(corpus):
    _, docs, rows_in_fts = corpus
    assert len(docs) == rows_in_fts >= 90


@pytest.mark.parametrize("query", QUERIES)
def test_fts5_bm25_scores_and_ranks_as_rank_bm25(corpus, query):
    index, docs, _ = corpus
    ids = sorted(docs)
    oracle = BM25Okapi([docs[i] for i in ids], k1=1.2, b=0.75)  # FTS5's constants
    vocab = Vocabulary(index.conn)
    stems = vocab.stems(query.split())
    words = [stems[i] for i in range(len(stems))]  # as FTS5 stores them
    # Every query word is in under a third of the rows: both define IDF the same way there, and
    # the engine keeps every such word in the query.
    for w in words:
        assert 0 < sum(w in docs[i] for i in ids) < len(ids) / 3, w
    terms = vocab.terms(query)
    assert len(terms) == len(words)  # none pruned: the comparison is over the same OR query
    got = fts_candidates(index.conn, terms, len(ids), DayRange())
    want = {i: s for i, s in zip(ids, oracle.get_scores(words)) if s > 0}
    assert {u for u, _ in got} == set(want)
    assert np.allclose([s for _, s in got], [want[u] for u, _ in got], rtol=1e-6)
    # ...and in the oracle's order: best first, ties aside.
    assert np.allclose([s for _, s in got], sorted(want.values(), reverse=True), rtol=1e-6)
