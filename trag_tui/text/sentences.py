"""Sentence boundaries, from one maintained segmenter, for evidence, prompts and the answer gate.

A sentence is the unit an answer is checked in: the gate compares a generated sentence with one
source sentence, the extractive answer quotes whole source sentences, and the prompt lists the
sentences that matter. A hand-written splitter cut at "hon.", "No. 1" and "Mr." and threw away
the very clause that answered the question, so the cutting is left to `sentencex`, which knows
the abbreviations of each language; only the trimming marks a shortened passage carries ("…")
and hard line breaks are handled here.
"""
from __future__ import annotations

import re
from functools import lru_cache

_LINES = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|#+)\s)")
_SPACE = re.compile(r"\s+")


@lru_cache(maxsize=8)
def _segmenter(language: str):
    from sentencex import segment

    return lambda text: segment(language, text)


def split(text: str, language: str = "en") -> list[str]:
    """The sentences of a text, whitespace folded, in order (empty pieces dropped).

    Paragraph breaks and list items always end a sentence; inside a paragraph the segmenter
    decides. The ellipsis marks of a trimmed passage are removed from both ends first.
    """
    text = (text or "").strip().strip("…").strip()
    if not text:
        return []
    out: list[str] = []
    segment = _segmenter(language)
    for block in _LINES.split(text):
        block = _SPACE.sub(" ", block).strip()
        for i, piece in enumerate(_CLOSED_HEADING.split(block)):
            if i % 2:
                out.append(piece)  # a heading is a sentence of its own
                continue
            for part in _HEADING_MARK.split(piece):
                part = part.strip()
                if not part or set(part) == {"#"}:
                    continue
                glued = False
                for sentence in segment(part):
                    sentence = sentence.strip()
                    if not sentence:
                        continue
                    if glued:
                        out[-1] += " " + sentence
                    else:
                        out.append(sentence)
                    glued = bool(_GLUED_TITLE.search(sentence))
    return out


def opening(text: str, language: str = "en") -> str | None:
    """A text's opening as it stands in the text: its first sentence, with the lines of their
    own before it (a byline, a story's summary points), or None when it cannot be told."""
    end = 0
    for part in split(text, language):
        at = text.find(part, end)
        if at < 0:
            return None
        end = at + len(part)
        if not _CLOSED_HEADING.fullmatch(part):
            return text[:end]
    return None


def bounds(text: str, language: str = "en") -> list[tuple[int, int]]:
    """Where each sentence of a short text starts and ends, as offsets into the text itself
    (nothing folded or dropped), for telling which sentence a word stands in."""
    out: list[tuple[int, int]] = []
    at = 0
    for piece in _segmenter(language)(text):
        lo = text.find(piece, at)
        if lo < 0:  # the segmenter changed the text: read it as one sentence
            return [(0, len(text))]
        out.append((lo, lo + len(piece)))
        at = lo + len(piece)
    return out


# A title glued to the word before it ("Searchlight, NV--Mrs. Verlie Doing") is not an end of
# sentence, though the segmenter, seeing "NV--Mrs." as one word, takes it for one.
_GLUED_TITLE = re.compile(r"\S(?:--|[—–/(])(?:Mr|Mrs|Ms|Dr|Rt|Hon|hon|Sen|Rep|Gov|Prof|St|No)\.$")


# A heading closed on its line ("# Net migration: 283,000 #"), as a passage keeps it once its
# line breaks are folded. A heading is a line, not a paragraph: a passage windowed from inside
# a heading ("…to 3.6 per cent # The Consumer Prices Index rose… #") has a closing mark that
# reads as an opening one, and the paragraph after it is not a heading.
_CLOSED_HEADING = re.compile(r"(?:^|(?<=\s))(#{1,6} [^#]{0,150}?\S #)(?=\s|$)")
# A heading mark left alone between words (where a window cut the heading it closed) ends
# what comes before it.
_HEADING_MARK = re.compile(r"(?<=\s)#{1,6}(?=\s)")
_MARKUP = re.compile(r"^#+\s*|\s+#+$|\*\*|__")
_NAME = r"[A-Z][\w.'’-]*"
#: A news story's dateline: where it was filed and by which agency, not what it reports
#: ("Washington (CNN) ", "London CNN Business — ", "RENO, Nev. – ", "(AP) — ").
_DATELINE = re.compile(
    r"(?:"
    rf"^(?:(?:{_NAME},?\s+){{0,4}})?\([A-Z][\w&.]*(?:\s+[A-Z][\w&.]*){{0,2}}\)\s*(?:[—–-]+\s*)?"
    rf"|^(?:{_NAME},?\s+){{0,4}}[A-Z]{{2,}}(?:\s+[A-Z][a-z]+)?\s+[—–]\s*"
    rf"|^[A-Z]{{2,}}(?:[ .'-]+[A-Z]{{2,}})*(?:,\s+{_NAME}(?:\s+{_NAME})?)?\s+[—–-]\s+"
    r")(?=[A-Z\"“‘'])"
)


#: A news page's furniture crawled with its text: a video widget ("JUST WATCHED <another
#: video's title> Replay More Videos ..."), a gallery's counter, a photo credit before the
#: sentence it captions ("Brandon Bell/Getty Images ", "(Photo by Justin Sullivan/Getty
#: Images)"), an editors' or a newspaper's byline ("USA TODAY Sports"), a quiz's lettered
#: choices ("A. Eiffel Tower B. Golden Gate Bridge C. Taj Mahal D. Big Ben") and the quiz's
#: question before them ("QUIZ TIME Starbucks reintroduced one of its most popular drinks this
#: week…"), a video ad's feedback form ("How relevant is this ad to you? Video player was slow
#: to load content…"). None of it is what the story says.
_FURNITURE = re.compile(
    r"JUST WATCHED\b.*?(?:Replay More Videos\s*(?:\.\.\.|…)|MUST WATCH\b|$)\s*"
    r"|^Replay More Videos\s*(?:\.\.\.|…)?\s*"
    r"|\bMUST WATCH\b.*?\b\d{1,2}:\d{2}\s+"
    r"|\bHide Caption \d+ of \d+\s*(?:Photos:\s*)?"
    r"|\(Photo by [^()]*\)\s*"
    r"|^(?:[A-Z][\w.'’-]*[ -]){0,3}[A-Z][\w.'’-]*/(?:[\w.'’ -]+/)*[\w.'’ -]*"
    r"(?:Getty Images|Images|AP|Reuters|AFP)\s+(?=[A-Z\"“‘'])"
    r"|^(?:Editors )?USA TODAY(?: Sports)?(?:\s+(?=[A-Z\"“‘'])|$)"
    r"|^QUIZ TIME\b.*"
    r"|^(?:\d\.\s*)?How relevant is this ad to you\?\s*"
    r"|^Video player was slow to load content\b.*?\bOther issues\b\s*"
    r"|^A\.\s.{1,80}?\sB\.\s.{1,80}?\sC\.\s.{1,80}?\sD\.\s+(?:(?![A-Z]{2,}\b)\S+\s*){1,5}"
)


GAP = "…"  # between a passage's opening sentence and a window of it further on
_GAP = re.compile(rf"(?<=[.!?\"”’')])\s{GAP}\s(?=\S)")


def quotable(passage: str, language: str = "en") -> list[str]:
    """The whole sentences of a passage, fit to quote or to check a claim against.

    A passage trimmed to fit the prompt may start or end mid-sentence (marked "…" joined to the
    word; "… " before a whole sentence); those pieces are left out, since "The Defence Secretary, my right hon." is not what the source says.
    Markdown emphasis and heading marks are dropped from the text.
    """
    return [s for run in runs(passage, language) for s in run]


def runs(passage: str, language: str = "en") -> list[list[str]]:
    """A passage's quotable sentences in runs that follow on from each other: a window kept
    after its passage's opening sentence ("Opening. … Window") is a second run, so the
    sentences either side of the gap are not quoted as if one followed the other."""
    pieces = _GAP.split((passage or "").strip())
    return [_quotable(("… " if i else "") + piece, language) for i, piece in enumerate(pieces)]


def _quotable(passage: str, language: str) -> list[str]:
    text = (passage or "").strip()
    parts = split(text, language)
    if text.endswith("…") and parts:
        parts = parts[:-1]
    if text.startswith("…") and not text.startswith("… ") and parts:
        parts = parts[1:]  # "…word": cut mid-sentence; "… Word": a whole sentence follows
    elif parts and not text.startswith("…"):
        # the story, not where it was filed: its first sentence after any lines of their own
        # before it (a byline, a summary)
        lead = next((i for i, p in enumerate(parts) if not _CLOSED_HEADING.fullmatch(p)), None)
        if lead is not None:
            parts[lead] = _DATELINE.sub("", parts[lead], count=1)
    return [t for t in (_FURNITURE.sub("", _MARKUP.sub("", p)).strip() for p in parts) if t]
