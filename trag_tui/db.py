"""Opening the one SQLite file, the only door to an index.

Every connection goes through `connect()`, so every caller gets the same guarantees: sqlite-vec
loaded and extension loading switched off again, `trusted_schema` off (a file from someone else
cannot make a view or trigger call anything with side effects), WAL mode, and the schema brought
up to date by numbered migrations recorded inside the file.
"""
from __future__ import annotations

import datetime as dt
import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlite_utils.utils import (
    chunks,
    sqlite3,  # pysqlite3 where installed: it can load extensions
)

from .errors import TragError

APPLICATION_ID = 0x54524147  # "TRAG": marks the file as a trag-tui index
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class IndexFileError(TragError):
    """An index file that cannot be opened as asked; the message is meant for the user."""


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


def connect(path: Path | str, *, create: bool = True, write: bool = True) -> sqlite3.Connection:
    """Open (or create) an index file, verify its schema, migrate it, and return the connection.

    With write=False (the reading commands) nothing is created, and a file or folder that is
    not writable is opened read-only (`PRAGMA query_only` is then on) without migrating.
    Raises IndexFileError for a missing or empty file when reading, a file that is not SQLite,
    a SQLite file that is not a trag-tui index, one written by a newer trag-tui, or one whose
    schema or recorded embedder differs from what trag-tui makes.
    """
    path = Path(path)
    readonly = False
    if str(path) != ":memory:":
        try:
            exists = path.exists()
            if exists and path.is_dir():
                raise IndexFileError(f"{path} is a folder, not an index file")
            if not exists and not (create and write):
                raise IndexFileError(f"no index at {path}: build one with `trag-tui index FOLDER`")
            if exists and not stat.S_ISREG(path.stat().st_mode):
                raise IndexFileError(f"{path} is not a regular file (not a trag-tui index)")
            size = path.stat().st_size if exists else 0
            if exists and size == 0 and not write:
                raise IndexFileError(f"{path} is empty, not a trag-tui index")
            if size > 0:
                with path.open("rb") as fh:
                    if fh.read(16) != b"SQLite format 3\x00":
                        raise IndexFileError(f"{path} is not a SQLite file (not a trag-tui index)")
            if exists and write and not writable(path):
                raise IndexFileError(
                    f"read-only: {path} (or its folder) cannot be written; searching only"
                )
            readonly = exists and not write and not writable(path)
        except OSError as exc:
            raise IndexFileError(f"cannot open {path}: {exc.strerror or exc}") from exc
    try:
        if readonly:
            conn = _connect_readonly(path)
        else:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise IndexFileError(f"cannot open {path}: {exc}") from exc
    try:
        _prepare(conn, readonly)
        _migrate(conn, path, readonly)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IndexFileError(f"{path} is {_damage(exc)}") from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _damage(exc: sqlite3.Error) -> str:
    """What a SQLite error on opening says about the file, for the user."""
    text = str(exc)
    if "readonly" in text or "read-only" in text:
        return f"read-only and cannot be opened for writing ({text})"
    if "disk is full" in text:
        return f"on a full disk and cannot be written ({text})"
    return f"damaged or not a trag-tui index: {text}"


def writable(path: Path) -> bool:
    """Whether the file and its folder may be written (permission bits count, even for root)."""
    for p in (path, path.parent if str(path.parent) else Path(".")):
        try:
            mode = p.stat().st_mode
        except OSError:
            return False
        if not os.access(p, os.W_OK) or not mode & 0o222:
            return False
    return True


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection; `immutable` where the folder cannot hold WAL's shared-memory file."""
    uri = "file:" + quote(os.path.abspath(path))
    folder = path.parent if str(path.parent) else Path(".")
    shm = Path(str(path) + "-shm")
    if writable(folder.joinpath(path.name)) or (folder.exists() and _dir_writable(folder)) or shm.exists():
        try:
            conn = sqlite3.connect(uri + "?mode=ro", uri=True, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            pass
    return sqlite3.connect(uri + "?immutable=1", uri=True, isolation_level=None,
                           check_same_thread=False)


def _dir_writable(folder: Path) -> bool:
    try:
        return os.access(folder, os.W_OK) and bool(folder.stat().st_mode & 0o222)
    except OSError:
        return False


def is_readonly(conn: sqlite3.Connection) -> bool:
    """Whether a connection was opened read-only (searching only)."""
    return bool(conn.execute("PRAGMA query_only").fetchone()[0])


def _prepare(conn: sqlite3.Connection, readonly: bool = False) -> None:
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


def _migrate(conn: sqlite3.Connection, path: Path, readonly: bool = False) -> None:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        raise IndexFileError(f"{path} is a SQLite file but not a trag-tui index")
    fresh = app_id == 0 and not conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
    if app_id == 0 and not fresh:
        raise IndexFileError(f"{path} is a SQLite file but not a trag-tui index")
    if not fresh:
        from .schema import verify

        verify(conn, path)
    known = migrations()
    if readonly:
        applied = {r[0] for r in conn.execute("SELECT name FROM _migrations")}
        pending = [m.name for m in known if m.name not in applied]
        if pending:
            raise IndexFileError(
                f"{path} needs schema steps {', '.join(pending)}, which a read-only file cannot "
                "take: open it where it can be written, once"
            )
        return
    if fresh:
        conn.execute("PRAGMA application_id = %d" % APPLICATION_ID)
        conn.execute(MIGRATIONS_TABLE_SQL)
    applied = {r[0] for r in conn.execute("SELECT name FROM _migrations")}
    apply_migrations(conn, [m for m in known if m.name not in applied])


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


def check_sound(conn: sqlite3.Connection, path: Path | str) -> None:
    """Refuse to write into a damaged file: `PRAGMA quick_check` must say ok."""
    try:
        rows = [r[0] for r in conn.execute("PRAGMA quick_check(5)")]
    except sqlite3.DatabaseError as exc:
        rows = [str(exc)]
    if rows != ["ok"]:
        raise IndexFileError(
            f"{path} is damaged ({rows[0]}); nothing was written. `trag-tui doctor {path}` "
            "can write a clean copy of what is readable"
        )


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
