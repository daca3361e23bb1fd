"""Retrieval figures for a question set: the temporal engine beside a time-blind baseline.

The metrics are pure functions of hits and gold data so they can be checked by hand; the
runner only feeds both systems the same questions over the same index.
"""
from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from .errors import InputError
from .storage.store import from_day
from .temporal.calendar import iso_day, read_day, row_day
from .text.safe import json_object, json_text


@dataclass(frozen=True)
class QA:
    """One evaluation question: gold evidence ids and, where known, the gold period(s)."""

    id: str
    question: str
    question_date: dt.date | None
    evidence_ids: tuple[str, ...]
    category: str
    periods: tuple[tuple[dt.date | None, dt.date | None], ...] = ()
    source: str = ""  # the speaker or source the question names, where it names one


def load_qa(path: Path, categories: Sequence[str] | None = None, limit: int | None = None) -> list[QA]:
    """Rows of a qa.jsonl file (`id, question, question_date, evidence_ids, category` and
    optional `start`/`end` or `periods` giving the gold period, `source` the named speaker).

    The figures are over the whole set, so a row that cannot be read refuses the file with
    one line naming the line (InputError), rather than being scored as something it is not.
    """
    out = []
    with path.open("rb") as fh:
        for n, raw in enumerate(fh, 1):
            try:
                qa = _qa_row(raw)
            except InputError as exc:
                raise InputError(f"{path} line {n}: {exc.message}") from None
            if qa is None or (categories and qa.category not in categories):
                continue
            out.append(qa)
            if limit and len(out) >= limit:
                break
    return out


def _qa_row(raw: bytes) -> QA | None:
    """One line of a qa.jsonl file as a QA (None for a blank line), every field checked."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (byte {exc.start + 1})") from None
    if not line.strip():
        return None
    try:
        row = json_object(line)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InputError("no question (a non-empty text field 'question')")
    return QA(_text(row, "id", "None"), question, row_day(row, "question_date", "as_of"),
              _ids(row), _text(row, "category", ""), _periods(row), _text(row, "source", ""))


def _text(row: dict, key: str, default: str) -> str:
    """A name-like field: text or a number, shown as text."""
    value = row.get(key)
    if value in (None, ""):
        return default
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(f"{key} {json_text(value)} is not text")
    return str(value)


def _ids(row: dict) -> tuple[str, ...]:
    """The gold document ids: a list of ids (text or numbers), under either name."""
    key = "evidence_ids" if row.get("evidence_ids") is not None else "gold_doc_ids"
    value = row.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or any(
            isinstance(v, bool) or not isinstance(v, (str, int)) for v in value):
        raise InputError(f"{key} {json_text(value)} is not a list of document ids")
    return tuple(str(v) for v in value)


def _periods(row: dict) -> tuple[tuple[dt.date | None, dt.date | None], ...]:
    """The gold period(s): `periods` as [start, end] pairs, or `start`/`end`; either end open."""
    periods = row.get("periods")
    if periods:
        if not isinstance(periods, list) or any(
                not isinstance(p, list) or len(p) != 2 for p in periods):
            raise InputError(f"periods {json_text(periods)} is not a list of [start, end] pairs")
        out = [(_bound(a, "periods start"), _bound(b, "periods end")) for a, b in periods]
    elif row.get("start") or row.get("end"):
        out = [(_bound(row.get("start"), "start"), _bound(row.get("end"), "end"))]
    else:
        return ()
    for a, b in out:
        if a is not None and b is not None and a > b:
            raise InputError(f"the period {a.isoformat()} to {b.isoformat()} ends before it starts")
    return tuple(out)


def _bound(value: object, what: str) -> dt.date | None:
    """One end of a gold period: a date, or null (open), read as the engine's dates are."""
    return None if value in (None, "") else read_day(str(value)[:10] if isinstance(value, str) else value, what)


def recall_at_k(hit_ids: Sequence[str], gold: Iterable[str], k: int) -> float | None:
    """Share of gold documents among the first k hits (None without gold)."""
    gold = set(gold)
    if not gold:
        return None
    return len(gold & set(hit_ids[:k])) / len(gold)


def reciprocal_rank(hit_ids: Sequence[str], gold: Iterable[str]) -> float | None:
    """1/rank of the first gold document (0 if none is found; None without gold)."""
    gold = set(gold)
    if not gold:
        return None
    for i, h in enumerate(hit_ids, 1):
        if h in gold:
            return 1.0 / i
    return 0.0


# A hit's time: its date, or its date and the periods it speaks of (a question about those).
When: TypeAlias = "dt.date | None | tuple[dt.date | None, tuple[tuple[dt.date, dt.date], ...]]"


def _inside(when, period: tuple[dt.date | None, dt.date | None]) -> bool:
    """Is a hit of the period: dated inside it, or (`when` a pair: its date and the periods it
    speaks of, for a question about the time documents speak of) speaking of a period that
    overlaps it (the contract's two times)?"""
    date, spoken = when if isinstance(when, tuple) else (when, ())
    lo, hi = period
    if date is not None and (lo is None or date >= lo) and (hi is None or date <= hi):
        return True
    return any((lo is None or b >= lo) and (hi is None or a <= hi) for a, b in spoken)


def _spans(periods) -> tuple[tuple[dt.date, dt.date], ...]:
    """(start day, end day, ...) rows as date pairs."""
    out = []
    for row in periods:
        a, b = from_day(row[0]), from_day(row[1])
        if a is not None and b is not None:
            out.append((a, b))
    return tuple(out)


def temporal_precision(dates: Sequence[When], periods, k: int) -> float | None:
    """Share of the first k hits of any gold period (None without a period or hits): dated in
    it, or, where a hit carries the periods it speaks of, speaking of it."""
    if not periods or not dates[:k]:
        return None
    return sum(any(_inside(d, p) for p in periods) for d in dates[:k]) / len(dates[:k])


def leak_rate(dates: Sequence[When], as_of: dt.date | None, k: int) -> float | None:
    """Share of the first k hits published after the as-of date, whatever they speak of."""
    if as_of is None or not dates[:k]:
        return None
    published = [d[0] if isinstance(d, tuple) else d for d in dates[:k]]
    return sum(1 for d in published if d is not None and d > as_of) / len(published)


def source_precision(speakers: Sequence[str], source: str, k: int) -> float | None:
    """Share of the first k hits spoken or published by the named source (None without one)."""
    if not source or not speakers[:k]:
        return None
    return sum(1 for s in speakers[:k] if s == source) / len(speakers[:k])


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return round(statistics.fmean(vals), 4) if vals else None


@dataclass
class SystemScores:
    """Per-question figures for one system, averaged on demand."""

    recall: list[float | None] = field(default_factory=list)
    mrr: list[float | None] = field(default_factory=list)
    precision: list[float | None] = field(default_factory=list)
    leak: list[float | None] = field(default_factory=list)
    contamination: list[float | None] = field(default_factory=list)
    both_periods: list[float | None] = field(default_factory=list)
    source: list[float | None] = field(default_factory=list)

    def add(self, qa: QA, hit_ids: list[str], dates: Sequence[When], k: int,
            parsed_periods, speakers: Sequence[str] = ()) -> None:
        """Score one question's hits."""
        self.recall.append(recall_at_k(hit_ids, qa.evidence_ids, k))
        self.source.append(source_precision(speakers, qa.source, k))
        self.mrr.append(reciprocal_rank(hit_ids, qa.evidence_ids))
        self.precision.append(temporal_precision(dates, qa.periods, k))
        self.leak.append(leak_rate(dates, qa.question_date, k))
        periods = qa.periods if len(qa.periods) > 1 else ()
        if periods:
            inside = temporal_precision(dates, periods, k)
            self.contamination.append(None if inside is None else round(1 - inside, 6))
            kept = all(any(_inside(d, p) for d in dates[:k]) for p in periods)
            self.both_periods.append(1.0 if kept else 0.0)

    def summary(self) -> dict[str, Any]:
        """Means and counts."""
        return {
            "recall": _mean(self.recall), "mrr": _mean(self.mrr),
            "temporal_precision": _mean(self.precision), "leak_rate": _mean(self.leak),
            "comparison_contamination": _mean(self.contamination),
            "comparison_all_periods_kept": _mean(self.both_periods),
            "source_precision": _mean(self.source),
            "n_with_evidence": sum(v is not None for v in self.recall),
            "n_with_period": sum(v is not None for v in self.precision),
        }


def evaluate(index, qas: Sequence[QA], k: int = 5, settings=None, halt: bool = False,
             baseline: bool = True) -> dict[str, Any]:
    """Run the temporal engine and (unless `baseline` is False) the time-blind baseline on every
    question; return figures. Without the baseline its figures are empty."""
    from .retrieval.modes import Retriever, search

    settings = settings or index.settings
    retriever = Retriever(index, settings)
    engine, blind_scores = SystemScores(), SystemScores()
    by_cat: dict[str, tuple[SystemScores, SystemScores]] = {}
    by_intent: dict[str, tuple[SystemScores, SystemScores]] = {}
    intents: dict[str, int] = {}
    for qa in qas:
        as_of = qa.question_date or dt.date.today()
        res = search(index, qa.question, as_of=as_of, k=k, settings=settings, halt=halt,
                     retriever=retriever)
        blind = search(index, res.query, as_of=as_of, k=k, settings=settings, halt=halt,
                       retriever=retriever, mode="blind") if baseline else None
        intents[res.query.intent] = intents.get(res.query.intent, 0) + 1
        cat = by_cat.setdefault(qa.category or "all", (SystemScores(), SystemScores()))
        intent = by_intent.setdefault(res.query.intent, (SystemScores(), SystemScores()))
        for i, result in enumerate((res, blind)):
            if result is None:
                continue
            ids = [h.doc_id for h in result.hits]
            dates: list[When] = [iso_day(h.date) for h in result.hits]
            if res.query.time == "about":
                # a hit of a period is published in it or speaks of it
                spoken = retriever.spoken().of(h.chunk_id for h in result.hits)
                dates = [(iso_day(h.date), _spans(spoken.get(h.chunk_id, ()))) for h in result.hits]
            speakers = [h.speaker for h in result.hits]
            for system in ((engine, blind_scores)[i], cat[i], intent[i]):
                system.add(qa, ids, dates, k, res.query.periods, speakers)
    return {
        "k": k, "questions": len(qas), "intents": intents,
        "engine": engine.summary(), "baseline": blind_scores.summary(),
        "by_category": {c: {"engine": e.summary(), "baseline": b.summary()} for c, (e, b) in by_cat.items()},
        "by_intent": {c: {"engine": e.summary(), "baseline": b.summary()} for c, (e, b) in by_intent.items()},
    }


def render_table(report: dict[str, Any]) -> str:
    """The report as a side-by-side text table."""
    rows = [("metric", "temporal engine", "time-blind baseline")]
    for key in ("recall", "mrr", "temporal_precision", "leak_rate", "comparison_contamination",
                "comparison_all_periods_kept", "source_precision", "n_with_evidence", "n_with_period"):
        e, b = report["engine"].get(key), report["baseline"].get(key)
        label = {"recall": f"recall@{report['k']}"}.get(key, key)
        rows.append((label, "-" if e is None else str(e), "-" if b is None else str(b)))
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = [f"{report['questions']} questions; intents {report['intents']}"]
    for i, r in enumerate(rows):
        lines.append("  ".join(c.ljust(width[j]) for j, c in enumerate(r)))
        if i == 0:
            lines.append("  ".join("-" * w for w in width))
    return "\n".join(lines)
