"""The numbered sources an answer may cite: fetched, put in the mode's order, windowed.

Each hit becomes a source with a number, a date and a window of its passage around the match
(about 320 tokens, after the passage's opening sentence when the window starts later: a report
or a story says its point first). That window, the same with or without a model, is what is
ranked, quoted and checked against. The mode decides the order: newest first when the present
state is asked for, date order inside a period, older then newer blocks for change over time,
one block per period for a comparison. The passages are read from the index file, the record
of the text whichever backend found the hits.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..models.generation import estimate_tokens
from ..temporal.calendar import iso_day
from ..text import sentences
from ..text.labels import period_key, period_label
from ..text.words import STOPWORDS, content_words
from . import lexicon_en as en

SOURCE_WINDOW = 320  # estimated tokens of each source's passage kept around its match
GROUP_MODES = ("evolution", "comparison")  # the modes whose sources come in labelled blocks

TokenCounter = Callable[[str], int]


@dataclass(frozen=True)
class Source:
    """One numbered source as the model and the reader see it."""

    number: int
    doc_id: str
    date: str | None
    title: str
    speaker: str
    passage: str
    also: tuple[str, ...] = ()
    group: str | None = None
    chunk_id: int = 0
    score: float = 0.0
    role: str = ""  # the office a speaker speaks in ("The Prime Minister"), where recorded

    def heading(self) -> str:
        """`date | title | speaker`, the line that introduces the source."""
        parts = [self.date or "undated", self.title or self.doc_id]
        if self.speaker:
            parts.append(self.speaker)
        return " | ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"number": self.number, "doc_id": self.doc_id, "date": self.date,
                "title": self.title, "speaker": self.speaker, "role": self.role,
                "group": self.group,
                "also": list(self.also), "chunk_id": self.chunk_id,
                "score": round(self.score, 6), "passage": self.passage}


def query_periods(result) -> list[tuple[dt.date | None, dt.date | None]]:
    """The periods a comparison asks about, in the order the parsed question gives them."""
    periods = list(getattr(result.query, "periods", None) or [])
    if not periods and result.periods:
        periods = list(result.periods)
    if not periods:
        periods = [(result.query.start, result.query.end)]
    return [(iso_day(a), iso_day(b)) for a, b in periods]


# -- passages --------------------------------------------------------------------------------


def fetch_quotes(conn, hits: Sequence[Any]) -> dict[int, tuple[str, str]]:
    """For each hit: the passage it is quoted with, and the office its speaker speaks in.

    Passages are cut from their document by word count, so one may end or begin inside a
    sentence ("The Minnesota farm price index rose in June" | "to a level 3 percent higher…"):
    the sentence is completed from the passage beside it, as the document says it, so a quote
    never stops short of what its source states."""
    ids = [h.chunk_id for h in hits]
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT c.id, coalesce(p.text, c.text), d.meta, c.document_id, "
        "coalesce(p.start_char, c.start_char), coalesce(p.end_char, c.end_char) FROM chunks c "
        "LEFT JOIN chunks p ON p.id = c.parent_id JOIN documents d ON d.id = c.document_id "
        f"WHERE c.id IN ({marks})", ids).fetchall()
    out = {}
    whole: dict[tuple, str] = {}  # hits that are children of one passage share its completion
    for cid, text, meta, doc, start, end in rows:
        key = (doc, start, end) if start is not None and end is not None else (cid,)
        if key not in whole:
            whole[key] = _whole_sentences(conn, text, doc, start, end)
        out[cid] = (whole[key], _role(meta))
    return {h.chunk_id: out.get(h.chunk_id, (h.text, "")) for h in hits}


# A sentence ends at its stop or at the end of its line (a heading, a list item, a caption).
_SENTENCE_END = re.compile(r"[.!?][\"”’')\]]*$")
_FIRST_SENTENCE = re.compile(r"^\S[^\n]{0,400}?(?:[.!?][\"”’')\]]*(?=\s|$)|(?=\s*\n))")
_BETWEEN_SENTENCES = re.compile(r"[.!?][\"”’')\]]*\s+|\s*\n\s*")


def _cut_before(text: str) -> bool:
    """Does a passage's text begin inside a sentence (a lower-case word, as the rest of one)?"""
    first = text.lstrip()[:1]
    return first.islower()


def _whole_sentences(conn, text: str, doc: int, start: int | None, end: int | None) -> str:
    """The passage with a sentence cut at either end completed from its neighbours."""
    if start is None or end is None or not text:
        return text
    body = text.strip()
    if not _SENTENCE_END.search(body):
        after = conn.execute(
            "SELECT text FROM chunks WHERE document_id = ? AND parent_id IS NULL AND start_char >= ? "
            "ORDER BY start_char LIMIT 1", (doc, end)).fetchone()
        rest = _FIRST_SENTENCE.match(after[0]) if after and _cut_before(after[0]) else None
        if rest is not None:
            text = text.rstrip() + " " + rest.group(0)
    if _cut_before(body):
        before = conn.execute(
            "SELECT text FROM chunks WHERE document_id = ? AND parent_id IS NULL AND end_char <= ? "
            "ORDER BY start_char DESC LIMIT 1", (doc, start)).fetchone()
        tail = before[0].strip() if before else ""
        if tail and not _SENTENCE_END.search(tail):
            ends = [m.end() for m in _BETWEEN_SENTENCES.finditer(tail)]
            head = tail[ends[-1]:] if ends else ""
            if head and len(head) <= 400:
                text = head + " " + text.lstrip()
    return text


def _role(meta: str | None) -> str:
    try:
        data = json.loads(meta or "{}")
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    role = data.get("speaker_office") or data.get("role") or ""
    return role if isinstance(role, str) else ""


# A Markdown heading ends at its line, which folding the whitespace would lose ("# Net migration:
# 283,000 in the year to September 2018 Net migration to the UK…" read as one sentence); it is
# closed the way Markdown allows, "# Heading #", so the sentence splitter still sees its end.
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]+[^\s#]")


def _close_lines(text: str) -> str:
    """The text with its headings and short lines closed, so folding its whitespace keeps
    where each ends (`clean`)."""
    if "#" in text:
        lines = text.split("\n")
        for i, line in enumerate(lines):
            if _HEADING.match(line):
                lines[i] = line.rstrip(" \t#") + " #"
        text = "\n".join(lines)
    return _PARAGRAPH.sub(_close_line, text)


# A short paragraph that ends without a sentence's closing mark is a line of its own (a byline,
# a story's summary points, a caption, a title), not the start of the sentence after it:
# folded, "Aye Aye Win, AP A strong quake collapsed a bridge … YANGON, Burma (AP) — A strong
# earthquake…" was read as one sentence, too long to quote down to its figure. It is closed as
# a heading, which the sentence splitter ends and the quote shows without its marks. Not closed:
# a line that ends on "and" or "of" (it goes on after the break), a figure alone ("$5", then
# "That's how much a gallon … costs"), a label in capitals ("QUIZ TIME", "USA TODAY": what
# follows is read with it, a dateline or a newsletter's furniture), a quiz's lettered choice.
_PARAGRAPH = re.compile(r"(?:(?<=\n\n)|^)[ \t]*([^\s#][^\n]{0,148}?)[ \t]*(?=\n[ \t]*\n)")
_CLOSED = tuple(".!?:;,\"”’')]…-—–")
_OPEN_LINE = re.compile(r"^[A-Z][.)]\s|^[^a-z]*$")  # a lettered choice; no lower-case letter


def _close_line(m: re.Match) -> str:
    line = m.group(1)
    if line.endswith(_CLOSED) or line.rsplit(None, 1)[-1] in STOPWORDS \
            or _OPEN_LINE.search(line) or len(re.findall(r"[^\W\d_]{2,}", line)) < 2:
        return m.group(0)
    return f"# {line} #"


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", _close_lines(text or "")).strip()


def window(passage: str, chunk: str, limit: int, count: TokenCounter) -> tuple[str, bool]:
    """At most `limit` tokens of a passage, centred on the chunk that matched, after the
    passage's opening sentence when that is short (`_with_lead`).

    Returns the text and whether it was shortened. Cuts fall on sentence ends where that
    keeps most of the text, and are marked with an ellipsis.
    """
    passage, chunk = clean(passage), clean(chunk)
    if not passage:
        passage = chunk
    if count(passage) <= limit:
        return passage, False
    words = passage.split(" ")
    anchor = passage.find(chunk[:80]) if chunk else -1
    first = len(passage[:anchor].split()) if anchor > 0 else 0
    n_chunk = len(chunk.split()) if anchor >= 0 and chunk else len(words)
    lo, hi = first, min(len(words), first + max(n_chunk, 1))

    def fits(a: int, b: int) -> bool:
        return count(_join(words, a, b)) <= limit

    # Shrink the matched chunk from its end until it fits, then grow around it.
    if not fits(lo, lo + 1):
        return "…", True
    starts: list[int] = []
    if not fits(lo, hi):
        good, bad = lo + 1, hi
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if fits(lo, mid) else (good, mid)
        hi = good
    else:
        n = len(words)
        # Grow evenly on both sides, then into whichever side still has room; each step is a
        # binary search so a long parent costs a few tokenizer calls, not one per word.
        e = _largest(max(lo, n - hi), lambda e: fits(max(0, lo - e), min(n, hi + e)))
        lo, hi = max(0, lo - e), min(n, hi + e)
        hi += _largest(n - hi, lambda r: fits(lo, hi + r))
        lo -= _largest(lo, lambda left: fits(lo - left, hi))
        starts = _sentence_starts(passage) if lo > 0 else []
        lo, hi = _sentence_start(starts, lo, hi, first, min(hi, first + n_chunk), fits)
    text = _sentence_cut(_join(words, lo, hi))
    if lo > 0 and lo in (starts or _sentence_starts(passage)):
        text = "… " + text[1:]  # a whole first sentence: "… " where "…word" is a cut one
    return _with_lead(passage, text, limit, count), True


LEAD_SHARE = 4  # a passage's opening sentence is kept before its window when within 1/4 of it


OPENING_CHARS = 1000  # read for the opening sentence: ~250 tokens, more than a quarter window


def _with_lead(passage: str, text: str, limit: int, count: TokenCounter) -> str:
    """A window that starts past the passage's opening sentence, with that sentence before it.

    A report or a news story says its point first ("More than a million people in Puerto Rico
    … are without power … disabled by Hurricane Fiona"), and a match further down (the
    restoration figures) would leave it out. The opening sentence is added on top of the
    window's limit when it is short (at most a quarter of it), followed by " … " and the
    window from its first whole sentence, so it is quoted and checked as its own sentence
    (without the " … " when the window's first sentence is the one after the opening).
    """
    if not text.startswith("…"):
        return text
    # the opening is in the passage's first characters (a longer one is too long to keep)
    opening = sentences.opening(passage[:OPENING_CHARS])
    if not opening or count(opening) > limit // LEAD_SHARE:
        return text
    rest = text[1:].lstrip()
    if not text.startswith("… "):
        # a cut sentence first: the window goes on from the sentence after it
        parts = sentences.split(rest)
        if len(parts) < 2:
            return text
        rest = rest[rest.find(parts[1]):] if parts[1] in rest else ""
        if not rest:
            return text
    if passage[len(opening):].lstrip().startswith(rest[:80]):
        return f"{opening} {rest}"  # the window goes on from the opening: nothing between
    return f"{opening} {sentences.GAP} {rest}"


def _sentence_starts(passage: str) -> list[int]:
    """The word offsets where the passage's sentences start (empty when the segmenter's
    sentences do not add up to the passage's words)."""
    starts, at = [], 0
    for part in sentences.split(passage):
        starts.append(at)
        at += len(part.split())
    return starts if at == len(passage.split(" ")) else []


def _sentence_start(starts: list[int], lo: int, hi: int, first: int, last: int,
                    fits: Callable[[int, int], bool]) -> tuple[int, int]:
    """Move a window's start back to the start of the sentence it falls in, giving up words
    at the end instead, when the matched words (`first` up to `last`) stay inside; else
    forward to the next sentence.

    A window that starts mid-sentence loses that sentence: it cannot be quoted or checked
    against ("…LIHEAP, I want to thank … for introducing the IDEA legislation" was the very
    sentence a question about IDEA needed).
    """
    if not starts or lo in starts:
        return lo, hi
    back = max(s for s in starts if s < lo)
    end = back + _largest(hi - back, lambda r: fits(back, back + r))
    if end >= last and end - back >= 0.6 * (hi - lo):
        return back, end
    ahead = [s for s in starts if lo < s < hi]
    return (ahead[0], hi) if ahead and ahead[0] <= first else (lo, hi)


def _largest(upper: int, ok: Callable[[int], bool]) -> int:
    """The largest x in 0..upper with ok(x), for ok true at 0 and monotone."""
    good, bad = 0, upper + 1
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if ok(mid) else (good, mid)
    return good


def _join(words: list[str], a: int, b: int) -> str:
    text = " ".join(words[a:b])
    if a > 0:
        text = "…" + text
    if b < len(words):
        text = text + "…"
    return text


def _sentence_cut(text: str) -> str:
    """End a shortened passage at its last sentence end when that keeps most of it.

    The segmenter decides where sentences end, so "my right hon. Friend" is not an end.
    """
    if not text.endswith("…"):
        return text
    body = text[:-1]
    parts = sentences.split(body)
    if len(parts) < 2:
        return text
    kept = " ".join(parts[:-1])
    # The last piece is the cut-off sentence; keep what precedes it if that is most of it.
    if len(kept) >= 0.7 * len(body) and kept.rstrip().endswith((".", "!", "?", "\"", "'", ")")):
        start = 1 if body.startswith("…") else 0
        return ("…" if start else "") + kept.lstrip("…")
    return text


# -- order -----------------------------------------------------------------------------------

GROUP_ORDER = ("older", "middle", "newer")


def _newest_first(h) -> tuple:
    return (h.date is None, neg_date(h.date), -h.score)


def neg_date(date: str | None) -> int:
    d = iso_day(date)
    return -d.toordinal() if d else 0


def _oldest_first(h) -> tuple:
    return (h.date is None, h.date or "", -h.score)


def period_of(hit, periods: list[tuple[dt.date | None, dt.date | None]]) -> int | None:
    d = iso_day(hit.date)
    if d is None:
        return None
    for i, (a, b) in enumerate(periods):
        if (a is None or d >= a) and (b is None or d <= b):
            return i
    return None


def arrange(result) -> list[tuple[str | None, list[Any]]]:
    """The hits in the order the mode presents them, as (block label, hits) pairs.

    decay: newest first; hard_filter: date order; evolution: older, middle, newer blocks in
    date order; comparison: one block per period (empty periods kept, so the model can say
    so); hybrid: relevance order.
    """
    hits = list(result.hits)
    mode = result.mode
    if mode == "decay":
        return [(None, sorted(hits, key=_newest_first))]
    if mode == "hard_filter":
        return [(None, sorted(hits, key=_oldest_first))]
    if mode == "evolution":
        groups: dict[str, list[Any]] = {}
        for h in hits:
            groups.setdefault(h.group or "newer", []).append(h)
        names = [g for g in GROUP_ORDER if g in groups] + sorted(set(groups) - set(GROUP_ORDER))
        return [(g, sorted(groups[g], key=_oldest_first)) for g in names]
    if mode == "comparison":
        periods = query_periods(result)
        blocks: list[tuple[str | None, list[Any]]] = [(period_label(a, b), []) for a, b in periods]
        keys = [period_key(a, b) for a, b in periods]
        extra: dict[str, list[Any]] = {}
        for h in hits:
            # published in a period, else the period retrieval found it for (it speaks of it)
            i = period_of(h, periods)
            if i is None and h.group in keys:
                i = keys.index(h.group)
            if i is not None:
                blocks[i][1].append(h)
            else:
                extra.setdefault(h.group or "other", []).append(h)
        blocks += list(extra.items())
        return [(label, sorted(hs, key=_oldest_first)) for label, hs in blocks]
    return [(None, hits)]


# -- numbering -------------------------------------------------------------------------------


def numbered(result, passages: Mapping[int, str], roles: Mapping[int, str] | None = None, *,
             limit: int = SOURCE_WINDOW, count: TokenCounter = estimate_tokens) -> list[Source]:
    """A result's sources, numbered in the mode's order (`arrange`), each a window of at most
    `limit` tokens of its passage around the match (`window`).

    `passages` maps chunk ids to the text to quote (parent passages, `fetch_quotes`); a hit
    without one is quoted by its own text. `roles` maps chunk ids to the office the speaker
    speaks in.
    """
    out: list[Source] = []
    for label, hits in arrange(result):
        group = label if result.mode in GROUP_MODES else None
        for h in hits:
            text, _ = window(clean(passages.get(h.chunk_id) or h.text), h.text, limit, count)
            speaker, role = labelled(h.speaker, (roles or {}).get(h.chunk_id, ""))
            out.append(Source(len(out) + 1, h.doc_id, h.date, h.title, speaker, text,
                              tuple(h.also), group or h.group, h.chunk_id, h.score, role))
    return _same_day_office(out)


def _same_day_office(sources: list[Source]) -> list[Source]:
    """The sources with an office given to a speaker's turns that record none, where the same
    speaker's turn of the same day does: a reply's later turns seldom carry the office again
    ("Tasers have been used 4,818 times", the policing minister's second answer, is his as
    much as his first). The office is a person's, so the ranking, the quote and the holder
    read it alike; another day's office is not carried over."""
    office: dict[tuple[str, str | None], str] = {
        (s.speaker, s.date): s.role for s in sources if s.speaker and s.date and s.role}
    return [replace(s, role=office[(s.speaker, s.date)])
            if not s.role and (s.speaker, s.date) in office else s for s in sources]


def labelled(speaker: str | None, role: str) -> tuple[str, str]:
    """A speaker and the office they speak in, where the record names the office only in the
    speaker's label: "The Minister for Public Health and Sport (Shona Robison)" is Shona
    Robison, speaking as Minister for Public Health and Sport."""
    m = en.LABELLED_SPEAKER.match(speaker or "")
    if role or m is None or not content_words(m.group("office")) & en.OFFICE_STEMS:
        return speaker or "", role
    return m.group("name").strip(), m.group("office").strip()
