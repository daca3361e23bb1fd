"""The in-memory aids of a long session must return exactly what the SQL paths return."""
from __future__ import annotations

import datetime as dt
import json
import random

import numpy as np
import pytest

from tests.fakes import jsonl_index
from trag_tui.indexer import Indexer
from trag_tui.retrieval import candidates as cand
from trag_tui.retrieval.candidates import DayRange, DenseMatrix, Vocabulary
from trag_tui.retrieval.modes import Retriever, search
from trag_tui.storage.store import to_day

WORDS = ("inflation prices wages energy oil housing rents budget defence army navy schools "
         "hospitals nurses farmers harvest rail roads bridges ports fishing tariffs").split() + [
    f"topic{i}" for i in range(100)]


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    rng = random.Random(3)
    tmp = tmp_path_factory.mktemp("session")
    rows = []
    for n in range(400):
        day = dt.date(2000, 1, 1) + dt.timedelta(days=rng.randrange(9000))
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(20, 60)))
        rows.append({"id": f"d{n}", "date": day.isoformat(), "title": f"Report {n}", "text": text})
    rows.append({"id": "undated", "date": None, "title": "Undated", "text": "inflation wages " * 10})
    index = jsonl_index(tmp, rows, name="s.db")
    yield index
    index.close()


RANGES = [
    DayRange(),
    DayRange(hi=to_day(dt.date(2020, 1, 1)), include_undated=False),
    DayRange(lo=to_day(dt.date(2005, 1, 1)), hi=to_day(dt.date(2005, 12, 31)), include_undated=False),
    DayRange(lo=to_day(dt.date(2001, 1, 1)), include_undated=False),
    DayRange(lo=to_day(dt.date(1990, 1, 1)), hi=to_day(dt.date(1990, 2, 1)), include_undated=False),
]


@pytest.mark.parametrize("days", RANGES)
def test_vectors_in_memory_match_vec0(idx, days):
    matrix = DenseMatrix(idx.conn)
    for text in ("inflation and wages", "navy ports fishing", "rail"):
        vec = idx.embedder.encode([text])[0]
        sql = cand.dense_candidates(idx.conn, vec, 30, days)
        mem = matrix.search(vec, 30, days)
        # The same scores in the same order; ids may swap only where two scores tie.
        assert np.allclose([s for _, s in mem], [s for _, s in sql], atol=1e-5)
        score = dict(sql)
        for uid, s in mem:
            assert uid in score and abs(score[uid] - s) < 1e-5 or any(
                abs(s - t) < 1e-5 for _, t in sql) and uid not in score


def _same_ranking(got, want):
    """The same scores in the same order; ids may differ only among tied scores."""
    assert np.allclose([s for _, s in got], [s for _, s in want], atol=1e-9)
    score = dict(want)
    for uid, s in got:
        assert uid in score or any(abs(s - t) < 1e-9 for _, t in want)


@pytest.mark.parametrize("days", RANGES)
def test_lexical_matches_in_memory_match_the_joined_query(idx, days):
    matches = cand.LexicalMatches(idx.conn)
    vocab = Vocabulary(idx.conn)
    ids = np.asarray([r[0] for r in idx.conn.execute(
        "SELECT id FROM chunks WHERE searchable = 1 ORDER BY id")], dtype=np.int64)
    some = ids[::3]  # a scope: every third chunk
    for text in ("inflation wages", "navy ports fishing tariffs", "harvest"):
        terms = vocab.terms(text)
        assert terms
        joined = cand.fts_candidates(idx.conn, terms, 25, days)
        _same_ranking(matches.search(terms, 25, days), joined)
        everything = cand.fts_candidates(idx.conn, terms, 10**6, days)
        inside = [(u, s) for u, s in everything if u in set(some.tolist())][:25]
        _same_ranking(matches.search(terms, 25, days, within=some), inside)


def test_lexical_matches_keep_a_few_questions(idx):
    matches = cand.LexicalMatches(idx.conn)
    vocab = Vocabulary(idx.conn)
    for word in WORDS[:10]:
        matches.search(vocab.terms(word), 5, DayRange())
    assert len(matches._kept) == cand.LexicalMatches.KEEP
    assert matches.search([], 5, DayRange()) == []


def test_vocabulary_budget_keeps_the_rarest(idx, monkeypatch):
    vocab = Vocabulary(idx.conn)
    monkeypatch.setattr(cand, "MAX_DF_SHARE", 1.0)
    everything = vocab.terms("inflation navy harvest bridges tariffs")
    assert len(everything) == 5
    monkeypatch.setattr(cand, "POSTINGS_SHARE", 0.0)
    monkeypatch.setattr(cand, "MIN_POSTINGS", 1)
    assert vocab.terms("inflation navy harvest bridges tariffs") == everything[:1]


def test_vocabulary_leaves_out_the_question_frame(tmp_path):
    """'How soon', 'approximately how much', 'according to': rare in reports, so rarest-first
    they would be the BM25 query, ahead of the subject's own words."""
    texts = (["Vaccines for children could come soon, approximately in June, according to aides, "
              "who described the plan."]
             + ["Vaccines for children at clinics."] * 4 + ["Schools open and rail fares rise."] * 20)
    rows = [{"id": f"d{n}", "date": "2022-06-15", "title": "Report", "text": t} for n, t in enumerate(texts)]
    index = jsonl_index(tmp_path, rows, name="frame.db")
    try:
        terms = Vocabulary(index.conn).terms(
            "According to aides, approximately how soon could vaccines reach children, as they "
            "described it?")
    finally:
        index.close()
    assert {'"vaccines"', '"children"', '"aides"'} <= set(terms)
    assert not {'"soon"', '"approximately"', '"according"', '"described"'} & set(terms)
    # "say", "doing", "view", "evolve" frame a question, though reports write them too
    rows[0]["text"] += " Aides say it is doing well; in their view it will evolve."
    index = jsonl_index(tmp_path, rows, name="frame2.db")
    try:
        terms = Vocabulary(index.conn).terms("What did aides say about vaccines, and how is it "
                                             "doing, and how did their view evolve?")
    finally:
        index.close()
    assert '"vaccines"' in terms and not {'"say"', '"doing"', '"view"', '"evolve"'} & set(terms)


def test_session_follows_changes_to_the_file(idx, tmp_path):
    retriever = Retriever(idx)
    first = search(idx, "navy ports", as_of=dt.date(2030, 1, 1), retriever=retriever)
    again = search(idx, "navy ports", as_of=dt.date(2030, 1, 1), retriever=retriever)
    assert [h.chunk_id for h in first.hits] == [h.chunk_id for h in again.hits]
    before = idx.derived("dense_matrix", lambda: None)
    (tmp_path / "more.jsonl").write_text(json.dumps(
        {"id": "late", "date": "2029-01-01", "title": "Navy ports", "text": "navy ports " * 20}))
    Indexer(idx.conn, idx.path, idx.embedder, idx.settings).run([tmp_path / "more.jsonl"])
    res = search(idx, "navy ports", as_of=dt.date(2030, 1, 1), retriever=retriever)
    assert "late" in [h.doc_id for h in res.hits]
    assert idx.derived("dense_matrix", lambda: None) is not before
