"""Opening the one SQLite file, the only door to an index.

Every connection goes through `connect()`, so every caller gets the same guarantees: the
driver prepared as `db.prepare` does, the file compared with the schema this version makes
(`schema.verify`) before anything reads or writes it, and brought up to date by the numbered
migrations recorded inside the file.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path
from urllib.parse import quote

from ..errors import IndexFileError
from ..regular import NotRegularFile, open_regular
from . import db, schema
from .db import (
    APPLICATION_ID,
    MIGRATIONS_TABLE_SQL,
    apply_migrations,
    busy,
    is_busy,
    prepare,
    set_defensive,
    sqlite3,
)


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
            if size > 0 and read_header(path) != SQLITE_HEADER:
                raise IndexFileError(f"{path} is not a SQLite file (not a trag-tui index)")
            check_sidecars(path)
            if exists and write and not writable(path):
                raise IndexFileError(
                    f"read-only: {path} (or its folder) cannot be written; searching only"
                )
            readonly = exists and not write and not writable(path)
        except OSError as exc:
            raise IndexFileError(f"cannot open {path}: {exc.strerror or exc}") from exc
    try:
        if readonly:
            conn = open_readonly(path)
        else:
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                                   timeout=db.BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise busy(path) from exc
        raise IndexFileError(f"cannot open {path}: {exc}") from exc
    try:
        prepare(conn, readonly)
        _migrate(conn, path, readonly)
    except sqlite3.DatabaseError as exc:
        conn.close()
        if is_busy(exc):
            raise busy(path) from exc
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


SQLITE_HEADER = b"SQLite format 3\x00"
#: Files SQLite keeps beside an index: each, where present, must be a regular file.
SIDECARS = ("-wal", "-journal", "-shm")


def read_header(path: Path) -> bytes:
    """The first 16 bytes of a regular file; anything else (a FIFO, a device) is refused
    without waiting on it (O_NONBLOCK, and the type checked on the open descriptor)."""
    try:
        fh = open_regular(path)
    except NotRegularFile:
        raise IndexFileError(f"{path} is not a regular file (not a trag-tui index)") from None
    with fh:
        return fh.read(16)


def check_sidecars(path: Path) -> None:
    """Refuse a FIFO, device or folder planted where SQLite keeps its -wal, -journal or -shm."""
    for suffix in SIDECARS:
        side = Path(str(path) + suffix)
        try:
            mode = side.stat().st_mode
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(mode):
            raise IndexFileError(f"{side} is not a regular file; SQLite keeps only regular files "
                                 f"beside {path}: remove it")


def _pending(path: Path) -> list[str]:
    """The sidecars holding changes SQLite must apply (-wal) or undo (a hot -journal)."""
    out = []
    for suffix in ("-wal", "-journal"):
        try:
            if os.stat(str(path) + suffix).st_size > 0:
                out.append(suffix)
        except FileNotFoundError:
            continue
    return out


def _ro_connect(uri: str) -> sqlite3.Connection:
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False,
                           timeout=db.BUSY_TIMEOUT_MS / 1000)


def open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that shows exactly the file's committed state and never writes it; a file
    another process holds longer than BUSY_TIMEOUT_MS is IndexBusy, said here once for every
    caller. How it is opened: `_open_readonly`."""
    try:
        return _open_readonly(path)
    except sqlite3.Error as exc:
        if is_busy(exc):
            raise busy(path) from exc
        raise


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A connection that shows exactly the file's committed state and never writes it.

    `mode=ro` where SQLite can use the WAL's shared-memory file (the folder can be written, or
    the -shm is there): it reads the WAL and refuses a hot journal. Where it cannot, a file
    with nothing beside it is opened `immutable`; one with a -wal or a -journal (which
    `immutable` would ignore, showing uncommitted pages or hiding committed ones) is read from a
    private temporary copy in which SQLite applies the WAL or rolls the journal back.
    """
    uri = "file:" + quote(os.path.abspath(path))
    folder = path.parent if str(path.parent) else Path(".")
    shm = Path(str(path) + "-shm")
    if writable(folder.joinpath(path.name)) or (folder.exists() and _dir_writable(folder)) or shm.exists():
        conn = None
        try:
            conn = _ro_connect(uri + "?mode=ro")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError as exc:
            if conn is not None:
                conn.close()
            if is_busy(exc):
                raise
    pending = _pending(path)
    if pending:
        return _private_copy(path, pending)
    return _ro_connect(uri + "?immutable=1")


def _private_copy(path: Path, pending: list[str]) -> sqlite3.Connection:
    """The committed state of a file whose folder cannot take SQLite's recovery: the file and
    its -wal or -journal copied to a private folder, settled there by SQLite (WAL applied,
    hot journal rolled back), then opened `immutable` and unlinked, so nothing is left behind.
    Costs one copy of the file (about 1.5 s a GB on a local disk) and as much temporary space."""
    tmp = Path(tempfile.mkdtemp(prefix="trag-tui-ro-"))
    copy = tmp / "index.db"
    try:
        try:
            shutil.copyfile(path, copy)
            for suffix in pending:
                shutil.copyfile(str(path) + suffix, str(copy) + suffix)
        except OSError as exc:
            raise IndexFileError(
                f"cannot read {path} read-only: its {' and '.join(pending)} must be applied in a "
                f"private copy, which failed ({exc.strerror or exc})") from exc
        settle = sqlite3.connect(str(copy), isolation_level=None)
        try:
            set_defensive(settle)
            settle.execute("PRAGMA trusted_schema = OFF")
            settle.execute("SELECT count(*) FROM sqlite_master").fetchone()
            settle.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            settle.close()
        if any(Path(str(copy) + s).exists() and Path(str(copy) + s).stat().st_size
               for s in ("-wal", "-journal")):
            raise IndexFileError(f"cannot read {path} read-only: SQLite could not settle its "
                                 f"{' and '.join(pending)} in a private copy")
        conn = _ro_connect("file:" + quote(str(copy)) + "?immutable=1")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return conn
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _dir_writable(folder: Path) -> bool:
    try:
        return os.access(folder, os.W_OK) and bool(folder.stat().st_mode & 0o222)
    except OSError:
        return False


#: Steps a file can be read without: what they add only speeds a search up, so a read-only
#: file from before them is searched as it is (the compact vectors: exactly, vector by vector;
#: a scope's chunks: from the chunk rows).
READ_WITHOUT = frozenset({"0008_compact_vectors.sql", "0009_searchable_by_document.sql"})


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
        pending = [m.name for m in known if m.name not in applied and m.name not in READ_WITHOUT]
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
