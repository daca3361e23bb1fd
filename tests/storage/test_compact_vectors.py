"""The vectors' compact copy: written beside each vector, given to an older index by `index`,
checked by doctor, and searched in two passes that return exact cosines inside the day range."""
from __future__ import annotations

import datetime as dt
import random
import shutil

import numpy as np
import pytest

from tests.fakes import jsonl_index
from trag_tui.doctor import clean_copy, examine
from trag_tui.retrieval import candidates as cand
from trag_tui.retrieval.backends import backend_of
from trag_tui.retrieval.candidates import CompactSearch, DayRange, DenseMatrix, Vocabulary
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
from trag_tui.storage.file import connect
from trag_tui.storage.index import open_index
from trag_tui.storage.quantised import update_compact
from trag_tui.storage.schema import problems, vector_table_sql
from trag_tui.storage.store import sign_code, to_day

WORDS = ("inflation prices wages energy oil housing rents budget defence army navy schools "
         "hospitals nurses farmers harvest rail roads bridges ports fishing tariffs").split() + [
    f"topic{i}" for i in range(150)]


def _rows(n: int, seed: int = 5) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        day = dt.date(2000, 1, 1) + dt.timedelta(days=rng.randrange(9000))
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(20, 60)))
        rows.append({"id": f"d{i}", "date": day.isoformat(), "title": f"Report {i}", "text": text})
    rows.append({"id": "undated", "date": None, "title": "Undated", "text": "inflation wages " * 10})
    return rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("compact")
    index = jsonl_index(tmp, _rows(600), name="c.db")
    path = index.path
    index.close()
    return path


def _copy(built, tmp_path, name="x.db"):
    dest = tmp_path / name
    shutil.copy(built, dest)
    return dest


def _codes(conn) -> dict[int, tuple[int, bytes]]:
    return {u: (d, c) for u, d, c in conn.execute("SELECT chunk_id, day, code FROM chunk_codes")}


def test_every_vector_is_written_with_its_sign_bits_and_day(built):
    conn = connect(built, write=False)
    vectors = {u: (d, sign_code(b)) for u, b, d in
               conn.execute("SELECT chunk_id, embedding, day FROM chunk_vectors")}
    assert vectors and _codes(conn) == vectors
    conn.close()


def test_new_vector_tables_use_small_blocks_and_older_ones_still_open(built, tmp_path):
    conn = connect(built, write=False)
    sql = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'chunk_vectors'").fetchone()[0]
    assert sql.endswith(", chunk_size=64)")
    conn.close()
    # A file whose vector table has another block size is not one trag-tui makes.
    odd = _copy(built, tmp_path)
    from trag_tui.storage.db import sqlite3

    raw = sqlite3.connect(odd)
    raw.execute("PRAGMA writable_schema = ON")
    raw.execute("UPDATE sqlite_master SET sql = replace(sql, 'chunk_size=64', 'chunk_size=128') "
                "WHERE name = 'chunk_vectors'")
    raw.commit()
    raw.close()
    assert any("chunk_vectors" in p for p in examine(odd).problems)
    # sqlite-vec's default block (an index made before) is sound.
    assert vector_table_sql(384, None).endswith("day INTEGER)")


def test_two_passes_return_exact_cosines_inside_the_range_and_scope(built):
    index = open_index(built)
    matrix = DenseMatrix(index.conn)
    compact = CompactSearch(index.conn, index.embedder.dim, pool=150)
    within = np.sort(np.asarray([u for u, in index.conn.execute(
        "SELECT chunk_id FROM chunk_vectors WHERE chunk_id % 3 = 0")], dtype=np.int64))
    ranges = [DayRange(), DayRange(lo=to_day(dt.date(2005, 1, 1)), hi=to_day(dt.date(2008, 12, 31)),
                                   include_undated=False)]
    found = kept = 0
    for days in ranges:
        for text in ("inflation and wages", "navy ports fishing", "topic7 topic9 rail"):
            vec = index.embedder.encode([text])[0]
            exact = dict(matrix.search(vec, 10_000, days))
            for scope in (None, within):
                got = compact.search(vec, 10, days, within=scope)
                assert got and len(got) == 10
                for uid, score in got:  # every score is the exact cosine of a chunk in range
                    assert abs(exact[uid] - score) < 1e-5
                    assert scope is None or uid in set(scope.tolist())
                assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
                want = [u for u, _ in matrix.search(vec, 10, days, within=scope)]
                found += len(set(want) & {u for u, _ in got})
                kept += len(want)
    assert found / kept >= 0.9  # a pool of a quarter keeps nearly all of the exact top ten
    index.close()


def test_the_index_size_chooses_the_search_and_a_setting_forces_it(built, tmp_path):
    db = _copy(built, tmp_path)
    for choice, above, compact in (("auto", 250_000, False), ("auto", 10, True),
                                   ("on", 250_000, True), ("off", 10, False)):
        s = Settings(db=db, embedder="hash", quantise=choice, quantise_above=above)
        index = open_index(db, s)
        assert (backend_of(index)._compact() is not None) is compact
        res = search(index, "inflation and wages in 2005", as_of=dt.date(2025, 1, 1))
        assert res.hits and all(h.date is None or h.date[:4] == "2005" for h in res.hits)
        index.close()


def test_an_index_without_the_copy_searches_exactly_and_gains_it_on_the_next_index(built, tmp_path):
    db = _copy(built, tmp_path)
    conn = connect(db)
    with conn:
        conn.execute("DELETE FROM chunk_codes WHERE chunk_id % 2 = 0")
    conn.close()
    s = Settings(db=db, embedder="hash", quantise="on")
    index = open_index(db, s)
    assert backend_of(index)._compact() is None  # a partial copy is never searched
    assert search(index, "navy ports", as_of=dt.date(2025, 1, 1)).hits
    index.close()
    # `index` (with nothing new to read) fills in what is missing.
    from tests.conftest import build_index

    build_index(db, []).close()
    conn = connect(db, write=False)
    vectors = {u: (d, sign_code(b)) for u, b, d in
               conn.execute("SELECT chunk_id, embedding, day FROM chunk_vectors")}
    assert _codes(conn) == vectors
    conn.close()
    index = open_index(db, s)
    assert backend_of(index)._compact() is not None
    index.close()


def test_a_file_from_before_the_copy_opens_read_only_and_searches(built, tmp_path):
    db = _copy(built, tmp_path)
    from trag_tui.storage.db import sqlite3

    raw = sqlite3.connect(db)
    raw.execute("DROP TABLE chunk_codes")
    raw.execute("DELETE FROM _migrations WHERE name = '0008_compact_vectors.sql'")
    raw.commit()
    raw.close()
    db.chmod(0o444)
    try:
        s = Settings(db=db, embedder="hash", quantise="on")
        index = open_index(db, s)  # read-only: the step is not taken, the file is searched
        assert index.readonly and backend_of(index)._compact() is None
        assert search(index, "navy ports", as_of=dt.date(2025, 1, 1)).hits
        index.close()
    finally:
        db.chmod(0o644)
    index = open_index(db, Settings(db=db, embedder="hash", quantise="on"), write=True)
    assert index.conn.execute("SELECT count(*) FROM chunk_codes").fetchone()[0] == 0
    assert backend_of(index)._compact() is None
    assert search(index, "navy ports", as_of=dt.date(2025, 1, 1)).hits
    index.close()


def test_a_read_only_file_is_searched_in_two_passes(built, tmp_path):
    db = _copy(built, tmp_path)
    db.chmod(0o444)
    try:
        index = open_index(db, Settings(db=db, embedder="hash", quantise="on"))
        assert index.readonly and backend_of(index)._compact() is not None
        assert search(index, "farmers harvest", as_of=dt.date(2025, 1, 1)).hits
        index.close()
    finally:
        db.chmod(0o644)


def test_removed_documents_take_their_codes_with_them(built, tmp_path):
    from trag_tui.storage.db import transaction
    from trag_tui.storage.store import delete_documents

    db = _copy(built, tmp_path)
    conn = connect(db)
    with transaction(conn):
        delete_documents(conn, [r[0] for r in conn.execute("SELECT id FROM documents LIMIT 50")])
    assert set(_codes(conn)) == {u for u, in conn.execute("SELECT chunk_id FROM chunk_vectors")}
    assert update_compact(conn) == {"added": 0, "removed": 0}
    conn.close()


def test_doctor_finds_a_wrong_code_and_a_clean_copy_makes_them_again(built, tmp_path):
    db = _copy(built, tmp_path)
    conn = connect(db)
    with conn:
        conn.execute("UPDATE chunk_codes SET code = zeroblob(48) WHERE chunk_id = "
                     "(SELECT min(chunk_id) FROM chunk_codes)")
        conn.execute("UPDATE chunk_codes SET code = x'00' WHERE chunk_id = "
                     "(SELECT max(chunk_id) FROM chunk_codes)")
    assert problems(conn) == []  # a code never decides a score: the open check passes
    conn.close()
    found = examine(db).problems
    assert any("1 code(s) are not 48 bytes" in p for p in found)
    assert any("differ from their vector's signs" in p for p in found)
    # Searching such a file never uses the short code's row.
    index = open_index(db, Settings(db=db, embedder="hash", quantise="on"))
    assert backend_of(index)._compact() is None
    index.close()
    copy = tmp_path / "clean.db"
    clean_copy(db, copy)
    assert examine(copy).problems == []
    conn = connect(copy, write=False)
    assert len(_codes(conn)) == conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
    conn.close()


def test_the_lexical_side_reads_at_most_its_postings_budget(built, monkeypatch):
    conn = connect(built, write=False)
    vocab = Vocabulary(conn)
    words = "inflation navy topic3"
    df = vocab.df([vocab.stems([w])[0] for w in words.split()])
    assert all(n > 0 for n in df.values())
    assert len(vocab.terms(words)) == 3
    # With a budget below every word's postings, no word is read: the dense side answers.
    monkeypatch.setattr(cand, "MAX_POSTINGS", min(df.values()) - 1)
    assert Vocabulary(conn).terms(words) == []
    monkeypatch.setattr(cand, "MAX_POSTINGS", max(df.values()))
    assert len(Vocabulary(conn).terms(words)) >= 1
    conn.close()


def test_a_long_list_asked_for_is_rescored_from_a_pool_four_times_its_length(built):
    """A mode that asks for its best hundred fuses the whole list: its tail must be as exact as
    its head, so the exact pass reads at least four times the candidates asked for."""
    index = open_index(built)
    matrix = DenseMatrix(index.conn)
    compact = CompactSearch(index.conn, index.embedder.dim, pool=1)
    found = kept = 0
    for text in ("inflation and wages", "navy ports fishing", "topic7 topic9 rail", "oil tariffs"):
        vec = index.embedder.encode([text])[0]
        want = {u for u, _ in matrix.search(vec, 40, DayRange())}
        found += len(want & {u for u, _ in compact.search(vec, 40, DayRange())})
        kept += len(want)
    # the test's hash vectors guide the first pass less than a real model's do: 0.43 when
    # only the forty asked for are rescored, 0.74 from a pool of 160
    assert found / kept >= 0.7
    index.close()
