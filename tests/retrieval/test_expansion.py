"""Expansion inside the period: a second pass for the named things of the first pass's best hits,
never outside the period, the as-of day or the scope the first pass kept to."""
from __future__ import annotations

import datetime as dt
from types import SimpleNamespace

import pytest

from tests.fakes import jsonl_index
from trag_tui.errors import SettingError
from trag_tui.render import render_search
from trag_tui.retrieval import expansion, scoring
from trag_tui.retrieval.modes import Retriever, search
from trag_tui.settings import Settings

AS_OF = dt.date(2022, 6, 1)
EVERY = "hybrid,hard_filter,comparison,evolution"
QUESTION = "What was decided about the harbour bridge plan in 2019?"


def _rows():
    rows = [
        # the first hop: answers the question's words and names who did it
        {"id": "hop-1", "date": "2019-05-10", "title": "Council minutes", "source": "Clerk",
         "text": "The council decided the harbour bridge plan goes ahead, to be built by "
                 "Zorblax Corporation."},
        # the second hop: named only in the first, one of the question's words
        {"id": "hop-2", "date": "2019-08-20", "title": "Contracts", "source": "Clerk",
         "text": "Zorblax Corporation signed the contract for the bridge, forty million, work to start in "
                 "the autumn."},
        # more of the lead's own news in the period
        {"id": "hop-3", "date": "2019-09-02", "title": "Business", "source": "Clerk",
         "text": "Zorblax Corporation opened an office downtown with thirty staff."},
        {"id": "hop-4", "date": "2019-10-12", "title": "Business", "source": "Clerk",
         "text": "Zorblax Corporation sponsors the regatta again."},
        # outside the period, and after the as-of day: both name the lead more strongly
        {"id": "later", "date": "2020-03-01", "title": "Contracts", "source": "Clerk",
         "text": "Zorblax Corporation Zorblax Corporation harbour bridge plan decided contract."},
        {"id": "future", "date": "2023-01-01", "title": "Contracts", "source": "Clerk",
         "text": "Zorblax Corporation Zorblax Corporation harbour bridge plan decided contract."},
    ]
    others = ["Pupils will get free school meals from the new plan in September.",
              "Parking fees in the old town rise by a pound under the plan.",
              "Library hours are longer at weekends after the vote was decided.",
              "New street lighting along the harbour front was approved.",
              "Recycling collections move to Tuesdays, the committee decided.",
              "Park benches are to be repaired by volunteers next month.",
              "Bus lanes on the ring road are part of the transport plan.",
              "Market stalls may trade until nine on summer evenings."]
    for i, text in enumerate(others):
        rows.append({"id": f"other-{i}", "date": f"2019-{i + 2:02d}-15", "title": "Council minutes",
                     "source": "Clerk", "text": text})
    return rows


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    index = jsonl_index(tmp_path_factory.mktemp("expansion"), _rows(), k=2)
    yield index
    index.close()


def _search(idx, question=QUESTION, expand=EVERY, as_of=AS_OF):
    settings = idx.settings.replace(expand=expand)
    return search(idx, question, as_of=as_of, settings=settings, halt=False)


def test_the_second_hop_is_found_for_the_name_the_first_gives(idx):
    one_pass = _search(idx, expand="none")
    assert one_pass.hits[0].doc_id == "hop-1"
    assert "hop-2" not in [h.doc_id for h in one_pass.hits]
    res = _search(idx)
    assert res.hits[0].doc_id == "hop-1"  # the first pass's best stays first
    found = {h.doc_id: h.via for h in res.hits}
    assert found.get("hop-2") == "Zorblax Corporation"
    assert all(h.date.startswith("2019") for h in res.hits)
    shown = render_search(res, explain=True)
    assert "found for: Zorblax Corporation" in shown
    assert res.to_dict(explain=True)["hits"][[h.doc_id for h in res.hits].index("hop-2")]["via"] \
        == "Zorblax Corporation"


def _recorded(monkeypatch):
    calls = []
    original = Retriever.candidates

    def record(self, text, days, limit, *, about=None):
        calls.append((text, days, about, self.scope))
        return original(self, text, days, limit, about=about)

    monkeypatch.setattr(Retriever, "candidates", record)
    return calls


def test_an_expansion_pass_searches_only_the_first_pass_period_scope_and_as_of(idx, monkeypatch):
    calls = _recorded(monkeypatch)
    res = _search(idx)
    assert any(h.via for h in res.hits)
    assert len(calls) == 2  # one extra pass at most by default
    assert "Zorblax Corporation" in calls[1][0] and "Zorblax" not in calls[0][0]
    assert calls[1][1:] == calls[0][1:]  # the same day range, spoken-of chunks and scope
    assert calls[0][1].lo is not None and calls[0][1].hi is not None


def test_with_no_period_expansion_never_passes_as_of(idx, monkeypatch):
    calls = _recorded(monkeypatch)
    res = _search(idx, "What was decided about the harbour bridge plan?", as_of=dt.date(2019, 12, 31))
    assert res.mode == "hybrid" and any(h.via for h in res.hits)
    assert all(h.date <= "2019-12-31" for h in res.hits)
    assert {c[1] for c in calls} == {calls[0][1]} and calls[0][1].hi is not None


def test_a_comparison_expands_inside_each_period_separately(idx, monkeypatch):
    calls = _recorded(monkeypatch)
    res = _search(idx, "Compare the harbour bridge plan decided in 2019 and in 2020")
    assert res.mode == "comparison"
    periods = {}
    for _, days, *_ in calls:
        periods.setdefault((days.lo, days.hi), 0)
        periods[(days.lo, days.hi)] += 1
    assert len(periods) == 2 and max(periods.values()) == 2  # a period's pass and its expansion
    for _, days, *_ in calls[1:]:  # never the whole history, never past as-of
        assert days.lo is not None and days.hi is not None
    by_period = {h.doc_id: h.group for h in res.hits}
    assert by_period["hop-1"].startswith("2019") and by_period["later"].startswith("2020")
    assert "future" not in by_period


def test_the_blind_baseline_and_modes_the_setting_leaves_off_do_not_expand(idx, monkeypatch):
    calls = _recorded(monkeypatch)
    _search(idx, expand="hybrid")  # a point-in-time question: its mode is off
    search(idx, QUESTION, as_of=AS_OF, mode="blind", halt=False,
           settings=idx.settings.replace(expand=EVERY))
    assert len(calls) == 2 and not any("Zorblax" in c[0] for c in calls)
    assert Settings().expand == ""  # off by default: it helped no mode (docs/measurements.md)


def test_expand_keeps_the_first_pass_first_among_equals():
    first = [(1, 1.0), (2, 0.5)]
    then = [(3, 1.0), (2, 0.9)]
    fused = scoring.expand(first, [then], 0.8)
    order = [u for u, _ in fused]
    assert order[0] == 2  # found by both passes
    assert order.index(1) < order.index(3)  # same rank in its pass: the first pass's comes first
    assert scoring.added(first, fused, 2) == []  # 2 and 1 were the first pass's top 2 too
    assert scoring.added(first, fused, 3) == [3]
    assert scoring.added(first, first, 2) == []


def test_names_in_reads_names_not_capitalised_openings():
    text = ("Hey Caroline! Thanks, Melanie! This necklace is a gift from my grandma in my home "
            "country, Sweden. I loved reading \"Charlotte's Web\" as a kid.")
    # one word opening a sentence ("Hey", "Thanks", "This") is no name; inside one it is
    assert expansion.names_in(text) == ["Melanie", "Sweden", "Charlotte's Web"]


def test_leads_skip_the_question_and_the_hit_own_names():
    hits = [(7, "Melanie: Wow, Caroline! We camped near Lake Tahoe with the Boy Scouts.",
             ["Melanie", "Caroline and Melanie"])]
    found = expansion.leads("Where has Melanie camped?", hits, ["Melanie", "Caroline"], limit=5)
    assert [f.name for f in found] == ["Lake Tahoe", "Boy Scouts"]
    assert expansion.query("Where has Melanie camped?", found[:1]) == \
        "Where has Melanie camped? Lake Tahoe"


def test_the_expand_setting_names_modes_or_none():
    assert Settings().replace(expand="hybrid, comparison").expand == "hybrid,comparison"
    assert Settings().replace(expand="none").expand == ""
    with pytest.raises(SettingError, match="comma-separated list"):
        Settings().replace(expand="hybrid,decay")


def test_the_explain_view_says_which_name_found_a_source():
    from trag_tui.tui.widgets.sources import source_prompt

    source = SimpleNamespace(number=2, date="2019-08-20", title="Contracts", doc_id="hop-2",
                             speaker="", passage="Zorblax Corporation signed the contract.")
    shown = source_prompt(source, {"final": 0.5}, via="Zorblax Corporation").plain
    assert "found for: Zorblax Corporation" in shown
    assert "found for" not in source_prompt(source, {"final": 0.5}).plain
