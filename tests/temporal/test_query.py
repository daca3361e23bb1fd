"""The temporal query parser against the contract, the development set, and phrasings of our own.

The development set is small and tuning to it is easy, so most cases here are written fresh:
other months, years, word orders and languages, and properties over generated phrasings, to show
that the rules are general rather than a lookup of the set.
"""
from __future__ import annotations

import datetime as dt
import json

import pytest
from dateutil.relativedelta import relativedelta
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trag_tui.temporal import rules
from trag_tui.temporal.question import TemporalQuery, _find_atoms, parse

D = dt.date.fromisoformat
AS_OF = D("2025-11-22")  # a Saturday, mid-quarter: the spec's own example date
WED = D("2024-12-18")  # a Wednesday, as in the development set's "last week"
NEW_YEAR = D("2025-01-01")
PROPS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _d(value: str | None) -> dt.date | None:
    return D(value) if value else None


def check(question: str, intent: str, start: str | None = None, end: str | None = None,
          periods: list[tuple[str | None, str | None]] | None = None, as_of: dt.date = AS_OF) -> TemporalQuery:
    """Parse and compare, with the whole reading in the failure message."""
    got = parse(question, as_of)
    want = (intent, _d(start), _d(end), tuple((_d(s), _d(e)) for s, e in periods or ()))
    have = (got.intent, got.start, got.end, got.periods)
    assert have == want, f"{question!r} as of {as_of}: got {got.to_dict()}"
    return got


# --- the development set -----------------------------------------------------------------------


def test_development_set(shared_dir):
    rows = [json.loads(line) for line in (shared_dir / "eval" / "intent-dev.jsonl").read_text().splitlines() if line]
    assert rows
    failures = []
    for row in rows:
        got = parse(row["query"], D(row["as_of"])).to_dict()
        if (got["intent"], got["start"], got["end"], got["periods"]) != (
            row["intent"], row["start"], row["end"], row["periods"]
        ):
            failures.append(
                f"{row['id']} {row['query']!r}\n  want {row['intent']} {row['start']}..{row['end']} {row['periods']}"
                f"\n  got  {got['intent']} {got['start']}..{got['end']} {got['periods']} ({got['reason']})"
            )
    assert not failures, f"{len(failures)}/{len(rows)} development rows wrong:\n" + "\n".join(failures)


# --- periods, as the contract's table reads them -------------------------------------------------

PERIODS = [
    # years, months, days
    ("What did Parliament say about trade in March 2019?", "2019-03-01", "2019-03-31"),
    ("Statements made in 1997", "1997-01-01", "1997-12-31"),
    ("What was said in the year 1066?", "1066-01-01", "1066-12-31"),
    ("What was said on 3 September 2024?", "2024-09-03", "2024-09-03"),
    ("What was said on September 3rd, 2024?", "2024-09-03", "2024-09-03"),
    ("Nov. 5, 2023 statements", "2023-11-05", "2023-11-05"),
    ("the 5th of November 2022", "2022-11-05", "2022-11-05"),
    ("Debates on 2023-05-12", "2023-05-12", "2023-05-12"),
    ("What was discussed from 10 to 12 May 2023?", "2023-05-10", "2023-05-12"),
    ("What was discussed on May 10-12, 2023?", "2023-05-10", "2023-05-12"),
    ("Qu'a-t-on dit du 3 au 5 mars 2024 ?", "2024-03-03", "2024-03-05"),
    ("What happened in the second week of March 2024?", "2024-03-08", "2024-03-14"),
    ("in the last week of February 2024", "2024-02-23", "2024-02-29"),
    ("What happened in the first week of January?", "2025-01-01", "2025-01-07"),
    ("Debates on 05.12.2023", "2023-12-05", "2023-12-05"),
    ("Results for 2024-03", "2024-03-01", "2024-03-31"),
    ("the 2019/20 session", "2019-01-01", "2020-12-31"),
    ("The 2011-12 budget", "2011-01-01", "2012-12-31"),
    ("What was said in FY2024?", "2024-01-01", "2024-12-31"),
    # a month or day without a year: the latest one begun by as_of
    ("What happened on 5 March?", "2025-03-05", "2025-03-05"),
    ("What happened on 30 November?", "2024-11-30", "2024-11-30"),
    ("What happened on 29 February?", "2024-02-29", "2024-02-29"),
    ("What happened in May?", "2025-05-01", "2025-05-31"),
    ("What happened in November?", "2025-11-01", "2025-11-30"),
    ("What did the Bank say in the August Monetary Policy Report?", "2025-08-01", "2025-08-31"),
    ("What happened last March?", "2025-03-01", "2025-03-31"),
    ("What happened in March last year?", "2024-03-01", "2024-03-31"),
    # quarters and halves
    ("What happened in Q2 2024?", "2024-04-01", "2024-06-30"),
    ("Debates in the second quarter of 2022", "2022-04-01", "2022-06-30"),
    ("the 4th quarter of 2021", "2021-10-01", "2021-12-31"),
    ("in the final quarter of 2019", "2019-10-01", "2019-12-31"),
    ("2024 Q1 results", "2024-01-01", "2024-03-31"),
    ("What was said in Q3'24?", "2024-07-01", "2024-09-30"),
    ("What was said in 2Q 2021?", "2021-04-01", "2021-06-30"),
    ("What happened in H2 2023?", "2023-07-01", "2023-12-31"),
    ("second half of 2019 debates on steel", "2019-07-01", "2019-12-31"),
    ("the latter half of 2020", "2020-07-01", "2020-12-31"),
    ("What was said in Q3?", "2025-07-01", "2025-09-30"),
    ("Q4 debates", "2025-10-01", "2025-12-31"),  # named whole, even mid-quarter
    ("in the first quarter of this year", "2025-01-01", "2025-03-31"),
    ("What happened in the third quarter?", "2025-07-01", "2025-09-30"),
    # the first or last stretch of a named period
    ("How many crossed in the first six months of 2024?", "2024-01-01", "2024-06-30"),
    ("What happened in the last six months of 2023?", "2023-07-01", "2023-12-31"),
    ("What happened in the first two weeks of March 2024?", "2024-03-01", "2024-03-14"),
    ("in the last 10 days of 2023", "2023-12-22", "2023-12-31"),
    ("What happened in the first three months of the year?", "2025-01-01", "2025-03-31"),
    ("the last three months of last year", "2024-10-01", "2024-12-31"),
    ("Which bills passed in the last fortnight of July 2019?", "2019-07-18", "2019-07-31"),
    ("What happened in the first month of 2024?", "2024-01-01", "2024-01-31"),
    # parts of years, decades, centuries, seasons
    ("early 2020", "2020-01-01", "2020-04-30"),
    ("mid-2024", "2024-05-01", "2024-08-31"),
    ("the 1980s", "1980-01-01", "1989-12-31"),
    ("What happened in the late 1990s?", "1997-01-01", "1999-12-31"),
    ("The early 2000s", "2000-01-01", "2003-12-31"),
    ("Speeches in the '70s", "1970-01-01", "1979-12-31"),
    ("music of the nineties", "1990-01-01", "1999-12-31"),
    ("the 20th century debates", "1900-01-01", "1999-12-31"),
    ("In summer 2023 what was said?", "2023-06-01", "2023-08-31"),
    ("What did the Chancellor say in the Autumn Statement 2023?", "2023-01-01", "2023-12-31"),
    ("What happened last summer?", "2025-06-01", "2025-08-31"),
    ("Qu'est-ce qui s'est passé l'été dernier ?", "2025-06-01", "2025-08-31"),
    ("Что было этим летом?", "2025-06-01", "2025-08-31"),
    ("What happened late last year?", "2024-09-01", "2024-12-31"),
    ("What was said at the start of the year?", "2025-01-01", "2025-04-30"),
    # ranges
    ("between 2019 and 2021", "2019-01-01", "2021-12-31"),
    ("between 2025 and 2019", "2019-01-01", "2025-12-31"),
    ("from 2010 through 2012", "2010-01-01", "2012-12-31"),
    ("2015–2017 debates", "2015-01-01", "2017-12-31"),
    ("from January to March 2024", "2024-01-01", "2024-03-31"),
    ("from March to June 2023", "2023-03-01", "2023-06-30"),
    ("from November to February 2024", "2023-11-01", "2024-02-29"),
    ("between July and October 2025", "2025-07-01", "2025-10-31"),
    ("from Q1 to Q3 2024", "2024-01-01", "2024-09-30"),
    ("Statements from 2015 to the present", "2015-01-01", "2025-11-22"),
    ("Debates from 2019 to now", "2019-01-01", "2025-11-22"),
    ("What was said in the week of 12 May 2023?", "2023-05-08", "2023-05-14"),
    ("What was said in the week ending 14 November?", "2025-11-08", "2025-11-14"),
    ("What was said in the week beginning 10 November?", "2025-11-10", "2025-11-16"),
    ("What was said in the seven days to 20 November?", "2025-11-14", "2025-11-20"),
    # the statistics' trailing windows: the stretch that ends with the period named
    ("Net migration in the year ending June 2023", "2022-07-01", "2023-06-30"),
    ("the unemployment rate in the three months to June 2025", "2025-04-01", "2025-06-30"),
    ("CPI inflation in the 12 months to May 2024", "2023-06-01", "2024-05-31"),
    ("spending in the year ended 31 March 2024", "2023-04-01", "2024-03-31"),
    ("GDP in the year to Q2 2025", "2024-07-01", "2025-06-30"),
    ("GDP growth in the quarter ending September 2025", "2025-07-01", "2025-09-30"),
    ("the unemployment rate in the six months to March 2024", "2023-10-01", "2024-03-31"),
    ("Net migration for the twelve months ending December 2024", "2024-01-01", "2024-12-31"),
    # with no length told, "up to" is "until"
    ("What was said in the years up to 2015?", None, "2015-12-31"),
    ("What was said the week before last?", "2025-11-03", "2025-11-09"),
    ("What happened the month before last?", "2025-09-01", "2025-09-30"),
    ("What was said over the past year and a half?", "2024-05-22", "2025-11-22"),
    ("What was said in the last month and a half?", "2025-10-07", "2025-11-22"),
    # open ranges
    ("since March 2023", "2023-03-01", "2025-11-22"),
    ("since last year", "2024-01-01", "2025-11-22"),
    ("since the 2008 financial crisis", "2008-01-01", "2025-11-22"),
    ("after 2018", "2019-01-01", "2025-11-22"),
    ("after March 2024", "2024-04-01", "2025-11-22"),
    ("until 2015", None, "2015-12-31"),
    ("up to 2015", None, "2015-12-31"),
    ("before March 2020", None, "2020-02-29"),
    # a bounded stretch next to a named period
    ("Where was Tim in the week before 16 November 2023?", "2023-11-09", "2023-11-15"),
    ("What happened the day before 3 May 2023?", "2023-05-02", "2023-05-02"),
    ("What was said in the month before March 2020?", "2020-02-01", "2020-02-29"),
    ("What did MPs say in the two weeks after 1 March 2020?", "2020-03-02", "2020-03-15"),
    ("the fortnight following 10 June 2024", "2024-06-11", "2024-06-24"),
    ("in the weeks leading up to March 2020", "2020-02-09", "2020-02-29"),
    # ... next to a whole range
    ("What was unemployment in the quarter before July to September 2025?", "2025-04-01",
     "2025-06-30"),
    ("the three months after April to June 2025", "2025-07-01", "2025-09-30"),
    ("in the two weeks following 1 to 5 May 2023", "2023-05-06", "2023-05-19"),
    ("prior to 2010", None, "2009-12-31"),
    ("pre-2008 regulation", None, "2007-12-31"),
    ("by the end of 2023", None, "2023-12-31"),
    # relative to as_of (a Saturday)
    ("What did ministers say yesterday?", "2025-11-21", "2025-11-21"),
    ("What was said today?", "2025-11-22", "2025-11-22"),
    ("the day before yesterday", "2025-11-20", "2025-11-20"),
    ("3 days ago", "2025-11-19", "2025-11-19"),
    ("two weeks ago", "2025-11-03", "2025-11-09"),
    ("a month ago", "2025-10-01", "2025-10-31"),
    ("What happened 48 hours ago?", "2025-11-20", "2025-11-20"),
    # a change measured from then: reported between then and as_of
    ("Prices are far higher than they were a year ago. Which item rose most?", "2024-11-22",
     "2025-11-22"),
    ("Why is unemployment lower than two months ago?", "2025-09-22", "2025-11-22"),
    ("Where did Caroline move from 4 years ago?", "2021-01-01", "2021-12-31"),
    ("What was decided thirty-one years ago?", "1994-01-01", "1994-12-31"),
    ("What was decided twenty five years ago?", "2000-01-01", "2000-12-31"),
    ("last week", "2025-11-10", "2025-11-16"),
    ("this week", "2025-11-16", "2025-11-22"),  # the seven days ending on as_of
    ("Summarise this week's debates", "2025-11-16", "2025-11-22"),
    ("this month", "2025-11-01", "2025-11-22"),
    ("this quarter", "2025-10-01", "2025-11-22"),
    ("last quarter", "2025-07-01", "2025-09-30"),
    ("last year", "2024-01-01", "2024-12-31"),
    ("the previous month", "2025-10-01", "2025-10-31"),
    ("the past year", "2024-11-22", "2025-11-22"),
    ("in the last month", "2025-10-22", "2025-11-22"),
    ("in the last 3 years", "2022-11-22", "2025-11-22"),
    ("over the last two weeks", "2025-11-08", "2025-11-22"),
    ("in the past 30 days", "2025-10-23", "2025-11-22"),
    ("the last few months", "2025-08-22", "2025-11-22"),
    ("What happened in the last 24 hours?", "2025-11-21", "2025-11-22"),
    ("What did they say last Friday?", "2025-11-21", "2025-11-21"),
    ("What did they say on Monday?", "2025-11-17", "2025-11-17"),
    ("last weekend", "2025-11-15", "2025-11-16"),
    ("What happened earlier this year?", "2025-01-01", "2025-11-22"),
    ("year to date", "2025-01-01", "2025-11-22"),
    # Russian
    ("Что обсуждали на прошлой неделе?", "2025-11-10", "2025-11-16"),
    ("Что говорили о пенсиях в 2019 году?", "2019-01-01", "2019-12-31"),
    ("Что писали в марте 2024 года?", "2024-03-01", "2024-03-31"),
    ("Что было 12 мая 2023 года?", "2023-05-12", "2023-05-12"),
    ("Что обсуждали за последние 6 месяцев?", "2025-05-22", "2025-11-22"),
    ("Что было 3 дня назад?", "2025-11-19", "2025-11-19"),
    ("Что говорили с 2019 по 2021 год?", "2019-01-01", "2021-12-31"),
    ("Что говорили до 2016 года?", None, "2015-12-31"),
    ("Что говорили после 2018 года?", "2019-01-01", "2025-11-22"),
    ("Что было в первом квартале 2024 года?", "2024-01-01", "2024-03-31"),
    ("Что было в 1990-е годы?", "1990-01-01", "1999-12-31"),
    ("Что обсуждали в этом году?", "2025-01-01", "2025-11-22"),
    ("Что было вчера?", "2025-11-21", "2025-11-21"),
    # French
    ("Qu'a-t-on dit le mois dernier ?", "2025-10-01", "2025-10-31"),
    ("Qu'a dit le ministre en mars 2024 ?", "2024-03-01", "2024-03-31"),
    ("la semaine dernière", "2025-11-10", "2025-11-16"),
    ("l'année dernière", "2024-01-01", "2024-12-31"),
    ("cette année", "2025-01-01", "2025-11-22"),
    ("Qu'a-t-on dit au cours des 6 derniers mois ?", "2025-05-22", "2025-11-22"),
    ("Qu'a-t-on dit il y a 3 jours ?", "2025-11-19", "2025-11-19"),
    ("Qu'a-t-on dit depuis 6 mois ?", "2025-05-22", "2025-11-22"),
    ("Qu'a-t-on dit depuis mars 2023 ?", "2023-03-01", "2025-11-22"),
    ("Qu'a-t-on dit de janvier à mars 2024 ?", "2024-01-01", "2024-03-31"),
    ("Qu'a-t-on dit entre 2019 et 2021 ?", "2019-01-01", "2021-12-31"),
    ("Qu'a-t-on dit avant 2016 ?", None, "2015-12-31"),
    ("Qu'a-t-on dit jusqu'en 2015 ?", None, "2015-12-31"),
    ("Qu'a-t-on dit au premier trimestre 2024 ?", "2024-01-01", "2024-03-31"),
    ("Les années 1990", "1990-01-01", "1999-12-31"),
    ("le 12 mai 2023", "2023-05-12", "2023-05-12"),
    # German
    ("Was wurde letzte Woche gesagt?", "2025-11-10", "2025-11-16"),
    ("Was wurde im März 2024 gesagt?", "2024-03-01", "2024-03-31"),
    ("Was wurde letztes Jahr beschlossen?", "2024-01-01", "2024-12-31"),
    ("Was wurde dieses Jahr gesagt?", "2025-01-01", "2025-11-22"),
    ("Was wurde in den letzten 6 Monaten gesagt?", "2025-05-22", "2025-11-22"),
    ("Was wurde vor 3 Tagen gesagt?", "2025-11-19", "2025-11-19"),
    ("Was wurde seit März 2023 gesagt?", "2023-03-01", "2025-11-22"),
    ("Was wurde von 2019 bis 2021 gesagt?", "2019-01-01", "2021-12-31"),
    ("Was wurde vor 2016 gesagt?", None, "2015-12-31"),
    ("Was wurde bis 2015 gesagt?", None, "2015-12-31"),
    ("Was wurde nach 2018 gesagt?", "2019-01-01", "2025-11-22"),
    ("Was wurde im ersten Quartal 2024 gesagt?", "2024-01-01", "2024-03-31"),
    ("Was wurde in den 1990er Jahren gesagt?", "1990-01-01", "1999-12-31"),
    ("am 12. Mai 2023", "2023-05-12", "2023-05-12"),
    # Spanish
    ("¿Qué se dijo el mes pasado?", "2025-10-01", "2025-10-31"),
    ("¿Qué se dijo en marzo de 2024?", "2024-03-01", "2024-03-31"),
    ("la semana pasada", "2025-11-10", "2025-11-16"),
    ("el año pasado", "2024-01-01", "2024-12-31"),
    ("¿Qué se dijo este año?", "2025-01-01", "2025-11-22"),
    ("¿Qué se dijo en los últimos 6 meses?", "2025-05-22", "2025-11-22"),
    ("¿Qué se dijo hace 3 días?", "2025-11-19", "2025-11-19"),
    ("¿Qué se dijo desde 2019 hasta 2021?", "2019-01-01", "2021-12-31"),
    ("¿Qué se dijo entre 2019 y 2021?", "2019-01-01", "2021-12-31"),
    ("¿Qué se dijo antes de 2016?", None, "2015-12-31"),
    ("¿Qué se dijo después de 2018?", "2019-01-01", "2025-11-22"),
    ("¿Qué se dijo en el primer trimestre de 2024?", "2024-01-01", "2024-03-31"),
    ("¿Qué se dijo de enero a marzo de 2024?", "2024-01-01", "2024-03-31"),
    ("¿Qué se dijo el 12 de mayo de 2023?", "2023-05-12", "2023-05-12"),
    ("los años 90", "1990-01-01", "1999-12-31"),
    # languages the table does not list: dateparser reads them
    ("Cosa è stato detto il 12 maggio 2023?", "2023-05-12", "2023-05-12"),
    ("O que foi dito em 15 de março de 2021?", "2021-03-15", "2021-03-15"),
    ("Wat werd er gezegd op 12 mei 2023?", "2023-05-12", "2023-05-12"),
    ("Cosa è stato detto 3 giorni fa?", "2025-11-19", "2025-11-19"),
    # a share asked in the past tense is about its period, not the present
    ("What percentage of the vote did Labour win in 2015?", "2015-01-01", "2015-12-31"),
]


@pytest.mark.parametrize("question,start,end", PERIODS)
def test_period(question, start, end):
    check(question, "point_in_time", start, end)


@pytest.mark.parametrize("question,as_of,start,end", [
    ("What did we discuss last week?", WED, "2024-12-09", "2024-12-15"),
    ("last week", D("2025-11-24"), "2025-11-17", "2025-11-23"),  # asked on a Monday
    ("What happened this week?", D("2025-11-24"), "2025-11-18", "2025-11-24"),  # the last seven days
    ("Qu'est-ce qui s'est passé cette semaine ?", D("2025-11-24"), "2025-11-18", "2025-11-24"),
    ("last month", NEW_YEAR, "2024-12-01", "2024-12-31"),
    ("last quarter", NEW_YEAR, "2024-10-01", "2024-12-31"),
    ("this year", NEW_YEAR, "2025-01-01", "2025-01-01"),
    ("in March", NEW_YEAR, "2024-03-01", "2024-03-31"),
    ("in Q1", NEW_YEAR, "2025-01-01", "2025-03-31"),
    ("in Q3", D("2025-03-05"), "2024-07-01", "2024-09-30"),
    ("the past 6 months", D("2025-08-31"), "2025-02-28", "2025-08-31"),  # calendar arithmetic clamps
    ("a year ago", D("2024-02-29"), "2023-01-01", "2023-12-31"),
    ("on Wednesday", WED, "2024-12-18", "2024-12-18"),
    ("last Wednesday", WED, "2024-12-11", "2024-12-11"),
    ("yesterday", NEW_YEAR, "2024-12-31", "2024-12-31"),
])
def test_period_relative_to_other_days(question, as_of, start, end):
    check(question, "point_in_time", start, end, as_of=as_of)


# --- intents -----------------------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "Who is the Chancellor of the Exchequer?",
    "Who's the Home Secretary?",
    "Who leads the opposition?",
    "What is the Bank Rate?",
    "What is the price of gas?",
    "What is the government's position on Ukraine?",
    "What are the unemployment figures?",
    "How many people are unemployed?",
    "What is the inflation rate today?",
    "Is he still the minister?",
    "Are there any more strikes planned?",
    "What has happened recently in the Commons?",
    "What are the latest figures on knife crime?",
    "What is the unemployment rate nowadays?",
    "What is the government planning on housing?",
    "What are MPs saying about the budget?",
    "When did the Bank last cut rates?",
    "What are the recent trends in house prices?",  # "recent trends": the newest state, not a history
    "What's planned for next year?",  # after as_of: the latest documents answer it
    "What is the 2030 net zero target?",
    "Какой сейчас курс евро?",
    "Кто премьер-министр?",
    "Какова ставка ЦБ?",
    "Quelle est actuellement la position du gouvernement ?",
    "Quel est le taux de chômage ?",
    "Qui est le Premier ministre ?",
    "Was ist aktuell der Leitzins?",
    "Wie hoch ist die Inflation?",
    "Wer ist der Bundeskanzler?",
    "¿Cuál es la tasa de inflación?",
    "¿Quién es el presidente?",
    "¿Qué dice actualmente el gobierno?",
    "Which product remains hard to find in the shops?",  # "remains": still
    "What percentage of the population is vaccinated?",  # a share asked in the present tense
    # "recently" is read from as_of; "from 1952" says where the card comes from
    "A baseball card from 1952 recently sold at auction. How much did it fetch?",
    "Which letters from the 1990s were recently published?",
    # the cue speaks of the present in its own sentence; the period dates something else
    "Though still painfully high, gas prices have been falling now for 50 days. What was the "
    "record set in the middle of June?",
    "Inflation was 10 per cent in 2022. What is it now?",
])
def test_current(question):
    check(question, "current", None, "2025-11-22")


@pytest.mark.parametrize("question,end", [
    ("What was the official position on Ukraine as of March 2024?", "2024-03-31"),
    ("Unemployment as at 31 March 2024", "2024-03-31"),
    ("What was the position as of Q3 2024?", "2024-09-30"),
    ("Quelle était la position à la date du 1er mars 2024 ?", "2024-03-01"),
    ("Wie war die Lage zum Stand März 2024?", "2024-03-31"),
    ("Какой был курс по состоянию на 1 марта 2024 года?", "2024-03-01"),
    # a current cue with a period asks for the latest state within it, read like "as of" its end
    ("What was the most recent statement on Gaza in 2019?", "2019-12-31"),
    ("Was he still the minister in 2015?", "2015-12-31"),
    ("What are the latest developments this week?", "2025-11-22"),
    ("Which bills were recently passed in 2015?", "2015-12-31"),  # "in 2015" is when, not whence
    # in one sentence with the cue, the period still bounds it, whatever comes after
    ("Was he still the minister in 2015? Who followed him?", "2015-12-31"),
])
def test_current_as_of(question, end):
    check(question, "current", None, end)


@pytest.mark.parametrize("question", [
    "What is Universal Credit?",
    "What is the Online Safety Act?",
    "What is the purpose of the Online Safety Act?",
    "What arguments were made about fox hunting?",
    "When did Parliament debate the Hunting Act?",
    "What did NASA say about Mars?",
    "What may happen to interest rates?",
    "What did they say on Black Friday?",
    "Article 50 debates",
    "What was discussed at the G7 summit?",
    "What did the 5 members say?",
    "What happened to the 2000 jobs at the plant?",
    "How did the minister describe his first and last speech?",
    "For the first time in 20 years, the dollar is nearly equal to which currency?",  # a duration
    "What are some changes Caroline has faced?",
    "He won the contest for the 15th time in 16 years. How many did he eat?",  # a count
    "What did she get for her 30th birthday?",
    "Was ist das Online-Sicherheitsgesetz?",
    "What did police say about the human remains found in the lake?",  # "remains" the noun
])
def test_none(question):
    check(question, "none")


@pytest.mark.parametrize("question", [
    "US rents hit a record high for the 17th month in a row. Which city saw the biggest rise?",
    "Inflation fell for the 3rd month running. What fell most?",
])
def test_a_run_of_months_is_a_count_and_stays_in_the_query(question):
    # "the 17th month in a row" counts months; it names no period, and its words are what the
    # headline says ("US rents hit a record high for the 17th month in a row")
    got = check(question, "none")
    assert "month" in got.semantic_query


@pytest.mark.parametrize("question,start,end", [
    ("How has the debate on immigration evolved over the last decade?", "2015-11-22", "2025-11-22"),
    ("How did the position on tariffs change from 2015 to 2020?", "2015-01-01", "2020-12-31"),
    ("How has employment changed since the start of 2024?", "2024-01-01", "2025-11-22"),
    ("How has inflation changed over the past 5 years?", "2020-11-22", "2025-11-22"),
    ("Has unemployment risen over the last 12 months?", "2024-11-22", "2025-11-22"),
    ("How did the economy develop after 2008?", "2009-01-01", "2025-11-22"),
    ("How did inflation evolve in 2022?", "2022-01-01", "2022-12-31"),
    ("What was the trend in defence spending between 2010 and 2020?", "2010-01-01", "2020-12-31"),
    ("What were the changes in policy from 2019 to 2021?", "2019-01-01", "2021-12-31"),
    ("What is the trajectory of public debt?", None, None),
    ("How have attitudes to nuclear power shifted over time?", None, None),
    ("The history of the NHS", None, None),
    ("How has the discussion on rail nationalisation evolved?", None, None),
    ("Как изменилась инфляция с 2020 года?", "2020-01-01", "2025-11-22"),
    ("Как менялась политика после 2018 года?", "2019-01-01", "2025-11-22"),
    ("Wie hat sich die Inflation seit 2021 entwickelt?", "2021-01-01", "2025-11-22"),
    ("¿Cómo ha evolucionado la política desde 2020?", "2020-01-01", "2025-11-22"),
    ("Comment le chômage a-t-il évolué au fil des années ?", None, None),
])
def test_evolution(question, start, end):
    check(question, "evolution", start, end)


@pytest.mark.parametrize("question,start,end", [
    # a change inside one named period is read from that period's documents
    ("How did unemployment change in 2020?", "2020-01-01", "2020-12-31"),
    ("How did employment change in the September 2024 Beige Book?", "2024-09-01", "2024-09-30"),
    ("What rule changes were made in 2019?", "2019-01-01", "2019-12-31"),
    # "climate change" is a topic, not a question about change
    ("What was said about climate change since 2020?", "2020-01-01", "2025-11-22"),
])
def test_change_within_one_period_is_point_in_time(question, start, end):
    check(question, "point_in_time", start, end)


@pytest.mark.parametrize("question,intent,end", [
    # a change asked about ahead is what is planned now: the latest documents, not a history
    ("How much will defence spending rise by 2027?", "current", "2025-11-22"),
    ("How is public debt expected to change by 2030?", "current", "2025-11-22"),
    ("How will the asylum system change?", "none", None),
])
def test_a_change_asked_about_ahead_is_no_history(question, intent, end):
    check(question, intent, None, end)
    # the same change asked about in the past is one
    assert parse("How much has defence spending risen since 2020?", AS_OF).intent == "evolution"
    assert parse("How has the 2030 target evolved?", AS_OF).intent == "evolution"


Y = lambda y: (f"{y}-01-01", f"{y}-12-31")  # noqa: E731


@pytest.mark.parametrize("question,periods", [
    ("What changed between 2019 and 2021?", [Y(2019), Y(2021)]),
    ("Compare Q1 2024 with Q1 2025", [("2024-01-01", "2024-03-31"), ("2025-01-01", "2025-03-31")]),
    ("Inflation in 2019 vs 2023", [Y(2019), Y(2023)]),
    ("How did inflation in Q3 2025 compare with Q2 2025?", [("2025-04-01", "2025-06-30"), ("2025-07-01", "2025-09-30")]),
    ("What's the difference between the 2019 and 2024 manifestos?", [Y(2019), Y(2024)]),
    ("Contrast the 1990s and 2000s", [("1990-01-01", "1999-12-31"), ("2000-01-01", "2009-12-31")]),
    ("How did prices change between March and May 2024?", [("2024-03-01", "2024-03-31"), ("2024-05-01", "2024-05-31")]),
    ("How did the tone differ between H1 and H2 2023?", [("2023-01-01", "2023-06-30"), ("2023-07-01", "2023-12-31")]),
    ("Was the 2015 position different from the position in 2010?", [Y(2010), Y(2015)]),
    ("What was said about housing in 2019 and 2021?", [Y(2019), Y(2021)]),  # named side by side
    ("Debates in 2016, 2018 and 2020", [Y(2016), Y(2018), Y(2020)]),
    ("How does inflation now compare with 2019?", [Y(2019), (None, "2025-11-22")]),
    ("Инфляция в 2019 году по сравнению с 2023 годом", [Y(2019), Y(2023)]),
    ("Сравните 2019 и 2023 годы", [Y(2019), Y(2023)]),
    ("Qu'est-ce qui a changé entre 2019 et 2023 ?", [Y(2019), Y(2023)]),
    ("Comparer 2019 et 2023", [Y(2019), Y(2023)]),
    ("Was hat sich zwischen 2019 und 2023 verändert?", [Y(2019), Y(2023)]),
    ("Inflación en 2019 frente a 2023", [Y(2019), Y(2023)]),
])
def test_comparison(question, periods):
    got = check(question, "comparison", periods[0][0], periods[-1][1], periods)
    assert len(got.periods) >= 2


def test_a_period_named_twice_is_one_period():
    # one retrieval per period: the same period twice would be searched, and answered, twice;
    # nothing is set against it, so it is that period's question
    got = parse("Compare inflation in 2024 and 2024", AS_OF)
    assert (got.intent, got.start, got.end, got.periods) == (
        "point_in_time", dt.date(2024, 1, 1), dt.date(2024, 12, 31), ())


# --- the rest of the contract ------------------------------------------------------------------


def test_semantic_query_matches_the_spec_example():
    got = parse("Was the official position in the last quarter of 2023 supportive of the State of Israel?", AS_OF)
    assert got.semantic_query == "official position supportive of the State of Israel"


@pytest.mark.parametrize("question,semantic", [
    ("What is the current inflation rate?", "inflation rate"),
    ("Debates on housing from 2019 to 2021", "Debates on housing"),
    ("Compare the 2019 and 2023 debates on immigration", "debates on immigration"),
    ("Summarise last month's debates on welfare", "Summarise debates on welfare"),
    ("How has the government's stance on immigration policy evolved since 2020?",
     "government's stance on immigration policy evolved"),
    ("Что писали о курсе доллара в прошлом месяце?", "Что писали о курсе доллара"),
    ("in 2015", "in 2015"),  # nothing left: the whole question
    ("Now?", "Now?"),
    ("What happened yesterday?", "What happened yesterday?"),
])
def test_semantic_query(question, semantic):
    assert parse(question, AS_OF).semantic_query == semantic


@pytest.mark.parametrize("question, ongoing", [
    ("Taco Bell has brought back which much-loved menu item?", True),
    ("A growing number of people are fleeing their expensive cities. Where to?", True),
    ("When will NASA next attempt to launch Artemis I?", True),
    ("How many people have died in the floods?", True),
    ("What is the Rwanda scheme?", False),
    ("What arguments were made about the Trident nuclear deterrent?", False),
    ("Which countries have nuclear weapons?", False),
])
def test_a_question_worded_as_happening_now_is_marked_but_stays_timeless(question, ongoing):
    got = parse(question, AS_OF)
    assert got.intent == "none" and got.ongoing is ongoing
    assert "ongoing" not in got.to_dict()  # not part of the contract


def test_to_dict_is_json_ready_with_exactly_the_contract_keys():
    got = parse("How did inflation trends change between the July and October 2025 Beige Books?", AS_OF).to_dict()
    assert list(got) == ["question", "intent", "start", "end", "periods", "semantic_query", "as_of",
                         "confidence", "expressions", "reason", "time"]
    assert got["periods"] == [["2025-07-01", "2025-07-31"], ["2025-10-01", "2025-10-31"]]
    assert got["time"] == "said"  # the Beige Books are named by their dates
    assert got["as_of"] == "2025-11-22"
    assert json.loads(json.dumps(got)) == got


def test_explains_itself():
    got = parse("How has fiscal policy changed since 2010?", AS_OF)
    assert "since 2010" in got.expressions and "changed" in got.expressions
    assert "since 2010" in got.reason
    assert parse("What is the Online Safety Act?", AS_OF).expressions == ()


@pytest.mark.parametrize("question", ["", "   ", "🙂🙂🙂", "?!", "x" * 10_000, "in the year 30000", "\x00\n\t"])
def test_odd_input_is_read_with_low_confidence(question):
    got = parse(question, AS_OF)
    assert got.intent == "none"
    assert got.confidence <= 0.8
    assert got.semantic_query == (question.strip() or question) or len(question) > 2000


def test_empty_and_symbol_only_input_has_near_zero_confidence():
    assert parse("", AS_OF).confidence == 0.0
    assert parse("🙂", AS_OF).confidence <= 0.1


def test_future_dates_get_a_sensible_reading_with_low_confidence():
    past = parse("What was said in 2030?", AS_OF)  # nothing can be dated there
    assert (past.intent, past.start, past.end) == ("current", None, AS_OF)
    assert past.confidence <= 0.3
    since = parse("What was said since 2030?", AS_OF)
    assert since.end <= AS_OF and since.confidence <= 0.3


@pytest.mark.parametrize("question, as_of, reading", [
    # "this summer" is this year's: still to come in May, past in November
    ("What is planned for this summer?", "2022-05-20", ("current", None, "2022-05-20")),
    ("What happened this summer?", "2022-11-22", ("point_in_time", "2022-06-01", "2022-08-31")),
    ("What happened this spring?", "2022-03-10", ("point_in_time", "2022-03-01", "2022-05-31")),
    # a winter spans two years: the one under way, else the nearer of the last and the next
    ("Will heating cost more this winter?", "2022-09-29", ("current", None, "2022-09-29")),
    ("How cold was it this winter?", "2022-03-10", ("point_in_time", "2021-12-01", "2022-02-28")),
    ("How cold is it this winter?", "2023-01-15", ("point_in_time", "2022-12-01", "2023-02-28")),
    ("What happens next winter?", "2022-01-15", ("current", None, "2022-01-15")),
    ("What happened last summer?", "2022-05-20", ("point_in_time", "2021-06-01", "2021-08-31")),
    # the same in the other languages read
    ("Qu'est-ce qui s'est passé l'été dernier ?", "2022-05-20",
     ("point_in_time", "2021-06-01", "2021-08-31")),
    ("Que se passera-t-il cet hiver ?", "2022-09-29", ("current", None, "2022-09-29")),
    ("Was passierte letzten Winter?", "2022-05-20", ("point_in_time", "2021-12-01", "2022-02-28")),
    ("Was passiert diesen Sommer?", "2022-05-20", ("current", None, "2022-05-20")),
    ("¿Qué pasó el invierno pasado?", "2022-05-20", ("point_in_time", "2021-12-01", "2022-02-28")),
    ("¿Qué pasará el próximo verano?", "2022-09-29", ("current", None, "2022-09-29")),
    ("Что было прошлой зимой?", "2022-05-20", ("point_in_time", "2021-12-01", "2022-02-28")),
    ("Что было этой весной?", "2022-05-20", ("point_in_time", "2022-03-01", "2022-05-31")),
])
def test_this_and_next_season_are_read_as_people_mean_them(question, as_of, reading):
    got = parse(question, D(as_of))
    intent, start, end = reading
    assert (got.intent, got.start, got.end) == (intent, start and D(start), D(end))


def test_long_input_is_cut_not_choked_on():
    got = parse("What was said in 2015? " + "blah " * 5000, AS_OF)
    assert got.intent == "point_in_time" and got.confidence <= 0.4


def test_datetime_as_of_is_taken_as_its_date():
    got = parse("yesterday", dt.datetime(2025, 11, 22, 23, 59))
    assert got.as_of == AS_OF and got.start == D("2025-11-21")


def test_every_rule_in_the_table_reads_one_of_the_cases():
    """No dead rows: the table is the documentation, so each row must be exercised here."""
    questions = [q for q, *_ in PERIODS] + ["the early nineties", "Q3", "in H1", "in the 2nd half"]
    fired = {atom.rule for q in questions for atom in _find_atoms(q, AS_OF)}
    fired |= {atom.rule for atom in _find_atoms("What is the 2030 net zero target? tomorrow", AS_OF)}
    assert {rule.name for rule in rules.RULES} - fired == set()


# --- properties --------------------------------------------------------------------------------

FRAGMENTS = [
    "in 2015", "Q3 2025", "Q1 and Q3", "between 2025 and 2019", "since 2030", "before 1000", "last week",
    "past 6 months", "the 1990s", "H1", "yesterday", "3 days ago", "as of March 2024", "29 February",
    "31 February 2023", "12/13/2023", "0000-00-00", "9999-12-31", "since", "between", "and", "from", "to",
    "vs", "compare", "current", "evolved", "в прошлом месяце", "depuis 2020", "seit 2021", "hace 3 días",
    "the year 30000", "'90s", "2019-20", "early 2000s", "за последние 100000 лет", "the past 9999 years",
    "next year", "today", "Friday", "March", "May", "🙂", "§", "?", "–", "il 12 maggio",
]
QUESTIONS = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=10)), max_size=7).map(" ".join)
ANY_DAY = st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31))
MODERN_DAY = st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2100, 12, 31))


def _well_formed(got: TemporalQuery) -> None:
    assert got.start is None or got.end is None or got.start <= got.end
    for start, end in got.periods:
        assert start is None or end is None or start <= end
    if got.periods:
        assert got.intent == "comparison" and len(got.periods) >= 2
        assert (got.start, got.end) == (got.periods[0][0], got.periods[-1][1])
    assert 0.0 <= got.confidence <= 1.0
    assert got.semantic_query or not got.question.strip()
    json.dumps(got.to_dict())


@PROPS
@given(st.text(max_size=200), ANY_DAY)
def test_never_raises_on_any_text(question, as_of):
    _well_formed(parse(question, as_of))


@PROPS
@given(QUESTIONS, MODERN_DAY)
def test_well_formed_and_deterministic_on_date_fragments(question, as_of):
    got = parse(question, as_of)
    _well_formed(got)
    parse("since 2019 compared with last week", as_of)  # no state carried from one parse to the next
    assert parse(question, as_of) == got


RELATIVE = [
    "last week", "this week", "last month", "this month", "last quarter", "this quarter", "last year",
    "this year", "yesterday", "today", "{n} days ago", "{n} weeks ago", "{n} months ago", "{n} years ago",
    "in the past {n} days", "in the last {n} weeks", "over the last {n} months", "the past {n} years",
    "since {y}", "after {y}", "since March {y}", "from {y} to now", "last Friday", "last weekend",
    "в прошлом месяце", "за последние {n} дней", "{n} дня назад", "le mois dernier", "il y a {n} jours",
    "depuis {y}", "letzte Woche", "vor {n} Tagen", "seit {y}", "el mes pasado", "hace {n} días", "desde {y}",
]


@PROPS
@given(st.sampled_from(RELATIVE), st.integers(1, 60), MODERN_DAY, st.data())
def test_relative_periods_end_on_or_before_as_of(template, n, as_of, data):
    year = data.draw(st.integers(1850, as_of.year - 1))
    got = parse(f"What was said {template.format(n=n, y=year)}?", as_of)
    assert got.intent == "point_in_time", got.to_dict()
    assert got.end is not None and got.end <= as_of
    assert got.start is None or got.start <= got.end


@PROPS
@given(st.integers(1, 12), st.integers(1, 4), MODERN_DAY)
def test_a_month_or_quarter_without_year_is_the_latest_begun_by_as_of(month, quarter, as_of):
    # named periods are reported whole, so they may run past as_of; they may not begin after it
    for question, first_month in ((f"in {dt.date(2000, month, 1):%B}", month), (f"in Q{quarter}", 3 * quarter - 2)):
        got = parse(f"What was said {question}?", as_of)
        assert got.start is not None and got.start.month == first_month and got.start.day == 1
        assert got.start <= as_of < got.start + relativedelta(years=1), got.to_dict()


@PROPS
@given(st.sampled_from(["days", "weeks", "months", "years"]), st.integers(1, 40), MODERN_DAY)
def test_trailing_periods_use_calendar_arithmetic(unit, n, as_of):
    got = parse(f"What has been said in the past {n} {unit}?", as_of)
    assert (got.start, got.end) == (as_of - relativedelta(**{unit: n}), as_of)


MONTHS_BY_LANGUAGE = {
    "en": ("What was said in {m} {y}?", "January February March April May June July August September "
           "October November December"),
    "ru": ("Что писали в {m} {y} года?", "январе феврале марте апреле мае июне июле августе сентябре "
           "октябре ноябре декабре"),
    "fr": ("Qu'a-t-on dit en {m} {y} ?", "janvier février mars avril mai juin juillet août septembre "
           "octobre novembre décembre"),
    "de": ("Was wurde im {m} {y} gesagt?", "Januar Februar März April Mai Juni Juli August September "
           "Oktober November Dezember"),
    "es": ("¿Qué se dijo en {m} de {y}?", "enero febrero marzo abril mayo junio julio agosto septiembre "
           "octubre noviembre diciembre"),
}


@PROPS
@given(st.sampled_from(sorted(MONTHS_BY_LANGUAGE)), st.integers(1, 12), st.integers(1900, 2024))
def test_any_month_in_any_listed_language(language, month, year):
    template, names = MONTHS_BY_LANGUAGE[language]
    got = parse(template.format(m=names.split()[month - 1], y=year), AS_OF)
    last = (dt.date(year, month, 1) + relativedelta(months=1, days=-1))
    assert (got.intent, got.start, got.end) == ("point_in_time", dt.date(year, month, 1), last)


QUARTER_SPELLINGS = ["Q{q} {y}", "the {o} quarter of {y}", "{y} Q{q}", "im {q}. Quartal {y}",
                     "au T{q} {y}", "в {q} квартале {y} года"]
ORDINALS = ["first", "second", "third", "fourth"]


@PROPS
@given(st.sampled_from(QUARTER_SPELLINGS), st.integers(1, 4), st.integers(1950, 2024))
def test_any_quarter(spelling, q, year):
    got = parse("What was said in " + spelling.format(q=q, y=year, o=ORDINALS[q - 1]) + "?", AS_OF)
    start = dt.date(year, 3 * q - 2, 1)
    assert (got.intent, got.start, got.end) == ("point_in_time", start, start + relativedelta(months=3, days=-1))


@PROPS
@given(st.integers(1950, 2024), st.integers(1950, 2024), st.sampled_from(
    ["Compare {a} and {b}", "How did the debate differ between {a} and {b}?", "{a} versus {b}",
     "Сравните {a} и {b} годы", "Comparer {a} et {b}", "{a} im Vergleich zu {b}"]))
def test_any_two_years_compared(a, b, template):
    if a == b:
        return
    got = parse(template.format(a=a, b=b), AS_OF)
    lo, hi = sorted((a, b))
    assert got.intent == "comparison"
    assert got.periods == ((dt.date(lo, 1, 1), dt.date(lo, 12, 31)), (dt.date(hi, 1, 1), dt.date(hi, 12, 31)))
