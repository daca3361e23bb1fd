"""A slice of a Qdrant collection written back into one index file: `trag-tui pull`.

The sample corpus is indexed with the hash embedder and pushed once to a local-mode folder;
each test pulls a slice (a period, a speaker) into a new file and checks it against the
original: the same documents, chunks, parent links, vectors and corroboration scores, and the
same hits and answers for questions inside the slice. With QDRANT_URL set the round trip also
runs against that server, in a collection of its own that it drops afterwards.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import uuid

import numpy as np
import pytest

pytest.importorskip("qdrant_client")

from click.testing import CliRunner
from qdrant_client import QdrantClient

from tests.conftest import SAMPLE_CORPUS
from trag_tui.answering.events import Done
from trag_tui.answering.pipeline import ask
from trag_tui.cli import cli
from trag_tui.doctor import examine
from trag_tui.errors import PullError
from trag_tui.indexer import Indexer
from trag_tui.retrieval.backends.pull import Slice, facet_ids, pull, slice_of
from trag_tui.retrieval.backends.push import push
from trag_tui.retrieval.backends.qdrant import FACETS_KEY, Target, parse_target
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
from trag_tui.storage.index import open_index
from trag_tui.storage.store import to_day

AS_OF = dt.date(2025, 11, 22)
SERVER = os.environ.get("QDRANT_URL")
# Questions whose periods lie inside 2019–2023 (most from the sample's gold questions). The
# pulled file's BM25 weighs words by their rarity in the slice, not in the whole collection,
# so passages whose fused scores tie closely may swap places: every question gets the same
# passages with the same dense scores, and these ones (no near tie) the same order and answer.
IN_2019_2023 = [
    "What was said about NHS funding in 2019?",
    "What were the net migration figures in the second half of 2023?",
    "How did climate policy in 2019 compare with 2023?",
    "What was said about inflation in 2022?",
    "What was the unemployment rate in 2023?",
]
NEAR_TIES = [
    "Was the official position in the last quarter of 2023 supportive of the State of Israel?",
    "What was said about climate targets between 2019 and 2021?",
    "Compare the 2019 and 2023 debates on immigration",
]
STARMER = [
    "What did Keir Starmer say about Gaza?",
    "What did Keir Starmer say about the economy in 2025?",
    "What did Keir Starmer say about immigration?",
]


@pytest.fixture(scope="module")
def module_user_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("user")


@pytest.fixture(autouse=True)
def _user_dir(module_user_dir, monkeypatch):
    """One user folder for the module: the folder `pushed` seals once (with the user's key)
    is opened by every test."""
    monkeypatch.setenv("TRAG_TUI_USER_DIR", str(module_user_dir))


@pytest.fixture(scope="module")
def pushed(tmp_path_factory, sample_hash_db, module_user_dir):
    """The sample corpus indexed (hash embedder) and pushed to a local folder, once."""
    root = tmp_path_factory.mktemp("pushed")
    db = root / "sample.db"
    shutil.copy(sample_hash_db, db)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRAG_TUI_USER_DIR", str(module_user_dir))
        idx = open_index(db, Settings(db=db, embedder="hash"))
        push(idx, parse_target(str(root / "q")))
        idx.close()
    return db, str(root / "q")


@pytest.fixture(params=["local", "server"])
def source(request, pushed, tmp_path):
    """(the original file, the collection it was pushed to): the local folder, and (with
    QDRANT_URL) a fresh collection on that server."""
    db, folder = pushed
    if request.param == "local":
        yield db, folder
        return
    if not SERVER:
        pytest.skip("QDRANT_URL is not set: no Qdrant server to test against")
    spec = f"{SERVER.rstrip('/')}/trag_pull_{uuid.uuid4().hex[:8]}"
    copy = tmp_path / "sample.db"
    shutil.copy(db, copy)
    idx = _open(copy)
    push(idx, parse_target(spec))
    idx.close()
    yield copy, spec
    t = parse_target(spec)
    client = t.connect()
    client.delete_collection(t.collection)
    client.close()


def _open(db, **changes):
    return open_index(db, Settings(db=db, embedder="hash", **changes), create=True)


def _reopen(idx, **changes):
    """The same file opened again with other settings."""
    path = idx.path
    idx.close()
    return _open(path, **changes)


def _documents(idx, where: str = "1", args: tuple = ()) -> dict[tuple[str, str], list[tuple]]:
    """Each document (source id, content hash) with its chunks as the file holds them: ordinal,
    searchable, text, offsets, the parent's ordinal, told day, centrality, and the vector."""
    rows = idx.conn.execute(
        "SELECT d.source_id, d.content_hash, c.ordinal, c.searchable, c.text, c.start_char, c.end_char, "
        "p.ordinal, c.told_day, coalesce(c.centrality, 0), v.embedding FROM chunks c JOIN documents d ON d.id = c.document_id "
        "LEFT JOIN chunks p ON p.id = c.parent_id LEFT JOIN chunk_vectors v ON v.chunk_id = c.id "
        f"WHERE {where} ORDER BY d.source_id, d.content_hash, c.ordinal", args).fetchall()
    out: dict[tuple[str, str], list[tuple]] = {}
    for s, h, *rest, vector in rows:
        out.setdefault((s, h), []).append((*rest, None if vector is None else np.frombuffer(vector, "<f4")))
    return out


def _same_documents(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert len(a[key]) == len(b[key])
        for x, y in zip(a[key], b[key]):
            assert x[:-2] == y[:-2]
            assert x[-2] == pytest.approx(y[-2], abs=1e-9)  # centrality of the whole collection
            assert (x[-1] is None) == (y[-1] is None)
            if x[-1] is not None:
                assert np.allclose(x[-1], y[-1], atol=1e-6)


def _top(idx, question: str) -> list[tuple]:
    res = search(idx, question, as_of=AS_OF)
    return [(h.doc_id, h.text, h.group, sorted(h.also)) for h in res.hits]


def _dense(idx, question: str) -> dict[tuple, float]:
    res = search(idx, question, as_of=AS_OF)
    return {(h.doc_id, h.text): round(h.scores["dense"], 5) for h in res.hits}


def _answer(idx, question: str) -> Done:
    done = [e for e in ask(idx, question, as_of=AS_OF, evidence_only=True) if isinstance(e, Done)]
    assert done
    return done[0]


def test_a_period_slice_is_whole_documents_and_searches_as_the_original(source, tmp_path):
    db, spec = source
    original = _open(db)
    mine = _open(tmp_path / "mine.db")
    report = pull(mine, parse_target(spec), slice_of("between 2019 and 2023", as_of=AS_OF))
    lo, hi = to_day(dt.date(2019, 1, 1)), to_day(dt.date(2023, 12, 31))
    expected = _documents(original, "d.day BETWEEN ? AND ?", (lo, hi))
    assert report.documents == report.selected == len(expected) > 20
    assert report.chunks == sum(len(c) for c in expected.values())
    assert (report.start, report.end) == ("2019-01-01", "2023-12-31")
    _same_documents(_documents(mine), expected)
    # out of the slice: nothing
    assert mine.conn.execute("SELECT count(*) FROM documents WHERE day NOT BETWEEN ? AND ? OR day IS NULL",
                             (lo, hi)).fetchone()[0] == 0
    # parent passages came with their children
    assert mine.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 0").fetchone()[0] > 0
    # the full-text rows and vectors of every searchable chunk, and the embedder recorded
    searchable = mine.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    assert mine.conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == searchable
    assert mine.conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'inflation'").fetchone()[0] > 0
    assert (mine.meta("embedder"), mine.meta("embedding_dim")) == (original.meta("embedder"),
                                                                   original.meta("embedding_dim"))
    assert examine(tmp_path / "mine.db").problems == []  # a sound file, as `trag-tui doctor` sees it
    # the speaker's office that answers quote travels with the document
    assert mine.conn.execute("SELECT count(*) FROM documents WHERE meta LIKE '%speaker_office%'").fetchone()[0] > 0
    # A slice holds what was published in its period; what later documents say of the period is
    # outside it, so the two are compared reading each period by publication date.
    mine, original = _reopen(mine, time="said"), _reopen(original, time="said")
    for question in IN_2019_2023:
        assert _top(mine, question) == _top(original, question), question
        a, b = _answer(mine, question), _answer(original, question)
        assert a.answer == b.answer and a.answer, question
        assert [s.doc_id for s in a.sources] == [s.doc_id for s in b.sources]
    for question in IN_2019_2023 + NEAR_TIES:
        assert _dense(mine, question) == _dense(original, question) != {}, question
    mine.close()
    original.close()


def test_a_facet_slice_by_name_or_alias(source, tmp_path):
    db, spec = source
    original = _open(db)
    starmer = original.conn.execute("SELECT id FROM facets WHERE name = 'Keir Starmer'").fetchone()[0]
    expected = _documents(original, "d.id IN (SELECT document_id FROM document_facets WHERE facet_id = ?)",
                          (starmer,))
    mine = _open(tmp_path / "mine.db")
    report = pull(mine, parse_target(spec), slice_of(facets=("Keir Starmer",)))
    assert report.documents == len(expected) > 5 and report.facets == ["Keir Starmer"]
    _same_documents(_documents(mine), expected)
    assert {s for (s,) in mine.conn.execute("SELECT DISTINCT speaker FROM documents")} == {"Keir Starmer"}
    # facets are read again from the pulled documents
    assert mine.conn.execute("SELECT count(*) FROM facets WHERE name = 'Keir Starmer'").fetchone()[0] == 1
    # In a file of one speaker the name scopes nothing and weighs little in BM25, so the order
    # may change; the passages and their dense scores do not.
    for question in STARMER:
        assert _dense(mine, question) == _dense(original, question) != {}, question
    # an alias and a period narrow the same facet
    other = _open(tmp_path / "other.db")
    narrow = pull(other, parse_target(spec), slice_of("2025", facets=("Starmer",), as_of=AS_OF))
    dated = {k for k, v in expected.items()
             if original.conn.execute("SELECT day FROM documents WHERE source_id = ? AND content_hash = ?",
                                      k).fetchone()[0] >= to_day(dt.date(2025, 1, 1))}
    assert 0 < narrow.documents == len(dated) < len(expected)
    assert set(_documents(other)) == dated
    for idx in (other, mine, original):
        idx.close()


def test_a_pull_again_adds_nothing_and_a_wider_one_adds_only_the_rest(pushed, tmp_path):
    db, spec = pushed
    mine = _open(tmp_path / "mine.db")
    first = pull(mine, parse_target(spec), slice_of("2019", as_of=AS_OF))
    counts = [mine.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
              for t in ("documents", "chunks", "chunk_vectors", "facets")]
    again = pull(mine, parse_target(spec), slice_of("2019", as_of=AS_OF))
    assert (again.documents, again.chunks, again.kept) == (0, 0, first.documents)
    assert counts == [mine.conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                      for t in ("documents", "chunks", "chunk_vectors", "facets")]
    wider = pull(mine, parse_target(spec), slice_of("between 2019 and 2020", as_of=AS_OF))
    assert wider.kept == first.documents and wider.documents == wider.selected - first.documents > 0
    original = _open(db)
    lo, hi = to_day(dt.date(2019, 1, 1)), to_day(dt.date(2020, 12, 31))
    _same_documents(_documents(mine), _documents(original, "d.day BETWEEN ? AND ?", (lo, hi)))
    # a document indexed into the file from its own files is not pulled twice either
    whole = pull(original, parse_target(spec), Slice())
    assert whole.documents == 0 and whole.kept == whole.selected
    original.close()
    mine.close()


class _FailingClient(QdrantClient):
    """Local mode whose third fetch of chunks fails, as a network cut half-way leaves things."""

    def __init__(self, path):
        super().__init__(path=path)
        self.fetches = 0

    def retrieve(self, *a, **kw):
        if kw.get("with_vectors"):
            self.fetches += 1
            if self.fetches == 3:
                raise ConnectionError("the server went away")
        return super().retrieve(*a, **kw)


def test_a_pull_that_fails_half_way_leaves_a_consistent_file_and_resumes(pushed, tmp_path):
    db, spec = pushed
    mine = _open(tmp_path / "mine.db")
    client = _FailingClient(spec)
    target = Target(collection=parse_target(spec).collection, path=parse_target(spec).path)
    with pytest.raises(ConnectionError):
        pull(mine, target, Slice(), client=client, batch=20)
    written = mine.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    assert written > 0
    # every document written is whole: its chunks, full-text rows and vectors
    original = _open(db)
    have = _documents(mine)
    _same_documents(have, {k: v for k, v in _documents(original).items() if k in have})
    searchable = mine.conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    assert mine.conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == searchable
    resumed = pull(mine, target, Slice(), client=client, batch=20)
    client.close()
    assert resumed.kept == written and resumed.documents > 0 and resumed.documents + written == resumed.selected
    _same_documents(_documents(mine), _documents(original))
    # near-duplicate clusters: the same groups of passages as in the original
    assert _clusters(mine) == _clusters(original)
    original.close()
    mine.close()


def _clusters(idx) -> set[frozenset]:
    groups: dict[int, set] = {}
    for s, o, k in idx.conn.execute("SELECT d.source_id, c.ordinal, c.cluster_id FROM chunks c "
                                    "JOIN documents d ON d.id = c.document_id WHERE c.cluster_id IS NOT NULL"):
        groups.setdefault(k, set()).add((s, o))
    return {frozenset(g) for g in groups.values() if len(g) > 1}


def test_a_file_of_another_embedder_is_refused(pushed, tmp_path):
    _, spec = pushed
    other = open_index(tmp_path / "other.db", Settings(db=tmp_path / "other.db", embedder="hash-64"), create=True)
    Indexer(other.conn, other.path, other.embedder, other.settings).run([SAMPLE_CORPUS / "reports"])
    before = other.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    with pytest.raises(PullError, match="hash-64.*pull into a new file"):
        pull(other, parse_target(spec), slice_of("2019", as_of=AS_OF))
    assert other.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == before
    other.close()


def test_slices_are_read_from_periods_dates_and_names(pushed):
    s = slice_of("Q4 2023", as_of=AS_OF)
    assert (s.lo, s.hi) == (to_day(dt.date(2023, 10, 1)), to_day(dt.date(2023, 12, 31)))
    s = slice_of("2019-03", as_of=AS_OF)
    assert (s.lo, s.hi) == (to_day(dt.date(2019, 3, 1)), to_day(dt.date(2019, 3, 31)))
    s = slice_of("2019", since=dt.date(2019, 6, 1), as_of=AS_OF)
    assert (s.lo, s.hi) == (to_day(dt.date(2019, 6, 1)), to_day(dt.date(2019, 12, 31)))
    assert slice_of(until=dt.date(2000, 1, 1)) == Slice(None, to_day(dt.date(2000, 1, 1)))
    with pytest.raises(PullError, match="names no period"):
        slice_of("Keir Starmer")
    with pytest.raises(PullError, match="empty period"):
        slice_of(since=dt.date(2020, 1, 1), until=dt.date(2019, 1, 1))
    _, spec = pushed
    t = parse_target(spec)
    client = t.connect(create=False)
    table = client.get_collection(t.collection).config.metadata[FACETS_KEY]
    client.close()
    names = {n: i for i, n, _ in table["names"]}
    assert facet_ids(table, ("keir  starmer",), "x") == [names["Keir Starmer"]]
    assert names["Keir Starmer"] in facet_ids(table, ("Starmer",), "x")
    assert names["Keir Starmer"] in facet_ids(table, ("Mr Starmer",), "x")
    with pytest.raises(PullError, match="no speaker or source named 'Keir'.*did you mean 'Keir Starmer'"):
        facet_ids(table, ("Keir",), "x")


def test_the_cli_pulls_a_slice(pushed, tmp_path):
    db, spec = pushed
    mine = tmp_path / "mine.db"
    runner = CliRunner()
    out = runner.invoke(cli, ["-d", str(mine), "pull", "--from", spec, "--period", "2019", "--facet", "Boris Johnson",
                              "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    assert report["documents"] == report["selected"] > 0 and report["chunks"] >= report["documents"]
    assert report["start"] == "2019-01-01" and report["facets"] == ["Boris Johnson"] and report["seconds"] >= 0
    out = runner.invoke(cli, ["-d", str(mine), "pull", "--from", spec, "--period", "2019", "--facet", "Boris Johnson"])
    assert out.exit_code == 0 and "0 documents (0 chunks) written" in out.output
    out = runner.invoke(cli, ["-d", str(mine), "search", "What did Boris Johnson say in 2019?", "--as-of", "2025-11-22",
                              "--json"])
    assert out.exit_code == 0, out.output
    hits = json.loads(out.output)["hits"]
    assert hits and all(h["date"].startswith("2019") for h in hits)
    for bad, why in ((["--facet", "Nobody Atall"], "no speaker or source named"),
                     (["--period", "whenever"], "names no period"),
                     (["--since", "2019-13-01"], "not a date")):
        fresh = tmp_path / "fresh.db"
        out = runner.invoke(cli, ["-d", str(fresh), "pull", "--from", spec, *bad])
        assert out.exit_code != 0 and why in out.output and "Traceback" not in out.output, out.output
        assert not fresh.exists()  # a refused pull leaves no empty file behind
    out = runner.invoke(cli, ["-d", str(mine), "pull", "--from", str(tmp_path / "missing")])
    assert out.exit_code == 1 and out.output.startswith("Error: ") and out.output.count("\n") == 1
    assert not (tmp_path / "missing").exists()
    # no server there (nothing listens on port 1 of this machine): one line, and no file left
    out = runner.invoke(cli, ["-d", str(tmp_path / "fresh.db"), "pull", "--from", "qdrant://127.0.0.1:1/debates"])
    assert out.exit_code == 1 and out.output.startswith("Error: Qdrant: ") and out.output.count("\n") == 1
    assert not (tmp_path / "fresh.db").exists()


def test_a_push_carries_what_a_faithful_file_needs(pushed, tmp_path):
    """Each point holds its document's meta, date source and content hash and its own ordinal;
    the collection holds the file's facet table. Without that table (a collection pushed by an
    older trag-tui) a speaker is still pulled by the exact name."""
    db, _ = pushed
    copy = tmp_path / "sample.db"
    shutil.copy(db, copy)
    idx = _open(copy)
    client = QdrantClient(":memory:")
    target = Target(collection="trag")
    push(idx, target, client=client)
    row = idx.conn.execute(
        "SELECT c.id, c.ordinal, d.date_source, d.meta, d.content_hash FROM chunks c "
        "JOIN documents d ON d.id = c.document_id WHERE d.meta LIKE '%speaker_office%' LIMIT 1").fetchone()
    point = client.retrieve("trag", [row[0]])[0].payload
    assert (point["ordinal"], point["date_source"], point["meta"], point["content_hash"]) == (
        row[1], row[2], json.loads(row[3]), row[4])
    table = client.get_collection("trag").config.metadata[FACETS_KEY]
    assert [n for _, n, _ in table["names"]] == [n for (n,) in idx.conn.execute("SELECT name FROM facets ORDER BY id")]
    assert len(table["aliases"]) == idx.conn.execute("SELECT count(*) FROM facet_aliases").fetchone()[0] > 0
    idx.close()
    client.update_collection("trag", metadata={FACETS_KEY: None})
    mine = _open(tmp_path / "mine.db")
    report = pull(mine, target, slice_of(facets=("Boris Johnson",)), client=client)
    assert report.documents == 10
    assert {s for (s,) in mine.conn.execute("SELECT DISTINCT speaker FROM documents")} == {"Boris Johnson"}
    mine.close()
    client.close()


def test_near_duplicate_clusters_keep_their_members_across_slices_and_runs(tmp_path):
    """A statement reported on three days is one cluster in the collection; a slice without its
    representative keeps the others together, and a later pull joins them to it."""
    from tests.fakes import jsonl_index

    notice = ("The committee agreed to raise the threshold for small firms from April, "
              "citing higher costs for energy, wages and rents across every region of the country. ")
    rows = [{"id": f"n{i}", "date": "2020-03-15" if i == 0 else "2020-03-16", "title": "Notice", "source": f"Paper {i}",
             "text": notice * 3} for i in range(3)]
    rows += [{"id": f"o{i}", "date": f"2020-0{i + 1}-10", "title": "Other", "source": f"Paper {i}",
              "text": f"Unrelated report number {i} on rainfall, harvests and the price of grain. " * 3}
             for i in range(3)]
    (tmp_path / "src").mkdir()
    original = jsonl_index(tmp_path / "src", rows)
    client = QdrantClient(":memory:")
    target = Target(collection="trag")
    push(original, target, client=client)
    whole = _clusters(original)
    assert whole == {frozenset({("n0", 0), ("n1", 0), ("n2", 0)})}
    mine = _open(tmp_path / "mine.db")
    pull(mine, target, slice_of(since=dt.date(2020, 3, 16)), client=client)  # without n0
    assert _clusters(mine) == {frozenset({("n1", 0), ("n2", 0)})}
    pull(mine, target, Slice(), client=client)  # n0 and the rest, in a later run
    assert _clusters(mine) == whole
    first = _open(tmp_path / "first.db")
    pull(first, target, slice_of(until=dt.date(2020, 3, 15)), client=client)  # the representative first
    pull(first, target, Slice(), client=client)
    assert _clusters(first) == whole
    apart = _open(tmp_path / "apart.db")  # two slices that do not overlap
    pull(apart, target, slice_of(until=dt.date(2020, 3, 15)), client=client)
    pull(apart, target, slice_of(since=dt.date(2020, 3, 16)), client=client)
    assert _clusters(apart) == whole
    for idx in (apart, first, mine, original):
        idx.close()
    client.close()


class _ShardedClient(QdrantClient):
    """Local mode taking the sharding requests a server would get: the shard keys of each
    scroll are recorded, then left out (local mode has no sharding)."""

    def __init__(self):
        super().__init__(":memory:")
        self.scrolled: list[object] = []

    def create_collection(self, *a, **kw):
        kw.pop("sharding_method", None)
        return super().create_collection(*a, **kw)

    def create_shard_key(self, *a, **kw):
        return True

    def upsert(self, *a, **kw):
        kw.pop("shard_key_selector", None)
        return super().upsert(*a, **kw)

    def scroll(self, *a, **kw):
        self.scrolled.append(kw.pop("shard_key_selector", None))
        return super().scroll(*a, **kw)


def test_a_period_slice_of_a_sharded_collection_asks_only_its_shards(pushed, tmp_path):
    db, _ = pushed
    copy = tmp_path / "sample.db"
    shutil.copy(db, copy)
    idx = _open(copy)
    client = _ShardedClient()
    target = Target(collection="trag")
    push(idx, target, client=client, sharded=True)
    expected = _documents(idx, "d.day BETWEEN ? AND ?", (to_day(dt.date(2019, 1, 1)), to_day(dt.date(2019, 12, 31))))
    idx.close()
    mine = _open(tmp_path / "mine.db")
    client.scrolled.clear()
    pull(mine, target, slice_of("2019", as_of=AS_OF), client=client)
    assert client.scrolled and set(map(tuple, client.scrolled)) == {("2010s",)}
    _same_documents(_documents(mine), expected)
    client.scrolled.clear()
    pull(mine, target, slice_of("the 1890s", as_of=AS_OF), client=client)  # no such shard: nothing asked
    assert client.scrolled == []
    pull(mine, target, slice_of(facets=("Keir Starmer",)), client=client)
    assert client.scrolled and set(client.scrolled) == {None}  # no period: every shard
    mine.close()


def test_a_document_changed_in_the_collection_is_replaced_on_the_next_pull(tmp_path):
    from tests.fakes import jsonl_index

    rows = [{"id": f"d{i}", "date": f"2021-05-0{i + 1}", "title": f"Debate {i}", "source": "Jane Doe",
             "text": f"Speech number {i} about housing and rents in the north. " * 6} for i in range(4)]
    (tmp_path / "src").mkdir()
    original = jsonl_index(tmp_path / "src", rows)
    client = QdrantClient(":memory:")
    target = Target(collection="trag")
    push(original, target, client=client)
    mine = _open(tmp_path / "mine.db")
    assert pull(mine, target, Slice(), client=client).documents == 4
    rows[2]["text"] = "A new speech about defence spending and the navy. " * 6
    (tmp_path / "src" / "docs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    Indexer(original.conn, original.path, original.embedder, original.settings).run([tmp_path / "src" / "docs.jsonl"])
    push(original, target, client=client)
    again = pull(mine, target, Slice(), client=client)
    assert (again.documents, again.replaced, again.kept) == (1, 1, 3)
    _same_documents(_documents(mine), _documents(original))
    assert mine.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 4
    navy = mine.conn.execute("SELECT d.source_id FROM chunk_fts f JOIN chunks c ON c.id = f.rowid "
                             "JOIN documents d ON d.id = c.document_id WHERE chunk_fts MATCH 'navy'").fetchall()
    assert navy == [("d2",)]
    assert mine.conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'rents'").fetchone()[0] == 3
    assert _top(mine, "What was said about the navy?") == _top(original, "What was said about the navy?") != []
    for idx in (mine, original):
        idx.close()
    client.close()


def test_indexing_the_files_own_folder_with_prune_keeps_pulled_documents(pushed, tmp_path):
    _, spec = pushed
    mine = _open(tmp_path / "mine.db")
    pulled = pull(mine, parse_target(spec), slice_of("2019", as_of=AS_OF)).documents
    (tmp_path / "note.txt").write_text("A note about NHS funding, written on 3 March 2019.")
    Indexer(mine.conn, mine.path, mine.embedder, mine.settings).run([tmp_path], prune=True)
    assert mine.conn.execute("SELECT count(*) FROM documents").fetchone()[0] == pulled + 1
    mine.close()
