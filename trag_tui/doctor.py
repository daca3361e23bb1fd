"""Examining an index file that trag-tui refuses, and rescuing its data into a clean one.

Opening refuses a file at its first difference; a user who got the file from someone else
needs the whole list, and a way to keep the documents without keeping what was planted. The
file is only ever read (read-only, nothing from it runs), and the copy is a fresh index made
by this version's migrations, into which the rows of its own tables are copied as data: a
trigger, a view or an extra table cannot come along, because nothing is copied as SQL.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .errors import IndexBusy, IndexFileError
from .models.embedding import has_words
from .storage.db import (
    APPLICATION_ID,
    busy,
    id_batches,
    io_failure,
    is_busy,
    prepare,
    sqlite3,
    transaction,
)
from .storage.file import (
    SIDECARS,
    SQLITE_HEADER,
    check_sidecars,
    connect,
    open_readonly,
    read_header,
)
from .storage.schema import entries, meta_problems, problems
from .storage.store import embed_text, usable_blob


@dataclass
class Examination:
    """What is wrong with a file (nothing, when `problems` is empty)."""

    path: str
    problems: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"path": self.path, "sound": not self.problems, "problems": self.problems}


def _open_untrusted(path: Path) -> sqlite3.Connection:
    """The file's committed state read-only, with sqlite-vec (to read its vectors) and nothing
    from it trusted. Only a regular file is opened: a FIFO would block the read for ever."""
    if read_header(path) != SQLITE_HEADER:
        raise IndexFileError(f"{path} is not a SQLite file (not a trag-tui index)")
    check_sidecars(path)
    conn = open_readonly(path)  # says IndexBusy itself
    try:
        prepare(conn, readonly=True)
    except sqlite3.Error as exc:
        conn.close()
        if is_busy(exc):
            raise busy(path) from exc
        raise
    return conn


def examine(path: Path) -> Examination:
    """Every difference between the file and what trag-tui makes, and whether SQLite finds damage."""
    out = Examination(str(path))
    try:
        conn = _open_untrusted(path)
    except IndexBusy:
        raise
    except sqlite3.Error as exc:
        out.problems.append(f"cannot be opened: {exc}")
        return out
    except OSError as exc:
        out.problems.append(f"cannot be opened: {exc.strerror or exc}")
        return out
    except IndexFileError as exc:
        out.problems.append(str(exc))
        return out
    try:
        if conn.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
            out.problems.append("not marked as a trag-tui index (application id)")
        try:
            found = problems(conn, thorough=True)
        except sqlite3.DatabaseError as exc:
            if is_busy(exc):
                raise busy(path) from exc
            found = [f"the schema cannot be read: {exc}"]
        for p in found:
            if p.startswith("newer:"):
                p = f"written by a newer trag-tui (schema steps {p[6:]} are unknown to this version)"
            out.problems.append(p)
        try:
            check = [r[0] for r in conn.execute("PRAGMA quick_check(20)")]
        except sqlite3.DatabaseError as exc:
            check = [str(exc)]
        if check != ["ok"]:
            out.problems += [f"damaged: {c}" for c in check]
    finally:
        conn.close()
    return out


@dataclass
class CopyReport:
    """What a clean copy kept and what it could not."""

    path: str
    rows: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    vectors: int = 0
    documents_to_reindex: int = 0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return dict(self.__dict__)


def clean_copy(src: Path, dest: Path) -> CopyReport:
    """A fresh index at `dest` holding every readable row of the file's own tables.

    Vectors are copied where the recorded embedder and dimension are sound; documents left
    without a vector are removed and their files marked for reading again, so the next
    `trag-tui index` with the same embedder restores them.
    """
    if dest.exists():
        raise IndexFileError(f"{dest} exists already; name a new file for the clean copy")
    try:
        old = _open_untrusted(src)
    except sqlite3.Error as exc:  # a busy file is IndexBusy already
        raise IndexFileError(f"cannot open {src} for a clean copy: {exc}") from exc
    try:
        new = connect(dest, create=True)
    except BaseException:
        old.close()
        raise
    report = CopyReport(str(dest))
    try:
        _fill(old, new, report)
    except sqlite3.DatabaseError as exc:
        new.close()
        _remove(dest)
        what = io_failure(exc)
        if what is not None:
            raise IndexFileError(f"{what} while writing {dest}: {exc}; it was removed") from exc
        if is_busy(exc):
            raise busy(src) from exc
        raise IndexFileError(f"{src} cannot be read for a clean copy ({exc}); {dest} was not "
                             "written") from exc
    finally:
        old.close()
        new.close()
    return report


def _remove(dest: Path) -> None:
    """Remove a clean copy that could not be finished, with SQLite's files beside it."""
    for suffix in ("", *SIDECARS):
        Path(str(dest) + suffix).unlink(missing_ok=True)


def _fill(old, new, report: CopyReport) -> None:
    """Copy the rows, vectors and full-text rows of `old` into the fresh index `new`."""
    from .storage.store import delete_documents, ensure_embedder

    have = entries(old)
    targets = [r[1] for r in new.execute("PRAGMA table_list") if r[2] == "table"
               and r[0] == "main" and not r[1].startswith(("sqlite_", "_migrations"))
               and r[1] != "chunk_codes"]  # made again from the copied vectors, never copied
    order = {n: i for i, n in enumerate(entries(new))}
    for table in sorted(targets, key=lambda t: order.get(t, 1 << 30)):
        report.rows[table], report.dropped[table] = _copy_table(old, new, table, have, report)
    meta, dim = meta_problems(old)
    report.notes += meta
    embedder = None if meta else _one(old, "SELECT value FROM meta WHERE key='embedder'")
    new.execute("DELETE FROM meta WHERE key IN ('embedder', 'embedding_dim')")
    if embedder is not None and dim is not None:
        ensure_embedder(new, embedder, dim)
        report.vectors = _copy_vectors(old, new, dim, report)
    with transaction(new):
        new.execute(
            "INSERT INTO chunk_fts (rowid, text, title) SELECT c.id, c.text, d.title "
            "FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.searchable = 1"
        )
    missing = _without_vectors(new) if embedder is not None else [
        r[0] for r in new.execute("SELECT id FROM documents")]
    if missing:
        with transaction(new):
            delete_documents(new, missing)
            # Files that lost documents are read again by the next run, which re-adds them.
            new.execute("UPDATE files SET complete = 0 WHERE documents > "
                        "(SELECT count(*) FROM documents d WHERE d.file_id = files.id)")
        report.documents_to_reindex = len(missing)
        report.notes.append(
            f"{len(missing)} documents had no usable vector and were left out; run "
            "`trag-tui index` on the same folders (same embedder) to add them again")
    from .corroboration import update_corroboration
    from .storage.quantised import update_compact

    update_corroboration(new)
    update_compact(new)


def _without_vectors(conn: sqlite3.Connection) -> list[int]:
    """Documents with a searchable chunk the copy holds no vector for, except those whose
    vectorless chunks have no words to embed: indexing stores those without one on purpose."""
    lacking: dict[int, bool] = {}
    for doc, title, text in conn.execute(
            "SELECT c.document_id, d.title, c.text FROM chunks c JOIN documents d "
            "ON d.id = c.document_id WHERE c.searchable = 1 AND c.id NOT IN "
            "(SELECT chunk_id FROM chunk_vectors)"):
        lacking[doc] = lacking.get(doc, False) or has_words(embed_text(title or "", text))
    return [doc for doc, worded in lacking.items() if worded]


def _one(conn: sqlite3.Connection, sql: str):
    row = conn.execute(sql).fetchone()
    return row[0] if row else None


def _copy_table(old, new, table: str, have: dict, report: CopyReport) -> tuple[int, int]:
    """Copy the columns both files share, row by row; rows the clean schema refuses are counted."""
    entry = have.get(table)
    if entry is None or entry.type != "table":
        report.notes.append(f"{table}: not a table in the file; left empty")
        return 0, 0
    want = [r[1] for r in new.execute(f'PRAGMA table_info("{table}")')]
    got = {r[1] for r in old.execute(f'PRAGMA table_info("{table}")')}
    cols = [c for c in want if c in got]
    lost = [c for c in want if c not in got]
    if lost:
        report.notes.append(f"{table}: column(s) {', '.join(lost)} missing in the file")
    if not cols:
        return 0, 0
    names = ", ".join(f'"{c}"' for c in cols)
    insert = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(cols))})'
    kept = dropped = 0
    cur = old.execute(f'SELECT {names} FROM "{table}" ORDER BY rowid' if _has_rowid(old, table)
                      else f'SELECT {names} FROM "{table}"')
    with transaction(new):
        while True:
            try:
                rows = cur.fetchmany(500)
            except sqlite3.DatabaseError as exc:
                report.notes.append(f"{table}: reading stopped at a damaged page ({exc})")
                break
            if not rows:
                break
            for row in rows:
                try:
                    new.execute(insert, row)
                    kept += 1
                except (sqlite3.IntegrityError, sqlite3.InterfaceError, ValueError):
                    dropped += 1
    return kept, dropped


def _has_rowid(conn, table: str) -> bool:
    try:
        conn.execute(f'SELECT rowid FROM "{table}" LIMIT 0')
        return True
    except sqlite3.OperationalError:
        return False


def _usable(blob, dim: int) -> bool:
    """A vector of the right size that a distance can use."""
    return isinstance(blob, bytes) and len(blob) == 4 * dim and usable_blob(blob)


def _copy_vectors(old, new, dim: int, report: CopyReport) -> int:
    """Vectors of the copied searchable chunks, where the file's vector table can give them."""
    ids = [r[0] for r in new.execute("SELECT id FROM chunks WHERE searchable = 1")]
    copied = 0
    try:
        with transaction(new):
            for part, marks in id_batches(ids):
                rows = old.execute(
                    "SELECT chunk_id, embedding, day FROM chunk_vectors WHERE chunk_id IN "
                    f"({marks})", part).fetchall()
                for chunk_id, blob, day in rows:
                    if _usable(blob, dim):
                        new.execute("INSERT INTO chunk_vectors (chunk_id, embedding, day) "
                                    "VALUES (?, ?, ?)", (chunk_id, blob, day))
                        copied += 1
    except sqlite3.DatabaseError as exc:
        report.notes.append(f"vectors could not be read ({exc})")
        new.execute("DELETE FROM chunk_vectors")
        return 0
    return copied
