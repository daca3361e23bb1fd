"""Plain-text rendering of search results for the terminal (no Textual)."""
from __future__ import annotations

import textwrap

from .retrieval.modes import SearchResult


def render_search(res: SearchResult, *, explain: bool = False) -> str:
    """Hits as a numbered, dated, cited list; the mode and why on top."""
    q = res.query
    span = ""
    if q.periods:
        span = " vs ".join(f"{a or '…'}..{b or '…'}" for a, b in
                           ((s.isoformat() if s else None, e.isoformat() if e else None) for s, e in q.periods))
    elif q.start or q.end:
        span = f"{q.start.isoformat() if q.start else '…'}..{q.end.isoformat() if q.end else '…'}"
    lines = [f"mode: {res.mode} ({q.intent}{', ' + span if span else ''}; as of {q.as_of.isoformat()})"]
    if res.scope is not None:
        lines.append(f"scope: {res.scope.label()}")
    if explain:
        lines.append(f"why:  {res.reason}")
        lines.append(f"query: {q.semantic_query!r}; confidence {res.confidence:.2f}")
    if res.empty_reason:
        lines.append(f"No results: {res.empty_reason}.")
        for n in res.nearest:
            lines.append(f"  nearest {n['side']}: {n['month']} ({n['documents']} matching passages)")
    group = None
    for i, h in enumerate(res.hits, 1):
        if h.group and h.group != group:
            group = h.group
            lines.append(f"-- {group} --")
        who = f" — {h.speaker}" if h.speaker else ""
        lines.append(f"[{i}] {h.date or 'undated'} {h.title}{who}  ({h.doc_id})")
        lines.append(textwrap.indent(textwrap.fill(h.snippet(), 96), "    "))
        if h.also:
            lines.append(f"    also in: {', '.join(h.also)}")
        if explain:
            s = h.scores
            keys: tuple[str, ...] = ("bm25", "dense", "fused", "decay", "centrality", "final")
            if "retold" in s:  # inside a named period: told before it (0.9) or not (1)
                keys = (*keys[:3], "retold", *keys[3:])
            lines.append("    " + "  ".join(f"{k}={s.get(k, 0.0):.4f}" for k in keys))
    return "\n".join(lines)
