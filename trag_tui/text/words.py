"""The words of a text that carry meaning, for overlap scores and the answer gate.

Evidence ranking, the prompt's sentence choice and the gate's "about the same thing" test all
ask how many meaningful words two texts share; one crude stemmer and one stop list keep their
answers consistent with each other.
"""
from __future__ import annotations

import re
from functools import lru_cache

STOPWORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each few for from
further had has have having he her here hers him his how i if in into is it its itself just
me more most my no nor not now of off on once only or other our out over own said same say
says she should so some such than that the their them then there these they this those
through to too under until up very was we were what when where which while who whom why
will with would you your
""".split())
_WORDS = re.compile(r"[^\W_]+", re.UNICODE)


_ENDINGS = ("ing", "ed", "es", "s", "e")  # English inflections, longest first


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stem: lower case, one English ending dropped where three letters stay ("peaked",
    "peaking" and "peak"; "rates", "rated" and "rate"; not "class" to "clas"), then at most six
    letters ("unemployment" and "unemployed")."""
    word = word.lower()
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            word = word[:-len(ending)]
            break
    return word[:6]


def tokens(text: str) -> list[str]:
    """Every word of a text, stemmed (names and stop words included)."""
    return [stem(w) for w in _WORDS.findall(text)]


def content_words(text: str) -> set[str]:
    """The words of a text that carry meaning, stemmed, for overlap scoring."""
    return {stem(w) for w in _WORDS.findall(text)
            if len(w) > 2 and w.lower() not in STOPWORDS and not w.isdigit()}
