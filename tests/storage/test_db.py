"""The index file: migrations recorded, foreign files refused, nothing from a newer schema."""
from __future__ import annotations

import pytest

from trag_tui.errors import IndexFileError
from trag_tui.storage.db import migrations, sqlite3
from trag_tui.storage.file import connect


def test_fresh_file_gets_every_migration(tmp_path):
    conn = connect(tmp_path / "a.db")
    names = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
    assert names == [m.name for m in migrations()]
    assert names[0].startswith("0001_")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"documents", "chunks", "chunk_fts", "files", "meta"} <= tables
    conn.close()
    # reopening applies nothing twice
    conn = connect(tmp_path / "a.db")
    assert conn.execute("SELECT count(*) FROM _migrations").fetchone()[0] == len(names)


def test_extension_loading_is_off_after_open(tmp_path):
    conn = connect(tmp_path / "a.db")
    assert conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")
    with pytest.raises(sqlite3.OperationalError):
        conn.execute("SELECT load_extension('anything')")


def test_newer_schema_is_refused(tmp_path):
    conn = connect(tmp_path / "a.db")
    conn.execute("INSERT INTO _migrations VALUES ('9999_from_the_future.sql', 'x')")
    conn.close()
    with pytest.raises(IndexFileError, match="newer trag-tui"):
        connect(tmp_path / "a.db")


def test_other_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.db"
    other = sqlite3.connect(str(path))
    other.execute("CREATE TABLE t (x)")
    other.commit()
    other.close()
    with pytest.raises(IndexFileError, match="not a trag-tui index"):
        connect(path)


def test_non_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "x.db"
    path.write_bytes(b"hello, not a database" * 10)
    with pytest.raises(IndexFileError, match="not a SQLite file"):
        connect(path)


def test_missing_file_without_create(tmp_path):
    with pytest.raises(IndexFileError, match="no index"):
        connect(tmp_path / "missing.db", create=False)


def test_failed_migration_rolls_back(tmp_path, monkeypatch):
    from trag_tui.storage import db

    bad = db.Migration("0999_broken.sql", "CREATE TABLE ok_then (x);\nTHIS IS NOT SQL;")
    monkeypatch.setattr(db, "migrations", lambda: [*migrations(), bad])
    with pytest.raises(IndexFileError):
        connect(tmp_path / "a.db")
    monkeypatch.undo()
    conn = connect(tmp_path / "a.db")
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert "ok_then" not in tables
