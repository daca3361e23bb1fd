"""The same engine over a Qdrant collection: push, incremental re-push, parity, time shards.

Everything runs against Qdrant's local mode (the same client API, in-process). With QDRANT_URL
set (and QDRANT_API_KEY if the server needs one) the push and parity tests also run against
that server, in a collection of their own that they drop afterwards.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import uuid

import pytest

pytest.importorskip("qdrant_client")

from click.testing import CliRunner
from qdrant_client import QdrantClient, models

from tests.conftest import SAMPLE_CORPUS
from trag_tui.cli import cli
from trag_tui.errors import QdrantError
from trag_tui.evaluation import evaluate, load_qa
from trag_tui.indexer import Indexer
from trag_tui.retrieval.backends import Backend, backend_of
from trag_tui.retrieval.backends.push import push
from trag_tui.retrieval.backends.qdrant import (
    QdrantBackend,
    Target,
    choose_shard_by,
    parse_target,
    period_of,
    periods_in,
)
from trag_tui.retrieval.backends.sqlite import SQLiteBackend
from trag_tui.retrieval.candidates import DayRange
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
from trag_tui.storage.index import open_index
from trag_tui.storage.store import to_day

AS_OF = dt.date(2025, 11, 22)
SERVER = os.environ.get("QDRANT_URL")


@pytest.fixture
def db(sample_hash_db, tmp_path):
    path = tmp_path / "sample.db"
    shutil.copy(sample_hash_db, path)
    return path


def _open(db, **changes):
    return open_index(db, Settings(db=db, embedder="hash", **changes), write=True)


@pytest.fixture(params=["local", "server"])
def target(request, tmp_path):
    """A local folder, and (with QDRANT_URL) a fresh collection on that server."""
    if request.param == "local":
        yield str(tmp_path / "qdrant")
        return
    if not SERVER:
        pytest.skip("QDRANT_URL is not set: no Qdrant server to test against")
    spec = f"{SERVER.rstrip('/')}/trag_test_{uuid.uuid4().hex[:8]}"
    yield spec
    t = parse_target(spec)
    client = t.connect()
    client.delete_collection(t.collection)
    client.close()


def _count(spec: str) -> int:
    t = parse_target(spec)
    client = t.connect()
    try:
        return client.count(t.collection, exact=True).count
    finally:
        client.close()


def test_targets_are_read_from_urls_and_folders(tmp_path):
    t = parse_target("qdrant://db.example:6334/debates")
    assert (t.url, t.collection, t.local) == ("http://db.example:6334", "debates", False)
    assert parse_target("https://db.example/debates").url == "https://db.example:6333"
    assert parse_target(str(tmp_path / "q")).local
    for bad in ("qdrant://db.example", "qdrant://db.example/a/b", "ftp://x/y", ""):
        with pytest.raises(QdrantError):
            parse_target(bad)
    (tmp_path / "file").write_text("x")
    with pytest.raises(QdrantError):
        parse_target(str(tmp_path / "file"))


def test_push_copies_every_chunk_and_a_repush_sends_nothing(db, target):
    idx = _open(db)
    chunks = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    first = push(idx, parse_target(target))
    assert (first.sent, first.deleted, first.unchanged) == (chunks, 0, 0)
    again = push(idx, parse_target(target))
    assert (again.sent, again.deleted, again.unchanged) == (0, 0, chunks)
    idx.close()
    assert _count(target) == chunks


@pytest.mark.parametrize("replace", [False, True], ids=["push", "push --replace"])
def test_a_push_reads_each_file_of_a_sealed_folder_once_before_and_once_after(db, tmp_path, monkeypatch,
                                                                             replace):
    """The check before the client opens the folder is the one read before the push (the
    first seal signs its digests again); the seal after it reads what the push wrote."""
    from trag_tui.retrieval.backends import seal

    folder = tmp_path / "qdrant"
    idx = _open(db)
    push(idx, parse_target(str(folder)))
    reads: dict[str, int] = {}
    digest = seal._digest

    def counted(path):
        reads[path.name] = reads.get(path.name, 0) + 1
        return digest(path)

    monkeypatch.setattr(seal, "_digest", counted)
    push(idx, parse_target(str(folder)), replace=replace)
    idx.close()
    assert reads and set(reads.values()) == {2}, reads
    seal.verify(folder)  # and the folder is sealed as it is


def test_push_sends_only_what_changed_and_deletes_removed_documents(tmp_path):
    corpus = tmp_path / "docs"
    corpus.mkdir()
    # Texts that share no shingles: a change to one leaves the others' graph scores (told days,
    # centrality) as they were, so only its own chunks are sent again.
    topics = ["housing and rents", "rail timetables", "farm subsidies", "hospital waiting lists",
              "school funding", "coastal flooding"]
    rows = [{"id": f"d{i}", "date": f"20{10 + i}-03-0{1 + i % 9}", "title": f"Debate {i}", "source": "MP",
             "text": f"Speech number {i} about {topic}. " * 5} for i, topic in enumerate(topics)]
    for i, row in enumerate(rows):
        (corpus / f"d{i}.jsonl").write_text(json.dumps(row))
    db = tmp_path / "t.db"
    settings = Settings(db=db, embedder="hash")
    idx = open_index(db, settings, create=True)
    Indexer(idx.conn, idx.path, idx.embedder, settings).run([corpus])
    spec = str(tmp_path / "q")
    push(idx, parse_target(spec))
    (corpus / "d0.jsonl").unlink()
    rows[1]["text"] = "A new speech about defence spending. " * 5
    (corpus / "d1.jsonl").write_text(json.dumps(rows[1]))
    Indexer(idx.conn, idx.path, idx.embedder, settings).run([corpus], prune=True)
    changed = idx.conn.execute("SELECT count(*) FROM chunks c JOIN documents d ON d.id = c.document_id "
                               "WHERE d.source_id = 'd1'").fetchone()[0]
    report = push(idx, parse_target(spec))
    total = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    idx.close()
    assert report.sent == changed and report.deleted >= 2  # d0's chunks and d1's old ones
    assert report.unchanged == total - changed
    assert _count(spec) == total
    idx = open_index(db, settings.replace(backend=spec))
    res = search(idx, "defence spending", as_of=AS_OF, mode="hybrid")
    assert res.hits[0].doc_id == "d1" and "defence" in res.hits[0].text
    assert all(h.doc_id != "d0" for h in res.hits)
    idx.close()


class _FailingClient(QdrantClient):
    """An in-memory client whose second upsert fails, as a push killed half-way leaves things."""

    def __init__(self):
        super().__init__(":memory:")
        self.upserts = 0

    def upsert(self, *a, **kw):
        self.upserts += 1
        if self.upserts == 2:
            raise ConnectionError("the server went away")
        return super().upsert(*a, **kw)


def test_a_push_that_fails_half_way_resumes_from_the_last_acknowledged_batch(db):
    idx = _open(db)
    chunks = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    target = Target(collection="trag")
    client = _FailingClient()
    with pytest.raises(ConnectionError):
        push(idx, target, client=client, batch=100)
    recorded = idx.conn.execute("SELECT count(*) FROM push_state").fetchone()[0]
    assert recorded == 100  # the first batch was acknowledged, the second was not
    resumed = push(idx, target, client=client, batch=100)
    idx.close()
    assert resumed.sent == chunks - 100 and resumed.unchanged == 100
    assert client.count("trag", exact=True).count == chunks


@pytest.mark.slow
def test_the_engine_gives_the_same_answers_over_qdrant(db, target):
    """Parity on the sample questions: recall@5 within 0.02, nothing leaked, nothing mixed."""
    idx = _open(db)
    push(idx, parse_target(target))
    qas = load_qa(SAMPLE_CORPUS / "questions.jsonl")
    on_file = evaluate(idx, qas, k=5)
    idx.close()
    idx = _open(db, backend=target)
    assert isinstance(backend_of(idx), QdrantBackend)
    on_qdrant = evaluate(idx, qas, k=5)
    for report in (on_file, on_qdrant):
        assert report["engine"]["leak_rate"] == 0.0
        assert report["engine"]["comparison_contamination"] == 0.0
        assert report["engine"]["temporal_precision"] == 1.0
    assert on_file["engine"]["n_with_evidence"] == on_qdrant["engine"]["n_with_evidence"] > 40
    assert abs(on_file["engine"]["recall"] - on_qdrant["engine"]["recall"]) <= 0.02
    assert on_qdrant["engine"]["recall"] > on_qdrant["baseline"]["recall"] + 0.2
    # point in time: the same hard filter, the same period
    res = search(idx, "What was said about inflation in 2019?", as_of=AS_OF)
    idx.close()
    assert res.mode == "hard_filter" and res.hits
    assert all(h.date.startswith("2019") for h in res.hits)


def test_both_backends_satisfy_the_seam_and_agree_on_chunks(db):
    idx = _open(db)
    client = QdrantClient(":memory:")
    push(idx, Target(collection="trag"), client=client)
    lite = backend_of(idx)
    assert isinstance(lite, SQLiteBackend) and isinstance(lite, Backend)
    remote = QdrantBackend(Target(collection="trag"), client=client, embedder=idx.meta("embedder"))
    assert isinstance(remote, Backend)
    ids = [u for u, _ in lite.dense(idx.embedder.encode(["inflation"])[0], 20, DayRange())]
    assert ids
    assert lite.chunk_info(ids) == remote.chunk_info(ids)
    assert all(lite.passage(u) == remote.passage(u) for u in ids)
    dense_lite = lite.dense(idx.embedder.encode(["inflation"])[0], 10, DayRange(to_day(dt.date(2022, 1, 1)), None))
    dense_remote = remote.dense(idx.embedder.encode(["inflation"])[0], 10, DayRange(to_day(dt.date(2022, 1, 1)), None))
    assert [u for u, _ in dense_lite] == [u for u, _ in dense_remote]
    assert [round(s, 4) for _, s in dense_lite] == [round(s, 4) for _, s in dense_remote]
    # lexical: the same words top both, inside the same range
    two = DayRange(to_day(dt.date(2019, 1, 1)), to_day(dt.date(2019, 12, 31)), include_undated=False)
    lex_lite = lite.lexical("Bank Rate inflation", 5, two)
    lex_remote = remote.lexical("Bank Rate inflation", 5, two)
    assert lex_lite and lex_remote and lex_lite[0][0] == lex_remote[0][0]
    info = remote.chunk_info([u for u, _ in lex_remote])
    assert all(i.date.startswith("2019") for i in info.values())
    remote.close()
    idx.close()


def test_time_partitions():
    assert period_of(to_day(dt.date(1997, 1, 28)), "decade") == "1990s"
    assert period_of(to_day(dt.date(1997, 1, 28)), "year") == "1997"
    assert period_of(None, "decade") == "undated"
    known = ["1990s", "2000s", "2010s", "2020s", "undated"]
    assert periods_in(DayRange(), known, "decade") is None
    assert periods_in(DayRange(to_day(dt.date(2019, 1, 1)), to_day(dt.date(2019, 12, 31)), False),
                      known, "decade") == ["2010s"]
    assert periods_in(DayRange(None, to_day(dt.date(2005, 6, 1)), False), known, "decade") == ["1990s", "2000s"]
    assert periods_in(DayRange(None, to_day(dt.date(2005, 6, 1)), True), known, "decade") == [
        "1990s", "2000s", "undated"]
    assert periods_in(DayRange(to_day(dt.date(2031, 1, 1)), None, False), known, "decade") == []
    assert choose_shard_by({1997: 10, 2004: 20}) == "decade"
    assert choose_shard_by({2001: 3_000_000, 2002: 3_000_000}) == "year"


class _RecordingClient(QdrantClient):
    """Local mode with the sharding requests a server would get recorded, then left out
    (local mode has no sharding: create_shard_key raises NotImplementedError there)."""

    def __init__(self):
        super().__init__(":memory:")
        self.calls: list[tuple[str, object]] = []

    def _take(self, name, kw):
        if "shard_key_selector" in kw:
            self.calls.append((name, kw.pop("shard_key_selector")))

    def create_collection(self, *a, **kw):
        self.calls.append(("create_collection", kw.pop("sharding_method", None)))
        return super().create_collection(*a, **kw)

    def create_shard_key(self, collection, key, **kw):
        self.calls.append(("create_shard_key", key))
        return True

    def upsert(self, *a, **kw):
        self._take("upsert", kw)
        return super().upsert(*a, **kw)

    def delete(self, *a, **kw):
        self._take("delete", kw)
        return super().delete(*a, **kw)

    def query_points(self, *a, **kw):
        self.calls.append(("query_points", kw.pop("shard_key_selector", None)))
        return super().query_points(*a, **kw)

    def close(self, **kw):  # shared by the push and the backend in one test
        pass


def test_a_sharded_push_and_its_queries_name_only_the_periods_they_need(db):
    idx = _open(db)
    client = _RecordingClient()
    target = Target(collection="trag")
    report = push(idx, target, client=client, sharded=True)
    assert report.sharded and report.shard_by == "decade"
    assert client.calls[0] == ("create_collection", models.ShardingMethod.CUSTOM)
    keys = [k for name, k in client.calls if name == "create_shard_key"]
    decades = sorted({f"{y[:3]}0s" for (y,) in idx.conn.execute(
        "SELECT substr(date, 1, 4) FROM documents WHERE date IS NOT NULL")})
    assert keys == report.periods == decades
    upserts = [k for name, k in client.calls if name == "upsert"]
    assert set(upserts) == set(decades)
    # every point was written under its own decade's key
    for rec in client.scroll("trag", limit=1000, with_payload=["period", "date"])[0]:
        assert rec.payload["period"] == f"{rec.payload['date'][:3]}0s"
    backend = QdrantBackend(target, client=client)
    idx.use_backend(backend)
    client.calls.clear()
    res = search(idx, "What was said about inflation in 2019?", as_of=AS_OF)
    assert res.hits and all(h.date.startswith("2019") for h in res.hits)
    asked = {tuple(k) for name, k in client.calls if name == "query_points"}
    assert asked == {("2010s",)}  # one shard for a point in time
    client.calls.clear()
    search(idx, "What was the inflation rate?", as_of=dt.date(2005, 6, 1), mode="decay")
    asked = {k for name, ks in client.calls if name == "query_points" for k in ks}
    assert asked and asked <= {"1990s", "2000s"}  # as-of: only the shards before it
    # a push after a change deletes under the known keys
    idx.conn.execute("DELETE FROM documents WHERE id = (SELECT min(id) FROM documents)")
    idx.conn.commit()
    client.calls.clear()
    again = push(idx, target, client=client, sharded=True)
    assert again.deleted > 0 and ("delete", decades) in client.calls
    idx.close()


def test_the_cli_pushes_and_searches_on_the_backend(db, tmp_path):
    spec = str(tmp_path / "q")
    runner = CliRunner()
    out = runner.invoke(cli, ["-d", str(db), "push", "--to", spec, "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["sent"] > 0
    out = runner.invoke(cli, ["-d", str(db), "push", "--to", spec])
    assert out.exit_code == 0 and " 0 chunks sent" in out.output
    base = ["-d", str(db), "--backend", spec]
    on_qdrant = runner.invoke(cli, [*base, "search", "What was said about inflation in 2019?",
                                    "--as-of", "2025-11-22", "--json"])
    on_file = runner.invoke(cli, ["-d", str(db), "search", "What was said about inflation in 2019?",
                                  "--as-of", "2025-11-22", "--json"])
    assert on_qdrant.exit_code == 0, on_qdrant.output
    a, b = json.loads(on_qdrant.output), json.loads(on_file.output)
    assert a["mode"] == b["mode"] == "hard_filter"
    assert [h["date"][:4] for h in a["hits"]] == ["2019"] * len(a["hits"])
    assert a["hits"][0]["doc_id"] == b["hits"][0]["doc_id"]
    out = runner.invoke(cli, [*base, "ask", "Who is the Prime Minister?", "--as-of", "2025-11-22",
                              "--evidence-only", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["sources"]
    for bad in (["--backend", str(tmp_path / "missing"), "search", "inflation"],
                ["push", "--to", "qdrant://localhost"]):
        out = runner.invoke(cli, ["-d", str(db), *bad])
        assert out.exit_code == 1 and out.output.startswith("Error: ") and out.output.count("\n") == 1
        assert "Traceback" not in out.output
    assert not (tmp_path / "missing").exists()


def test_a_collection_of_another_embedder_or_not_ours_is_refused(db):
    idx = _open(db)
    client = QdrantClient(":memory:")
    target = Target(collection="trag")
    push(idx, target, client=client)
    with pytest.raises(QdrantError, match="embedder"):
        QdrantBackend(target, client=client, embedder="st:another-model")
    client.create_collection("theirs", vectors_config=models.VectorParams(size=4, distance=models.Distance.COSINE))
    with pytest.raises(QdrantError, match="not made by trag-tui"):
        push(idx, Target(collection="theirs"), client=client)
    with pytest.raises(QdrantError, match="not pushed by trag-tui"):
        QdrantBackend(Target(collection="theirs"), client=client)
    with pytest.raises(QdrantError, match="no such collection"):
        QdrantBackend(Target(collection="missing"), client=client)
    idx.close()


def test_a_push_killed_with_sigkill_into_a_folder_is_refused_then_replaced_whole(db, tmp_path):
    """A folder a push was killed in cannot be checked (its points are pickles, and the seal
    still binds the files as they were), so it is not opened again: `--replace` writes it
    whole. (A push stopped by an error or Ctrl-C seals what it wrote and resumes; see above.)"""
    import signal
    import sqlite3
    import subprocess
    import sys
    import time

    spec = str(tmp_path / "q")
    proc = subprocess.Popen([sys.executable, "-m", "trag_tui", "-d", str(db), "push", "--to", spec, "--batch", "10"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recorded = 0
    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
        with sqlite3.connect(db) as probe:
            try:
                recorded = probe.execute("SELECT count(*) FROM push_state").fetchone()[0]
            except sqlite3.OperationalError:  # the migration has not run yet
                continue
        if recorded >= 20:
            proc.send_signal(signal.SIGKILL)
            break
    if proc.wait() == 0:
        pytest.skip("the push finished before it could be killed (a very fast disk)")
    idx = _open(db)
    chunks = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    kept = idx.conn.execute("SELECT count(*) FROM push_state").fetchone()[0]
    assert 20 <= kept < chunks
    with pytest.raises(QdrantError, match="stopped half-way"):
        push(idx, parse_target(spec))
    replaced = push(idx, parse_target(spec), replace=True)
    idx.close()
    assert replaced.unchanged == 0 and replaced.sent == chunks
    assert _count(spec) == chunks
