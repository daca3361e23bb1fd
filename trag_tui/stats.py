"""What an index holds, for `trag-tui stats` and the app's timeline."""
from __future__ import annotations

import os
from typing import Any

from .storage.db import get_meta, has_table
from .storage.index import Index
from .text.safe import safe_line


def index_stats(index: Index) -> dict[str, Any]:
    """Counts, date range, documents per year, embedder and file size of an index."""
    conn = index.conn
    one = lambda sql: conn.execute(sql).fetchone()[0]  # noqa: E731
    lo, hi = conn.execute("SELECT min(date), max(date) FROM documents").fetchone()
    per_year = {
        str(y): n
        for y, n in conn.execute(
            "SELECT substr(date, 1, 4), count(*) FROM documents WHERE date IS NOT NULL "
            "GROUP BY 1 ORDER BY 1"
        )
    }
    size = 0
    for suffix in ("", "-wal"):
        p = str(index.path) + suffix
        if os.path.exists(p):
            size += os.path.getsize(p)
    return {
        "path": str(index.path),
        "files": one("SELECT count(*) FROM files"),
        "documents": one("SELECT count(*) FROM documents"),
        "chunks": one("SELECT count(*) FROM chunks"),
        "searchable_chunks": one("SELECT count(*) FROM chunks WHERE searchable = 1"),
        "first_date": lo,
        "last_date": hi,
        "undated_documents": one("SELECT count(*) FROM documents WHERE date IS NULL"),
        "documents_per_year": per_year,
        "date_sources": {s: n for s, n in conn.execute(
            "SELECT date_source, count(*) FROM documents GROUP BY 1 ORDER BY 2 DESC")},
        "spoken_periods": _spoken(conn),
        "embedder": index.meta("embedder"),
        "embedding_dim": int(index.meta("embedding_dim") or 0) or None,
        "schema": [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")],
        "file_bytes": size,
    }


def _spoken(conn) -> dict[str, Any]:
    """How many searched chunks speak of a period other than their publication (and from
    where: title, heading, text); zeros in a file from before periods were read. `current`:
    read by this version's rules; an index read by older ones is read again by its next
    `trag-tui index` run."""
    from .periods import VERSION

    if not has_table(conn, "chunk_periods"):
        return {"chunks": 0, "periods": 0, "by_source": {}, "current": False}
    return {
        "chunks": conn.execute("SELECT count(DISTINCT chunk_id) FROM chunk_periods").fetchone()[0],
        "periods": conn.execute("SELECT count(*) FROM chunk_periods").fetchone()[0],
        "by_source": {s: n for s, n in conn.execute(
            "SELECT source, count(*) FROM chunk_periods GROUP BY 1 ORDER BY 2 DESC")},
        "current": get_meta(conn, "period_rules") == VERSION,
    }


def render_stats(data: dict[str, Any], width: int = 40) -> str:
    """The stats as text, with a documents-per-year histogram."""
    lines = [
        f"index       {safe_line(data['path'])} ({data['file_bytes'] / 2**20:.1f} MB)",
        f"documents   {data['documents']} from {data['files']} files "
        f"({data['undated_documents']} without a date)",
        f"chunks      {data['chunks']} ({data['searchable_chunks']} searched)",
        f"periods     {data['spoken_periods']['chunks']} chunks speak of a period "
        f"({data['spoken_periods']['periods']} periods: "
        + (", ".join(f"{n} from {safe_line(s)}s" for s, n in data['spoken_periods']['by_source'].items())
           or "none read") + ")"
        + ("" if data['spoken_periods'].get('current', True)
           else "; read by older rules: `trag-tui index` reads them again"),
        f"dates       {safe_line(data['first_date'] or '-')} .. {safe_line(data['last_date'] or '-')}",
        f"embedder    {safe_line(data['embedder'] or '-')} ({data['embedding_dim'] or '-'}-d)",
        "",
        "documents per year",
    ]
    per_year = data["documents_per_year"]
    # A shared file's dates are data: a year that is not four digits is listed after the rest.
    # Years without documents are shown inside a span a screen can hold (not 0001..9999).
    known = sorted(int(y) for y in per_year if y.isascii() and y.isdigit())
    if known and known[-1] - known[0] < 200:
        known = list(range(known[0], known[-1] + 1))
    years = [f"{y:04d}" for y in known]
    years += sorted(y for y in per_year if not (y.isascii() and y.isdigit()))
    top = max(per_year.values(), default=0)
    for y in years:
        n = per_year.get(y, 0)
        bar = "#" * max(1 if n else 0, round(width * n / top))
        lines.append(f"  {safe_line(y)}  {bar:<{width}} {n}")
    return "\n".join(lines)
