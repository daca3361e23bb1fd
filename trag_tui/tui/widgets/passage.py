"""The whole passage of one source, with the words the search looked for highlighted.

The highlighted words are those of the semantic query (the question with its time words taken
out), so the user sees why the passage matched, not why it was dated.
"""
from __future__ import annotations

import re
from typing import Any

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

STOPWORDS = frozenset(
    "a an and are as at be been but by did do does for from had has have how i in is it its "
    "of on or say said the their there these they this those to was were what when where which "
    "who whom why will with would about than then that".split()
)
_WORD = re.compile(r"\w+", re.UNICODE)
_SUFFIX = re.compile(r"(ing|ed|es|s|ly)$")


def query_words(query: str) -> list[str]:
    """The content words of a query, reduced to a crude stem so "taxes" also finds "tax"."""
    out: list[str] = []
    for word in _WORD.findall(query.lower()):
        if word in STOPWORDS or len(word) < 3:
            continue
        stem = _SUFFIX.sub("", word) if len(word) > 4 else word
        if stem not in out:
            out.append(stem)
    return out


def highlight(text: str, query: str, style: str = "bold reverse") -> Text:
    """The text with every word that starts with a query word's stem highlighted."""
    rich = Text(text)
    words = query_words(query)
    if words:
        pattern = r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\w*"
        rich.highlight_regex(re.compile(pattern, re.IGNORECASE), style)
    return rich


def source_heading(source: Any) -> str:
    """`[n] date · title — speaker (doc id)`, the line above a source's text."""
    who = f" — {source.speaker}" if getattr(source, "speaker", "") else ""
    return f"[{source.number}] {source.date or 'undated'} · {source.title}{who}  ({source.doc_id})"


class PassageView(VerticalScroll):
    """Shows one source's full passage; scrolls when it is long."""

    can_focus = True

    def compose(self):
        yield Static("Select a source to read its whole passage.", id="passage-heading",
                     markup=False)
        yield Static("", id="passage-text")

    def show(self, source: Any, query: str) -> None:
        """Show a source's passage with the query's words highlighted."""
        heading = source_heading(source)
        also = list(getattr(source, "also", None) or [])
        if also:
            heading += "\nalso in: " + ", ".join(also)
        self.query_one("#passage-heading", Static).update(heading)
        self.query_one("#passage-text", Static).update(highlight(source.passage, query))
        self.scroll_home(animate=False)

    def clear(self) -> None:
        """Back to the empty hint."""
        self.query_one("#passage-heading", Static).update("Select a source to read its whole passage.")
        self.query_one("#passage-text", Static).update("")
