"""Two times: which one a question's period asks about, and the periods a document speaks of.

The document side is read by the question rules with the publication day as as_of; the cases
with real titles and sentences come from the shared corpora and skip where they are absent.
"""
from __future__ import annotations

import datetime as dt
import json

import pytest

from trag_tui.temporal.question import parse
from trag_tui.temporal.spoken import spoken_periods

AS_OF = dt.date(2025, 11, 22)


def d(s: str) -> dt.date:
    return dt.date.fromisoformat(s)


# -- the question side: "said" or "about" (the contract's examples, and some of our own) -------

@pytest.mark.parametrize("question, time", [
    ("What was said about NHS funding in 2015?", "said"),
    ("What did the ONS publish in November 2025?", "said"),
    ("What did Senator Lott say on 28 January 1997?", "said"),
    ("What did the October 2025 Beige Book say about employment?", "said"),
    ("How did employment change in the October 2025 Beige Book?", "said"),
    ("What was debated in the Commons in March 2024?", "said"),
    ("What was CPI inflation in May 2024?", "about"),
    ("How many people crossed the Channel in 2022?", "about"),
    ("Net migration in the year ending June 2023", "about"),
    ("What budget was set for 2033 to 2037?", "about"),
    ("Who was Home Secretary in 2022?", "about"),
    ("Compare net migration in 2019 and 2025", "about"),
    ("How has inflation changed since 2020?", "about"),
    ("What did the ONS publish for May 2024?", "about"),  # the figures for May, not what appeared then
    # a period straight after a deed is that deed's, whatever verb of saying the question has
    ("What did a Lords written answer say about new cars sold in 2008?", "about"),
    ("What did the minister say about the bill passed in 2015?", "about"),
    ("What did MPs say about Brexit in 2016?", "said"),
    ("What did the report published in 2015 say?", "said"),
    ("How has the Atlanta district's view of energy evolved since 2012?", "said"),
    ("Who is the Prime Minister?", None),
    ("What is the Online Safety Act?", None),
])
def test_a_period_is_read_as_the_time_of_saying_or_the_time_spoken_of(question, time):
    assert parse(question, AS_OF).time == time


def test_a_plan_for_a_named_period_is_asked_about_that_period():
    q = parse("What carbon budget was recommended for 2033 to 2037?", AS_OF)
    assert (q.intent, q.start, q.end, q.time) == ("point_in_time", d("2033-01-01"), d("2037-12-31"),
                                                 "about")
    # the present state of a target named by its year is the latest documents' to say
    assert parse("What is the 2030 net zero target?", AS_OF).intent == "current"
    # a time ahead that is not named outright stays with the latest documents
    assert parse("How much will defence spending rise by 2027?", AS_OF).intent == "current"


def test_a_range_that_begins_by_as_of_is_read_whole_though_it_ends_after_it():
    # "2023 to 2027" asked in 2025 is the whole budget period, not 2023 with 2027 left over
    q = parse("What is the carbon budget for 2023 to 2027?", AS_OF)
    assert (q.intent, q.start, q.end, q.time) == ("point_in_time", d("2023-01-01"),
                                                 d("2027-12-31"), "about")
    assert q.semantic_query == "carbon budget" and q.figure  # a budget is a figure set
    q = parse("Spending from March 2025 to June 2026", AS_OF)
    assert (q.start, q.end) == (d("2025-03-01"), d("2026-06-30"))
    # a range wholly ahead is still the plan's period, a single year ahead still the present's
    assert (parse("What budget was set for 2026 to 2030?", AS_OF).start) == d("2026-01-01")
    assert parse("What is the 2030 net zero target?", AS_OF).intent == "current"


def test_a_plan_asked_by_its_deadline_is_asked_about_the_deadline():
    # a document's "reduced to 82,000 by 2017" speaks of 2017 (spoken._deadlines); a question
    # worded as a plan asks the state it set for then, not everything until 2017
    q = parse("How big was the regular Army meant to be by 2017?", AS_OF)
    assert (q.start, q.end, q.time) == (d("2017-01-01"), d("2017-12-31"), "about")
    assert "by" not in q.semantic_query.split()
    q = parse("What additional NHS funding was expected to be needed by 2020-21?", AS_OF)
    assert (q.start, q.end) == (d("2020-01-01"), d("2021-12-31"))
    # a change planned for the deadline is not a history up to it
    q = parse("How much was the NHS budget expected to rise by 2023-24?", AS_OF)
    assert (q.intent, q.start, q.end) == ("point_in_time", d("2023-01-01"), d("2024-12-31"))
    assert parse("How has the plan for 2023-24 evolved?", AS_OF).intent == "evolution"
    # not worded as a plan, "by" is "until"
    q = parse("How many people had died by 2020?", AS_OF)
    assert (q.start, q.end) == (None, d("2020-12-31"))
    assert parse("by the end of 2023", AS_OF).start is None


def test_a_current_question_keeps_the_period_ahead_it_names():
    q = parse("How much will the UK spend on defence as a share of GDP in 2027?", AS_OF)
    assert (q.intent, q.end, q.ahead) == ("current", AS_OF, (d("2027-01-01"), d("2027-12-31")))
    assert "ahead" not in q.to_dict()  # not part of the contract's JSON
    # a deadline is its own period; "next year" is not named outright
    assert parse("What is the emissions cut to reach by 2030?", AS_OF).ahead == (
        d("2030-01-01"), d("2030-12-31"))
    assert parse("What's planned for next year?", AS_OF).ahead is None
    assert parse("Who is the Chancellor?", AS_OF).ahead is None


def test_a_month_that_opens_a_range_is_read_whatever_word_comes_before_it():
    q = parse("What was unemployment for July to September 2014?", AS_OF)
    assert (q.start, q.end) == (d("2014-07-01"), d("2014-09-30"))


# -- the document side ----------------------------------------------------------------------

def spans(text: str, said: str) -> list[tuple[dt.date, dt.date]]:
    return [(s.start, s.end) for s in spoken_periods(text, d(said))]


@pytest.mark.parametrize("text, said, expected", [
    # a title's reference period
    ("Consumer price inflation, May 2024", "2024-06-19", [("2024-05-01", "2024-05-31")]),
    ("Labour market statistics, November 2014", "2014-11-12", [("2014-11-01", "2014-11-30")]),
    # dated expressions in the text, read against the publication day
    ("The CPI rose by 2.0 per cent in the 12 months to May 2024, down from 2.3 per cent in "
     "April.", "2024-06-19",
     [("2023-06-01", "2024-05-31"), ("2024-05-01", "2024-05-31"), ("2024-04-01", "2024-04-30")]),
    # a trailing window and, when a month or longer ends it, that period too; not a day
    ("Net migration in the year ending June 2023 was 906,000.", "2025-05-22",
     [("2022-07-01", "2023-06-30"), ("2023-06-01", "2023-06-30")]),
    ("Spending in the year ended 31 March 2024 rose.", "2024-07-01", [("2023-04-01", "2024-03-31")]),
    ("The unemployment rate for July to September 2014 was 6.0 per cent.", "2014-11-12",
     [("2014-07-01", "2014-09-30")]),
    ("The Committee recommends a budget of 965 MtCO2e for 2033-37.", "2020-12-09",
     [("2033-01-01", "2037-12-31")]),
    ("Bank Rate peaked at 5.25 per cent between August 2023 and August 2024.", "2025-11-06",
     [("2023-08-01", "2024-08-31")]),
    ("Last year more than 28,000 people crossed the channel.", "2022-04-19",
     [("2021-01-01", "2021-12-31")]),
    # a relative day is the latest such day on or before the day said
    ("The vote passed on Tuesday.", "2024-06-19", [("2024-06-18", "2024-06-18")]),
    ("I went to a support group last week.", "2024-06-19", [("2024-06-10", "2024-06-16")]),
    # a time ahead is kept as stated
    ("The next meeting is next month.", "2024-06-19", [("2024-07-01", "2024-07-31")]),
    # "this year" in a forecast is the whole year it was said in
    ("The OBR expects inflation to average 7.4 per cent this year.", "2022-03-23",
     [("2022-01-01", "2022-12-31")]),
    # a deadline is the period it sets the target for, ahead or past; "until" stays open
    ("We will cut emissions by 81 per cent on 1990 levels by 2035.", "2025-11-20",
     [("1990-01-01", "1990-12-31"), ("2035-01-01", "2035-12-31")]),
    ("The budget will rise by £20.5 billion a year by 2023-24.", "2018-06-18",
     [("2023-01-01", "2024-12-31")]),
    ("By 2010 the deficit had reached 11 per cent.", "2015-03-18", [("2010-01-01", "2010-12-31")]),
    ("The scheme runs until 2035.", "2025-11-20", []),
    # a deadline with no year that the rules would place before the day said is not read
    ("We hope to finish by 5 May.", "2023-03-15", []),
    ("The works should be done by the summer.", "2023-03-15", []),
    ("By last year the number had doubled.", "2023-03-15", [("2022-01-01", "2022-12-31")]),
    # "the previous …" after a period named earlier in the sentence is told back from it; on
    # its own, or after a full stop, from the day said
    ("The rate rose to 5.0 per cent in July to September 2025, up from 4.8 per cent in the "
     "previous three months.", "2025-11-11", [("2025-07-01", "2025-09-30"),
                                              ("2025-04-01", "2025-06-30")]),
    ("GDP grew 0.3 per cent in the third quarter, after 0.5 per cent in the previous quarter.",
     "2025-11-11", [("2025-07-01", "2025-09-30"), ("2025-04-01", "2025-06-30")]),
    # ... as the stretch of that length right before it, a rolling quarter too
    ("The rate for June to August 2011 was 8.1 per cent, up 0.3 points on the previous "
     "quarter.", "2011-10-12", [("2011-06-01", "2011-08-31"), ("2011-03-01", "2011-05-31")]),
    ("Retail sales rose in October 2025 after a fall in the preceding month.", "2025-11-21",
     [("2025-10-01", "2025-10-31"), ("2025-09-01", "2025-09-30")]),
    ("Sales rose in 2023, after falling in the preceding year.", "2025-11-11",
     [("2023-01-01", "2023-12-31"), ("2022-01-01", "2022-12-31")]),
    ("Sales rose in 2023. In the previous year they fell.", "2025-11-11",
     [("2023-01-01", "2023-12-31"), ("2024-01-01", "2024-12-31")]),
    ("Prices rose in the previous year.", "2025-11-11", [("2024-01-01", "2024-12-31")]),
    # "a year earlier" is told back from the period the figure is stated for, not from a
    # baseline, and not across a full stop; "a month earlier" than a year names no period
    ("The unemployment rate for July to September 2014 was 6.0 per cent, down from 6.2 per "
     "cent in April to June and from 7.6 per cent a year earlier.", "2014-11-12",
     [("2014-07-01", "2014-09-30"), ("2014-04-01", "2014-06-30"), ("2013-07-01", "2013-09-30")]),
    ("Output in the 12 months to May 2024 was 3 per cent above its level 12 months earlier.",
     "2024-07-11", [("2023-06-01", "2024-05-31"), ("2024-05-01", "2024-05-31"),
                    ("2022-06-01", "2023-05-31")]),
    ("Prices rose 3 per cent in May 2024. A year earlier they rose 8 per cent.", "2024-06-19",
     [("2024-05-01", "2024-05-31")]),
    ("Prices rose 3 per cent in 2024, and a month earlier the index fell.", "2025-01-19",
     [("2024-01-01", "2024-12-31")]),
    ("We will end the sale of new petrol cars by 2030, 10 years earlier than planned.",
     "2020-11-18", [("2030-01-01", "2030-12-31")]),
    # no period: a count, "today", an open-ended stretch
    ("Some 1,500 people came today.", "2024-06-19", []),
    ("Prices have risen since 2010.", "2024-06-19", []),
    # a month "for" which a figure is given; a weekday after "for" is more often a plan
    ("Same-store sales were down about 1 percent for September compared with a year ago.",
     "2002-10-23", [("2002-09-01", "2002-09-30"), ("2001-01-01", "2001-12-31")]),
    ("The vote is scheduled for Monday.", "2002-10-23", []),
    # ... unless the clause after it tells that period's own state
    ("It is the eighth rise since December 2021, when the rate stood at 0.1 per cent.",
     "2022-11-03", [("2021-12-01", "2021-12-31")]),
])
def test_the_periods_a_text_speaks_of(text, said, expected):
    assert spans(text, said) == [(d(a), d(b)) for a, b in expected]


@pytest.mark.parametrize("text, expected", [
    ("Core CPI rose by 6.5 per cent, unchanged from September.", [True]),
    ("The rate was 4.0 per cent, up from 3.8 per cent in September.", [True]),
    ("Services inflation was 5.7 per cent, only slightly lower than in April.", [True]),
    ("Net migration was 431,000, compared with 860,000 in the previous year.", [True]),
    ("It rose from 3.8 per cent in September to 4.0 per cent in October.", [True, False]),
    ("More than 2 million people crossed in 2022.", [False]),
    ("From January to March output fell.", [False]),
    ("CPI rose by 11.1 per cent in October 2022, up from 10.1 per cent in September.",
     [False, True]),
])
def test_a_period_named_as_what_a_figure_is_measured_against(text, expected):
    assert [p.baseline for p in spoken_periods(text, d("2022-11-16"))] == expected


@pytest.mark.parametrize("text, said, expected", [
    # "fall" and "spring" are verbs and nouns as often as seasons: a movement is no period
    ("The OBR expects inflation to fall back over the next two years.", "2010-06-22", []),
    ("The Committee expects inflation to fall back.", "2010-06-22", []),
    ("Prices rose and then began to fall.", "2010-06-22", []),
    ("The fall in unemployment was welcome.", "2010-06-22", []),
    ("We remember the fall of the Berlin Wall.", "2010-06-22", []),
    ("New firms could spring up in the regions.", "2010-06-22", []),
    ("Growth may spring back.", "2010-06-22", []),
    ("There was a spring in his step.", "2010-06-22", []),
    # the season, where the words around make it one
    ("Prices rose in the fall of 2009.", "2010-06-22", [("2009-09-01", "2009-11-30")]),
    ("Prices rose last fall.", "2010-06-22", [("2009-09-01", "2009-11-30")]),
    ("Prices rose in the fall, as expected.", "2010-06-22", [("2009-09-01", "2009-11-30")]),
    ("Prices rose during the spring.", "2010-06-22", [("2010-03-01", "2010-05-31")]),
    ("Demand was weak in late spring.", "2010-06-22", [("2010-03-01", "2010-05-31")]),
    ("Demand was weak in summer and fall.", "2010-06-22",
     [("2010-06-01", "2010-08-31"), ("2009-09-01", "2009-11-30")]),
    # the other seasons are read as before
    ("Demand was weak in the autumn.", "2010-06-22", [("2009-09-01", "2009-11-30")]),
])
def test_fall_and_spring_are_seasons_only_in_a_time_phrase(text, said, expected):
    assert spans(text, said) == [(d(a), d(b)) for a, b in expected]


@pytest.mark.parametrize("question, reading", [
    ("What happened in the fall?", ("point_in_time", "2025-09-01", "2025-11-30")),
    ("What happened during the spring?", ("point_in_time", "2025-03-01", "2025-05-31")),
    ("What happened last fall?", ("point_in_time", "2024-09-01", "2024-11-30")),
    ("What happened in the fall of 2022?", ("point_in_time", "2022-09-01", "2022-11-30")),
    ("What was said about the fall of the Berlin Wall?", ("none", None, None)),
    ("Why did new firms spring up?", ("none", None, None)),
])
def test_a_question_reads_fall_and_spring_the_same_way(question, reading):
    got = parse(question, AS_OF)
    assert (got.intent, got.start, got.end) == (reading[0], *(d(x) if x else None for x in reading[1:]))


def _doc(shared_dir, corpus: str, doc_id: str) -> dict:
    with (shared_dir / "corpora" / corpus / "docs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            if f'"{doc_id}"' in line:
                row = json.loads(line)
                if row["id"] == doc_id:
                    return row
    raise AssertionError(f"{doc_id} not in {corpus}")


@pytest.mark.parametrize("corpus, doc_id, period, words", [
    # a Beige Book report describes the weeks before its release
    ("beige_book", "beigebook:2008-10:mi", ("2008-08-01", "2008-08-31"), "August"),
    ("beige_book", "beigebook:2013-12:sl", ("2013-10-01", "2013-10-31"), "October 2013"),
    ("beige_book", "beigebook:1988-06:mi", ("1988-04-01", "1988-04-30"), "April"),
    # a news story filed on one day reports another
    ("realtimeqa", "rtqa:29777b3b8a7811f9", ("2022-06-14", "2022-06-14"), "Tuesday"),
    ("realtimeqa", "rtqa:4b411f2d9ebf4974", ("2022-06-23", "2022-06-23"), "Thursday"),
    ("realtimeqa", "rtqa:c5ec15b94055ef90", ("2022-09-17", "2022-09-17"), "Saturday"),
    # a conversation's turn says "yesterday", "two days ago", "last week"
    ("locomo", "conv-42:D6:2", ("2022-03-23", "2022-03-23"), "yesterday"),
    ("locomo", "conv-26:D7:1", ("2023-07-10", "2023-07-10"), "two days ago"),
    ("locomo", "conv-41:D8:1", ("2023-02-27", "2023-03-05"), "Last week"),
])
def test_real_documents_speak_of_the_time_before_they_were_published(shared_dir, corpus, doc_id,
                                                                       period, words):
    doc = _doc(shared_dir, corpus, doc_id)
    found = spoken_periods(doc["text"], d(doc["date"]))
    assert (d(period[0]), d(period[1])) in [(s.start, s.end) for s in found]
    assert any(words.lower() in s.expression.lower() for s in found
               if (s.start, s.end) == (d(period[0]), d(period[1])))
    assert d(doc["date"]) > d(period[1])  # published after the time it speaks of


def test_a_beige_book_title_names_its_own_month_and_no_other(shared_dir):
    doc = _doc(shared_dir, "beige_book", "beigebook:2008-10:mi")
    # "Beige Book, October 2008: …": the month it appeared in, which the date already says
    assert spans(doc["title"], doc["date"]) == [(d("2008-10-01"), d("2008-10-31"))]
