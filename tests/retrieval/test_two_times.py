"""Retrieval by the time documents speak of, on the sample corpus (hash embedder).

A question about a period's state or figure finds the passages published in it and those that
speak of it; one about what was said in it keeps to publication dates; nothing published after
the as-of date is ever returned, whatever it speaks of.
"""
from __future__ import annotations

import datetime as dt

import pytest

from trag_tui.render import render_search
from trag_tui.retrieval.modes import search
from trag_tui.settings import Settings
from trag_tui.storage.index import open_index
from trag_tui.text.labels import period_key

AS_OF = dt.date(2025, 11, 22)


@pytest.fixture(scope="module")
def sample(sample_hash_db):
    idx = open_index(sample_hash_db, Settings(db=sample_hash_db, embedder="hash"))
    yield idx
    idx.close()


def docs(res) -> list[str]:
    return [h.doc_id for h in res.hits]


def test_a_figure_of_a_month_is_found_in_the_release_published_after_it(sample):
    res = search(sample, "What was CPI inflation in May 2024?", as_of=AS_OF, k=5)
    assert res.query.time == "about" and res.mode == "hard_filter"
    assert "report-2024-05-cpi" in docs(res)  # "Consumer price inflation, May 2024", 19 June
    hit = next(h for h in res.hits if h.doc_id == "report-2024-05-cpi")
    assert hit.date == "2024-06-19" and "May 2024" in hit.about
    assert hit.scores["spoken"] > 1.0  # it speaks of the month itself
    # read by publication date only, June's release is not May's
    said = search(sample, "What was CPI inflation in May 2024?", as_of=AS_OF, k=5,
                  settings=sample.settings.replace(time="said"))
    assert "report-2024-05-cpi" not in docs(said)
    assert all(h.date.startswith("2024-05") for h in said.hits)


def test_nothing_published_after_as_of_is_found_whatever_it_speaks_of(sample):
    res = search(sample, "What was CPI inflation in May 2024?", as_of=dt.date(2024, 6, 1), k=10)
    assert "report-2024-05-cpi" not in docs(res)
    assert all(h.date <= "2024-06-01" for h in res.hits)


def test_a_plan_for_a_later_period_is_found_in_the_report_that_set_it(sample):
    res = search(sample, "What carbon budget was recommended for 2033 to 2037?", as_of=AS_OF, k=5)
    assert (res.query.start, res.query.end) == (dt.date(2033, 1, 1), dt.date(2037, 12, 31))
    assert "report-2020-12-sixth-carbon-budget" in docs(res)
    assert all(h.date <= AS_OF.isoformat() for h in res.hits)


def test_a_period_partly_ahead_is_found_in_what_set_it_years_before(sample):
    # the fourth carbon budget, "covering 2023 to 2027", was set in a written answer of 2011;
    # the debates of 2023 to 2025 merely published in the period mention carbon budgets too
    res = search(sample, "What is the carbon budget for 2023 to 2027?", as_of=AS_OF, k=5)
    assert (res.query.start, res.query.end) == (dt.date(2023, 1, 1), dt.date(2027, 12, 31))
    assert res.hits[0].date == "2011-05-18" and "2023 to 2027" in res.hits[0].about
    assert all(h.date <= AS_OF.isoformat() for h in res.hits)


def test_funding_compared_across_years_keeps_what_was_published_in_each(sample):
    # funding is not a figure published after its period: a 2019 debate's "announced last
    # year" does not push the 2018 settlement itself out of 2018's block
    res = search(sample, "NHS funding in 2018 versus 2024", as_of=AS_OF, k=6)
    assert res.mode == "comparison"
    first = [h.doc_id for h in res.hits if h.group == period_key(*res.query.periods[0])]
    assert "report-2018-06-nhs-funding-settlement" in first


def test_a_plan_for_a_period_ahead_is_found_in_what_speaks_of_it(sample):
    # a current question naming a year ahead: the latest documents, those that speak of the
    # year first ("2.6 per cent of GDP from 2027", the Spending Review's plans to 2027)
    res = search(sample, "How much will the UK spend on defence as a share of GDP in 2027?",
                 as_of=AS_OF, k=5)
    assert res.mode == "decay" and res.query.ahead == (dt.date(2027, 1, 1), dt.date(2027, 12, 31))
    speaking = [h for h in res.hits if "2027" in h.about]
    assert len(speaking) >= 2 and res.hits.index(speaking[0]) <= 1
    assert all(h.date <= AS_OF.isoformat() for h in res.hits)


def test_no_documents_only_when_nothing_was_published_in_the_period_or_speaks_of_it(sample):
    # the sample holds nothing from 1975, and nothing speaks of it
    res = search(sample, "What was CPI inflation in May 1975?", as_of=AS_OF)
    assert res.hits == [] and res.empty_reason
    # nothing was published in 2015 either, but the 2010 Spending Review speaks of 2015-16: a
    # question about what was said in 2015 finds nothing, one about 2015's budgets finds it
    said = search(sample, "What was said about the NHS in 2015?", as_of=AS_OF)
    assert said.hits == [] and "no documents published in 2015" in said.empty_reason
    # ... and names the documents of other times that speak of 2015 on its subject
    assert "report-2010-10-spending-review" in {d["doc_id"] for d in said.spoken_elsewhen}
    assert "speaks of it: 2010-10-20 Spending Review 2010" in render_search(said)
    # a report measuring emissions against 1990 says nothing about the NHS in 1990
    said = search(sample, "What was said about NHS funding in 1990?", as_of=AS_OF)
    assert said.hits == [] and said.spoken_elsewhen == []
    assert said.empty_reason == "no documents from 1990"
    assert search(sample, "What was said about emissions in 1990?", as_of=AS_OF).spoken_elsewhen
    res = search(sample, "What was the health budget in 2015?", as_of=AS_OF, k=5)
    assert "report-2010-10-spending-review" in docs(res)
    # a period nothing was published in, but that a report speaks of, has documents
    res = search(sample, "What was the unemployment rate in July to September 2014?", as_of=AS_OF,
                 k=5)
    assert res.hits and "report-2014-11-labour-market" in docs(res)


def test_each_period_of_a_comparison_is_read_by_what_speaks_of_it(sample):
    res = search(sample, "Compare net migration in the year ending June 2023 and the year ending "
                         "December 2024", as_of=AS_OF, k=6)
    assert res.mode == "comparison" and res.query.time == "about"
    assert {"report-2023-11-net-migration", "report-2025-05-net-migration"} <= set(docs(res))
    # "the year ending …" is the twelve months to that month's end
    assert res.query.periods == ((dt.date(2022, 7, 1), dt.date(2023, 6, 30)),
                                 (dt.date(2024, 1, 1), dt.date(2024, 12, 31)))
    # the May 2025 release speaks of both years (its 431,000 and the revised 906,000 peak): it
    # answers for the one its title names, not for the first it was found for
    block = {h.doc_id: h.group for h in res.hits}
    assert block["report-2023-11-net-migration"] == period_key(*res.query.periods[0])
    assert block["report-2025-05-net-migration"] == period_key(*res.query.periods[1])
