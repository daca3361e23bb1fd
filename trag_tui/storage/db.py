"""The primitives every use of an index file shares: the SQLite driver and its settings,
batched id lists, transactions, the meta table, and the numbered migrations.

The driver is pysqlite3 where installed (Python's own sqlite3 may not load extensions); every
connection is prepared the same way: sqlite-vec loaded and extension loading switched off
again, `trusted_schema` off (a file from someone else cannot make a view or trigger call
anything with side effects), SQLite's defensive flag on (ordinary SQL cannot write the schema
or a virtual table's shadow tables), a bounded wait for another process's lock, WAL mode.
Opening a file is `storage.file.connect`.
"""
from __future__ import annotations

import ctypes
import datetime as dt
import errno
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqlite_utils.utils import (
    chunks,
    sqlite3,  # pysqlite3 where installed: it can load extensions
)

from ..errors import IndexBusy, IndexFileError

APPLICATION_ID = 0x54524147  # "TRAG": marks the file as a trag-tui index
#: How long a reader or writer waits for another process's lock before saying "busy".
BUSY_TIMEOUT_MS = 5000
SQLITE_BUSY = 5
SQLITE_DBCONFIG_DEFENSIVE = 1010
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

    set_defensive(conn)
    conn.execute("PRAGMA trusted_schema = OFF")
    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_MS)}")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
        return
    mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
    if mode not in ("wal", "memory"):
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode not in ("wal", "memory"):
        raise IndexFileError(f"cannot switch the file to WAL mode (got {mode})")
    conn.execute("PRAGMA synchronous = NORMAL")


def set_defensive(conn: sqlite3.Connection) -> None:
    """Switch on SQLite's defensive flag where the driver allows it.

    Python 3.12's sqlite3 has `Connection.setconfig`; pysqlite3 (the driver used where
    installed, as it can load extensions) has none (0.5.4 checked), so its own library's
    `sqlite3_db_config` is called through ctypes with the connection's handle, which is the
    first field after the object header in pysqlite3's (and CPython's) connection struct.
    Only on Linux, where a variadic call with int arguments is an ordinary call; elsewhere the
    flag stays off and `trusted_schema = OFF` with the schema check is what protects, so no
    caller needs to know which happened.
    """
    setconfig = getattr(conn, "setconfig", None)
    if setconfig is not None:
        setconfig(SQLITE_DBCONFIG_DEFENSIVE, True)
        return
    _db_config(conn, SQLITE_DBCONFIG_DEFENSIVE, 1)


def _db_config(conn: sqlite3.Connection, op: int, value: int) -> int | None:
    """`sqlite3_db_config(db, op, value, &result)` on a pysqlite3 connection; None where unsafe."""
    module = sys.modules.get(type(conn).__module__.rsplit(".", 1)[0] + "._sqlite3")
    if (not sys.platform.startswith("linux") or module is None
            or not type(conn).__module__.startswith("pysqlite3")):
        return None
    try:
        lib = ctypes.CDLL(module.__file__)
        call = lib.sqlite3_db_config
    except (OSError, AttributeError):
        return None
    call.restype = ctypes.c_int
    call.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
    handle = ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value
    if not handle:
        return None
    result = ctypes.c_int(-1)
    if call(handle, op, value, ctypes.byref(result)) != 0:
        return None
    return result.value


def is_busy(exc: BaseException) -> bool:
    """Whether a SQLite error means another process holds a lock (not that the file is bad)."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == SQLITE_BUSY
    return "database is locked" in str(exc)


def busy(path: Path | str) -> IndexBusy:
    """The one line for a file another process holds longer than BUSY_TIMEOUT_MS."""
    return IndexBusy(f"busy: another trag-tui is writing {path}, try again")


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
            # O_NONBLOCK: a FIFO planted under the lock's name must not stop the open.
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o644)
        except OSError as exc:
            raise IndexFileError(f"cannot lock {self.path}: {exc.strerror or exc}") from exc
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise IndexFileError(
                f"cannot lock {self.path}: it is not a regular file; remove it and try again")
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
