"""What a second retrieval pass searches for: the named things of the first pass's best hits.

A question whose answer needs two passages, the second named only in the first ("Where did
Caroline move from?": one turn says "my home country", another names Sweden), is missed by one
pass. The passages the first pass found inside the asked period name people, places, bodies,
bills and products the question does not; searching again for them, inside the same period,
reaches the passage that only they lead to. The names are read from the hits' own text: the
facets the index keeps (speakers, sources) where a hit mentions them, and capitalised phrases
written inside a sentence, so a new collection brings its own.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..text.words import STOPWORDS, stem

# A run of capitalised words, joined by "of"/"the"/"for"/"and" ("Bank of England", "Charlotte's
# Web"). One at the start of a sentence is a name only when it runs to two words or more.
_CAPITALISED = re.compile(
    r"[A-Z][\w'’.-]*[\w](?:\s+(?:(?:of|the|for|and|de|la)\s+)*[A-Z][\w'’.-]*[\w])*")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"“(\[]\s*|\n\s*)$")
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)
# Capitalised but not names: the pronoun, greetings and interjections that open a turn, the
# months and days (the period already says when).
NOT_NAMES = frozenset("""
i i'm i've i'll i'd hey hi hello wow yeah yes no oh ok okay thanks thank sure congrats haha
lol omg mr mrs ms dr
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
""".split())


@dataclass(frozen=True)
class Lead:
    """A named thing a first-pass hit gives, and the hit that gave it (its chunk id)."""

    name: str
    chunk_id: int


def names_in(text: str) -> list[str]:
    """The capitalised phrases a passage writes as names, in order, without repeats: runs of
    two or more capitalised words anywhere, one word only inside a sentence."""
    found: list[str] = []
    for m in _CAPITALISED.finditer(text):
        words = m.group(0).split()
        while words and _plain(words[0]):
            words = words[1:]
        while words and _plain(words[-1]):
            words = words[:-1]
        if not words:
            continue
        opens = bool(_SENTENCE_START.search(text[: m.start()]))
        if len(words) == 1 and (opens or m.group(0) != words[0]):
            continue  # "Thanks" opening a sentence, "Hey Caroline" cut to one word at the start
        name = re.sub(r"['’]s$", "", " ".join(words))
        if name and name not in found:
            found.append(name)
    return found


def _plain(word: str) -> bool:
    """A capitalised word that is not a name by itself: a stop word or a greeting."""
    bare = re.sub(r"['’]s$", "", word).lower().strip(".")
    return bare in STOPWORDS or bare in NOT_NAMES


def leads(question: str, hits: Sequence[tuple[int, str, Sequence[str]]],
          facets: Collection[str] = (), limit: int = 2) -> list[Lead]:
    """The named things of the best first-pass hits (`(chunk_id, text, own names)`, best first)
    that the question does not name, at most `limit`: of each hit, best first, the names the
    index keeps as facets (speakers, sources) first, then its other capitalised phrases. A hit's
    own names (its speaker, the conversation or source it belongs to) say where it stands, not
    where it leads."""
    asked = _words(question)
    out: list[Lead] = []
    seen: set[str] = set()
    for uid, text, own in hits:
        own_words = [_words(n) for n in own]
        written = names_in(text)
        for name in sorted(written, key=lambda n: n not in facets):  # stable: facets first
            words = _words(name)
            key = " ".join(sorted(words))
            if not words or words <= asked or key in seen or any(words <= o for o in own_words):
                continue
            seen.add(key)
            out.append(Lead(name, uid))
            if len(out) >= limit:
                return out
    return out


def _words(text: str) -> set[str]:
    return {stem(w) for w in _WORDS.findall(text)} - _STOP


_STOP = {stem(w) for w in STOPWORDS}


def query(question: str, found: Sequence[Lead]) -> str:
    """The second pass's query: the question's words with the named things it led to."""
    return " ".join([question, *(lead.name for lead in found)])


def via(text: str, found: Sequence[Lead]) -> str:
    """Which named thing a hit of the second pass answers to, for --explain: the first one its
    text mentions, else all of them (the pass searched for them together)."""
    for lead in found:
        if lead.name.lower() in text.lower():
            return lead.name
    return ", ".join(lead.name for lead in found)

