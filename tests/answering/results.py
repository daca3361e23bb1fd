"""Hand-built search results of every mode, and golden files, for the answer stages' tests."""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.fakes import ScriptedGenerator
from trag_tui.answering.events import Writing
from trag_tui.answering.pipeline import answer
from trag_tui.retrieval.modes import Hit, SearchResult
from trag_tui.settings import Settings

GOLDEN = Path(__file__).parent / "golden"


UPDATE = os.environ.get("TRAG_TUI_UPDATE_GOLDEN") == "1"


AS_OF = dt.date(2024, 6, 1)


@dataclass(frozen=True)
class TQ:
    """The fields of a parsed question (trag_tui.temporal.question.TemporalQuery) that answers read."""

    question: str
    intent: str
    start: dt.date | None = None
    end: dt.date | None = None
    periods: list = field(default_factory=list)
    semantic_query: str = ""
    as_of: dt.date = AS_OF
    confidence: float = 1.0
    expressions: list = field(default_factory=list)
    reason: str = ""
    time: str | None = None


def hit(n: int, date: str | None, text: str, *, score: float = 0.5, group: str | None = None,
        also: list[str] | None = None, speaker: str = "Jane Smith") -> Hit:
    return Hit(chunk_id=n, document_id=n, doc_id=f"doc-{n}", date=date, title=f"Debate {n}",
               speaker=speaker, text=text, score=score, scores={"final": score}, group=group,
               also=also or [])


def result(mode: str, tq: TQ, hits: list[Hit], **kw) -> SearchResult:
    return SearchResult(query=tq, mode=mode, reason="test", hits=hits, confidence=0.8, **kw)


TEXTS = {
    1: "The minister said inflation was 3 per cent. Prices of food rose sharply in the spring.",
    2: "Inflation fell to 2 per cent, the Chancellor reported. Wages grew faster than prices.",
    3: "The Bank raised interest rates to curb inflation. Borrowers face higher mortgage costs.",
    4: "Members debated housing and rents at length. The inflation target remains 2 per cent.",
}


def passages_for(hits: list[Hit]) -> dict[int, str]:
    # Parent passages: the chunk with a sentence of context on either side.
    return {h.chunk_id: f"Order, order. {h.text} The debate continued." for h in hits}


def decay_result() -> SearchResult:
    tq = TQ("What is the inflation rate now?", "current", end=AS_OF,
            semantic_query="inflation rate", expressions=["now"])
    hits = [hit(1, "2012-03-01", TEXTS[1], score=0.9), hit(2, "2023-11-15", TEXTS[2], score=0.7),
            hit(3, "2019-05-20", TEXTS[3], score=0.6, also=["doc-9", "doc-10"])]
    return result("decay", tq, hits)


def hard_filter_result() -> SearchResult:
    tq = TQ("What was said about inflation in 2019?", "point_in_time",
            start=dt.date(2019, 1, 1), end=dt.date(2019, 12, 31), semantic_query="inflation")
    hits = [hit(3, "2019-05-20", TEXTS[3], score=0.9), hit(4, "2019-02-11", TEXTS[4], score=0.4)]
    return result("hard_filter", tq, hits)


def evolution_result() -> SearchResult:
    tq = TQ("How has the view on inflation changed since 2012?", "evolution",
            start=dt.date(2012, 1, 1), end=AS_OF, semantic_query="view on inflation")
    hits = [hit(2, "2023-11-15", TEXTS[2], score=0.8, group="newer"),
            hit(1, "2012-03-01", TEXTS[1], score=0.9, group="older"),
            hit(3, "2019-05-20", TEXTS[3], score=0.5, group="middle"),
            hit(5, "2012-09-09", "Inflation was expected to fall next year, members heard.",
                score=0.3, group="older")]
    return result("evolution", tq, hits)


def comparison_result() -> SearchResult:
    periods = [(dt.date(2012, 1, 1), dt.date(2012, 12, 31)), (dt.date(2023, 1, 1), dt.date(2023, 12, 31)),
               (dt.date(2016, 3, 1), dt.date(2016, 3, 31))]
    tq = TQ("Compare inflation in 2012, 2023 and March 2016", "comparison",
            periods=periods, semantic_query="inflation")
    hits = [hit(1, "2012-03-01", TEXTS[1], score=0.9, group="2012-01-01 .. 2012-12-31"),
            hit(2, "2023-11-15", TEXTS[2], score=0.8, group="2023-01-01 .. 2023-12-31")]
    return result("comparison", tq, hits,
                  periods=[(a.isoformat(), b.isoformat()) for a, b in periods],
                  empty_reason="no documents from 2016-03-01 .. 2016-03-31")


def hybrid_result() -> SearchResult:
    tq = TQ("Who talked about mortgage costs?", "none", semantic_query="mortgage costs")
    hits = [hit(3, "2019-05-20", TEXTS[3], score=0.9), hit(4, None, TEXTS[4], score=0.2)]
    return result("hybrid", tq, hits)


def empty_result() -> SearchResult:
    tq = TQ("What was said about inflation in 2015?", "point_in_time",
            start=dt.date(2015, 1, 1), end=dt.date(2015, 12, 31), semantic_query="inflation")
    return result("hard_filter", tq, [], empty_reason="no documents from 2015-01-01 .. 2015-12-31",
                  nearest=[{"side": "before", "month": "2014-10", "documents": 3},
                           {"side": "after", "month": "2016-02", "documents": 1}])


RESULTS = {
    "decay": decay_result, "hard_filter": hard_filter_result, "evolution": evolution_result,
    "comparison": comparison_result, "hybrid": hybrid_result,
}


def run(res: SearchResult, gen=None, **kw) -> list:
    """The answer's events, without the model's progress reports."""
    return [e for e in answer(res, passages_for(res.hits),
                              generator=gen or ScriptedGenerator(["Fine [1]."]),
                              settings=Settings(max_tokens=64), **kw)
            if not isinstance(e, Writing)]


def golden(name: str, text: str) -> None:
    path = GOLDEN / f"{name}.txt"
    if UPDATE or not path.exists():
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"golden file {path.name} was missing and has been written; run again")
    assert text == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if the change is intended, rerun with TRAG_TUI_UPDATE_GOLDEN=1")


def long_result(n: int = 8, words: int = 400) -> SearchResult:
    tq = TQ("What did members say about inflation?", "none", semantic_query="inflation")
    hits = [hit(i, f"2020-01-{i:02d}", " ".join(f"inflation{i} word{j}." for j in range(words // 2)),
                score=1.0 - i / 100) for i in range(1, n + 1)]
    return result("hybrid", tq, hits)
