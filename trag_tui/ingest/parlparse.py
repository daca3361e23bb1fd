"""ParlParse / TheyWorkForYou XML: the UK, Scottish and Northern Irish parliamentary record.

One Document per contribution (<speech>) and per written question or answer (<ques>,
<reply>), keyed by its GID so re-indexing a day replaces rather than duplicates it. ParlParse
rewrites a day as new versions (a, b, c...) and marks the old ones latest="no"; those are
skipped whole, so only the newest text of a day is indexed. The files come from the web, so
the parser resolves only the entities declared inside the file and never loads anything from
outside it.
"""
from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from lxml import etree

from trag_tui.documents import DateSource, Document
from trag_tui.errors import IngestError
from trag_tui.ingest import text
from trag_tui.ingest.base import FileRead, check_time, read_bytes, windows_punctuation
from trag_tui.temporal import document_dates as dates

#: Chamber by the ParlParse file-name prefix (`debates2009-10-27d.xml`, `spwa2009-10-29.xml`).
_CHAMBER_BY_PREFIX: dict[str, str] = {
    "debates": "House of Commons",
    "westminster": "Westminster Hall",
    "daylord": "House of Lords",
    "answers": "Commons written answers",
    "ministerial": "Commons written ministerial statements",
    "lordswms": "Lords written ministerial statements",
    "lordswrans": "Lords written answers",
    "standing": "Public Bill Committee",
    "ni": "Northern Ireland Assembly",
    "spwa": "Scottish Parliament written answers",
    "sp": "Scottish Parliament",
    "divisions": "House of Commons",
}
# Longest prefix first, so "spwa" wins over "sp" and "lordswms" is not read as anything shorter.
_PREFIX = re.compile(
    r"(%s)(?=\d{4})" % "|".join(sorted(_CHAMBER_BY_PREFIX, key=len, reverse=True))
)

#: Chamber by GID namespace, for files renamed away from the ParlParse pattern. Lords written
#: answers and statements share `wrans`/`wms` with the Commons; only the file name tells them apart.
_CHAMBER_BY_GID: dict[str, str] = {
    "debate": "House of Commons",
    "westminhall": "Westminster Hall",
    "lords": "House of Lords",
    "wrans": "Commons written answers",
    "wms": "Commons written ministerial statements",
    "standing": "Public Bill Committee",
    "ni": "Northern Ireland Assembly",
    "spwa": "Scottish Parliament written answers",
    "spor": "Scottish Parliament",
}
_GID = re.compile(r"uk\.org\.publicwhip/(?P<ns>[a-z]+)/(?P<day>[^.]+)\.")

_RECORDS = {"speech", "ques", "reply"}
_HEADINGS = {"major-heading", "minor-heading"}
_SPACE = re.compile(r"\s+")
_LIBXML_POSITION = re.compile(r", line \d+, column \d+$")
# Speaker attributes kept as metadata: {attribute: meta key}.
_META_ATTRS = {
    "speakerid": "speaker_id",
    "person_id": "person_id",
    "speakeroffice": "speaker_office",
    "url": "url",
}


def _safe_parser() -> etree.XMLParser:
    """An XML parser that reads only the file itself: no network, no external DTD or entity."""
    return etree.XMLParser(
        resolve_entities="internal",  # &mdash; declared in the file's own DTD subset, nothing else
        load_dtd=False,
        dtd_validation=False,
        attribute_defaults=False,
        no_network=True,
        huge_tree=False,  # keeps libxml2's limits on depth, text size and entity expansion
        remove_comments=True,
        remove_pis=True,
    )


def read(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """Documents from one ParlParse XML file (nothing for superseded versions of a day)."""
    root = _parse(read_bytes(path, max_bytes))
    if not isinstance(root.tag, str) or root.tag != "publicwhip":
        raise IngestError(f"XML but not ParlParse/TheyWorkForYou (root <{root.tag}>)")
    if root.get("latest") == "no":
        return FileRead(documents=[], skipped='superseded version (latest="no")')

    prefix = _PREFIX.match(path.name)
    if prefix and prefix.group(1) == "divisions":
        # The speeches in a divisions file are copies of the day's debates file; votes are not text.
        return FileRead(documents=[], notes=["divisions-only file: votes are not indexed"])

    chamber = _CHAMBER_BY_PREFIX[prefix.group(1)] if prefix else _chamber_from_gids(root)
    bill = root.find("bill")
    label = f"{chamber} ({bill.get('title')})" if bill is not None and bill.get("title") else chamber
    day, date_source = _file_date(path, root)
    undated = day is None
    if undated and default_date is not None:
        day, date_source = default_date, "default"

    docs: list[Document] = []
    empty = 0
    major = minor = ""
    for el in root.iter(*_HEADINGS, *_RECORDS):
        check_time()
        if el.tag == "major-heading":
            major, minor = _flatten(el), ""
        elif el.tag == "minor-heading":
            minor = _flatten(el)
        elif text := _record_text(el):
            docs.append(_document(
                el, text,
                title=_title(label, chamber, major, minor),
                chamber=chamber,
                day=day,
                date_source=date_source,
                # A record without a GID still needs a key that is stable across re-indexing.
                fallback_id=f"{path.name}#{len(docs) + empty}",
            ))
        else:
            empty += 1

    notes: list[str] = []
    if empty:
        notes.append(f"{_count(empty, 'empty record')} skipped")
    if not docs:
        notes.append("no speeches or written questions/answers in file")
    elif undated:
        notes.append(f"{_count(len(docs), 'document')} without a date"
                     + ("" if default_date is None else ": default date used"))
    return FileRead(documents=docs, notes=notes)


def read_changedates(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """Skip ParlParse's `changedates.txt` version log; any other file of that name is plain text."""
    data = read_bytes(path, max_bytes)
    lines = data.decode("latin-1").split()
    if lines and all(re.fullmatch(r"\d+,[\w.-]+\.xml", line) for line in lines):
        return FileRead(documents=[], skipped="ParlParse version log (changedates.txt)")
    return text.read(path, default_date=default_date, max_bytes=max_bytes)


def _parse(data: bytes) -> etree._Element:
    try:
        return etree.fromstring(data, parser=_safe_parser())
    except etree.XMLSyntaxError as e:
        msg = _SPACE.sub(" ", _LIBXML_POSITION.sub("", e.msg or str(e))).strip().rstrip(".")
        if "amplification" in msg:
            msg = "entity expansion too large (an entity bomb?)"
        elif m := re.match(r"Entity '([^']*)' not defined", msg):
            # libxml2 says the same of an external (SYSTEM) entity, which is never loaded.
            msg = f"entity '{m[1]}' is undefined or external (external entities are not loaded)"
        line, column = e.position if e.position else (e.lineno, 0)
        raise IngestError(f"malformed XML at line {line}, column {column}: {msg}") from e


def _chamber_from_gids(root: etree._Element) -> str:
    for el in root.iter(*_RECORDS):
        m = _GID.match(el.get("id", ""))
        if m and m["ns"] in _CHAMBER_BY_GID:
            return _CHAMBER_BY_GID[m["ns"]]
    return "Parliament"


def _file_date(path: Path, root: etree._Element) -> tuple[dt.date | None, DateSource]:
    """The sitting date: from the file name, else from the XML (a date attribute or the GIDs)."""
    d = dates.date_from_filename(path.name)
    if d is not None:
        return d, "filename"
    d = dates.parse_iso(root.get("date", ""))
    if d is None:
        for el in root.iter(*_RECORDS):
            m = _GID.match(el.get("id", ""))
            if m:  # a GID names its day: .../debate/2009-10-27d.141.2
                d = dates.date_from_filename(m["day"])
                break
    return (d, "xml") if d is not None else (None, "unknown")


def _document(el: etree._Element, text: str, *, title: str, chamber: str, day: dt.date | None,
              date_source: DateSource, fallback_id: str) -> Document:
    meta = {"chamber": chamber, "kind": el.tag}
    for attr, key in _META_ATTRS.items():
        value = el.get(attr)
        if value:
            meta[key] = _clean(value)
    return Document(
        text=text,
        title=title,
        speaker="" if el.get("nospeaker") == "true" else _clean(el.get("speakername") or ""),
        date=day,
        date_source=date_source,
        source_id=el.get("id") or fallback_id,
        meta=meta,
    )


def _title(label: str, chamber: str, major: str, minor: str) -> str:
    # Committee files open with a major heading that only repeats the chamber's name.
    parts = [h for h in (major, minor) if h and h.lower() != chamber.lower()]
    return f"{label}: {' / '.join(parts)}" if parts else label


def _record_text(el: etree._Element) -> str:
    """The paragraphs of a record one per line, and each table row as one line of cells."""
    lines: list[str] = []
    _block_lines(el, lines)
    return "\n".join(lines)


def _block_lines(el: etree._Element, lines: list[str]) -> None:
    for child in el:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "table":
            for row in child.iter("tr"):
                cells = [_flatten(cell) for cell in row if isinstance(cell.tag, str)]
                line = " | ".join(c for c in cells if c)
                if line:
                    lines.append(line)
        elif child.tag != "p" and child.find(".//p") is not None:
            _block_lines(child, lines)  # a wrapper (blockquote, div) around paragraphs
        else:
            line = _flatten(child)
            if line:
                lines.append(line)


def _flatten(el: etree._Element) -> str:
    """An element's text with nested markup (phrase, i, span...) dropped, spaces collapsed."""
    parts: list[str] = []
    _collect(el, parts)
    return _clean("".join(parts))


def _collect(el: etree._Element, parts: list[str]) -> None:
    if el.text:
        parts.append(el.text)
    for child in el:
        if isinstance(child.tag, str):  # only elements carry text of their own; tails always count
            if child.tag == "br":
                parts.append(" ")
            _collect(child, parts)
        if child.tail:
            parts.append(child.tail)


def _clean(s: str) -> str:
    return _SPACE.sub(" ", windows_punctuation(s)).strip()


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
