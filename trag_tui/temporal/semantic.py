"""The question without its time: what retrieval searches for.

"What was said about NHS funding in 2015?" is searched as "said about NHS funding": the time
expressions (with the preposition before each), the "now" words and an imperative "Compare" are
taken out, and less is taken when nothing meaningful would be left. Never empty.
"""
from __future__ import annotations

import re

from .lexicon import LazyPattern

# A preposition directly before a removed period goes with it ("in 2015", "за последние").
_LEADING_PREP = LazyPattern(
    r"(?:^|(?<=\s))(?:in|on|at|during|for|over|within|of|from|throughout|around|circa|en|dans|au|aux|pendant|"
    r"durant|im|am|um|während|durante|el|в|во|на|за)\s+$",
)


_SCAFFOLD = LazyPattern(
    r"^\s*(?:(?:what|who|whom|whose|which|when|where|why|how)(?:['’]s)?(?:\s+(?:much|many|far|long|"
    r"often))?\s+)?"
    r"(?:(?:is|are|was|were|am|do|does|did|has|have|had|will|would|can|could|should|shall|might|must|been|"
    r"being|be)\s+)*"
    r"(?:(?:the|a|an)\s+)?",
)


COMPARE_VERB = LazyPattern(r"^\s*(?:compare|comparer|compara|comparar|vergleiche|vergleichen\s+sie|сравните|"
    r"сравни)\b")


# Words that carry nothing to search for: a query made only of these is no query at all.
_STOPWORDS = frozenset(
    "the and was were what who how did does has have had been being are with from that this which when where "
    "why for about les des une est que qui das die der und ist wie los las del que для что как это "
    "happen happened happening say said says discuss discussed compare compared change changed differ tell "
    "told summarise summarize show list give done made make mentioned talk talked wrote written there "
    "any".split()
)


def preceded_by(text: str, lo: int, pattern: LazyPattern, width: int) -> int | None:
    """Where a match of `pattern` (anchored at its end) starts in the `width` characters before lo."""
    window = text[max(0, lo - width): lo]
    m = pattern.search(window)
    return lo - len(window) + m.start() if m else None


def _with_prep(text: str, lo: int, hi: int) -> tuple[int, int]:
    """Widen a time span over the preposition directly before it."""
    start = preceded_by(text, lo, _LEADING_PREP, 12)
    return (lo if start is None else start, hi)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for lo, hi in sorted(spans):
        out.append(text[pos: max(pos, lo)])
        out.append(" ")
        pos = max(pos, hi)
    out.append(text[pos:])
    return _tidy("".join(out))


def _tidy(text: str) -> str:
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:?!])", r"\1", text)
    text = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", text)
    return re.sub(r"^\W+|[\s,;:.?!¿¡–—-]+$", "", text)


def _meaningful(text: str) -> bool:
    return any(w.lower() not in _STOPWORDS for w in re.findall(r"[^\W\d_]{3,}", text))


def semantic_query(text: str, time_spans: list[tuple[int, int]], cue_spans: list[tuple[int, int]]) -> str:
    """The question with its time (and "now" words) taken out; less is taken if nothing is left."""
    time_spans = [_with_prep(text, lo, hi) for lo, hi in time_spans]
    stripped = _cut(text, time_spans + cue_spans)
    candidates = [_tidy(_SCAFFOLD.sub("", stripped, count=1)), stripped]
    if time_spans:
        candidates.append(_cut(text, time_spans))
    return next((c for c in candidates if _meaningful(c)), text.strip() or text)
