"""The primitives every use of an index file shares: the SQLite driver and its settings,
batched id lists, transactions, the meta table, and the numbered migrations.

The driver is pysqlite3 where installed (Python's own sqlite3 may not load extensions); every
connection is prepared the same way: sqlite-vec loaded and extension loading switched off
again, `trusted_schema` off (a file from someone else cannot make a view or trigger call
anything with side effects), WAL mode. Opening a file is `storage.file.connect`.
"""
from __future__ import annotations

import datetime as dt
import errno
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqlite_utils.utils import (
    chunks,
    sqlite3,  # pysqlite3 where installed: it can load extensions
)

from ..errors import IndexFileError

APPLICATION_ID = 0x54524147  # "TRAG": marks the file as a trag-tui index
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    """One numbered schema step."""

    name: str
    sql: str


SQL_BATCH = 500  # ids per `IN (…)` list, far below SQLite's limit on bound variables


def id_batches(ids: Iterable[Any]) -> Iterator[tuple[list[Any], str]]:
    """Ids in lists of SQL_BATCH, each with its "?,?,…" placeholders, for `IN (…)` queries."""
    for part in chunks(ids, SQL_BATCH):
        batch = list(part)
        yield batch, ",".join("?" * len(batch))


def migrations() -> list[Migration]:
    """The migrations shipped with this version, in order."""
    found = []
    for entry in resources.files("trag_tui.migrations").iterdir():
        if MIGRATION_NAME.match(entry.name):
            found.append(Migration(entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found, key=lambda m: m.name)


def has_table(conn: sqlite3.Connection, name: str) -> bool:
    """Whether the file holds a table (or virtual table) of that name: one made by a later
    migration, or the vector table made on the first embedding."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def is_readonly(conn: sqlite3.Connection) -> bool:
    """Whether a connection was opened read-only (searching only)."""
    return bool(conn.execute("PRAGMA query_only").fetchone()[0])


def prepare(conn: sqlite3.Connection, readonly: bool = False) -> None:
    import sqlite_vec

    conn.execute("PRAGMA trusted_schema = OFF")
    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
        return
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode not in ("wal", "memory"):
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode not in ("wal", "memory"):
        raise IndexFileError(f"cannot switch the file to WAL mode (got {mode})")
    conn.execute("PRAGMA synchronous = NORMAL")


MIGRATIONS_TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
)


def apply_migrations(conn: sqlite3.Connection, todo: list[Migration]) -> None:
    """Apply migrations in order, each in its own transaction, recording each one."""
    for migration in todo:
        stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        try:
            conn.execute("BEGIN IMMEDIATE")
            for statement in _statements(migration.sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)", (migration.name, stamp)
            )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _statements(sql: str) -> list[str]:
    """Split a migration into complete statements (executescript would commit on its own)."""
    out, buf = [], ""
    for line in sql.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        raise IndexFileError(f"incomplete SQL statement in a migration: {buf.strip()[:60]!r}")
    return out


class transaction:
    """`with transaction(conn):` one atomic write; rolled back on any error, including Ctrl-C."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """One value from the meta table, or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Store one value in the meta table (the caller owns the transaction)."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def read_again_if_changed(conn: sqlite3.Connection, key: str, version: str,
                          tables: Sequence[str]) -> None:
    """When the rules that filled `tables` (recorded in meta under `key`) are not `version`,
    empty the tables and record it, so every document is read again by the new rules."""
    if get_meta(conn, key) == version:
        return
    with transaction(conn):
        for table in tables:
            conn.execute(f"DELETE FROM {table}")  # noqa: S608 - our own table names
        set_meta(conn, key, version)


def io_failure(exc: BaseException) -> str | None:
    """'disk full' or 'I/O error' when an exception means the disk failed a write, else None."""
    text = str(exc).lower()
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC or "disk is full" in text:
        return "disk full"
    if isinstance(exc, OSError) or (isinstance(exc, sqlite3.OperationalError) and "i/o error" in text):
        return "I/O error"
    return None


class writer_lock:
    """`with writer_lock(path):` one writer per index file, however many processes try.

    An advisory lock on a `-lock` file beside the index, holding the owner's pid for the
    message; the kernel drops it when the process dies, so `kill -9` never leaves it stale.
    """

    def __init__(self, path: Path | str):
        self.path = Path(str(path) + "-lock")
        self.fd: int | None = None

    def __enter__(self) -> writer_lock:
        import fcntl

        if str(self.path) == ":memory:-lock":
            return self
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise IndexFileError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise IndexFileError(
                f"another trag-tui is indexing {str(self.path)[:-5]} (pid {holder}); "
                "wait for it to finish"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self.fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)  # closing releases the lock
            self.fd = None
