"""JSON Lines collections: one dated document per line, as the evaluation corpora ship.

Collections are large (tens of MB, thousands of rows) and often assembled by scripts, so the
file is streamed line by line and a bad line costs only itself: it is counted and named in a
note, and the file fails only when no line at all is usable.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

from trag_tui.documents import DateSource, Document
from trag_tui.errors import IngestError
from trag_tui.ingest.base import FileRead, check_time
from trag_tui.temporal import document_dates as dates
from trag_tui.text.safe import json_object

#: Fields with a fixed meaning; every other scalar field is kept as metadata.
_CORE_FIELDS = {"id", "date", "title", "text", "source"}
#: Where a crawled record keeps the page it came from.
_URL_FIELDS = ("url", "link", "href", "source_url", "permalink")


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
            check_time()
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
        rec = json_object(raw)
    except ValueError as e:
        raise _BadLine(str(e)) from None
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
        title=_str(rec.get("title")) or title_from_url(
            next((meta[k] for k in _URL_FIELDS if k in meta), "")),
        speaker=_str(rec.get("source")),
        date=day,
        date_source=date_source,
        source_id=None if source_id is None or source_id == "" else str(source_id),
        meta=meta,
    )
    return doc, state


#: A page name that says nothing of the page ("index.html", "story.amp").
_PAGE_NAMES = {"index", "default", "article", "story", "amp", "main", "page"}
_SLUG_WORD = re.compile(r"[^\W\d_]{2,}")


def title_from_url(url: str) -> str:
    """A web address's page name ("…/2022/06/15/business/ford-recall/index.html" →
    "ford-recall"), for a crawled article whose title was lost: publishers write the slug from
    the headline, and an untitled result is one a reader cannot tell from its neighbours nor a
    search find by its subject. It is kept as written, hyphens and all, so no one takes it for
    the headline itself. Ids and page names after the slug ("…/123456789/", "…/h_c164ac93…")
    are passed over, and so is a date at its end; a name of one word is a section, not a
    title."""
    if not url.startswith(("http://", "https://")):
        return ""
    for seg in reversed([unquote(seg) for seg in urlsplit(url).path.split("/") if seg]):
        stem = seg.rsplit(".", 1)[0] if "." in seg else seg
        tokens = [t for t in re.split(r"[-_+\s]+", stem) if t]
        digits = 0
        while digits < len(tokens) and tokens[len(tokens) - 1 - digits].isdigit():
            digits += 1
        if digits >= 2 or digits == 1 and len(tokens[-1]) >= 5:  # "…-07-12-22", "…-60506682"
            tokens = tokens[:-digits]
        words = [t for t in tokens if _SLUG_WORD.fullmatch(t)]
        if stem.lower() in _PAGE_NAMES or not words or len(words) == 1 and len(tokens) > 1:
            continue  # "index.html", "123456789", "h_c164ac93…": the slug is further up
        if len(words) >= 2 and 2 * len(words) >= len(tokens):
            return "-".join(tokens)
        return ""
    return ""


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
