"""The unit every ingester produces and the indexer consumes.

Kept free of I/O so that format readers, chunking and tests share one plain value type.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Literal

#: How a document's date was found; stored in the index so a user can judge how far to trust it.
DateSource = Literal["filename", "xml", "metadata", "text", "default", "unknown"]


@dataclass(frozen=True)
class Document:
    """One dated unit of text: a speech, a written answer, a report, an article."""

    text: str
    title: str = ""
    speaker: str = ""  # speaker for debates; publisher/source for reports and news
    date: dt.date | None = None
    date_source: DateSource = "unknown"
    source_id: str | None = None  # the source's own id (ParlParse GID, JSONL id, front-matter id)
    meta: dict[str, str] = field(default_factory=dict)  # extra fields: chamber, kind, url...


