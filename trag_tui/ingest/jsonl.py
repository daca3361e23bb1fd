"""JSON Lines collections: one dated document per line, as the evaluation corpora ship.

Collections are large (tens of MB, thousands of rows) and often assembled by scripts, so the
file is streamed line by line and a bad line costs only itself: it is counted and named in a
note, and the file fails only when no line at all is usable.
"""
from __future__ import annotations

import datetime as dt
import json
from dataclasses import replace
from pathlib import Path

from trag_tui.documents import DateSource, Document, IngestError
from trag_tui.ingest import FileRead
from trag_tui.temporal import document_dates as dates

#: Fields with a fixed meaning; every other scalar field is kept as metadata.
_CORE_FIELDS = {"id", "date", "title", "text", "source"}


class _BadLine(ValueError):
    """A line that cannot become a Document; the message says why."""


def read(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """Documents from a JSONL file with `id`, `date`, `title`, `text`, `source` and extra fields."""
    docs: list[Document] = []
    bad = no_text = 0
    first_bad = ""
    undated = unreadable_dates = 0
    seen_ids: dict[str, int] = {}
    duplicates, first_duplicate = 0, ""
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if lineno == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte-order mark
            if not raw.strip():
                continue
            try:
                doc, date_state = _document(raw, default_date)
            except _BadLine as e:
                bad += 1
                no_text += str(e) == "no text"
                first_bad = first_bad or f"line {lineno}: {e}"
                continue
            if doc.source_id is not None:
                n = seen_ids.get(doc.source_id, 0) + 1
                seen_ids[doc.source_id] = n
                if n > 1:  # two records under one id would be merged by every later lookup
                    duplicates += 1
                    first_duplicate = first_duplicate or f"{doc.source_id!r} at line {lineno}"
                    doc = replace(doc, source_id=f"{doc.source_id}#{n}")
            docs.append(doc)
            undated += date_state == "missing"
            unreadable_dates += date_state == "unreadable"

    if not docs:
        if not bad:
            raise IngestError("empty file")
        if no_text == bad:
            # Valid JSON records, just not documents (a question set beside a corpus, say).
            return FileRead(documents=[], skipped="JSON lines with no `text` field: not documents")
        raise IngestError(f"no valid JSONL records ({bad} bad {_lines(bad)}; first at {first_bad})")
    notes = []
    if bad:
        notes.append(f"{bad} bad {_lines(bad)} skipped (first at {first_bad})")
    if duplicates:
        notes.append(f"{duplicates} repeated {'id' if duplicates == 1 else 'ids'} kept apart as "
                     f"ID#2, ID#3... (first {first_duplicate})")
    fallback = "" if default_date is None else ": default date used"
    if undated:
        notes.append(f"{undated} {_documents(undated)} without a date{fallback}")
    if unreadable_dates:
        n = unreadable_dates
        notes.append(f"{n} {_documents(n)} with an unreadable date{fallback}")
    return FileRead(documents=docs, notes=notes)


def _document(raw: bytes, default_date: dt.date | None) -> tuple[Document, str]:
    """One line as a Document, and whether its date was "ok", "missing" or "unreadable"."""
    try:
        rec = json.loads(raw)
    except UnicodeDecodeError as e:
        raise _BadLine("not UTF-8") from e
    except json.JSONDecodeError as e:
        raise _BadLine(f"invalid JSON ({e.msg})") from e
    except RecursionError as e:
        raise _BadLine("JSON nested too deeply") from e
    if not isinstance(rec, dict):
        raise _BadLine(f"a JSON {type(rec).__name__}, not an object")
    text = rec.get("text")
    if not isinstance(text, str) or not text.strip():
        raise _BadLine("no text")

    raw_date = rec.get("date")
    day = dates.parse_iso(raw_date) if isinstance(raw_date, str) else None
    state = "ok" if day is not None else "missing" if raw_date in (None, "") else "unreadable"
    date_source: DateSource = "metadata"
    if day is None:
        day, date_source = (default_date, "default") if default_date else (None, "unknown")

    source_id = rec.get("id")
    meta = {k: _scalar(v) for k, v in rec.items() if k not in _CORE_FIELDS and _is_scalar(v)}
    doc = Document(
        text=text,
        title=_str(rec.get("title")),
        speaker=_str(rec.get("source")),
        date=day,
        date_source=date_source,
        source_id=None if source_id is None or source_id == "" else str(source_id),
        meta=meta,
    )
    return doc, state


def _is_scalar(v: object) -> bool:
    return isinstance(v, (str, int, float, bool)) and v != ""


def _scalar(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _str(v: object) -> str:
    return _scalar(v) if _is_scalar(v) else ""


def _lines(n: int) -> str:
    return "line" if n == 1 else "lines"


def _documents(n: int) -> str:
    return "document" if n == 1 else "documents"
