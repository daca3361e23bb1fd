"""Turning the files a user points at into Documents, one reader per source format.

Every file found is accounted for: it yields documents, is skipped on purpose (with a reason),
or fails with a one-line IngestError that the indexing summary shows. Nothing is dropped
silently, so a user can tell "not indexed" from "not found". Format readers are imported only
when a file of their kind turns up, which keeps lxml and dateparser out of start-up time.
"""
from __future__ import annotations

import datetime as dt
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from trag_tui.documents import Document
from trag_tui.errors import IngestError
from trag_tui.ingest.base import (
    DEFAULT_MAX_BYTES,
    DEFAULT_READ_SECONDS,
    FileRead,
    OutOfTime,
    ReadBudget,
    Reader,
    _os_reason,
    size_refusal,
    windows_punctuation,
)


def _parlparse(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import parlparse

    return parlparse.read(path, **kw)


def _jsonl(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import jsonl

    return jsonl.read(path, **kw)


def _text(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import text

    return text.read(path, **kw)


def _crec(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import crec

    return crec.read_granule(path, **kw)


def _crec_zip(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import crec

    return crec.read_zip(path, **kw)


def _govinfo_xml(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import crec

    return crec.read_package_xml(path, **kw)


def _changedates(path: Path, **kw) -> FileRead:
    from trag_tui.ingest import parlparse

    return parlparse.read_changedates(path, **kw)


#: Readers by lower-case file suffix.
READERS: dict[str, Reader] = {
    ".xml": _parlparse,
    ".jsonl": _jsonl,
    ".ndjson": _jsonl,
    ".txt": _text,
    ".md": _text,
    ".markdown": _text,
    ".htm": _crec,  # US Congressional Record granules (GovInfo CREC)
    ".html": _crec,
    ".zip": _crec_zip,  # GovInfo CREC packages, read in memory
}

def _folder_notes(path: Path, **kw) -> FileRead:
    return FileRead([], skipped="a README describes the folder; it is not one of its documents")


#: Readers for exact file names that would otherwise be misread by their suffix.
#: ParlParse keeps a `changedates.txt` version log beside its XML; it is not a document.
NAMED_READERS: dict[str, Reader] = {
    "changedates.txt": _changedates,
    "readme.md": _folder_notes,
    "readme.txt": _folder_notes,
    "readme.markdown": _folder_notes,
    # A GovInfo package's metadata beside its granules; any other XML of these names still
    # goes to the ParlParse reader.
    "mods.xml": _govinfo_xml,
    "dip.xml": _govinfo_xml,
    "premis.xml": _govinfo_xml,
}


def discover(paths: Iterable[Path]) -> Iterator[Path]:
    """Every file under `paths` (files or folders), recursively and sorted, hidden names skipped.

    Unsupported, unreadable and broken entries are yielded too, so that read_file can report
    them; only names starting with "." are left out, unless a path names one explicitly. The
    walk is iterative (any depth) and follows each real folder once (symlink loops end).
    """
    seen: set[object] = set()
    for root in paths:
        root = Path(root)
        # A path that is not a folder is passed on even if missing, so the typo gets reported.
        found = _walk(root) if _is_dir(root) else [root]
        for path in found:
            key = _identity(path)
            if key not in seen:  # overlapping arguments ("docs/ docs/a.md") give a file once
                seen.add(key)
                yield path


def _identity(path: Path) -> object:
    """What makes two paths the same file: device and inode (one stat, at any depth)."""
    try:
        st = os.stat(path)
        return (st.st_dev, st.st_ino)
    except OSError:  # missing, or a symlink loop: the path itself, so it is reported once
        return os.path.abspath(path)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # a symlink loop, a name too long
        return False


def _walk(top: Path) -> Iterator[Path]:
    """Files under `top` in sorted depth-first order, with a stack of listings, not recursion."""
    visited: set[object] = set()
    stack: list[Iterator[os.DirEntry[str]]] = []

    def enter(folder: Path) -> Iterator[os.DirEntry[str]] | None:
        real = _identity(folder)
        if real in visited:  # a symlink back up the tree
            return iter(())
        visited.add(real)
        try:
            names = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return None
        return iter([e for e in names if not e.name.startswith(".")])

    first = enter(top)
    if first is None:
        yield top  # read_file turns this into "cannot read folder: <reason>"
        return
    stack.append(first)
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        path = Path(entry.path)
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if not is_dir:
            yield path
            continue
        listing = enter(path)
        if listing is None:
            yield path
        else:
            stack.append(listing)


def read_file(
    path: Path, *, default_date: dt.date | None = None, max_bytes: int = DEFAULT_MAX_BYTES,
    seconds: float | None = DEFAULT_READ_SECONDS,
) -> FileRead:
    """Read one file into Documents; raise IngestError with a one-line reason if it cannot be.

    Reading may take `seconds` (None: no limit); a file that takes longer fails with that
    reason, so one file cannot keep the files after it from being indexed."""
    path = Path(path)
    try:
        st = path.stat()
    except OSError as e:
        raise IngestError(f"cannot read: {_os_reason(e)}") from e
    if stat.S_ISDIR(st.st_mode):
        # discover() passes on folders it could not list, so the reason reaches the summary.
        try:
            os.listdir(path)
        except OSError as e:
            raise IngestError(f"cannot read folder: {_os_reason(e)}") from e
        raise IngestError("is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise IngestError("not a regular file")
    reader = NAMED_READERS.get(path.name.lower()) or READERS.get(path.suffix.lower())
    if reader is None:
        suffix = path.suffix.lower()
        kind = f"'{suffix}'" if suffix else "(no extension)"
        raise IngestError(f"unsupported file type {kind}")
    too_large = size_refusal(st.st_size, max_bytes)
    if too_large:
        raise IngestError(too_large)
    budget = ReadBudget(seconds)
    try:
        with budget:
            read = reader(path, default_date=default_date, max_bytes=max_bytes)
    except IngestError:
        raise
    except OutOfTime:
        raise IngestError(budget.reason()) from None
    except Exception as e:  # every file is its own failure domain: any error is its reason
        raise IngestError(failure_reason(e)) from e
    finally:
        budget.stop()
    return FileRead([_sound(d) for d in read.documents], read.notes, read.skipped)


def failure_reason(e: BaseException) -> str:
    """One line saying why reading a file failed, whatever the exception."""
    if isinstance(e, IngestError):
        return str(e)
    if isinstance(e, RecursionError):
        return "nested too deeply to read"
    if isinstance(e, MemoryError):
        return "too large to read into memory"
    if isinstance(e, UnicodeError):
        return f"undecodable text ({getattr(e, 'reason', None) or e})"
    if isinstance(e, OSError):
        return f"cannot read: {_os_reason(e)}"
    first = (str(e).splitlines() or [""])[0][:200]
    return f"{type(e).__name__}: {first}" if first else type(e).__name__


_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(value: str) -> str:
    """Lone surrogates (a JSON "\\ud800", an undecodable name) cannot be stored: U+FFFD instead;
    C1 control codes are the Windows-1252 punctuation they stand for, whichever reader read
    them."""
    value = windows_punctuation(value)
    return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value


def _sound(doc: Document) -> Document:
    """The document with every string storable as UTF-8."""
    return replace(
        doc,
        text=_clean(doc.text), title=_clean(doc.title), speaker=_clean(doc.speaker),
        source_id=None if doc.source_id is None else _clean(doc.source_id),
        meta={_clean(str(k)): _clean(str(v)) for k, v in doc.meta.items()},
    )
