"""Retrieval modes end to end on a small dated corpus, with the deterministic hash embedder."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.fakes import jsonl_index
from trag_tui.indexer import Indexer
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
from trag_tui.storage.index import open_index

AS_OF = dt.date(2025, 11, 22)
TOPICS = {
    "inflation": "CPI inflation rate prices rose per cent consumer",
    "defence": "defence spending armed forces budget Ministry",
    "housing": "housing homes planning rents construction",
}


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("corpus")
    rows = []
    n = 0
    for year in [2010, 2012, 2014, 2016, 2018, 2019, 2020, 2022, 2023, 2024, 2025]:
        for month in (3, 7, 11):
            for topic, words in TOPICS.items():
                n += 1
                rows.append({
                    "id": f"{topic}-{year}-{month:02d}", "date": f"{year}-{month:02d}-15",
                    "title": f"{topic.title()} debate {year}-{month:02d}", "source": "MP",
                    "text": f"In {year} the House discussed {topic}. " + (words + " ") * 6
                            + f"Report number {n}.",
                })
    # one document dated after the as-of day, which must never come back
    rows.append({"id": "future", "date": "2026-06-01", "title": "Inflation future",
                 "source": "MP", "text": "inflation " * 30})
    index = jsonl_index(tmp, rows, k=5)
    yield index
    index.close()


def _dates(res):
    return [dt.date.fromisoformat(h.date) for h in res.hits]


def test_point_in_time_is_a_hard_filter(idx):
    res = search(idx, "What was said about inflation in 2019?", as_of=AS_OF)
    assert res.mode == "hard_filter" and res.hits
    assert all(d.year == 2019 for d in _dates(res))
    assert res.hits[0].doc_id.startswith("inflation-2019")


def test_sparse_period_still_returns_its_best(idx):
    res = search(idx, "What was said about housing in July 2016?", as_of=AS_OF)
    assert [h.doc_id for h in res.hits][:1] == ["housing-2016-07"]


def test_empty_period_is_honest_and_names_nearest(idx):
    res = search(idx, "What was said about inflation in 2015?", as_of=AS_OF)
    assert res.hits == [] and "no documents" in res.empty_reason
    sides = {n["side"] for n in res.nearest}
    assert sides == {"before", "after"}
    months = [n["month"] for n in res.nearest]
    assert "2014-11" in months and "2016-03" in months


def test_current_prefers_latest_and_never_leaks(idx):
    res = search(idx, "What is the current inflation rate?", as_of=AS_OF)
    assert res.mode == "decay"
    assert all(d <= AS_OF for d in _dates(res))
    assert res.hits[0].doc_id == "inflation-2025-11"


def test_as_of_in_the_past_moves_current(idx):
    res = search(idx, "What is the latest on inflation?", as_of=dt.date(2019, 1, 1))
    assert all(d <= dt.date(2019, 1, 1) for d in _dates(res))
    assert res.hits[0].doc_id == "inflation-2018-11"


def test_no_mode_returns_future_documents(idx):
    for q in ["inflation", "How has inflation evolved?", "inflation in 2026",
              "Compare inflation in 2024 and 2026"]:
        res = search(idx, q, as_of=AS_OF, halt=False)
        assert all(d <= AS_OF for d in _dates(res)), q
        assert "future" not in [h.doc_id for h in res.hits]


def test_comparison_keeps_each_period_and_nothing_else(idx):
    res = search(idx, "Compare the debates on defence in 2012 and 2023", as_of=AS_OF, k=6)
    assert res.mode == "comparison"
    groups = {}
    for h in res.hits:
        groups.setdefault(h.group, []).append(h.date[:4])
    assert len(groups) == 2
    years = sorted({y for ys in groups.values() for y in ys})
    assert years == ["2012", "2023"]
    for label, ys in groups.items():
        assert len(set(ys)) == 1 and ys[0] in label


def test_evolution_spans_oldest_to_newest(idx):
    res = search(idx, "How has housing policy evolved since 2012?", as_of=AS_OF, k=6)
    assert res.mode == "evolution"
    dates = _dates(res)
    assert dates == sorted(dates)
    assert dates[0].year <= 2014 and dates[-1].year >= 2024
    assert res.hits[0].group == "older" and res.hits[-1].group == "newer"
    assert all(d >= dt.date(2012, 1, 1) for d in dates)


def test_explain_scores_present(idx):
    res = search(idx, "inflation", as_of=AS_OF)
    d = res.to_dict(explain=True)
    assert {"bm25", "dense", "fused", "centrality", "final"} <= set(d["hits"][0]["scores"])
    assert d["mode"] == "hybrid" and d["reason"]


def test_forced_mode(idx):
    res = search(idx, "inflation", as_of=AS_OF, mode="decay")
    assert res.mode == "decay" and "forced" in res.reason


def test_current_finds_the_latest_report_when_history_crowds_the_pool(tmp_path, monkeypatch):
    """A long history of strongly matching reports must not push the latest out of the pool."""
    import trag_tui.retrieval.modes as modes

    rows = []
    day = dt.date(2000, 1, 15)
    while day < dt.date(2025, 6, 1):  # a report every quarter, each full of the query's words
        rows.append({"id": f"old-{day}", "date": day.isoformat(), "title": "Inflation report",
                     "text": "inflation prices inflation prices rose " * 8})
        day = (day.replace(day=1) + dt.timedelta(days=95)).replace(day=15)
    # less like the question than the history, but more than half as like
    rows.append({"id": "latest", "date": "2025-11-03", "title": "Economy survey",
                 "text": "Inflation eased, contacts said; inflation and prices rose less than "
                         "wages. " * 3})
    (tmp_path / "docs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    settings = Settings(db=tmp_path / "c.db", embedder="hash", k=5, candidates=20)
    index = open_index(settings.db, settings, create=True)
    Indexer(index.conn, index.path, index.embedder, settings).run([tmp_path / "docs.jsonl"])
    try:
        res = search(index, "What is the latest on inflation?", as_of=AS_OF)
        assert res.mode == "decay" and res.hits[0].doc_id == "latest"
        monkeypatch.setattr(modes, "RECENT_CADENCES", 0.0)  # without the recent pass it is lost
        res = search(index, "What is the latest on inflation?", as_of=AS_OF)
        assert "latest" not in [h.doc_id for h in res.hits]
    finally:
        index.close()


def test_evaluate_without_the_baseline_scores_the_engine_alike(idx):
    from trag_tui.evaluation import QA, evaluate

    qas = [QA("q1", "What was said about inflation in 2016?", AS_OF, ("inflation-2016-07",), "pit", ()),
           QA("q2", "What is the latest on housing?", AS_OF, ("housing-2025-11",), "current", ())]
    both = evaluate(idx, qas, k=5)
    engine_only = evaluate(idx, qas, k=5, baseline=False)
    assert engine_only["engine"] == both["engine"]
    assert both["baseline"]["n_with_evidence"] == 2
    assert engine_only["baseline"]["n_with_evidence"] == 0 and engine_only["baseline"]["recall"] is None


def test_evolution_leaves_out_a_stretch_with_nothing_on_the_subject(tmp_path):
    # Each stretch of the span shows its best hit; a stretch holding only other subjects (the
    # 2005 debates on fishing) has no evidence of how carbon budgets changed.
    rows = [{"id": f"fish-{y}", "date": f"{y}-05-01", "title": f"Fishing {y}", "source": "MP",
             "text": f"In {y} the House discussed fishing quotas and the fleet. " * 4}
            for y in (2005, 2006)]
    rows += [{"id": f"carbon-{y}", "date": f"{y}-05-01", "title": f"Carbon budget {y}",
              "source": "MP", "text": f"In {y} the carbon budget target for emissions was set. " * 4}
             for y in (2011, 2016, 2021, 2025)]
    index = jsonl_index(tmp_path, rows, k=6)
    try:
        res = search(index, "How has the carbon budget target evolved?", as_of=AS_OF, k=6)
        assert res.mode == "evolution"
        assert {h.doc_id for h in res.hits} == {f"carbon-{y}" for y in (2011, 2016, 2021, 2025)}
        assert res.hits[0].group == "older" and res.hits[0].date.startswith("2011")
    finally:
        index.close()


def test_current_boosts_only_what_is_about_the_question(tmp_path, monkeypatch):
    """"What is net migration now?": this week's answers on net zero are the newest passages
    sharing a word, and the recency boost must not lift them over the latest migration figures."""
    import trag_tui.retrieval.modes as modes

    rows = [{"id": f"migration-{year}", "date": f"{year}-05-22", "title": "Migration statistics",
             "text": f"Net migration to the UK was estimated at {year % 100 * 7000} in the year. "
                     "Long-term international migration, immigration and emigration estimates." * 2}
            for year in range(2015, 2026)]
    for day in range(10, 21):
        rows.append({"id": f"netzero-{day}", "date": f"2025-11-{day}", "title": "Energy questions",
                     "text": "The Government remain committed to net zero by 2050 and to clean "
                             "power, heat pumps, offshore wind and the carbon budgets." * 2})
    index = jsonl_index(tmp_path, rows, k=5)
    try:
        res = search(index, "What is net migration now?", as_of=AS_OF)
        assert res.mode == "decay" and res.hits[0].doc_id == "migration-2025"
        monkeypatch.setattr(modes, "CURRENT_MATCH", 0.0)  # every candidate boosted alike
        res = search(index, "What is net migration now?", as_of=AS_OF)
        assert res.hits[0].doc_id.startswith("netzero")
    finally:
        index.close()


def test_current_does_not_boost_the_last_days_best_when_it_is_not_about_the_question(
        tmp_path, monkeypatch):
    """"Who is the current Minister for Borders and Immigration?" over a daily record: the recent
    pass finds the last sitting day's committee on child poverty (sharing "Minister" and
    "borders"), which must not outrank the week's immigration questions by recency alone, nor
    pass as like the question because the dense list did not reach it."""
    import trag_tui.retrieval.modes as modes

    rows = [{"id": f"fish-{day}", "date": f"2025-11-{day:02d}", "title": "Fisheries questions",
             "source": "MP", "text": "Members asked about fishing quotas, the fleet, harbours and "
                                     "coastal towns. " * 3} for day in range(1, 22)]
    rows += [{"id": f"home-{day}", "date": f"2025-11-{day:02d}", "title": "Home Office questions",
              "source": "Phil Woolas", "text": f"Visas and asylum claims were discussed on day {day}; "
                                               "the Minister for Borders and Immigration replied. " * 2}
             for day in range(1, 13)]
    rows += [{"id": f"committee-{i}", "date": "2025-11-21", "title": "Child Poverty Bill committee",
              "source": "MP", "text": f"Clause {i}: the Minister said councils must look beyond their "
                                      "borders on child poverty, housing and local services. " * 2}
             for i in range(8)]
    index = jsonl_index(tmp_path, rows, k=5, candidates=5)
    question = "Who is the current Minister for Borders and Immigration?"
    try:
        res = search(index, question, as_of=AS_OF)
        assert res.mode == "decay" and all(h.doc_id.startswith("home-") for h in res.hits)
        monkeypatch.setattr(modes, "RECENT_MATCH", 0.0)  # the recent pass's best boosted as any
        assert search(index, question, as_of=AS_OF).hits[0].doc_id.startswith("committee-")
        monkeypatch.setattr(modes, "RECENT_MATCH", 0.5)
        monkeypatch.setattr(modes, "_likeness", lambda *a: {})  # a lexical-only hit unmeasured
        assert search(index, question, as_of=AS_OF).hits[0].doc_id.startswith("committee-")
    finally:
        index.close()


def test_a_comparison_with_the_present_reads_the_present_as_current(tmp_path):
    """"How does inflation now compare with 2019?": the present state is the latest report,
    not whatever the whole history ranks first."""
    rows = [{"id": f"cpi-{year}-{month:02d}", "date": f"{year}-{month:02d}-15", "title": "Consumer price inflation",
             "text": f"CPI inflation was {year % 10}.{month} per cent in the year to the month. " * 3}
            for year in range(2012, 2026) for month in (3, 9)]
    rows += [{"id": f"cpi-detail-{year}", "date": f"{year}-06-15", "title": "Consumer price inflation",
              "text": "CPI inflation consumer prices inflation rate per cent inflation CPI. " * 4}
             for year in (2013, 2016)]
    index = jsonl_index(tmp_path, rows, k=6)
    try:
        res = search(index, "How does inflation now compare with 2019?", as_of=AS_OF, k=6)
        assert res.mode == "comparison"
        present = [h for h in res.hits if h.group and not h.group.startswith("2019")]
        assert present and present[0].doc_id == "cpi-2025-09"
        assert all(h.date.startswith("2019") for h in res.hits if h.group.startswith("2019"))
    finally:
        index.close()


def test_inside_a_period_its_own_news_comes_before_what_was_told_earlier(tmp_path, monkeypatch):
    """A photo gallery of past years, republished this week, is not this week's news: among
    near-equals the week's own report comes first."""
    import trag_tui.retrieval.modes as modes

    gallery = ("Photos: the prime minister over the years. He arrives in Downing Street, greets "
               "the Queen at the palace, campaigns on a bus, and wins a vote of confidence in his "
               "leadership, as prime minister, which he later lost and resigned")
    rows = [
        {"id": "profile", "date": "2025-06-02", "title": "A life in pictures", "text": gallery},
        {"id": "gallery-again", "date": "2025-11-20", "title": "The week in pictures", "text": gallery},
        {"id": "resigns", "date": "2025-11-20", "title": "Johnson quits",
         "text": "Boris Johnson resigned on Thursday and will leave Downing Street once his party "
                 "has chosen a successor"},
    ]
    # centrality off, so that the copy's edge to June's profile does not also lift it
    index = jsonl_index(tmp_path, rows, k=5, gamma=0.0)
    question = "Which prime minister resigned after a vote of confidence in his leadership this week?"
    try:
        res = search(index, question, as_of=dt.date(2025, 11, 21))
        assert res.mode == "hard_filter" and [h.doc_id for h in res.hits] == ["resigns", "gallery-again"]
        assert [h.scores["retold"] for h in res.hits] == [1.0, modes.RETOLD]
        monkeypatch.setattr(modes, "RETOLD", 1.0)  # told before or not, alike
        res = search(index, question, as_of=dt.date(2025, 11, 21))
        assert [h.doc_id for h in res.hits] == ["gallery-again", "resigns"]
        # asked in June, the profile and nothing told before it
        june = search(index, "What was in the pictures of the prime minister in June 2025?",
                      as_of=dt.date(2025, 11, 21))
        assert [h.doc_id for h in june.hits] == ["profile"] and june.hits[0].scores["retold"] == 1.0
    finally:
        index.close()


def test_a_passage_speaking_of_two_compared_periods_answers_for_the_one_it_names_most():
    """No period is answered from another's evidence: a passage found for two periods answers
    for one, the one it was published in, else the one it speaks of most strongly (its title
    before its text), else the first."""
    from trag_tui.retrieval.modes import Hit, SearchResult, _owners

    y2023 = (dt.date(2022, 7, 1), dt.date(2023, 6, 30))
    y2024 = (dt.date(2024, 1, 1), dt.date(2024, 12, 31))

    def hit(cid: int, date: str) -> Hit:
        return Hit(cid, cid, f"d{cid}", date, "t", "", "x", 1.0)

    class Spoken:
        def of(self, ids):  # chunk 1's title names the year ending December 2024
            from trag_tui.storage.store import to_day as day
            return {1: [(day(y2024[0]), day(y2024[1]), "title", "year ending December 2024"),
                        (day(y2023[0]), day(y2023[1]), "text", "year ending June 2023")],
                    # chunk 4's text speaks of 2024 alone ("5.0 per cent in 2024")
                    4: [(day(y2024[0]), day(y2024[1]), "text", "2024")]}

    class Retriever:
        def spoken(self):
            return Spoken()

    found = {y2023: SearchResult(None, "comparison", "", [hit(1, "2025-05-22"), hit(2, "2025-05-12"),
                                                          hit(3, "2024-03-06"), hit(4, "2025-11-11")]),
             y2024: SearchResult(None, "comparison", "", [hit(1, "2025-05-22"), hit(2, "2025-05-12"),
                                                          hit(4, "2025-11-11")])}
    owner = _owners(Retriever(), found, [y2023, y2024])
    # the release answers for its title's year, a report for the year its text speaks of; a
    # speech of neither period for the first found; one published in 2024 but found only for
    # the other period answers for neither
    assert owner == {1: y2024, 2: y2023, 3: (), 4: y2024}
