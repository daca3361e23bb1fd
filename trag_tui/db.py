"""Opening the one SQLite file, the only door to an index.

Every connection goes through `connect()`, so every caller gets the same guarantees: sqlite-vec
loaded and extension loading switched off again, `trusted_schema` off (a file from someone else
cannot make a view or trigger call anything with side effects), WAL mode, and the schema brought
up to date by numbered migrations recorded inside the file.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from sqlite_utils.utils import sqlite3  # pysqlite3 where installed: it can load extensions

APPLICATION_ID = 0x54524147  # "TRAG": marks the file as a trag-tui index
MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


class IndexFileError(Exception):
    """An index file that cannot be opened as asked; the message is meant for the user."""


@dataclass(frozen=True)
class Migration:
    """One numbered schema step."""

    name: str
    sql: str


def migrations() -> list[Migration]:
    """The migrations shipped with this version, in order."""
    found = []
    for entry in resources.files("trag_tui.migrations").iterdir():
        if MIGRATION_NAME.match(entry.name):
            found.append(Migration(entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found, key=lambda m: m.name)


def connect(path: Path | str, *, create: bool = True) -> sqlite3.Connection:
    """Open (or create) an index file, migrate it, and return the connection.

    Raises IndexFileError for a missing file when create is False, a file that is not SQLite, a
    SQLite file that is not a trag-tui index, or one written by a newer trag-tui.
    """
    path = Path(path)
    if str(path) != ":memory:":
        if not path.exists() and not create:
            raise IndexFileError(f"no index at {path}: build one with `trag-tui index FOLDER`")
        if path.exists() and path.is_dir():
            raise IndexFileError(f"{path} is a folder, not an index file")
        if path.exists() and path.stat().st_size > 0:
            with path.open("rb") as fh:
                if fh.read(16) != b"SQLite format 3\x00":
                    raise IndexFileError(f"{path} is not a SQLite file (not a trag-tui index)")
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise IndexFileError(f"cannot open {path}: {exc}") from exc
    try:
        _prepare(conn)
        _migrate(conn, path)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise IndexFileError(f"{path} is damaged or not a trag-tui index: {exc}") from exc
    except IndexFileError:
        conn.close()
        raise
    return conn


def _prepare(conn: sqlite3.Connection) -> None:
    import sqlite_vec

    conn.execute("PRAGMA trusted_schema = OFF")
    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA busy_timeout = 5000")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode not in ("wal", "memory"):
        raise IndexFileError(f"cannot switch the file to WAL mode (got {mode})")
    conn.execute("PRAGMA synchronous = NORMAL")


def _migrate(conn: sqlite3.Connection, path: Path) -> None:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        raise IndexFileError(f"{path} is a SQLite file but not a trag-tui index")
    conn.execute("PRAGMA application_id = %d" % APPLICATION_ID)
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    applied = {r[0] for r in conn.execute("SELECT name FROM _migrations")}
    known = migrations()
    unknown = applied - {m.name for m in known}
    if unknown:
        raise IndexFileError(
            f"{path} was written by a newer trag-tui (schema steps {', '.join(sorted(unknown))} "
            "are unknown to this version); upgrade trag-tui to open it"
        )
    for migration in known:
        if migration.name in applied:
            continue
        stamp = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
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
