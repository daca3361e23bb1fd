"""Who said it: facets read from the data, aliases, and scope inside every retrieval mode."""
from __future__ import annotations

import datetime as dt
import json
import math

import pytest

from tests.fakes import jsonl_index
from trag_tui.facets import (
    FacetIndex,
    Stemmer,
    document_names,
    facet_index,
    initials,
    name_parts,
    update_facets,
)
from trag_tui.indexer import Indexer
from trag_tui.retrieval.modes import search

AS_OF = dt.date(2021, 1, 15)
BANKS = {"ph": ("Philadelphia", "Third"), "bo": ("Boston", "First"), "ri": ("Richmond", "Fifth"),
         "da": ("Dallas", "Eleventh")}
MONTHS = ["2019-03", "2019-07", "2019-11", "2020-03", "2020-07", "2020-11"]


FILLER = ("harvest rainfall cattle timber tourism shipping freight insurance software hospitals tuition "
          "mining drilling steel autos chemicals paper furniture airlines hotels restaurants").split()


def _district_text(city: str, month: str, n: int) -> str:
    words = " ".join(FILLER[(n + i * 7) % len(FILLER)] for i in range(12))
    return (f"Contacts said {words} conditions were steady in {month}. "
            f"Retail sales held in {city}. Loan demand was flat across the banking system, "
            f"and a summary of the third survey showed the system steady. ")


def _summary_text(month: str) -> str:
    # The national summary names every district and uses the question's words more than any of them.
    parts = [f"The {city} Fed reported retail sales gains; retail sales in {city} rose, {city} said."
             for city, _ in BANKS.values()]
    return " ".join(parts) + f" Retail sales were mixed across districts in {month}."


def _rows():
    rows = []
    n = 0
    for month in MONTHS:
        for code, (city, ordinal) in BANKS.items():
            n += 1
            rows.append({"id": f"bb:{month}:{code}", "date": f"{month}-15",
                         "title": f"Beige Book, {month}: Federal Reserve Bank of {city} ({ordinal} District)",
                         "source": f"Federal Reserve Bank of {city}", "text": _district_text(city, month, n)})
        rows.append({"id": f"bb:{month}:su", "date": f"{month}-15",
                     "title": f"Beige Book, {month}: National Summary",
                     "source": "Federal Reserve System (National Summary)", "text": _summary_text(month)})
        for i in range(6):  # other reports, so the question's words are not in every document
            rows.append({"id": f"other:{month}:{i}", "date": f"{month}-20", "title": f"Survey {month}-{i}",
                         "source": "", "text": " ".join(FILLER[(i * 5 + j) % len(FILLER)] for j in range(20))})
    return rows


def _build(tmp_path, rows, name="b.db", **knobs):
    return jsonl_index(tmp_path, rows, name=name, **{"k": 5, **knobs})


@pytest.fixture(scope="module")
def beige(tmp_path_factory):
    index = _build(tmp_path_factory.mktemp("beige"), _rows())
    yield index
    index.close()


def test_names_come_from_speaker_meta_and_the_named_part_of_titles():
    names = document_names("Beige Book, May 1970: Federal Reserve Bank of Atlanta (Sixth District)",
                           "Federal Reserve Bank of Atlanta", {"district": "at", "chamber": "Senate"})
    assert ("speaker", "Federal Reserve Bank of Atlanta") in names
    assert ("title", "Federal Reserve Bank of Atlanta (Sixth District)") in names
    assert ("chamber", "Senate") in names
    assert not any(n in ("at", "May 1970") for _, n in names)  # codes and dates are not names
    assert name_parts("Federal Reserve Bank of Atlanta (Sixth District)") == [
        "Federal Reserve Bank of Atlanta", "Sixth District"]


def _aliases(index):
    fi = facet_index(index)
    return {" ".join(a): sorted(fi.names[f] for f in fids) for a, fids in fi.aliases.items()}


def test_aliases_are_the_distinctive_parts_written_as_names(beige):
    got = _aliases(beige)
    stem = Stemmer().stems
    assert "Federal Reserve Bank of Philadelphia" in got[" ".join(stem("Philadelphia"))]
    assert " ".join(stem("Third District")) in got
    assert " ".join(stem("National Summary")) in got
    # generic words and words the text writes in lower case are no names of their own
    for word in ("Third", "District", "Bank", "Federal", "System", "Summary"):
        assert " ".join(stem(word)) not in got, word


def test_a_named_district_keeps_its_own_reports_first(beige):
    q = "What did the Philadelphia Fed report about retail sales in March 2020?"
    res = search(beige, q, as_of=AS_OF, k=3, halt=False)
    assert res.scope is not None and res.scope.filter
    assert res.scope.names[0] == "Federal Reserve Bank of Philadelphia"
    assert [h.doc_id for h in res.hits] == ["bb:2020-03:ph"]
    assert res.to_dict()["scope"]["sources"][0] == "Federal Reserve Bank of Philadelphia"
    off = search(beige, q, as_of=AS_OF, k=3, halt=False, settings=beige.settings.replace(scope="none"))
    assert off.scope is None and "bb:2020-03:su" in [h.doc_id for h in off.hits]  # the summary too


def test_the_district_number_names_it_too_but_a_number_alone_does_not(beige):
    res = search(beige, "How was employment described by the Fifth District in July 2019?", as_of=AS_OF)
    assert res.hits[0].doc_id == "bb:2019-07:ri"
    assert search(beige, "What happened to retail sales in the third quarter of 2019?",
                  as_of=AS_OF).scope is None


def test_without_a_reporting_word_the_scope_is_a_strong_prior(beige):
    res = search(beige, "How are retail sales in the Boston district doing now?", as_of=AS_OF)
    assert res.scope is not None and not res.scope.filter
    assert res.mode == "decay" and res.hits[0].doc_id == "bb:2020-11:bo"
    assert {h.doc_id for h in res.hits[:1]} <= {f"bb:{m}:bo" for m in MONTHS}


def test_each_period_of_a_comparison_is_scoped_alike(beige):
    res = search(beige, "Compare the Dallas Fed's view of retail sales in March 2019 and in November 2020",
                 as_of=AS_OF, k=4)
    assert res.mode == "comparison"
    assert {h.doc_id for h in res.hits} == {"bb:2019-03:da", "bb:2020-11:da"}


def test_inside_the_scope_the_words_naming_it_are_not_searched_for(beige, monkeypatch):
    """Every passage inside the Boston Fed's scope is the Boston Fed's: "Boston" selects
    nothing there, and the lexical search inside it reads the rest of the question; outside the
    scope (a prior, not a filter) the whole question is read, and a question naming only who
    keeps its words."""
    from trag_tui.retrieval import modes
    from trag_tui.retrieval.backends import backend_of

    backend = backend_of(beige)
    read: list[tuple[str, bool]] = []
    lexical = type(backend).lexical

    def spy(self, text, limit, days, scope=None, session=False, within=None):
        read.append((text, scope is not None))
        return lexical(self, text, limit, days, scope, session, within)

    monkeypatch.setattr(type(backend), "lexical", spy)
    res = search(beige, "How are retail sales in the Boston district doing now?", as_of=AS_OF)
    assert res.scope is not None and not res.scope.filter
    inside = [t for t, scoped in read if scoped]
    outside = [t for t, scoped in read if not scoped]
    assert inside and all("Boston" not in t and "retail sales" in t for t in inside)
    assert outside and all("Boston" in t for t in outside)
    assert modes.unnamed("What did Boston say?", ("Boston",)) == "What did Boston say?"
    # the capitalised words written onto the mention are the name too, not lower-case ones
    assert modes.unnamed("How did the Dallas Fed describe oil prices?", ("dallas",)).split() \
        == ["How", "did", "the", "describe", "oil", "prices?"]
    assert modes.unnamed("the Chicago Reserve Bank's view of wages", ("chicago",)).split() \
        == ["the", "view", "of", "wages"]
    assert modes.unnamed("Atlanta contacts on energy", ("atlanta",)).split() \
        == ["contacts", "on", "energy"]
    # the mention's words as the question writes them
    assert modes.unnamed("What did the St. Louis Fed report on wages?", ("st louis",)).split() \
        == ["What", "did", "the", "report", "on", "wages?"]


def test_current_and_evolution_are_scoped(beige):
    res = search(beige, "What is the national summary currently saying about retail sales?", as_of=AS_OF)
    assert res.hits[0].doc_id == "bb:2020-11:su"
    res = search(beige, "How has the Richmond Fed's view of retail sales evolved since 2019?", as_of=AS_OF)
    assert res.mode == "evolution" and all(h.doc_id.endswith(":ri") for h in res.hits)


def test_explain_and_json_show_the_scope(beige):
    from trag_tui.render import render_search

    res = search(beige, "What did the Boston Fed say about loan demand in 2020?", as_of=AS_OF)
    assert "scope: source: Federal Reserve Bank of Boston (only)" in render_search(res, explain=True)


def test_facets_follow_the_index_incrementally(tmp_path):
    rows = _rows()
    index = _build(tmp_path, rows[:5])
    try:
        assert "Federal Reserve Bank of Dallas" in facet_index(index).names.values()
        extra = [{"id": "sp-1", "date": "2020-05-01", "title": "Questions: Rwanda", "source": "Rishi Sunak",
                  "text": "The Prime Minister said the Rwanda plan will go ahead."},
                 {"id": "sp-2", "date": "2020-05-02", "title": "Questions: Rwanda", "source": "Keir Starmer",
                  "text": "Mr Sunak was asked about the Rwanda plan; Mr Sunak and Mr Starmer disagreed."}]
        (tmp_path / "more.jsonl").write_text("\n".join(json.dumps(r) for r in extra))
        Indexer(index.conn, index.path, index.embedder, index.settings).run([tmp_path / "more.jsonl"])
        scope = facet_index(index).scope("What did Mr Sunak say about Rwanda?")
        assert scope is not None and scope.names == ("Rishi Sunak",) and scope.filter
        res = search(index, "What did Mr Sunak say about Rwanda?", as_of=AS_OF)
        assert [h.doc_id for h in res.hits] == ["sp-1"]  # the reply that merely names him is not his
    finally:
        index.close()


def test_an_index_built_before_facets_gains_them_on_first_need(tmp_path):
    index = _build(tmp_path, _rows())
    try:
        with index.conn:
            for table in ("facet_aliases", "document_facets", "facet_seen", "facets"):
                index.conn.execute(f"DELETE FROM {table}")
        assert update_facets.__name__  # rebuilt by the first search, not by re-indexing
        res = search(index, "What did the Richmond Fed say about retail sales in July 2020?", as_of=AS_OF)
        assert res.scope is not None and res.hits[0].doc_id == "bb:2020-07:ri"
        assert index.conn.execute("SELECT count(*) FROM facet_seen").fetchone()[0] == len(_rows())
    finally:
        index.close()


def test_unknown_scope_is_a_clear_error(beige):
    with pytest.raises(ValueError, match="unknown scope"):
        search(beige, "retail sales", as_of=AS_OF, settings=beige.settings.replace(scope="everything"))


# -- soft edges and the time scale ------------------------------------------------------------


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("news")
    rows = [
        {"id": "sunday", "date": "2022-06-09", "title": "Vote on the bill", "source": "wire",
         "text": "Parliament will vote on the climate bill on Monday."},
        {"id": "inside", "date": "2022-06-15", "title": "Climate bill passes", "source": "wire",
         "text": "The climate bill passed parliament on Wednesday after a long vote."},
        {"id": "old", "date": "2022-05-01", "title": "Climate bill drafted", "source": "wire",
         "text": "A climate bill vote in parliament is planned."},
        {"id": "after", "date": "2022-06-20", "title": "Climate bill signed", "source": "wire",
         "text": "The climate bill vote in parliament is now law."},
    ]
    index = _build(tmp, rows, name="n.db")
    yield index
    index.close()


def test_this_week_has_soft_edges_inside_first_and_never_after_as_of(news):
    as_of = dt.date(2022, 6, 17)  # a Friday: this week is 11..17 June; the soft edge 7..10 June
    res = search(news, "What happened with the climate bill vote in parliament this week?", as_of=as_of,
                 halt=False)
    assert (res.query.start, res.query.end) == (dt.date(2022, 6, 11), as_of)
    assert [h.doc_id for h in res.hits] == ["inside", "sunday"]
    res = search(news, "What happened to the climate bill vote in parliament yesterday?",
                 as_of=dt.date(2022, 6, 10), halt=False)  # 9 June, and 7..8 June softly
    assert [h.doc_id for h in res.hits] == ["sunday"]
    # a named, longer period holds exactly
    res = search(news, "What happened with the climate bill vote in parliament in June 2022?",
                 as_of=dt.date(2022, 6, 17), halt=False)
    assert {h.doc_id for h in res.hits} == {"inside", "sunday"}
    res = search(news, "climate bill vote in parliament this week?", as_of=dt.date(2022, 6, 21), halt=False)
    assert {h.doc_id for h in res.hits} == {"inside", "after"}  # 15..21 June, nothing from 11..14
    res = search(news, "climate bill vote in parliament last week?", as_of=dt.date(2022, 6, 22), halt=False)
    assert [h.doc_id for h in res.hits] == ["inside"]  # 13..19 June: hard edges


def test_inside_a_short_period_ending_on_as_of_the_later_report_comes_first(tmp_path):
    from trag_tui.retrieval.modes import LATEST_IN_PERIOD_DELTA

    # the same report filed on several days: only the day tells them apart
    rows = [{"id": f"d{day}", "date": f"2022-06-{day:02d}", "title": "Climate bill", "source": "wire",
             "text": "The climate bill went before parliament for its vote."} for day in (3, 12, 14, 16)]
    index = _build(tmp_path, rows, name="week.db")
    as_of = dt.date(2022, 6, 17)
    try:
        res = search(index, "What happened with the climate bill vote this week?", as_of=as_of, halt=False)
        assert [h.doc_id for h in res.hits] == ["d16", "d14", "d12"]
        for h in res.hits:
            age = (as_of - dt.date.fromisoformat(h.date)).days
            assert h.scores["decay"] == pytest.approx(1 + LATEST_IN_PERIOD_DELTA * math.exp(-age / 7))
        # a named period is held as a period: no day is preferred inside it
        res = search(index, "What happened with the climate bill vote in June 2022?", as_of=as_of, halt=False)
        assert {h.doc_id for h in res.hits} == {"d3", "d12", "d14", "d16"}
        assert all("decay" not in h.scores or h.scores["decay"] == 0.0 for h in res.hits)
    finally:
        index.close()


@pytest.mark.parametrize("tau", [20.0, 1000.0])
def test_a_user_tau_is_used_as_given_in_current_and_hybrid_modes(news, tau):
    settings = news.settings.replace(tau=tau)
    as_of = dt.date(2022, 6, 30)
    for question, delta in (("What is the latest on the climate bill vote?", None),
                            ("climate bill vote parliament", 0.1)):
        res = search(news, question, as_of=as_of, settings=settings, halt=False)
        assert len(res.hits) >= 3
        ages = [(as_of - dt.date.fromisoformat(h.date)).days for h in res.hits]
        if delta is None:  # the current mode: factor - 1 = δ·exp(-age/τ), δ set by the cue word
            deltas = {round(math.log(h.scores["decay"] - 1) + age / tau, 6) for h, age in zip(res.hits, ages)}
            assert len(deltas) == 1, deltas
        else:  # the hybrid mode's mild prior
            for h, age in zip(res.hits, ages):
                assert h.scores["decay"] == pytest.approx(1 + delta * math.exp(-age / tau))


def test_news_worded_as_happening_now_leans_to_the_last_days_unless_a_source_is_named(tmp_path):
    from trag_tui.retrieval.modes import ONGOING_DELTA, ONGOING_TAU, PRIOR_DELTA

    rows = [{"id": f"{source}-{day}", "date": f"2022-06-{day:02d}", "title": f"Climate bill, {day} June",
             "source": source, "text": f"The climate bill went before parliament, {source} reported."}
            for source in ("Reuters", "Bloomberg") for day in (1, 9, 15, 20, 28)]
    index = _build(tmp_path, rows, name="wires.db")
    settings = index.settings.replace(tau=20.0)
    as_of = dt.date(2022, 6, 30)

    def factors(question):
        res = search(index, question, as_of=as_of, settings=settings, halt=False)
        assert res.mode == "hybrid" and len(res.hits) >= 3
        assert res.query.ongoing is (" has " in question)
        assert (res.scope is not None) is ("Reuters" in question)
        return [(h.scores["decay"], (as_of - dt.date.fromisoformat(h.date)).days) for h in res.hits]

    try:
        for decay, age in factors("Which climate bill has parliament passed?"):
            assert decay == pytest.approx((1 + PRIOR_DELTA * math.exp(-age / 20.0))
                                          * (1 + ONGOING_DELTA * math.exp(-age / ONGOING_TAU)))
        # in the past tense, or naming whose reports (a named source's own reports are not
        # superseded so): the mild prior alone
        for question in ("Which climate bill did parliament pass?",
                         "Reuters has reported which climate bill parliament passed?"):
            for decay, age in factors(question):
                assert decay == pytest.approx(1 + PRIOR_DELTA * math.exp(-age / 20.0))
    finally:
        index.close()


def test_scope_scoring_is_pure_and_ordered():
    import numpy as np

    from trag_tui.retrieval.scoring import append_below, only, prefer

    ranked = [(1, 1.0), (2, 0.9), (3, 0.5)]
    inside = np.array([2, 3], dtype=np.int64)
    assert only(ranked, inside) == [(2, 0.9), (3, 0.5)]
    assert prefer(ranked, inside, 0.5) == [(2, 0.9), (1, 0.5), (3, 0.5)]
    merged = append_below([(5, 0.4), (6, 0.2)], [(7, 3.0), (5, 1.0)])
    assert [u for u, _ in merged] == [5, 6, 7] and merged[-1][1] < 0.2


def test_a_surname_the_text_never_writes_still_names_its_speaker(tmp_path):
    # The Congressional Record's speeches carry the Member in the speaker field and metadata,
    # not in the text; the surname alone must still find them, and "Mr. LOTT" too.
    rows = [{"id": f"s{i}", "date": "1997-01-28", "title": "Senate: Budget", "source": who,
             "speaker_printed": printed, "chamber": "Senate",
             "text": f"The budget must balance, speech {i}; the deficit and the tax on farmers."}
            for i, (who, printed) in enumerate([("Byron L. Dorgan", "Mr. DORGAN"), ("Trent Lott", "Mr. LOTT")] * 3)]
    index = _build(tmp_path, rows, name="crec.db")
    try:
        fi = facet_index(index)
        assert fi.scope("What did Senator Dorgan say about the budget?").names == ("Byron L. Dorgan",)
        assert fi.scope("What did Mr. Lott say?").names[0] in ("Mr. LOTT", "Trent Lott")
        assert fi.scope("What did the Senate say?") is None  # one word of metadata is no name
    finally:
        index.close()


def test_initials_name_a_source_where_the_text_writes_them(tmp_path):
    # "the ONS" is how people name the Office for National Statistics; the initials are matched
    # in capitals only ("ons" is the stem of "on"), and only where the corpus writes them.
    assert initials("Office for National Statistics") == "ONS"
    assert initials("Keir Starmer") is None and initials("Bank of England") is None
    assert initials("Committee on standards in public life") is None  # lower-case words in it
    rows = [{"id": f"ons-{i}", "date": f"2025-11-{10 + i}", "title": f"Labour market overview {i}",
             "source": "Office for National Statistics",
             "text": f"Unemployment was {4 + i}.0 per cent, the ONS said in its release."}
            for i in range(3)]
    rows += [{"id": f"ccc-{i}", "date": f"2025-11-{10 + i}", "title": f"Progress report {i}",
              "source": "Climate Change Committee", "text": "Emissions fell on the year before."}
             for i in range(3)]
    rows += [{"id": f"deb-{i}", "date": f"2025-11-{10 + i}", "title": "Questions: Economy",
              "source": "Rachel Reeves",
              "text": "On unemployment the ONS figures speak for themselves, and on growth."}
             for i in range(3)]
    index = _build(tmp_path, rows, name="ons.db")
    try:
        fi = facet_index(index)
        scope = fi.scope("What did the ONS publish in November 2025?")
        assert scope is not None and scope.names == ("Office for National Statistics",)
        assert scope.filter  # what a source published is what it said: its own documents only
        assert fi.scope("What did the CCC say?") is None  # the text never writes "CCC"
        assert fi.scope("What was said on unemployment?") is None  # "on" is no initials
        res = search(index, "What did the ONS publish in November 2025?", as_of=dt.date(2025, 11, 30))
        assert {h.doc_id for h in res.hits[:3]} == {"ons-0", "ons-1", "ons-2"}
    finally:
        index.close()


def test_a_read_only_index_read_by_older_rules_keeps_its_facets(tmp_path):
    # A file copied from an older trag-tui onto a read-only medium: searched with the names it
    # holds, never written.
    index = _build(tmp_path, _rows())
    try:
        with index.conn:
            index.conn.execute("UPDATE meta SET value = 'old' WHERE key = 'facet_rules'")
        index.conn.execute("PRAGMA query_only = ON")
        scope = FacetIndex(index.conn).scope("What did the Richmond Fed say about retail sales?")
        assert scope is not None and "Richmond" in scope.names[0]
        assert index.conn.execute("SELECT value FROM meta WHERE key = 'facet_rules'").fetchone()[0] == "old"
    finally:
        index.close()


def _scope_query_plan(conn, key) -> str:
    marks = ",".join("?" * len(key))
    sql = FacetIndex.CHUNKS_SQL.format(marks=marks)
    return " ".join(r[-1] for r in conn.execute("EXPLAIN QUERY PLAN " + sql, key))


def test_a_scopes_chunks_come_from_the_searchable_index_not_the_chunk_rows(beige):
    # The chunk rows hold the text: at a million chunks reading a district's from them took
    # three times as long as from the index of searchable chunks by document.
    fi = facet_index(beige)
    scope = fi.scope("What did the Dallas Fed report about retail sales?")
    assert "COVERING INDEX chunks_searchable_document" in _scope_query_plan(beige.conn, scope.facet_ids)
    want = sorted({u for (u,) in beige.conn.execute(
        "SELECT c.id FROM chunks c JOIN document_facets f ON f.document_id = c.document_id "
        f"WHERE c.searchable = 1 AND f.facet_id IN ({','.join('?' * len(scope.facet_ids))})",
        scope.facet_ids)})
    assert want and fi.chunk_ids(scope).tolist() == want


def test_a_read_only_file_from_before_that_index_finds_the_same_chunks(tmp_path):
    import shutil

    from trag_tui.storage.db import sqlite3
    from trag_tui.storage.index import open_index

    index = _build(tmp_path, _rows())
    scope = facet_index(index).scope("What did the Dallas Fed report about retail sales?")
    want = facet_index(index).chunk_ids(scope).tolist()
    index.close()
    old = tmp_path / "old.db"
    shutil.copy(index.path, old)
    raw = sqlite3.connect(old)
    raw.execute("DROP INDEX chunks_searchable_document")
    raw.execute("DELETE FROM _migrations WHERE name = '0009_searchable_by_document.sql'")
    raw.commit()
    raw.close()
    old.chmod(0o444)
    try:
        reader = open_index(old, index.settings)  # read-only: the step is not taken
        assert reader.readonly
        assert "chunks_searchable_document" not in _scope_query_plan(reader.conn, scope.facet_ids)
        assert facet_index(reader).chunk_ids(scope).tolist() == want
        reader.close()
    finally:
        old.chmod(0o644)
    writer = open_index(old, index.settings, write=True)  # writable: it gains the index
    assert "COVERING INDEX chunks_searchable_document" in _scope_query_plan(writer.conn, scope.facet_ids)
    writer.close()


def _lords_rows():
    rows = []
    for day in range(12, 16):
        rows.append({"id": f"howe:{day}", "date": f"2009-10-{day}", "title": "House of Lords: Health",
                     "source": "Earl Howe",
                     "text": "My Lords, hospitals need more nurses, as Earl Howe has long argued. "
                             "Lord Howe said so again and Howe will say it once more."})
        for i in range(3):
            rows.append({"id": f"other:{day}:{i}", "date": f"2009-10-{day}",
                         "title": "House of Commons: Schools", "source": f"Member {chr(65 + i)}",
                         "text": f"Many schools opened {i + 3} new classrooms and hired teachers."})
    return rows


def test_one_word_stands_for_a_name_only_as_the_name_writes_it(tmp_path):
    """"How" and "Howe" share the index's stem; "How many…" names no one."""
    index = _build(tmp_path, _lords_rows())
    try:
        fi = facet_index(index)
        assert fi.scope("How many new classrooms did schools open?") is None
        named = fi.scope("What did Howe say about hospitals?")
        assert named is not None and named.names == ("Earl Howe",)
    finally:
        index.close()


def test_a_named_source_with_nothing_in_the_period_leans_instead_of_emptying_it(beige):
    """The Philadelphia Fed has no report of 20 March 2020, but other reports were published
    that day: the answer must not say the day holds no documents."""
    q = "What did the Philadelphia Fed report about tourism on 20 March 2020?"
    res = search(beige, q, as_of=AS_OF, k=3, halt=False)
    assert res.hits and not res.empty_reason
    assert res.scope is not None and not res.scope.filter
    assert {h.date for h in res.hits} == {"2020-03-20"}
    # a day with nothing published at all is still said to be empty
    none = search(beige, "What did the Philadelphia Fed report about tourism on 21 March 2020?",
                  as_of=AS_OF, k=3, halt=False)
    assert not none.hits and "no documents" in none.empty_reason


def test_a_record_kind_capitalised_as_a_category_is_a_source_a_question_can_name(tmp_path):
    """"…according to a Lords written answer": the chamber field says "Lords written answers",
    not every word of it capitalised, and the question names it (not the "Noble Lords" who
    call out in the debates)."""
    assert ("chamber", "Lords written answers") in document_names("Lords written answers: Roads", "Lord Adonis",
                                                                  {"chamber": "Lords written answers"})
    for free_text in ("Roads were discussed.", "Vehicles 2009", "lords written answers"):
        assert not any(k == "chamber" for k, _ in document_names("", "", {"chamber": free_text}))
    rows = [{"id": f"wa-{i}", "date": f"2009-10-{10 + i}", "title": "Lords written answers: Vehicles",
             "source": "Lord Adonis", "chamber": "Lords written answers",
             "text": f"Average CO2 emissions of new cars were {150 + i}g/km in the year."} for i in range(3)]
    rows += [{"id": f"debate-{i}", "date": f"2009-10-{10 + i}", "title": "House of Lords: Transport",
              "source": "Noble Lords" if i else "Lord Berkeley", "chamber": "House of Lords",
              "text": "Hear, hear! Average CO2 emissions of new cars must fall."} for i in range(3)]
    index = jsonl_index(tmp_path, rows, k=3)
    try:
        q = "What were average CO2 emissions of new cars, according to a Lords written answer?"
        scope = facet_index(index).scope(q)
        assert scope is not None and scope.names == ("Lords written answers",) and scope.filter
        assert {h.doc_id for h in search(index, q, as_of=dt.date(2009, 11, 1), k=3).hits} == {
            "wa-0", "wa-1", "wa-2"}
    finally:
        index.close()


def test_a_place_many_speakers_names_share_is_where_after_in_not_who(tmp_path, monkeypatch):
    """"…in Scotland" names no member for the West of Scotland; "the Chicago Fed's reports" in
    "in Chicago" are one source's, and stay its scope."""
    import trag_tui.facets as facets

    monkeypatch.setattr(facets, "MAX_NAME_SHARE", 1.0)  # a small index: every shared part counts
    members = ["Ross Finnie (West of Scotland) (LD)", "Jim Hume (South of Scotland) (LD)",
               "John Wilson (Central Scotland) (SNP)", "Nigel Don (North East Scotland) (SNP)",
               "Annabel Goldie (West of Scotland) (Con)"]
    rows = [{"id": f"sp:{i}:{d}", "date": f"2009-10-{d}", "title": "Scottish Parliament: Health",
             "source": name, "text": f"Flu vaccination in my region reached {i + d} per cent."}
            for i, name in enumerate(members) for d in (27, 28, 29)]
    index = _build(tmp_path, rows)
    try:
        fi = facet_index(index)
        assert fi.scope("What did Finnie say about flu vaccination?").names[0].startswith("Ross")
        assert fi.scope("What was said about flu vaccination in Scotland?") is None
    finally:
        index.close()
    # one source named after "in" is still who
    assert facets._a_place(["retail", "sales", "in", "chicago"], 3, [1]) is False
