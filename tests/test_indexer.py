"""Indexing with the deterministic hash embedder: incremental, resumable, never stopped by bad input."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trag_tui.indexer import Indexer
from trag_tui.models.embedding import HashEmbedder
from trag_tui.settings import Settings
from trag_tui.storage.db import sqlite3
from trag_tui.storage.file import connect


def _jsonl(path: Path, n: int, start: int = 0, year: int = 2020) -> Path:
    with path.open("w") as fh:
        for i in range(start, start + n):
            fh.write(json.dumps({
                "id": f"doc-{i}", "date": f"{year + i % 5}-0{1 + i % 9}-1{i % 10}",
                "title": f"Report {i}", "source": "Test Bank",
                "text": f"Report number {i} on inflation and employment. " * (5 + i % 40),
            }) + "\n")
    return path


def _index(db: Path, *paths: Path, prune: bool = False, **kw):
    s = Settings(db=db, embedder="hash", write_batch_chunks=kw.pop("batch", 64))
    conn = connect(db)
    try:
        return Indexer(conn, db, HashEmbedder(), s, **kw).run(list(paths), prune=prune)
    finally:
        conn.close()


def _indexed_folder(tmp_path, n: int, name: str = "docs"):
    """A folder of a JSONL file of `n` documents and a note, indexed once."""
    folder = tmp_path / name
    folder.mkdir()
    _jsonl(folder / "a.jsonl", n)
    (folder / "note.md").write_text("---\ndate: 2021-05-04\ntitle: A note\n---\nSome text about rates.\n")
    db = tmp_path / "i.db"
    return folder, db, _index(db, folder)


def test_reindex_unchanged_does_nothing_and_changed_file_is_redone(tmp_path):
    folder, db, first = _indexed_folder(tmp_path, 30)
    assert first.documents_added == 31 and first.files_indexed == 2
    second = _index(db, folder)
    assert second.documents_added == 0 and second.files_unchanged == 2 and second.chunks_embedded == 0
    # change one document of the JSONL file: only it is re-embedded
    lines = (folder / "a.jsonl").read_text().splitlines()
    row = json.loads(lines[3])
    row["text"] = "A completely new text about housing policy."
    lines[3] = json.dumps(row)
    (folder / "a.jsonl").write_text("\n".join(lines) + "\n")
    third = _index(db, folder)
    assert third.documents_added == 1 and third.documents_removed == 1 and third.documents_kept == 30
    assert third.chunks_embedded == 1
    conn = connect(db)
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 31
    fts = conn.execute("SELECT count(*) FROM chunk_fts WHERE chunk_fts MATCH 'housing'").fetchone()[0]
    assert fts == 1
    n_vec = conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]
    n_search = conn.execute("SELECT count(*) FROM chunks WHERE searchable=1").fetchone()[0]
    assert n_vec == n_search


def test_files_read_by_older_readers_are_read_again_once(tmp_path, monkeypatch):
    import trag_tui.indexer as indexer

    folder = tmp_path / "docs"
    folder.mkdir()
    _jsonl(folder / "a.jsonl", 5)
    with (folder / "a.jsonl").open("a") as fh:  # an untitled crawled record
        fh.write(json.dumps({"id": "web-1", "date": "2022-06-15", "text": "Ad feedback form.",
                             "url": "https://news.example/2022/06/15/ford-recall/index.html"}) + "\n")
    db = tmp_path / "i.db"
    assert _index(db, folder).documents_added == 6
    # as an index written before untitled records took their page name: no title, older stamp
    conn = connect(db)
    with conn:
        conn.execute("UPDATE documents SET title = '', content_hash = 'old' WHERE source_id = 'web-1'")
        conn.execute("UPDATE files SET content_hash = replace(content_hash, '+r', '+old')")
    conn.close()
    again = _index(db, folder)  # same size and mtime: read again all the same
    assert again.files_indexed == 1 and again.files_unchanged == 0
    # only the record that reads differently is replaced (its vector, made under the same
    # title by the first run, is reused)
    assert (again.documents_kept, again.documents_added, again.chunks_embedded) == (5, 1, 0)
    conn = connect(db)
    assert conn.execute("SELECT title FROM documents WHERE source_id = 'web-1'").fetchone()[0] == (
        "ford-recall")
    conn.close()
    assert _index(db, folder).files_unchanged == 1  # and once only
    monkeypatch.setattr(indexer, "READERS", indexer.READERS + 1)
    assert _index(db, folder).files_indexed == 1


def test_prune_removes_documents_of_deleted_files(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _jsonl(folder / "a.jsonl", 5)
    _jsonl(folder / "b.jsonl", 5, start=100)
    db = tmp_path / "i.db"
    _index(db, folder)
    (folder / "b.jsonl").unlink()
    kept = _index(db, folder)
    assert kept.files_pruned == 0
    pruned = _index(db, folder, prune=True)
    assert pruned.files_pruned == 1 and pruned.documents_removed == 5
    conn = connect(db)
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 5
    assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM chunks WHERE searchable=1").fetchone()[0]


def test_bad_input_is_reported_and_the_rest_indexed(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    _jsonl(folder / "good.jsonl", 3)
    (folder / "bad.xml").write_text("<publicwhip><speech id='x'><p>unclosed")
    (folder / "blob.bin").write_bytes(bytes(range(256)) * 10)
    (folder / "empty.txt").write_text("")
    (folder / "latin.txt").write_bytes("Caf\xe9 prices rose on 3 March 2019.".encode("latin-1"))
    (folder / "undated.md").write_text("# No date here\nJust words.")
    db = tmp_path / "i.db"
    s = _index(db, folder)
    failed = {Path(p).name for p, _ in s.files_failed}
    assert {"bad.xml", "blob.bin", "empty.txt"} <= failed
    assert all(why and "\n" not in why for _, why in s.files_failed)
    assert s.documents_added == 5 and s.undated_documents == 1
    conn = connect(db)
    row = conn.execute("SELECT date, date_source FROM documents WHERE title LIKE 'No date%'").fetchone()
    assert row == (None, "unknown")


def test_default_date_applies_to_undated(tmp_path):
    import datetime as dt

    (tmp_path / "undated.md").write_text("# No date\nWords.")
    db = tmp_path / "i.db"
    _index(db, tmp_path / "undated.md", default_date=dt.date(2020, 2, 2))
    conn = connect(db)
    assert conn.execute("SELECT date, date_source FROM documents").fetchone() == ("2020-02-02", "default")


def test_other_embedder_is_refused(tmp_path):
    from trag_tui.errors import EmbedderError

    db = tmp_path / "i.db"
    (tmp_path / "a.md").write_text("---\ndate: 2020-01-01\n---\ntext")
    _index(db, tmp_path / "a.md")
    conn = connect(db)
    with pytest.raises(EmbedderError, match="built with the embedder"):
        Indexer(conn, db, HashEmbedder(dim=128), Settings(db=db))


@pytest.mark.slow
def test_kill_9_leaves_a_sound_file_and_resume_completes(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for j in range(4):
        _jsonl(folder / f"part{j}.jsonl", 400, start=j * 1000)
    db = tmp_path / "k.db"
    env = {**os.environ, "TRAG_TUI_EMBEDDER": "hash", "TRAG_TUI_WRITE_BATCH_CHUNKS": "8"}
    cmd = [sys.executable, "-m", "trag_tui", "-d", str(db), "index", str(folder)]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    count = 0
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            probe = sqlite3.connect(str(db), timeout=1)
            count = probe.execute("SELECT count(*) FROM documents").fetchone()[0]
            probe.close()
        except sqlite3.Error:
            continue
        if count > 200:
            break
    assert proc.poll() is None, "indexing finished before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    partial = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    assert 0 < partial < 1600
    conn.close()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 1600
    assert conn.execute("SELECT count(DISTINCT source_id) FROM documents").fetchone()[0] == 1600
    assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM chunks WHERE searchable=1").fetchone()[0]
    fts_rows = conn.execute("SELECT count(*) FROM chunk_fts").fetchone()[0]
    assert fts_rows == conn.execute("SELECT count(*) FROM chunks WHERE searchable=1").fetchone()[0]


def _moved_folder(tmp_path):
    folder, db, first = _indexed_folder(tmp_path, 12, "debates")
    assert first.documents_added == 13
    return folder, db


def _documents(db):
    conn = connect(db)
    try:
        return sorted(r[0] for r in conn.execute("SELECT source_id FROM documents"))
    finally:
        conn.close()


def test_a_moved_folder_keeps_its_documents_instead_of_adding_them_again(tmp_path):
    folder, db = _moved_folder(tmp_path)
    (tmp_path / "archive").mkdir()
    moved = folder.rename(tmp_path / "archive" / "debates")
    again = _index(db, moved)
    assert len(again.files_moved) == 2 and again.files_indexed == 0
    assert again.documents_added == 0 and again.documents_kept == 13 and again.chunks_embedded == 0
    names = _documents(db)
    assert len(names) == 13
    # a document without an id of its own is named by its file's new path
    assert "archive/debates/note.md" in names and "debates/note.md" not in names
    assert _index(db, moved).files_unchanged == 2  # and is unchanged from then on


def test_a_copy_beside_the_original_is_indexed_as_its_own_files(tmp_path):
    import shutil

    folder, db = _moved_folder(tmp_path)
    copy = Path(shutil.copytree(folder, tmp_path / "copy"))
    again = _index(db, copy)
    assert not again.files_moved and again.files_indexed == 2
    assert again.chunks_embedded == 0  # the same texts: their vectors are reused
    assert len(_documents(db)) == 26


def test_a_file_that_changed_as_it_moved_is_indexed_anew(tmp_path):
    folder, db = _moved_folder(tmp_path)
    moved = folder.rename(tmp_path / "renamed")
    (moved / "note.md").write_text("---\ndate: 2021-05-04\ntitle: A note\n---\nOther text.\n")
    again = _index(db, moved, prune=False)
    assert [Path(new).name for _, new in again.files_moved] == ["a.jsonl"]
    assert again.files_indexed == 1 and again.documents_added == 1
