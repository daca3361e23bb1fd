"""The numbered sources of the selected answer, and the passage of the one selected.

Moving through the list previews a passage beside it on wide screens; choosing one (Enter or a
click) posts `SourceOpened`, which the screen turns into a full-screen reader where there is no
room beside the list. The pane shows one answer's sources at a time; the screen tells it which.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ...text.safe import safe_line
from .passage import PassageView, markdown_text

SCORE_KEYS = ("bm25", "dense", "fused", "retold", "decay", "centrality", "final")


@dataclass
class SourceOpened(Message):
    """The user chose a source to read in full."""

    source: Any
    query: str
    markdown: str | None = None  # the passage as written, when the source is a Markdown file


# A Markdown heading's `#`s, left mid-line once a passage's line breaks were folded.
_HEADING_MARKS = re.compile(r"(?:^|(?<=\s))#{1,6}\s+")


def folded_markdown(text: str) -> str:
    """A folded Markdown passage (one line) without the `#`s of the headings inside it."""
    return _HEADING_MARKS.sub("", text or "")


def snippet(text: str, width: int = 160) -> str:
    """A passage squeezed to one short paragraph."""
    text = re.sub(r"\s+", " ", text or "").strip()
    return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"


def source_prompt(source: Any, scores: dict[str, float] | None = None,
                  text: str | None = None, via: str = "") -> Text:
    """How one source reads in the list: number, date, title, speaker, then a snippet (of
    `text` when given: a Markdown source's rendered text, without its `**` and `#`); with
    scores, the named thing a second pass inside the period found it for (`via`)."""
    line = Text()
    line.append(f"[{source.number}] ", style="bold")
    line.append(f"{source.date or 'undated'}  ", style="bold cyan")
    line.append(source.title or source.doc_id)
    if getattr(source, "speaker", ""):
        line.append(f" — {source.speaker}", style="italic")
    line.append("\n")
    line.append(snippet(source.passage if text is None else text), style="dim")
    if scores:
        line.append("\n")
        line.append("  ".join(f"{k} {scores[k]:.3f}" for k in SCORE_KEYS if k in scores),
                    style="magenta")
        if via:
            line.append(f"\nfound for: {via} (named by a first-pass hit)", style="magenta")
    return line


class SourcesPane(Vertical):
    """The list of sources and, on wide screens, the selected passage."""

    explain: reactive[bool] = reactive(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sources: list[Any] = []
        self.query_text = ""
        self.markdown: dict[int, str] = {}
        self.owner = ""  # which answer the sources belong to, for the border
        self._scores: dict[str, dict[str, float]] = {}
        self._via: dict[str, str] = {}
        # Options of each fill are named after it: a highlight message from an earlier fill
        # (another answer's sources, selected a moment ago) arrives late and must be ignored.
        self._fill_count = 0

    def compose(self) -> ComposeResult:
        yield OptionList(id="source-list")
        yield PassageView(id="passage")

    def on_mount(self) -> None:
        self.border_title = "Sources"
        self.show_sources([], "", [])

    def show_sources(self, sources: list[Any], query: str, hits: list[Any] | None = None, *,
                     markdown: dict[int, str] | None = None, owner: str = "") -> None:
        """Show the sources of an answer; `hits` carry the scores shown in the explain view,
        `markdown` the passages of Markdown sources as written, `owner` names the answer."""
        self.sources, self.query_text = list(sources), query
        self.markdown, self.owner = dict(markdown or {}), owner
        self._scores = {h.doc_id: dict(h.scores) for h in (hits or [])}
        self._via = {h.doc_id: h.via for h in (hits or []) if getattr(h, "via", "")}
        self._fill(keep_highlight=False)
        passage = self.query_one(PassageView)
        if self.sources:
            self._preview(self.sources[0])
        else:
            passage.clear()

    def _preview(self, source: Any) -> None:
        self.query_one(PassageView).show(source, self.query_text, self.markdown.get(source.number))

    def watch_explain(self, _: bool) -> None:
        if self.is_mounted:
            self._fill(keep_highlight=True)

    def _fill(self, *, keep_highlight: bool) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted if keep_highlight else None
        options.clear_options()
        self._fill_count += 1
        if not self.sources:
            empty = f"No sources for {self.owner}." if self.owner else \
                "No sources yet: ask a question."
            options.add_option(Option(empty, disabled=True))
            self.border_subtitle = ""
            return
        group = None
        items: list[Option] = []
        for n, source in enumerate(self.sources):
            label = getattr(source, "group", None)
            if label and label != group:
                group = label
                items.append(Option(Text(f"── {label} ──", style="bold"), disabled=True))
            # A restored answer has no search result: its sources keep their final score.
            scores = (self._scores.get(source.doc_id) or _final(source)) if self.explain else None
            # A Markdown source's snippet is its matched window without the `**` and `_`.
            text = markdown_text(folded_markdown(source.passage)).plain \
                if source.number in self.markdown else None
            via = self._via.get(source.doc_id, "") if self.explain else ""
            items.append(Option(source_prompt(source, scores, text, safe_line(via)),
                                id=self._option_id(n)))
        options.add_options(items)
        options.highlighted = highlighted if highlighted is not None else _first_enabled(items)
        self.border_subtitle = f"{len(self.sources)} for {self.owner or 'the answer'}"

    def _option_id(self, n: int) -> str:
        return f"source-{self._fill_count}-{n}"

    def _source_for(self, option: Option) -> Any | None:
        """The source an option of the current fill stands for (None for any other option)."""
        prefix = f"source-{self._fill_count}-"
        if option.id and option.id.startswith(prefix):
            n = int(option.id.removeprefix(prefix))
            return self.sources[n] if n < len(self.sources) else None
        return None

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        source = self._source_for(event.option)
        if source is not None:
            self._preview(source)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        source = self._source_for(event.option)
        if source is not None:
            self.post_message(self.opened(source))

    def opened(self, source: Any) -> SourceOpened:
        """The message that opens a source of this pane to read."""
        return SourceOpened(source, self.query_text, self.markdown.get(source.number))

    def select(self, number: int) -> Any | None:
        """Highlight the source numbered `number` (as cited in the answer); return it."""
        for n, source in enumerate(self.sources):
            if source.number == number:
                options = self.query_one(OptionList)
                options.highlighted = options.get_option_index(self._option_id(n))
                self._preview(source)
                return source
        return None


def _final(source: Any) -> dict[str, float] | None:
    score = getattr(source, "score", 0.0)
    return {"final": score} if score else None


def _first_enabled(items: list[Option]) -> int | None:
    for i, item in enumerate(items):
        if not item.disabled:
            return i
    return None
