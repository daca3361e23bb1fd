"""Opening the one SQLite file, the only door to an index.

Every connection goes through `connect()`, so every caller gets the same guarantees: the
driver prepared as `db.prepare` does, the file compared with the schema this version makes
(`schema.verify`) before anything reads or writes it, and brought up to date by the numbered
migrations recorded inside the file.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from urllib.parse import quote

from ..errors import IndexFileError
from . import db, schema
from .db import APPLICATION_ID, MIGRATIONS_TABLE_SQL, apply_migrations, prepare, sqlite3


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
        prepare(conn, readonly)
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


def _migrate(conn: sqlite3.Connection, path: Path, readonly: bool = False) -> None:
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        raise IndexFileError(f"{path} is a SQLite file but not a trag-tui index")
    fresh = app_id == 0 and not conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone()
    if app_id == 0 and not fresh:
        raise IndexFileError(f"{path} is a SQLite file but not a trag-tui index")
    if not fresh:
        schema.verify(conn, path)
    known = db.migrations()
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
