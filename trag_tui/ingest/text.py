"""Plain text and Markdown files: one document per file, dated as reliably as the file allows.

A user's notes and reports rarely carry clean metadata, so the date is looked for in order of
trust: front matter someone wrote on purpose, then the file name, then the first full date in
the text, then the user's default. The source of the date is recorded so an answer can say how
far to trust it. Files from other systems are often not UTF-8; they are still read (as
Windows-1252) with a note rather than refused.
"""
from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from trag_tui.documents import DateSource, Document
from trag_tui.errors import IngestError
from trag_tui.ingest.base import FileRead, check_time, read_bytes
from trag_tui.temporal import document_dates as dates

_SNIFF_BYTES = 8 * 1024
# Newlines are normalised before this is used.
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<body>.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
# Linear patterns: the spaces around a value or a heading's closing #s are cut by str methods,
# since a lazy group before `[ \t]*$` tries every split of a long run of spaces (quadratic).
_KEY_VALUE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)[ \t]*:(?P<value>.*)$")
_ATX_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t](?P<title>.+)$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
#: Front-matter keys with a fixed meaning; the other keys are kept as metadata.
_CORE_KEYS = {"title", "date", "id", "source", "speaker"}


def read(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """One Document from a .txt/.md file: title, date, speaker and id from front matter if any."""
    notes: list[str] = []
    raw = read_bytes(path, max_bytes)
    content = _decode(raw, notes).replace("\r\n", "\n").replace("\r", "\n")
    if not content.strip():
        raise IngestError("empty file")

    front, body = split_front_matter(content)
    body = body.strip()
    if not body:
        raise IngestError("empty file (front matter only)" if front else "empty file")

    day, source = _date(path, front, body, default_date, notes)
    meta = {k: v for k, v in front.items() if k not in _CORE_KEYS and v}
    doc = Document(
        text=body,
        title=front.get("title") or first_heading(body) or path.stem,
        speaker=front.get("source") or front.get("speaker") or "",
        date=day,
        date_source=source,
        source_id=front.get("id") or None,
        meta=meta,
    )
    return FileRead(documents=[doc], notes=notes)


def _decode(raw: bytes, notes: list[str]) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        # UTF-16 (as some Windows editors save) is full of NUL bytes but is still text.
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as e:
            raise IngestError("invalid UTF-16 text") from e
    if b"\x00" in raw[:_SNIFF_BYTES]:
        raise IngestError("binary file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass  # the common case for files from older Windows tools; handled below
    try:
        text = raw.decode("cp1252")
        notes.append("not UTF-8; decoded as cp1252")
    except UnicodeDecodeError:  # bytes cp1252 leaves undefined (0x81, 0x8d...)
        text = raw.decode("latin-1")
        notes.append("not UTF-8; decoded as latin-1")
    return text


def split_front_matter(content: str) -> tuple[dict[str, str], str]:
    """YAML-style `key: value` front matter between `---` lines, and the text after it.

    Only flat scalar keys are read (no nesting or lists): enough for title, date, id and
    source without a YAML dependency. Keys are lower-cased; surrounding quotes are removed.
    Expects "\n" line ends (read() normalises them first).
    """
    m = _FRONT_MATTER.match(content)
    if not m:
        return {}, content
    front: dict[str, str] = {}
    for line in m["body"].splitlines():
        kv = _KEY_VALUE.match(line)
        if kv:
            front[kv["key"].lower()] = _unquote(kv["value"].strip(" \t"))
    if not front:  # a leading "---" rule, not front matter
        return {}, content
    return front, content[m.end():]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def first_heading(body: str) -> str:
    """The first Markdown heading (ATX `# Title` or setext underline), outside code fences."""
    in_fence = False
    previous = ""
    for line in body.splitlines():
        check_time()
        if _FENCE.match(line):
            in_fence = not in_fence
            previous = ""
            continue
        if in_fence:
            continue
        m = _ATX_HEADING.match(line)
        if m:
            return _atx_title(m["title"]).strip()
        if previous.strip() and _SETEXT_UNDERLINE.match(line) and not _ATX_HEADING.match(previous):
            return previous.strip()
        previous = line
    return ""


def _atx_title(rest: str) -> str:
    """A heading's text after `#` and a space, without its closing sequence (`# Title ##`)."""
    text = rest.strip(" \t")
    bare = text.rstrip("#")
    if bare != text and bare[-1:] in (" ", "\t"):
        return bare.rstrip(" \t")
    return text


def _date(
    path: Path, front: dict[str, str], body: str, default_date: dt.date | None, notes: list[str]
) -> tuple[dt.date | None, DateSource]:
    written = front.get("date", "")
    if written:
        day = dates.parse_iso(written) or dates.date_from_text(written)
        if day is not None:
            return day, "metadata"
        notes.append(f"front-matter date {written!r} not understood")
    day = dates.date_from_filename(path.name)
    if day is not None:
        return day, "filename"
    day = dates.date_from_text(body)
    if day is not None:
        return day, "text"
    if default_date is not None:
        return default_date, "default"
    notes.append("no date found")
    return None, "unknown"
