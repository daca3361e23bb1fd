"""What each chunk speaks of: the periods of its document's title, of its heading, of its text.

A document keeps one publication date, what it could know; as_of and leakage stay on it. The
periods it speaks of are kept beside it, per chunk, so a question about May 2024's inflation
finds the release of 19 June 2024 (`temporal.spoken` reads them). The title's reference period
speaks for the whole document, a heading's for the text under it, a dated expression for its
own chunk. Read once per document after each indexing run, and read again for every document
when the reading changes (`VERSION`), without embedding anything again.
"""
from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .storage.db import id_batches, read_again_if_changed, sqlite3, transaction
from .storage.store import from_day, to_day
from .temporal.spoken import Spoken, spoken_periods

VERSION = "spoken-13"  # raised when the reading changes: every document is read again
BATCH = 200  # documents per transaction
SOURCES = ("title", "heading", "text")  # where a period was read, strongest first
_HEADING = re.compile(r"(?m)^[ \t]*(#{1,6})[ \t]+(\S[^\n]*)$")


@dataclass(frozen=True)
class ChunkRow:
    """A chunk as the reading needs it."""

    id: int
    parent_id: int | None
    searchable: bool
    text: str
    start_char: int
    end_char: int


@dataclass(frozen=True)
class Period:
    """One period a chunk speaks of, as stored."""

    chunk_id: int
    start_day: int
    end_day: int
    source: str
    expression: str


def document_periods(title: str, published: int | None,
                     chunks: Sequence[ChunkRow]) -> list[Period]:
    """The periods each searchable chunk of a document speaks of (pure).

    An undated document speaks of nothing that can be placed: "last year" needs a year."""
    said = from_day(published)
    if said is None:
        return []
    searched = [c for c in chunks if c.searchable]
    text = _text_of(chunks)
    found: dict[tuple[int, int, int], Period] = {}

    def add(chunk_ids, spoken: Spoken, source: str) -> None:
        lo, hi = to_day(spoken.start), to_day(spoken.end)
        assert lo is not None and hi is not None
        for cid in chunk_ids:
            # the strongest source of a period wins: a title's over the same words in the text
            found.setdefault((cid, lo, hi), Period(cid, lo, hi, source, spoken.expression))

    for spoken in spoken_periods(title or "", said):
        add([c.id for c in searched], spoken, "title")
    overlapping = _Overlaps(searched)
    read: dict[str, list[Spoken]] = {}  # a heading repeated ("Notes") is read once
    for at, end, heading in _sections(text):
        if heading not in read:
            read[heading] = spoken_periods(heading, said)
        if read[heading]:
            under = overlapping(at, end)
            for spoken in read[heading]:
                add(under, spoken, "heading")
    for spoken in spoken_periods(text, said):
        add(overlapping(spoken.at, spoken.at + 1), spoken, "text")
    return list(found.values())


def _text_of(chunks: Sequence[ChunkRow]) -> str:
    """The document's text, rebuilt from its top-level chunks (which do not overlap), each at
    its own offset so positions match the chunks' `start_char`."""
    top = sorted((c for c in chunks if c.parent_id is None), key=lambda c: c.start_char)
    parts: list[str] = []
    at = 0
    for c in top:
        if c.start_char < at:
            continue
        parts.append(" " * (c.start_char - at) + c.text)
        at = c.start_char + len(c.text)
    return "".join(parts)


def _sections(text: str) -> list[tuple[int, int, str]]:
    """(start, end, heading) of each Markdown section: a heading speaks for the text under it,
    up to the next heading of its level or above. One pass with a stack of open sections, so
    a text of many thousand headings costs no more than its length."""
    out: list[tuple[int, int, str]] = []
    open_: list[tuple[int, int]] = []  # (level, index in out) of sections not closed yet
    for m in _HEADING.finditer(text):
        level = len(m.group(1))
        while open_ and open_[-1][0] >= level:
            _, i = open_.pop()
            out[i] = (out[i][0], m.start(), out[i][2])
        open_.append((level, len(out)))
        out.append((m.start(), len(text), m.group(2).strip(" #")))
    return out


class _Overlaps:
    """The ids of the chunks overlapping a span [at, end), in the order given, found by
    bisection on their starts: a chunk is no longer than the longest, so only those starting
    within that reach of the span can overlap it."""

    def __init__(self, chunks: Sequence[ChunkRow]):
        self.ordered = sorted(enumerate(chunks), key=lambda nc: (nc[1].start_char, nc[0]))
        self.starts = [c.start_char for _, c in self.ordered]
        self.reach = max((c.end_char - c.start_char for c in chunks), default=0)

    def __call__(self, at: int, end: int) -> list[int]:
        lo = bisect.bisect_right(self.starts, at - self.reach - 1)
        hi = bisect.bisect_left(self.starts, end)
        return [c.id for _, c in sorted(nc for nc in self.ordered[lo:hi] if nc[1].end_char > at)]


def update_periods(conn: sqlite3.Connection) -> dict:
    """Read the periods of documents not read yet (all of them when the reading changed)."""
    read_again_if_changed(conn, "period_rules", VERSION, ("periods_seen", "chunk_periods"))
    todo = conn.execute(
        "SELECT d.id, d.title, d.day FROM documents d LEFT JOIN periods_seen s "
        "ON s.document_id = d.id WHERE s.document_id IS NULL ORDER BY d.id").fetchall()
    stored = 0
    for i in range(0, len(todo), BATCH):
        docs = todo[i:i + BATCH]
        chunks: dict[int, list[ChunkRow]] = {}
        for ids, marks in id_batches([d[0] for d in docs]):
            for row in conn.execute(
                    "SELECT document_id, id, parent_id, searchable, text, start_char, end_char "
                    f"FROM chunks WHERE document_id IN ({marks})", ids):
                chunks.setdefault(row[0], []).append(ChunkRow(row[1], row[2], bool(row[3]),
                                                              *row[4:]))
        rows = [p for doc_id, title, day in docs
                for p in document_periods(title, day, chunks.get(doc_id, []))]
        with transaction(conn):
            conn.executemany(
                "INSERT INTO chunk_periods (chunk_id, start_day, end_day, source, expression) "
                "VALUES (?, ?, ?, ?, ?)",
                [(p.chunk_id, p.start_day, p.end_day, p.source, p.expression) for p in rows])
            conn.executemany("INSERT INTO periods_seen (document_id) VALUES (?)",
                             [(d[0],) for d in docs])
        stored += len(rows)
    return {"documents": len(todo), "periods": stored}
