"""Building and updating an index from folders of files.

Work is skipped at three levels, cheapest first: a file whose size and mtime are unchanged is
not read; a file whose bytes hash the same is not parsed; a chunk whose text was embedded before
anywhere in the index reuses its vector. A file read by an older version of the readers is read
once more, since the same bytes may now make other documents. Writes commit per batch of whole
documents, and a file is marked complete only after its last batch, so a killed run resumes
where it stopped.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .chunking import chunk_text
from .documents import Document
from .errors import IndexFileError, IngestError
from .ingest import discover, failure_reason, read_file, size_refusal
from .models.embedding import Embedder, usable
from .regular import NotRegularFile, not_regular, open_regular
from .settings import Settings
from .storage.db import (
    io_failure,
    is_readonly,
    sqlite3,
    transaction,
    writer_lock,
)
from .storage.file import check_sound
from .storage.store import (
    PreparedDocument,
    as_blob,
    delete_documents,
    document_hash,
    embed_text,
    ensure_embedder,
    existing_documents,
    insert_documents,
    text_hash,
    usable_blob,
    vectors_for_hashes,
)

log = logging.getLogger(__name__)


@dataclass
class Progress:
    """A snapshot of an indexing run, sent to the progress callback after each step."""

    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_done: float = 0.0
    documents: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    started: float = field(default_factory=time.monotonic)
    current: str = ""

    @property
    def rate(self) -> float:
        """Chunks embedded per second so far."""
        elapsed = time.monotonic() - self.started
        return self.chunks_embedded / elapsed if elapsed > 0 else 0.0


@dataclass
class Summary:
    """What an indexing run did, for the closing report."""

    files_seen: int = 0
    files_indexed: int = 0
    files_unchanged: int = 0
    files_skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why), not errors
    files_failed: list[tuple[str, str]] = field(default_factory=list)  # (path, one-line reason)
    notes: list[tuple[str, str]] = field(default_factory=list)
    documents_added: int = 0
    documents_removed: int = 0
    documents_kept: int = 0
    undated_documents: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    files_pruned: int = 0
    files_moved: list[tuple[str, str]] = field(default_factory=list)  # (from, to): same bytes
    corroboration: dict = field(default_factory=dict)
    periods: dict = field(default_factory=dict)  # documents read for the periods they speak of
    seconds: float = 0.0

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {k: v for k, v in self.__dict__.items()}


ProgressCallback = Callable[[Progress], None]

#: Raised when a reader makes something else of the same bytes (2: a JSONL record without a
#: title takes its web address's page name), so files read before are read again, once; only
#: the documents that come out different are embedded again.
READERS = 2


#: A files row as `_index_file` and `_unchanged` read it (a moved file's row adds its path).
_FILE_ROW = "id, size, mtime_ns, content_hash, complete, documents, error"


def stamped(digest: str) -> str:
    """A file's stored hash: its bytes' digest and the readers' version that read them."""
    return f"{digest}+r{READERS}"


def file_digest(path: Path, max_bytes: int | None = None) -> str:
    """Streaming digest of a regular file's bytes (a pipe or device is refused, never read).

    With `max_bytes`, a file that holds more (it grew since its size was checked) is refused
    as too large once that much is read, not hashed to its end."""
    h = hashlib.blake2b(digest_size=16)
    try:  # a FIFO that became one since stat() must not wait for a writer
        fh = open_regular(path)
    except NotRegularFile as exc:
        raise IngestError(str(exc)) from None
    with fh:
        st = os.fstat(fh.fileno())
        refusal = None if max_bytes is None else size_refusal(st.st_size, max_bytes)
        if refusal:
            raise IngestError(refusal)
        seen = 0
        for block in iter(lambda: fh.read(1 << 20), b""):
            seen += len(block)
            if max_bytes is not None and seen > max_bytes:
                raise IngestError(size_refusal(seen, max_bytes) or "too large")
            h.update(block)
    return h.hexdigest()


def file_key(path: Path, db_path: Path) -> str:
    """The path stored for a file: relative to the index file's folder, so both can move together.

    A name that is not UTF-8 keeps its odd bytes as `\\xNN` text, so it can be stored and
    still names the file uniquely.
    """
    base = Path(os.path.abspath(db_path)).parent
    key = Path(os.path.relpath(os.path.abspath(path), base)).as_posix()
    return key.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _wordless_note(n: int) -> str:
    """The note for documents a vector cannot stand for (text of punctuation only, say)."""
    what = "1 document has" if n == 1 else f"{n} documents have"
    return (f"{what} no words to embed: indexed without a vector, found only by what lexical "
            "search matches")


class Indexer:
    """Adds folders to one open index with one embedder."""

    def __init__(
        self,
        conn: sqlite3.Connection,
        db_path: Path,
        embedder: Embedder,
        settings: Settings,
        *,
        default_date: dt.date | None = None,
        progress: ProgressCallback | None = None,
    ):
        self.conn = conn
        self.db_path = db_path
        self.embedder = embedder
        self.settings = settings
        self.default_date = default_date
        self.progress = progress or (lambda p: None)
        self._gone: dict[str, list[tuple]] | None = None  # files whose path is gone: _moved_from
        if is_readonly(conn):
            raise IndexFileError(
                f"read-only: {db_path} (or its folder) cannot be written; searching only"
            )
        check_sound(conn, db_path)  # before the first write of a run
        ensure_embedder(conn, embedder.name, embedder.dim)

    def run(self, paths: Iterable[Path], *, prune: bool = False) -> Summary:
        """Index every file under paths; with prune, drop documents of files that are gone.

        One writer at a time per file. A full disk or an I/O error ends the run with
        IndexFileError saying how much was committed; what was committed stays consistent.
        """
        paths = [Path(p) for p in paths]  # iterated twice (discovery, then pruning)
        summary = Summary()
        with writer_lock(self.db_path):
            try:
                return self._run(paths, prune, summary)
            except (sqlite3.OperationalError, OSError) as exc:
                what = self._write_failure(exc)
                if what is None:
                    raise
                raise IndexFileError(
                    f"{what}: {summary.documents_added} documents indexed and committed in this "
                    f"run; the file is consistent, run again {'when there is space' if what == 'disk full' else 'to resume'} ({exc})"
                ) from exc

    def _write_failure(self, exc: BaseException) -> str | None:
        """What ended a run: 'disk full', 'I/O error', 'write failed' (SQLite), or None (a bug)."""
        what = io_failure(exc)
        if what is not None or not isinstance(exc, sqlite3.OperationalError):
            return what
        # sqlite-vec reports a full file as "could not insert a new vector chunk" and rolls
        # back, so ask whether its next block of vectors (1,024 of them) would still fit.
        try:
            pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
            limit = self.conn.execute("PRAGMA max_page_count").fetchone()[0]
            page_size = self.conn.execute("PRAGMA page_size").fetchone()[0]
            folder = os.statvfs(os.path.dirname(os.path.abspath(self.db_path)))
        except (sqlite3.Error, OSError):
            return "write failed"
        block = 1024 * 4 * self.embedder.dim + (1 << 20)
        if (limit - pages) * page_size < block or folder.f_bavail * folder.f_frsize < block:
            return "disk full"
        return "write failed"

    def _run(self, paths: list[Path], prune: bool, summary: Summary) -> Summary:
        started = time.monotonic()
        self._gone = None  # listed again on this run's first new file
        files = list(discover(paths))
        state = Progress(files_total=len(files))
        sizes = {}
        for f in files:
            try:
                sizes[f] = f.stat().st_size
            except OSError:
                sizes[f] = 0
        state.bytes_total = sum(sizes.values())
        self.progress(state)
        seen_keys: set[str] = set()
        db_abs = os.path.abspath(self.db_path)
        for path in files:
            summary.files_seen += 1
            state.current = str(path)
            if os.path.abspath(path) in (db_abs, db_abs + "-wal", db_abs + "-shm", db_abs + "-lock"):
                state.files_done += 1
                continue  # the index itself may sit inside the indexed folder
            key = file_key(path, self.db_path)
            seen_keys.add(key)
            done_before = state.bytes_done
            try:
                self._index_file(path, key, sizes[path], summary, state)
            except (sqlite3.Error, KeyboardInterrupt, IndexFileError):
                raise
            except (OSError, MemoryError, ValueError, RecursionError) as exc:
                # Preparing or embedding one file's documents failed after it was read: the
                # batch rolled back, the file is named, and the next run tries it again.
                if io_failure(exc) == "disk full":
                    raise
                summary.files_failed.append((str(path), failure_reason(exc)))
            state.files_done += 1
            state.bytes_done = done_before + sizes[path]
            self.progress(state)
        if prune:
            pruned_files, pruned_documents = self._prune(paths, seen_keys, summary)
            summary.files_pruned += pruned_files
            summary.documents_removed += pruned_documents
        # The corroboration graph (shingle signatures, edges, centrality, near-duplicate clusters)
        # is brought up to date for new chunks; it is cheap when nothing changed.
        from .corroboration import update_corroboration

        summary.corroboration = update_corroboration(self.conn)
        # Who said it (speakers, sources, named title parts) for the documents added since.
        from .facets import update_facets

        update_facets(self.conn)
        # What each chunk speaks of (title, heading and text periods), for documents new since.
        from .periods import update_periods

        summary.periods = update_periods(self.conn)
        # The vectors' compact copy (storage.quantised): written beside each vector, and given
        # here to an index made before it existed.
        from .storage.quantised import update_compact

        update_compact(self.conn)
        summary.chunks_embedded = state.chunks_embedded
        summary.chunks_reused = state.chunks_reused
        summary.seconds = round(time.monotonic() - started, 3)
        for name, why in summary.files_failed:
            log.warning("not indexed: %s: %s", name, why)
        for name, why in summary.files_skipped:
            log.debug("skipped: %s: %s", name, why)
        log.info("indexed %d documents (%d kept, %d removed), %d chunks embedded, %d reused, "
                 "in %.1f s", summary.documents_added, summary.documents_kept,
                 summary.documents_removed, summary.chunks_embedded, summary.chunks_reused,
                 summary.seconds)
        return summary

    # -- one file ---------------------------------------------------------------------------

    def _index_file(self, path: Path, key: str, size: int, summary: Summary, state: Progress) -> None:
        conn = self.conn
        try:
            st = path.stat()
        except OSError as exc:
            summary.files_failed.append((str(path), f"cannot read: {exc.strerror or exc}"))
            return
        if not stat.S_ISREG(st.st_mode):  # checked before hashing: a pipe or device never ends
            summary.files_skipped.append((str(path), not_regular(st.st_mode)))
            return
        max_bytes = int(self.settings.max_file_mb * 2**20)
        too_large = size_refusal(st.st_size, max_bytes)
        if too_large:  # by its size alone: a sparse 24 GB file is never read, not even hashed
            summary.files_failed.append((str(path), too_large))
            return
        row = conn.execute(f"SELECT {_FILE_ROW} FROM files WHERE path = ?", (key,)).fetchone()
        current = row is not None and row[3].endswith(stamped(""))  # read by these readers
        if row and row[4] and current and row[1] == st.st_size and row[2] == st.st_mtime_ns:
            self._unchanged(path, row, summary)
            return
        try:
            digest = stamped(file_digest(path, max_bytes))
        except (OSError, IngestError) as exc:
            summary.files_failed.append((str(path), failure_reason(exc)))
            return
        now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        if row and row[4] and row[3] == digest:
            with transaction(conn):
                conn.execute("UPDATE files SET mtime_ns = ?, size = ? WHERE id = ?",
                             (st.st_mtime_ns, st.st_size, row[0]))
            self._unchanged(path, row, summary)
            return
        moved = None if row else self._moved_from(digest)
        if moved is not None:
            # The same bytes, and the path they were indexed at is gone: the folder was moved
            # or renamed. Its documents are kept under the new path, not added a second time.
            with transaction(conn):
                conn.execute("UPDATE files SET path = ?, mtime_ns = ?, size = ? WHERE id = ?",
                             (key, st.st_mtime_ns, st.st_size, moved[0]))
                # a document without an id of its own is named by its file's path
                conn.execute(
                    "UPDATE documents SET source_id = :new || substr(source_id, length(:old) + 1) "
                    "WHERE file_id = :id AND (source_id = :old OR "
                    "substr(source_id, 1, length(:old) + 1) = :old || '#')",
                    {"new": key, "old": moved[7], "id": moved[0]})
            summary.files_moved.append((moved[7], str(path)))
            self._unchanged(path, moved, summary)
            return
        try:
            read = read_file(
                path,
                default_date=self.default_date,
                max_bytes=max_bytes,
                seconds=self.settings.read_seconds,
            )
        except IngestError as exc:
            # Remembered with its hash: retried only when the file changes, named every run.
            summary.files_failed.append((str(path), str(exc)))
            with transaction(conn):
                if row:
                    conn.execute(
                        "UPDATE files SET size=?, mtime_ns=?, content_hash=?, complete=1, "
                        "error=?, indexed_at=? WHERE id=?",
                        (st.st_size, st.st_mtime_ns, digest, str(exc), now, row[0]),
                    )
                else:
                    conn.execute(
                        "INSERT INTO files (path, size, mtime_ns, content_hash, complete, error, "
                        "indexed_at) VALUES (?,?,?,?,1,?,?)",
                        (key, st.st_size, st.st_mtime_ns, digest, str(exc), now),
                    )
            return
        for note in read.notes:
            summary.notes.append((str(path), note))
        if read.skipped:
            summary.files_skipped.append((str(path), read.skipped))
        with transaction(conn):
            if row:
                file_id = row[0]
                conn.execute(
                    "UPDATE files SET size=?, mtime_ns=?, content_hash=?, complete=0, note=?, "
                    "error=NULL, indexed_at=? WHERE id=?",
                    (st.st_size, st.st_mtime_ns, digest, read.skipped, now, file_id),
                )
            else:
                file_id = conn.execute(
                    "INSERT INTO files (path, size, mtime_ns, content_hash, complete, note, "
                    "indexed_at) VALUES (?,?,?,?,0,?,?)",
                    (key, st.st_size, st.st_mtime_ns, digest, read.skipped, now),
                ).lastrowid
        wordless = self._store_documents(file_id, key, read.documents, size, summary, state)
        if wordless:
            summary.notes.append((str(path), _wordless_note(wordless)))
        with transaction(conn):
            conn.execute(
                "UPDATE files SET complete = 1, documents = ? WHERE id = ?",
                (len(read.documents), file_id),
            )
        summary.files_indexed += 1

    def _moved_from(self, digest: str) -> tuple | None:
        """The row of a file indexed whole with these bytes (`digest`) whose path is gone
        (nothing at all there, not even a broken link), taken once, or None. The gone files are
        listed on the run's first new file: one look at the files table, not one per file. A
        path kept with escaped bytes (a name that is not UTF-8) is never taken for gone: it
        cannot be looked up."""
        if self._gone is None:
            base = Path(os.path.abspath(self.db_path)).parent
            self._gone = {}
            for row in self.conn.execute(
                    f"SELECT {_FILE_ROW}, path FROM files WHERE complete = 1 ORDER BY id"):
                if "\\x" not in row[7] and not os.path.lexists(base / row[7]):
                    self._gone.setdefault(row[3], []).append(row)
        rows = self._gone.get(digest)
        return rows.pop(0) if rows else None

    @staticmethod
    def _unchanged(path: Path, row: tuple, summary: Summary) -> None:
        if row[6]:
            summary.files_failed.append((str(path), f"{row[6]} (unchanged since it failed)"))
        else:
            summary.files_unchanged += 1
        summary.documents_kept += row[5]

    def _store_documents(
        self, file_id: int, key: str, docs: list[Document], size: int, summary: Summary,
        state: Progress,
    ) -> int:
        """Write a file's new and changed documents; the number stored without a vector."""
        conn, s = self.conn, self.settings
        have = existing_documents(conn, file_id)
        todo: list[PreparedDocument] = []
        stale: list[int] = []
        for ordinal, doc in enumerate(docs):
            if doc.date is None:
                summary.undated_documents += 1
            h = document_hash(doc)
            old = have.pop(ordinal, None)
            if old and old[1] == h:
                summary.documents_kept += 1
                continue
            if old:
                stale.append(old[0])
            chunks = chunk_text(doc.text, s.chunk_words, s.chunk_overlap, s.parent_words)
            hashes = [text_hash(embed_text(doc.title, c.text)) for c in chunks]
            source_id = doc.source_id or (key if len(docs) == 1 else f"{key}#{ordinal}")
            todo.append(PreparedDocument(file_id, ordinal, doc, source_id, h, chunks, hashes))
        stale.extend(i for i, _ in have.values())  # ordinals past the file's new end
        # Vectors of chunks about to be replaced are reused when their text reappears.
        reuse = {h: blob for h, blob in vectors_for_hashes(
            conn, (h for p in todo for h, c in zip(p.chunk_hashes, p.chunks) if c.searchable)
        ).items() if usable_blob(blob)}
        if stale:
            with transaction(conn):
                delete_documents(conn, stale)
            summary.documents_removed += len(stale)
        batch: list[PreparedDocument] = []
        batch_chunks = wordless = 0
        per_doc_bytes = size / max(1, len(docs))
        for p in todo:
            batch.append(p)
            batch_chunks += sum(c.searchable for c in p.chunks)
            if batch_chunks >= s.write_batch_chunks:
                wordless += self._write_batch(batch, reuse, summary, state, per_doc_bytes)
                batch, batch_chunks = [], 0
        if batch:
            wordless += self._write_batch(batch, reuse, summary, state, per_doc_bytes)
        return wordless

    def _write_batch(
        self, batch: list[PreparedDocument], reuse: dict[str, bytes], summary: Summary,
        state: Progress, per_doc_bytes: float,
    ) -> int:
        """Embed and write one batch; the number of its documents left without a vector."""
        missing: dict[str, str] = {}
        for p in batch:
            for c, h in zip(p.chunks, p.chunk_hashes):
                if c.searchable and h not in reuse and h not in missing:
                    missing[h] = embed_text(p.doc.title, c.text)
        searchable = sum(c.searchable for p in batch for c in p.chunks)
        if missing:
            vectors = self.embedder.encode(list(missing.values()))
            ok = usable(vectors)
            reuse.update((h, blob) for h, blob, good in zip(missing, as_blob(vectors), ok) if good)
        wordless = sum(any(c.searchable and h not in reuse for c, h in zip(p.chunks, p.chunk_hashes))
                       for p in batch)
        with transaction(self.conn):
            insert_documents(self.conn, batch, reuse)
        summary.documents_added += len(batch)
        state.documents += len(batch)
        state.chunks_embedded += len(missing)
        state.chunks_reused += searchable - len(missing)
        state.bytes_done += per_doc_bytes * len(batch)
        self.progress(state)
        return wordless

    def _prune(self, paths: Iterable[Path], seen: set[str], summary: Summary) -> tuple[int, int]:
        """Drop files under the indexed folders that are gone from disk: (files, documents).

        A file not seen by this run is gone only when its path no longer exists and the folder
        that should hold it can be read; a file in a folder this run could not read, or whose
        absence cannot be told, keeps its documents and is named in a note."""
        roots = [file_key(Path(p), self.db_path) for p in paths]
        base = Path(os.path.abspath(self.db_path)).parent
        gone, removed = [], 0
        kept: dict[tuple[str, str], int] = {}
        folders: dict[Path, str | None] = {}
        for file_id, key in self.conn.execute("SELECT id, path FROM files").fetchall():
            if key.startswith("pull:"):
                continue  # documents pulled from a collection have no file on disk to miss
            inside = any(key == r or key.startswith(r.rstrip("/") + "/") or r == "." for r in roots)
            if not inside or key in seen:
                continue
            held = _not_gone(base / key, folders)
            if held is None:
                gone.append(file_id)
            else:
                kept[held] = kept.get(held, 0) + 1
        for (where, why), n in kept.items():
            summary.notes.append(
                (where, f"{n} indexed {'file' if n == 1 else 'files'} not pruned: {why}"))
        for file_id in gone:
            doc_ids = [r[0] for r in self.conn.execute(
                "SELECT id FROM documents WHERE file_id = ?", (file_id,))]
            with transaction(self.conn):
                delete_documents(self.conn, doc_ids)
                self.conn.execute("DELETE FROM files WHERE id = ?", (file_id,))
            removed += len(doc_ids)
        return len(gone), removed


def _not_gone(path: Path, folders: dict[Path, str | None]) -> tuple[str, str] | None:
    """None when the file at `path` is gone for certain (no such path, and the nearest folder
    above it that exists can be read); else (where, why it is kept). Folder answers are kept
    in `folders`, so a folder of many files is opened once."""
    try:
        os.lstat(path)
        return str(path.parent), "the file is still there (its folder was not read in full)"
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:
        return str(path.parent), f"cannot tell whether it is gone ({exc.strerror or exc})"
    folder = path.parent
    while True:
        if folder not in folders:
            folders[folder] = _folder_state(folder)
        state = folders[folder]
        if state != "missing" or folder.parent == folder:
            return None if state in (None, "missing") else (str(folder), state)
        folder = folder.parent


def _folder_state(folder: Path) -> str | None:
    """None for a folder that can be read, "missing" for one that is not there, else why not."""
    try:
        with os.scandir(folder):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return "missing"
    except OSError as exc:
        return f"the folder cannot be read ({exc.strerror or exc})"
