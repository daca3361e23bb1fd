"""Choosing and running the retrieval mode a question's time calls for.

The parsed question (trag_tui.temporal) decides the mode; this module turns it into day ranges
for the candidate queries and hands the candidates to the pure scoring functions. One rule
holds for every mode: nothing dated after `as_of` is returned.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ..facets import Scope, facet_index
from ..models.embedding import usable
from ..periods import SOURCES
from ..settings import CHOICES, LISTS, Settings
from ..storage.index import Index
from ..storage.store import from_day, to_day
from ..temporal.calendar import iso_day
from ..text.labels import period_key, period_label
from ..text.sentences import split
from ..text.words import content_words
from . import expansion, scoring
from .backends import backend_of
from .candidates import ChunkInfo, DayRange, SpokenPeriods

if TYPE_CHECKING:
    from ..temporal.question import TemporalQuery

# Each list's scores by chunk id, for --explain ("bm25", "dense", "fused", "decay", ...), and
# under "about" the period a chunk speaks of that placed it, in words.
Parts = dict[str, dict[int, Any]]
SCOPES = CHOICES["scope"]  # auto: scope by the speakers and sources a question names
TIMES = CHOICES["time"]  # how a question's period is matched (Settings.time)
MODES = ("hard_filter", "decay", "evolution", "comparison", "hybrid", "blind")
# The modes a second pass inside the period may serve (Settings.expand names those it does).
EXPANDS = LISTS["expand"]
INTENT_MODE = {
    "point_in_time": "hard_filter",
    "current": "decay",
    "evolution": "evolution",
    "comparison": "comparison",
    "none": "hybrid",
}
# The mild recency prior of questions with no time in them: among equals, the newer first.
PRIOR_DELTA = 0.1
PRIOR_TAU = 5 * 365.0
PRIOR_CADENCES = 3.0
# A question with no time in it worded as happening now ("has brought back", "will soon"),
# naming no one: the days before it is asked come first, as news of that week.
ONGOING_DELTA, ONGOING_TAU = 0.8, 14.0
# Inside a short period that ends on the as-of day ("this week", "the past 3 days"): among
# equals, the later report first, on the period's own time scale. A report filed after the
# event gives its outcome ("Liz Truss became prime minister on Tuesday"); one filed before it
# anticipates it ("Liz Truss to become prime minister").
LATEST_IN_PERIOD_DELTA = 0.2
CURRENT_CADENCES = 3.0
RECENT_CADENCES = 2.0  # width of the current mode's second, recent pass (0: no second pass)
# Inside a named period, a passage whose text another document told before the period began (a
# photo gallery of past years, a backgrounder, last month's paragraphs in this week's update)
# keeps this share of its score: the period's own news first among near-equals.
RETOLD = 0.9
# A question about the time documents speak of ("What was CPI inflation in May 2024?"): a
# passage that speaks of the asked period itself gains up to this share of its score, above one
# merely published in it, and of those the soonest published after the period (the figure's
# own release) up to RELEASE_LEAN more than a later document quoting it.
SPOKEN_FIT = 0.3
RELEASE_LEAN = 0.2
# The weight of the lists of passages that speak of the period, in the fusion: as much as the
# period's own for a figure asked for (a period's figure is published after it), half of it
# otherwise (a period's holders, positions and events are told mostly while it lasts).
ABOUT_FIGURE, ABOUT_OTHER = 1.0, 0.5
YEAR_DAYS = 366
# The current mode's recency boost goes to passages at least this share as like the question
# as the likest (and to those whose likeness cannot be measured): a newer passage supersedes an
# older one about the same thing.
CURRENT_MATCH = 0.25
# ... and a passage only the recent pass found (the best of the last few days, not of the
# subject) at least this share: "Who is the current Minister for Borders and Immigration?" over
# a month of debates is not answered by the last sitting day's Child Poverty Bill committee.
RECENT_MATCH = 0.5
# A question that names a source without asking what it said: passages from elsewhere keep this
# share of their score, so the named source's own reports come first unless far less relevant.
SCOPE_PRIOR = 0.5
# Inside the scope, the narrowest facet a name matches (a speaker's own turns in a conversation).
NARROW_PRIOR = 0.8
# Expansion inside the period: the named things of this many of the first pass's best hits
# (distinct documents), at most LEADS of them, searched for together with the question; the
# pass's list counts EXPAND_WEIGHT of the first pass's in the fusion (first pass first among
# equals). A pass runs only while the halting statistic calls the first unsettled.
EXPAND_FROM = 3
LEADS = 2
EXPAND_WEIGHT = 0.8
SETTLED = 0.5


@dataclass
class Hit:
    """One retrieved passage with its provenance and every score that placed it."""

    chunk_id: int
    document_id: int
    doc_id: str
    date: str | None
    title: str
    speaker: str
    text: str
    score: float
    scores: dict[str, float] = field(default_factory=dict)
    group: str | None = None
    also: list[str] = field(default_factory=list)  # near-duplicate sources collapsed into this hit
    about: str = ""  # the period it speaks of that placed it, for a question about one
    via: str = ""  # the named thing of a first-pass hit whose second pass found it

    def snippet(self, width: int = 240) -> str:
        """The chunk's text shortened for display."""
        text = re.sub(r"\s+", " ", self.text).strip()
        return text if len(text) <= width else text[: width - 1].rsplit(" ", 1)[0] + "…"

    def to_dict(self, *, full: bool = False) -> dict[str, Any]:
        """JSON-ready form."""
        out = {
            "doc_id": self.doc_id, "chunk_id": self.chunk_id, "date": self.date,
            "title": self.title, "speaker": self.speaker, "score": round(self.score, 6),
            "group": self.group, "snippet": self.snippet(),
        }
        if self.also:
            out["also"] = self.also
        if self.about:
            out["about"] = self.about
        if self.via:
            out["via"] = self.via
        if full:
            out["scores"] = {k: round(v, 6) for k, v in self.scores.items()}
        return out


@dataclass(frozen=True)
class SearchResult:
    """What a search returns: the reading of the question, the mode, and the hits."""

    query: TemporalQuery
    mode: str
    reason: str
    hits: list[Hit]
    confidence: float = 0.0
    empty_reason: str | None = None
    nearest: list[dict[str, Any]] = field(default_factory=list)
    periods: list[tuple[str | None, str | None]] = field(default_factory=list)
    scope: Scope | None = None
    # For a question of what was said in a period nothing was published in: the documents of
    # other times that speak of the period on its subject (doc_id, title, speaker, date, about)
    spoken_elsewhen: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, *, explain: bool = False) -> dict[str, Any]:
        """JSON-ready form."""
        q = self.query
        return {
            "question": q.question, "intent": q.intent,
            "start": q.start.isoformat() if q.start else None,
            "end": q.end.isoformat() if q.end else None,
            "periods": [[s.isoformat() if s else None, e.isoformat() if e else None]
                        for s, e in q.periods],
            "as_of": q.as_of.isoformat(), "mode": self.mode, "reason": self.reason,
            "semantic_query": q.semantic_query, "confidence": self.confidence,
            "returned": len(self.hits), "empty_reason": self.empty_reason,
            "nearest": self.nearest, "spoken_elsewhen": self.spoken_elsewhen,
            "scope": self.scope.to_dict() if self.scope else None,
            "hits": [h.to_dict(full=explain) for h in self.hits],
        }


def _day(d: dt.date | None) -> int | None:
    return to_day(d)


def _day_of(d: dt.date) -> int:
    """The day number of a date that is there (as_of, a period's end)."""
    day = to_day(d)
    assert day is not None
    return day


class Retriever:
    """Hybrid candidates for one index: lexical and dense from its backend, fused, inside a day range."""

    def __init__(self, index: Index, settings: Settings | None = None, scope: Scope | None = None):
        self.index = index
        self.settings = settings or index.settings
        self.scope = scope
        self._qvec_cache: dict[str, Any] = {}

    def scoped(self, scope: Scope | None) -> Retriever:
        """The same retriever (sharing its caches) with candidates scoped to who the question names."""
        view = Retriever.__new__(Retriever)
        view.__dict__.update(self.__dict__)
        view.scope = scope
        return view

    def vector(self, text: str):
        """The query embedding (cached per text within this retriever)."""
        if text not in self._qvec_cache:
            self._qvec_cache[text] = self.index.embedder.encode([text])[0]
        return self._qvec_cache[text]

    def _note_question(self) -> bool:
        """Count this retrieval on the open index; True from the second on, when the in-memory
        aids (word postings, the vector matrix) pay for building them."""
        self.index.derived("questions", lambda: [0])[0] += 1
        return self.in_session()

    def in_session(self) -> bool:
        """Are the in-memory aids in use (a second retrieval on the open index)?"""
        return self.index.derived("questions", lambda: [0])[0] > 1

    @property
    def backend(self):
        """Where the candidates come from: the index file, or the cluster it was pushed to."""
        return backend_of(self.index)

    def _pair(self, text: str, days: DayRange, limit: int, session: bool,
              scope: Scope | None = None, within: np.ndarray | None = None) -> list[scoring.Ranked]:
        """Lexical and dense candidates inside the day range (and the scope's documents, and the
        chunk ids `within`, if given)."""
        backend, vector = self.backend, self.vector(text)
        # A question without words ("???") embeds to a vector no distance can use: words only.
        dense = backend.dense(vector, limit, days, scope, session, within=within) \
            if usable(vector)[0] else []
        words = unnamed(text, scope.mentions) if scope is not None else text
        return [backend.lexical(words, limit, days, scope, session, within=within), dense]

    def spoken(self) -> SpokenPeriods:
        """The periods the index's chunks speak of (read from the index file, whatever the
        backend), kept for the session."""
        return self.index.derived("spoken", lambda: SpokenPeriods(self.index.conn))

    def candidates(self, text: str, days: DayRange, limit: int, *,
                   about: About | None = None
                   ) -> tuple[scoring.Ranked, Parts, float]:
        """Fused candidates, the per-list scores, and lexical/dense agreement.

        `about` adds the chunks that speak of the period, published outside it (their ids and
        the day range they were published in), searched on their own and fused with the rest:
        a question about a period finds both. They are not in the day range's own lists, so
        those keep the scores they would have alone."""
        s, scope, backend = self.settings, self.scope, self.backend
        session = self._note_question()
        lists: list[scoring.Ranked] = []
        if scope is None or not scope.filter:
            lists += self._pair(text, days, limit, session)
        inside = None
        if scope is not None:
            # The named source's own passages, searched on their own so a crowded index (every
            # summary mentions every district) cannot push them out of the pool.
            inside = backend.scope_chunks(scope)
            lists += self._pair(text, days, limit, session, scope)
        weights = [s.bm25_weight, s.dense_weight] * (len(lists) // 2)
        if about is not None and len(about.ids):
            lists += self._pair(text, about.published, limit, session,
                                scope if scope is not None and scope.filter else None, about.ids)
            weights += [about.weight * s.bm25_weight, about.weight * s.dense_weight]
        fused = scoring.fuse(lists, weights, s.fusion, s.rrf_k)
        if inside is not None and scope is not None and not scope.filter:
            fused = scoring.prefer(fused, inside, SCOPE_PRIOR)
        if scope is not None and scope.narrow:
            fused = scoring.prefer(fused, backend.scope_chunks(scope, narrow=True), NARROW_PRIOR)
        bm25 = {u: v for ranked in lists[0::2] for u, v in ranked}
        dense_scores = {u: v for ranked in lists[1::2] for u, v in ranked}
        parts = {"bm25": bm25, "dense": dense_scores, "fused": dict(fused)}
        agree = scoring.agreement([u for u, _ in lists[0]], [u for u, _ in lists[1]])
        return fused, parts, agree


_CAPITALISED = r"(?<![\w.'’-])[A-Z][\w.'’-]*"  # a word written with a capital


def unnamed(text: str, mentions: Sequence[str]) -> str:
    """The question's words without those naming its scope, for the lexical search inside the
    scope. Every passage there is the named source's, so its name selects nothing among them;
    and, rare in the index as a whole, it would take the lexical budget (rarest words first)
    from the subject's own words: "wages in the San Francisco district", searched inside the
    San Francisco Fed's reports, matched every one of them by "San Francisco" alone and never
    by "wages". The capitalised words written onto the mention are its name too: in "How did
    the Dallas Fed describe oil prices?" the scope's mention is "Dallas", and "Fed", as rare,
    took the budget from "oil". A question naming only who (nothing else left) keeps its
    words."""
    out = text
    for mention in mentions:
        # the mention's words as the question writes them: "st louis" is "St. Louis"
        words = r"[\W_]+".join(re.escape(w) for w in mention.split())
        out = re.sub(rf"(?:{_CAPITALISED}\s+)*(?<!\w)(?i:{words})(?!\w)"
                     rf"(?:\s+{_CAPITALISED})*", " ", out)
    return out if content_words(out) else text


def _collapse(ranked: scoring.Ranked, info: dict[int, ChunkInfo]) -> tuple[scoring.Ranked, dict[int, list[str]]]:
    """One hit per document and per near-duplicate cluster; the others become `also` sources."""
    seen_docs: set[int] = set()
    cluster_rep: dict[int, int] = {}
    out: scoring.Ranked = []
    also: dict[int, list[str]] = {}
    for uid, s in ranked:
        ci = info.get(uid)
        if ci is None or ci.document_id in seen_docs:
            continue
        seen_docs.add(ci.document_id)
        if ci.cluster_id is not None and ci.cluster_id in cluster_rep:
            also.setdefault(cluster_rep[ci.cluster_id], []).append(ci.doc_id)
            continue
        if ci.cluster_id is not None:
            cluster_rep[ci.cluster_id] = uid
        out.append((uid, s))
    return out, also


def _hits(ranked: scoring.Ranked, info: dict[int, ChunkInfo], parts: Parts,
          also: dict[int, list[str]], groups: dict[int, str] | None = None) -> list[Hit]:
    hits = []
    for uid, s in ranked:
        ci = info[uid]
        scores = {name: vals.get(uid, 0.0) for name, vals in parts.items()
                  if name not in ("about", "via")}
        scores["centrality"] = ci.centrality
        scores["final"] = s
        hits.append(Hit(uid, ci.document_id, ci.doc_id, ci.date, ci.title, ci.speaker, ci.text,
                        s, scores, (groups or {}).get(uid), also.get(uid, []),
                        parts.get("about", {}).get(uid, ""), parts.get("via", {}).get(uid, "")))
    return hits


def _as_of_range(start: dt.date | None, end: dt.date | None, as_of: dt.date, undated: bool) -> DayRange:
    hi = min(end, as_of) if end else as_of
    return DayRange(_day(start), _day(hi), include_undated=undated and start is None and end is None)


def _rank(retriever: Retriever, text: str, days: DayRange, limit: int, settings: Settings,
          about: About | None = None, expand: int = 0
          ) -> tuple[scoring.Ranked, dict[int, ChunkInfo], Parts, float]:
    """Candidates inside the day range, fused and placed; with `expand` (the hits asked for),
    then searched again for the named things of the best of them, inside the same range."""
    fused, parts, agree = retriever.candidates(text, days, limit, about=about)
    info = retriever.backend.chunk_info([u for u, _ in fused])
    ranked = _placed(fused, info, settings)
    if expand:
        ranked = _expand(retriever, text, days, limit, settings, about, expand,
                         ranked, info, parts, agree)
    return ranked, info, parts, agree


def _placed(fused: scoring.Ranked, info: dict[int, ChunkInfo], settings: Settings) -> scoring.Ranked:
    rel = scoring.normalise(fused)
    return scoring.centrality_boost(rel, {u: i.centrality for u, i in info.items()}, settings.gamma)


def _expand(retriever: Retriever, text: str, days: DayRange, limit: int, settings: Settings,
            about: About | None, k: int, ranked: scoring.Ranked, info: dict[int, ChunkInfo],
            parts: Parts, agree: float) -> scoring.Ranked:
    """Expansion inside the period: the question again with the named things of the first
    pass's best hits, in the same day range, scope and spoken-of chunks (so it can never leave
    the period or pass as_of), fused below the first pass among equals. Passes stop at
    `settings.expand_passes`, when the halting statistic calls the ranking settled, or when a
    pass adds nothing to the top k. `info` and `parts` gain the new candidates (`parts["via"]`:
    the named thing each hit a pass brought in answers to)."""
    searched = [text]
    for _ in range(settings.expand_passes):
        top, _ = _collapse(ranked, info)
        if scoring.halt(top, k, agree)[1] >= SETTLED:
            break
        facets = facet_index(retriever.index)
        best = [(u, info[u].text, facets.names_of(info[u].document_id))
                for u, _ in top[:EXPAND_FROM]]
        found = expansion.leads(" ".join(searched), best, _facet_names(retriever), LEADS)
        if not found:
            break
        query = expansion.query(text, found)
        searched.append(query)
        fused, more, _ = retriever.candidates(query, days, limit, about=about)
        info.update(retriever.backend.chunk_info([u for u, _ in fused if u not in info]))
        again = scoring.expand(ranked, [_placed(fused, info, settings)], EXPAND_WEIGHT,
                               settings.rrf_k)
        again = scoring.normalise(again)
        new = scoring.added(_collapse(ranked, info)[0], _collapse(again, info)[0], k)
        for name in ("bm25", "dense"):
            parts[name] = {**more[name], **parts[name]}
        parts["fused"] = dict(again)
        via = parts.setdefault("via", {})
        for uid in new:
            via.setdefault(uid, expansion.via(info[uid].text, found))
        ranked = again
        if not new:
            break
    return ranked


def _facet_names(retriever: Retriever) -> frozenset[str]:
    """The names of the index's speakers and sources, for reading them in a hit's text."""
    return retriever.index.derived(
        "facet_names", lambda: frozenset(facet_index(retriever.index).names.values()))


def _expands(settings: Settings, mode: str, k: int) -> int:
    """The hits a mode's expansion pass is asked for (0: the setting leaves the mode off)."""
    on = {m.strip() for m in settings.expand.split(",")}
    return k if settings.expand_passes and mode in on else 0


@dataclass(frozen=True)
class About:
    """The chunks that speak of a period asked about but were published outside it: their ids,
    the days they were published in, and the weight of their lists in the fusion."""

    ids: np.ndarray
    published: DayRange
    weight: float


def _spoken_of(r: Retriever, tq, start: dt.date | None, end: dt.date | None,
               inside_days: int | None = None) -> About | None:
    """For a question about the time documents speak of (`time` "about"), the chunks that speak
    of the period [start, end] but were published outside it, up to as_of; else None."""
    if tq.time != "about" or start is None or end is None:
        return None
    return _speaking(r, tq, start, end, ABOUT_FIGURE if tq.figure else ABOUT_OTHER, inside_days)


def _speaking(r: Retriever, tq, start: dt.date, end: dt.date, weight: float,
              inside_days: int | None = None) -> About:
    """The chunks that speak of [start, end], published outside it up to as_of, at `weight`."""
    published = DayRange(None, _day_of(tq.as_of), include_undated=False)
    ids = r.spoken().about(_day_of(start), _day_of(end), published, inside_days=inside_days)
    return About(ids, published, weight)


def _spoken_fit(r: Retriever, ranked: scoring.Ranked, info: dict[int, ChunkInfo], parts: Parts,
                period: tuple[dt.date, dt.date], lean: float) -> scoring.Ranked:
    """`scoring.spoken_fit` for the hits that speak of `period`, with the factor and the
    period matched kept in `parts` for --explain."""
    asked = (_day_of(period[0]), _day_of(period[1]))
    spoken = r.spoken().of(u for u, _ in ranked)
    ranked, parts["spoken"] = scoring.spoken_fit(
        ranked, {u: [(a, b) for a, b, _, _ in ps] for u, ps in spoken.items()},
        {u: i.day for u, i in info.items()}, asked, SPOKEN_FIT, lean)
    parts["about"] = {u: _matched(ps, asked) for u, ps in spoken.items()}
    return ranked


def _rank_period(retriever: Retriever, text: str, days: DayRange, limit: int, settings: Settings,
                 tq=None, period: tuple[dt.date, dt.date] | None = None, expand: int = 0
                 ) -> tuple[scoring.Ranked, dict[int, ChunkInfo], Parts, float]:
    """_rank inside a named period, its own news before what was told earlier; for a question
    about the time documents speak of (`tq.time` "about"), with the chunks that speak of
    `period` too, and those that speak of it exactly first."""
    about = _spoken_of(retriever, tq, *period) if tq is not None and period else None
    ranked, info, parts, agree = _rank(retriever, text, days, limit, settings, about, expand)
    if days.lo is not None:
        # what was told before the period is a passage published in it retelling older news;
        # one published outside the period is there for what it speaks of
        inside = {u: i.told_day for u, i in info.items()
                  if i.day is not None and days.lo <= i.day <= (days.hi if days.hi is not None else i.day)}
        ranked, parts["retold"] = scoring.retold(ranked, inside, days.lo, RETOLD)
    if about is not None and period is not None:
        ranked = _spoken_fit(retriever, ranked, info, parts, period, RELEASE_LEAN)
    return ranked, info, parts, agree


def _matched(periods, asked: tuple[int, int]) -> str:
    """The period a chunk speaks of that is likest the asked one, for --explain."""
    lo, hi, source, words = max(periods, key=lambda p: scoring.overlap_share((p[0], p[1]), asked))
    return f"{source} '{words}' ({from_day(lo)} .. {from_day(hi)})"


def search(index: Index, question: str | Any, *, as_of: dt.date | None = None, k: int | None = None,
           mode: str | None = None, settings: Settings | None = None, halt: bool = True,
           retriever: Retriever | None = None) -> SearchResult:
    """Answer-ready passages for a question, by the mode its time calls for (or `mode`)."""
    from ..temporal.question import TemporalQuery, parse

    if not isinstance(question, TemporalQuery) and (not isinstance(question, str)
                                                    or not question.strip()):
        raise ValueError("the question is empty")
    settings = settings or index.settings
    k = k or settings.k
    if isinstance(question, TemporalQuery):
        tq = question
    else:
        tq = parse(question, as_of or dt.date.today())
    retriever = retriever or Retriever(index, settings)
    chosen = mode or INTENT_MODE[tq.intent]
    if chosen not in MODES:
        raise ValueError(f"unknown mode {chosen!r}; one of {', '.join(MODES)}")
    if settings.scope not in SCOPES:
        raise ValueError(f"unknown scope {settings.scope!r}; one of {', '.join(SCOPES)}")
    if settings.time not in TIMES:
        raise ValueError(f"unknown time {settings.time!r}; one of {', '.join(TIMES)}")
    unknown = {m.strip() for m in settings.expand.split(",") if m.strip()} - set(EXPANDS)
    if unknown:
        raise ValueError(f"unknown expand mode {sorted(unknown)[0]!r}; any of {', '.join(EXPANDS)}")
    if settings.time != "auto" and tq.time is not None:
        tq = replace(tq, time="said" if settings.time == "said" else "about")
    reason = tq.reason if mode is None else f"mode forced to {chosen}"
    scope = None
    if settings.scope == "auto" and chosen != "blind":
        scope = facet_index(index).scope(tq.question)
    run = {
        "hard_filter": _point_in_time, "decay": _decay, "evolution": _evolution,
        "comparison": _comparison, "hybrid": _hybrid, "blind": _blind,
    }[chosen]
    res = run(retriever.scoped(scope), tq, k, settings, halt)
    if not res.hits and scope is not None and scope.filter:
        # Nothing of the named source's in the period is no reason to say the period holds
        # nothing: "a Scottish Parliament written answer on 30 October 2009" names a debate
        # heading's facet that the written answers do not carry. The scope leans instead.
        leaning = replace(scope, filter=False)
        again = run(retriever.scoped(leaning), tq, k, settings, halt)
        if again.hits:
            res, scope = again, leaning
    return replace(res, reason=reason, scope=scope)


def _finish(tq, mode: str, ranked: scoring.Ranked, info, parts, agree: float, k: int,
            halt: bool, groups: dict[int, str] | None = None) -> SearchResult:
    ranked, also = _collapse(ranked, info)
    n, confidence = scoring.halt(ranked, k, agree) if halt else (min(k, len(ranked)), scoring.halt(ranked, k, agree)[1])
    hits = _hits(ranked[:n], info, parts, also, groups)
    return SearchResult(tq, mode, "", hits, confidence)


def _hybrid(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    days = _as_of_range(None, None, tq.as_of, undated=True)
    ranked, info, parts, agree = _rank(r, tq.semantic_query, days, s.candidates, s,
                                       expand=_expands(s, "hybrid", k))
    # A mild recency prior: among equals, the newer passage first.
    as_of_day = _day_of(tq.as_of)
    tau = s.tau  # a user's time scale is used as given; 0 reads it from the publication cadence
    if s.tau <= 0:
        tau = scoring.cadence_tau([info[u].day for u, _ in ranked], PRIOR_CADENCES, PRIOR_TAU)
    dated = {u: i.day for u, i in info.items()}
    decayed, factor = scoring.apply_decay(ranked, dated, as_of_day, "exp", delta=PRIOR_DELTA, tau=tau)
    if tq.ongoing and r.scope is None:
        # "Which menu item has Taco Bell brought back?" asks about the last days' news. What a
        # named speaker says of themselves is not superseded so: a scoped question keeps the
        # mild prior alone.
        decayed, now = scoring.apply_decay(decayed, dated, as_of_day, "exp", delta=ONGOING_DELTA,
                                           tau=ONGOING_TAU)
        factor = {u: f * now.get(u, 1.0) for u, f in factor.items()}
    parts["decay"] = factor
    return _finish(tq, "hybrid", decayed, info, parts, agree, k, halt)


def _blind(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    """The time-blind hybrid baseline: no date filter, no as-of clip, no recency (for evaluation)."""
    ranked, info, parts, agree = _rank(r, tq.question, DayRange(), s.candidates, s)
    return _finish(tq, "blind", ranked, info, parts, agree, k, halt)


def _point_in_time(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    start, end = tq.start, tq.end
    if start is not None and start > tq.as_of and tq.time != "about":
        return SearchResult(
            tq, "hard_filter", "", [], 0.0,
            empty_reason=f"the period starts after the as-of date {tq.as_of.isoformat()}",
            nearest=nearest_periods(r, tq, k))
    days = _as_of_range(start, end, tq.as_of, undated=False)
    ranked, info, parts, agree = _rank_period(r, tq.semantic_query, days, s.candidates, s,
                                              tq, (start, end) if start and end else None,
                                              _expands(s, "hard_filter", k))
    from ..temporal.question import soft_edge

    margin = soft_edge(tq)
    if margin and days.lo is not None:
        # The later report first among equals, then the soft edges: a little before the period
        # too, every such hit after every hit inside it.
        last = days.hi if days.hi is not None else _day_of(tq.as_of)
        ranked, parts["decay"] = scoring.apply_decay(
            ranked, {u: i.day for u, i in info.items()}, last, "exp",
            delta=LATEST_IN_PERIOD_DELTA, tau=float(last - days.lo + 1))
        before = DayRange(days.lo - margin, days.lo - 1, include_undated=False)
        extra, extra_info, extra_parts, _ = _rank(r, tq.semantic_query, before, s.candidates, s)
        ranked = scoring.append_below(ranked, extra)
        info.update(extra_info)
        for name, values in extra_parts.items():
            parts[name] = {**values, **parts[name]}
        # hits from before the period rank below all of its own: no told factor applies to them
        parts["retold"] = {**{u: 1.0 for u, _ in extra}, **parts["retold"]}
    res = _finish(tq, "hard_filter", ranked, info, parts, agree, k, halt)
    if not res.hits:
        searched = period_label(start, min(end, tq.as_of) if end else tq.as_of)
        elsewhen = _spoken_elsewhen(r, tq, start, end, k, s) if tq.time == "said" else []
        reason = f"no documents published in {searched} ({len(elsewhen)} of other times " \
            "speak of it)" if elsewhen else f"no documents from {searched}"
        res = replace(res, empty_reason=reason, nearest=nearest_periods(r, tq, k),
                      spoken_elsewhen=elsewhen)
    return res


def _spoken_elsewhen(r: Retriever, tq, start: dt.date | None, end: dt.date | None, k: int,
                     s: Settings, limit: int = 3) -> list[dict[str, Any]]:
    """For a question of what was said in a period [start, end] nothing was published in, the
    documents of other times that speak of the period on the question's subject: "No documents
    from that period" is said only when nothing was published in it and nothing speaks of it
    (the contract's two times). "What was said about NHS funding in 2015?" finds nothing said
    in 2015, and is told that the 2010 Spending Review speaks of 2015-16."""
    if start is None or end is None:
        return []
    res = _point_in_time(r, replace(tq, time="about"), k, s, halt=False)
    topic = content_words(tq.semantic_query)
    spoken = r.spoken().of(h.chunk_id for h in res.hits)
    asked = (_day_of(start), _day_of(end))
    out: dict[tuple[str, str | None], dict[str, Any]] = {}  # a written question and its answer
    for h in res.hits:                                         # share a title and a day
        if (h.title, h.date) not in out and _on_subject(h, spoken.get(h.chunk_id, []), asked,
                                                         topic):
            out[(h.title, h.date)] = {"doc_id": h.doc_id, "title": h.title, "speaker": h.speaker,
                                      "date": h.date, "about": h.about}
    return list(out.values())[:limit]


def _on_subject(hit: Hit, periods: Sequence[tuple[int, int, str, str]], asked: tuple[int, int],
                topic: set[str]) -> bool:
    """Does a passage speak of the asked period where it speaks of the question's subject: its
    title or heading naming the period and any of its words the subject, or a sentence naming
    both? Measured against 1990 as a baseline ("an 80 per cent reduction on 1990 levels"), a
    report on emissions says nothing of NHS funding in 1990."""
    for lo, hi, where, words in periods:
        if not scoring.overlap_share((lo, hi), asked):
            continue
        said = f"{hit.title} {hit.text}" if where != "text" else " ".join(
            sentence for sentence in split(hit.text) if words in sentence)
        if topic & content_words(said):
            return True
    return False


def recency_strength(tq) -> float:
    """How strongly a question asks for the latest state: explicit cue words count most."""
    return 1.0 if tq.recency_cue else 0.5


def _likeness(r: Retriever, text: str, ids: Sequence[int], days: DayRange) -> dict[int, float]:
    """The dense likeness of candidates only the lexical list found (`ids`): a passage sharing
    one word with the question ("figure", "Minister") is not taken to be as like it as the
    likest."""
    within = np.array(sorted(ids), dtype=np.int64)
    vector = r.vector(text)
    if not len(within) or not usable(vector)[0]:
        return {}
    return dict(r.backend.dense(vector, len(within), days, session=r.in_session(), within=within))


def _decay(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    days = _as_of_range(None, tq.end, tq.as_of, undated=False)
    end_day = _day_of(min(tq.end, tq.as_of) if tq.end else tq.as_of)
    # "How much will the UK spend on defence in 2027?": what speaks of the period ahead (a plan,
    # a forecast, set months before) is searched beside the latest documents, at a figure's weight
    ahead = getattr(tq, "ahead", None)
    about = _speaking(r, tq, ahead[0], ahead[1], ABOUT_FIGURE) if ahead is not None else None
    fused, parts, agree = r.candidates(tq.semantic_query, days, s.candidates, about=about)
    info = r.backend.chunk_info([u for u, _ in fused])
    gap = scoring.cadence([info[u].day for u, _ in fused])
    recent_only: set[int] = set()
    if RECENT_CADENCES > 0 and gap is not None:
        # A second pass inside the last few publication gaps, fused with the first, so the latest
        # reports reach the pool even when a long history crowds them out of the global top.
        window = DayRange(end_day - max(1, int(RECENT_CADENCES * gap)), end_day, include_undated=False)
        recent, recent_parts, _ = r.candidates(tq.semantic_query, window, s.candidates)
        if recent:
            recent_only = {u for u, _ in recent} - {u for u, _ in fused}
            fused = scoring.rrf([fused, recent], k=s.rrf_k)
            for name in ("bm25", "dense"):
                parts[name] = {**recent_parts[name], **parts[name]}
            parts["fused"] = dict(fused)
            info.update(r.backend.chunk_info([u for u, _ in recent if u not in info]))
    ranked = scoring.centrality_boost(
        scoring.normalise(fused), {u: i.centrality for u, i in info.items()}, s.gamma)
    delta, tau = scoring.recency_params(recency_strength(tq))
    # "What is net migration now?": this week's answers on net zero are new, but not about it
    unmeasured = [u for u, _ in ranked if u not in parts["dense"]]
    parts["dense"] = {**_likeness(r, tq.semantic_query, unmeasured, days), **parts["dense"]}
    relevant = scoring.matched(ranked, parts["dense"], CURRENT_MATCH)
    relevant -= recent_only - scoring.matched(ranked, parts["dense"], RECENT_MATCH)
    if s.tau > 0:  # a user's time scale is used as given
        tau = s.tau
    else:  # automatic: a few publication gaps of the relevant candidates
        tau = scoring.cadence_tau([info[u].day for u, _ in ranked if u in relevant], CURRENT_CADENCES, tau)
    told = {u: i.day for u, i in info.items() if u in relevant}
    if tq.figure:
        # For a figure asked for now ("the latest inflation figure"), a passage is as new as the
        # newest period it speaks of, not the day it appeared: the latest figure is the latest
        # period's, not the latest debate quoting an older one.
        told = scoring.latest_told(told, r.spoken().spans(told))
    decayed, factor = scoring.apply_decay(
        ranked, {u: told.get(u) for u in info}, end_day, s.decay,
        alpha=s.alpha, lam=s.lam, delta=delta, tau=tau, rrf_k=s.rrf_k)
    parts["decay"] = factor
    if ahead is not None:
        # ... and what speaks of it gains up to SPOKEN_FIT over what does not, after the decay,
        # so the newest statement of the plan leads: "81 per cent by 2035" (2025) supersedes
        # "78 per cent by 2035" (2021). Put first outright, every old passage that names the
        # year came first too: a 2018 story's "15 percent by 2025" for a 2022 question on the
        # UK's nuclear share by 2025.
        decayed = _spoken_fit(r, decayed, info, parts, ahead, 0.0)
    return _finish(tq, "decay", decayed, info, parts, agree, k, halt)


def _evolution(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    days = _as_of_range(tq.start, tq.end, tq.as_of, undated=False)
    if tq.start is None:
        days = replace(days, include_undated=False)
    span = (tq.start, min(tq.end, tq.as_of) if tq.end else tq.as_of)
    # a change over a span: what was said later of one year or less inside it
    about = _spoken_of(r, tq, *span, inside_days=YEAR_DAYS) if tq.start is not None else None
    ranked, info, parts, agree = _rank(r, tq.semantic_query, days,
                                       max(s.evolution_pool, s.candidates), s, about,
                                       _expands(s, "evolution", k))
    ranked, also = _collapse(ranked, info)
    pool = scoring.within(ranked[: s.evolution_pool], s.evolution_floor)
    when = {u: i.day for u, i in info.items()}
    if about is not None and days.lo is not None and days.hi is not None:
        # a passage published outside the span is placed in it by the newest time it speaks of
        # there ("the 2019 figure", in a report of 2025)
        found = set(about.ids.tolist())
        spoken = r.spoken().of(u for u, _ in pool if u in found)
        for u, periods in spoken.items():
            inside = [min(b, days.hi) for a, b, _, _ in periods if a <= days.hi and b >= days.lo]
            when[u] = max(inside) if inside else when[u]
        parts["about"] = {u: _matched(ps, (days.lo, days.hi)) for u, ps in spoken.items()}
    picked = scoring.coverage_pick(
        [(u, sc, day) for u, sc in pool if (day := when.get(u)) is not None], k,
        buckets=max(3, k // 2))
    groups = dict(picked)
    order = {u: i for i, (u, _) in enumerate(picked)}
    chosen = sorted(((u, sc) for u, sc in pool if u in groups), key=lambda x: order[x[0]])
    _, confidence = scoring.halt(pool, k, agree)
    hits = _hits(chosen, info, parts, also, groups)
    return SearchResult(tq, "evolution", "", hits, confidence)


def _comparison(r: Retriever, tq, k: int, s: Settings, halt: bool) -> SearchResult:
    periods = list(dict.fromkeys(tq.periods)) or [(tq.start, tq.end)]  # each period once
    per = max(2, -(-k // len(periods)))
    found: dict[tuple, SearchResult] = {}
    empty = []
    for start, end in periods:
        label = period_key(start, end)
        if start is not None and start > tq.as_of and tq.time != "about":
            continue
        if start is None and (end is None or end >= tq.as_of):
            # "the present state" ("How does inflation now compare with 2019?", "the biggest
            # increase compared to a year ago") is the latest evidence, read as a current
            # question reads it, not whatever the whole history ranks first.
            part = _decay(r, replace(tq, end=tq.as_of), per, s, halt)  # _decay reads no start
            part = replace(part, hits=[replace(h, group=label) for h in part.hits])
        else:
            days = _as_of_range(start, end, tq.as_of, undated=False)
            ranked, info, parts, agree = _rank_period(r, tq.semantic_query, days, s.candidates, s,
                                                      tq, (start, end) if start and end else None,
                                                      _expands(s, "comparison", per))
            part = _finish(tq, "comparison", ranked, info, parts, agree, per, halt,
                           {u: label for u, _ in ranked})
        found[(start, end)] = part
    owner = _owners(r, found, periods)
    hits: list[Hit] = []
    for start, end in periods:
        got = found.get((start, end))
        own = [h for h in got.hits if owner[h.chunk_id] == (start, end)] if got else []
        if not own:
            empty.append(period_key(start, end))
        hits.extend(own)
    confidences = [part.confidence for part in found.values()]
    return SearchResult(
        tq, "comparison", "", hits, min(confidences) if confidences else 0.0,
        periods=[(a.isoformat() if a else None, b.isoformat() if b else None) for a, b in periods],
        empty_reason="no documents from " + " or ".join(empty) if empty else None)


def _owners(r: Retriever, found: dict[tuple, SearchResult], periods: list[tuple]) -> dict[int, tuple]:
    """The period each passage a comparison found answers for: a passage speaking of two of the
    periods is answered in one, so no period is answered from another's evidence. That is the
    one it was published in (when it was found for it; found only for another, it answers none),
    else the one it speaks of most strongly: by its title before a heading before its text (a
    release's own period: "…, year ending December 2024" also quotes the year ending June 2023),
    then by how closely; else the first it was found for."""
    seen: dict[int, list[tuple]] = {}
    for period, part in found.items():
        for h in part.hits:
            seen.setdefault(h.chunk_id, []).append(period)
    shared = [u for u, ps in seen.items() if len(ps) > 1]
    spoken = r.spoken().of(shared) if shared else {}

    def strength(u: int, p: tuple) -> tuple[int, float]:
        """How strongly passage u speaks of period p: (where it says so, how closely)."""
        if not (p[0] and p[1]):
            return (0, 0.0)
        asked = (_day_of(p[0]), _day_of(p[1]))
        fits = [(len(SOURCES) - SOURCES.index(source), share) for a, b, source, _ in spoken.get(u, ())
                if source in SOURCES and (share := scoring.overlap_share((a, b), asked)) >= 0.5]
        return max(fits, default=(0, 0.0))

    owner: dict[int, tuple] = {}
    for part in found.values():
        for h in part.hits:
            if h.chunk_id in owner:
                continue
            at = [p for p in periods if _holds(p, h.date)]
            if at:
                owner[h.chunk_id] = at[0] if at[0] in seen[h.chunk_id] else ()
                continue
            # max keeps the first found among equals (no fit at all included)
            owner[h.chunk_id] = max(seen[h.chunk_id], key=lambda p: strength(h.chunk_id, p))
    return owner


def _holds(period: tuple[dt.date | None, dt.date | None], date: str | None) -> bool:
    """Was a passage dated `date` published inside the period?"""
    day = iso_day(date)
    return day is not None and (period[0] is None or period[0] <= day) \
        and (period[1] is None or day <= period[1])


def nearest_periods(r: Retriever, tq, k: int, limit: int = 2) -> list[dict[str, Any]]:
    """The closest months before and after an empty period that hold matching documents."""
    days = _as_of_range(None, None, tq.as_of, undated=False)
    fused, _, _ = r.candidates(tq.semantic_query, days, 200)
    info = r.backend.chunk_info([u for u, _ in fused[:200]])
    lo = _day(tq.start) if tq.start else None
    hi = _day(tq.end) if tq.end else None
    months: dict[str, list[int]] = {}
    for u, _ in fused:
        ci = info.get(u)
        if ci and ci.date:
            months.setdefault(ci.date[:7], []).append(ci.day)
    before = sorted((m for m, ds in months.items() if lo is not None and max(ds) < lo), reverse=True)
    after = sorted(m for m, ds in months.items() if hi is not None and min(ds) > hi)
    out = []
    for side, ms in (("before", before[:limit]), ("after", after[:limit])):
        for m in ms:
            out.append({"side": side, "month": m, "documents": len(months[m])})
    return out
