"""The quoted answer: which source sentence answers, by the question's answer type."""
from __future__ import annotations

import datetime as dt
from dataclasses import replace

import pytest

from trag_tui.answering.facts import (
    figure_words,
    names_speaker,
    office_holder,
    office_words,
    person_names,
    quantities,
    speaker_answers,
    speaks_as_asked,
)
from trag_tui.answering.kind import (
    agrees,
    answer_type,
    counted,
    counts,
    gate_kind,
    gives,
    stated_figures,
)
from trag_tui.answering.quote import (
    choose,
    extract,
    figure_elsewhen,
    holder,
    quoted_answer,
    succession,
    unmentioned,
)
from trag_tui.answering.ranking import (
    FEATURES,
    HEADLINE,
    Candidate,
    headline,
    of_period,
    rank,
    rank_query,
    ranker_cuts,
    ranker_weights,
)
from trag_tui.answering.sources import Source, _same_day_office
from trag_tui.models.embedding import HashEmbedder
from trag_tui.temporal.question import parse
from trag_tui.text.labels import period_label


@pytest.mark.parametrize("question,kind", [
    ("Who is the Prime Minister?", "person"),
    ("Who was Chancellor in July 2022?", "person"),
    ("When did Caroline go to the support group?", "date"),
    ("In which year did she adopt her first dog?", "date"),
    ("What year did the scheme start?", "date"),
    ("What was the Bank Rate in November 2022?", "number"),
    ("What is the current inflation rate?", "number"),
    ("How many people crossed the Channel in 2020?", "number"),
    ("What is the Rwanda scheme?", None),
    # "share" after an auxiliary is a verb: a photo is asked for, not a share
    ("What did Nate share a photo of when mentioning unwinding at home?", None),
    ("What achievement did John share with Tim in January 2024?", None),
    ("What share of the vote did Labour win?", "number"),
    # a person asked for by what they are ("which tennis star", "which Republican governor")
    ("Which tennis star pulled out of Wimbledon?", "person"),
    ("Which Republican governor claimed credit for flying migrants?", "person"),
    ("Which head of state announced his resignation this week?", "person"),
    ("US household debt passed which massive figure this week?", "number"),
    ("Which state has the most cases?", None),
    # the scene first, then the question: the type is the asking sentence's
    ("Serena Williams announced she will retire after the U.S. Open. How many grand slams "
     "has she won?", "number"),
    ("Who won the Hart Trophy? Which team does he play for?", None),
    # a measured quantity over time is answered by its levels
    ("Compare Bank Rate in August 2024 and November 2025", "number"),
    ("How has inflation changed since 2022?", "number"),
    ("How has inflation developed since 2021?", "number"),
    ("How did Bank Rate trend from 2022 to 2025?", "number"),
    ("How has the discussion on climate change targets evolved?", None),
    ("Compare net migration in the year ending June 2023 and the year ending December 2024",
     "number"),
    ("Compare Channel small boat crossings in 2023 and 2024", "number"),
    ("How has the government's position on Rwanda changed?", None),
    # "how many" / "from when" need not open the question
    ("Approximately how many customers in Florida were without power on Thursday?", "number"),
    ("Roger Federer retired this week after a career in which he won how many Grand Slam "
     "singles titles?", "number"),
    ("Barristers protesting against cuts to legal aid have voted to strike from when?", "date"),
    ("How many people answered, and which party did they back?", "number"),
    # a cap and a magnitude are figures; "how long" is not read as one (it took "£9 billion"
    # and "the 12 months to October" for how long a partnership would last)
    ("How long did Lewis Macdonald say the public inquiry had run?", None),
    ("What was the cap on lifetime care costs announced in 2021?", "number"),
    ("What was the magnitude of the earthquake that struck Burma?", "number"),
    # a blank to fill in with a time
    ("The Fed raised its key rate by 0.75 points. This was the highest hike since:", "date"),
    ("Tiafoe became the first American man to reach the semifinals since :", "date"),
    ("Since the war began, which countries have forged closer ties?", None),
    ("Which party did those who said how many seats it won back", None),
    # a clause before the question word sets the scene: the question is after its comma
    ("In December 2014, whom did Time magazine name as its Person of the Year?", "person"),
    ("After Jacob Zuma resigned this week under pressure from the ANC, who became the "
     "country's acting president?", "person"),
    ("In the July 1980 Beige Book, how large did the Fed say the losses might be?", "number"),
    ("Following the vote, when will the bill return to the Commons?", "date"),
    # a person's name asked for itself
    ("Two brothers were arrested this week. What is the brothers' surname?", "person"),
    ("What is the name of the ship?", None),
    # a relative "who" after a comma asks nothing
    ("Tom DeLay, who led the House, said what about the Act?", None),
])
def test_answer_types(question, kind):
    assert answer_type(question) == kind


PMQS = [
    Source(1, "d1", "2025-11-19", "Prime Minister / Engagements", "Kemi Badenoch",
           "Unemployment has hit 5 per cent, the highest in almost a decade. Will the Prime "
           "Minister rule out breaking his promise?", score=0.9, role="Leader of the Opposition"),
    Source(2, "d2", "2025-11-19", "Prime Minister / Engagements", "Keir Starmer",
           "This morning I had meetings with ministerial colleagues and others. As Prime "
           "Minister I have said that our focus is the cost of living.", score=0.8,
           role="The Prime Minister"),
]


def test_a_who_question_is_answered_by_the_speaker_in_the_office_asked_about():
    q = "Who is the Prime Minister?"
    ranked = rank(q, PMQS, mode="decay", embedder=HashEmbedder())
    picks = extract(q, ranked, mode="decay")
    assert len(picks) == 1 and picks[0].source.number == 2
    assert quoted_answer(q, picks) == (
        "Keir Starmer, speaking as Prime Minister on 19 November 2025 [2]: "
        "“As Prime Minister I have said that our focus is the cost of living.”")


def test_a_shadow_or_former_office_is_not_the_office_asked_about():
    sources = [
        Source(1, "d1", "2023-12-12", "Safety of Rwanda Bill", "Yvette Cooper",
               "This is the third Rwanda plan in two years, and the Home Secretary's own party "
               "cannot agree on it.", score=0.9, role="Shadow Home Secretary"),
        Source(2, "d2", "2023-11-15", "Prime Minister / Engagements", "Rishi Sunak",
               "The Home Secretary, my right hon. Friend the Member for Braintree (James "
               "Cleverly), will set out our next steps.", score=0.8, role="The Prime Minister"),
    ]
    q = "Who was Home Secretary in 2023?"
    picks = extract(q, rank(q, sources, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter")
    answer = quoted_answer(q, picks)
    assert "James Cleverly" in answer and "speaking as Shadow" not in answer
    # asked about the shadow office, its holder is the answer
    q = "Who was Shadow Home Secretary in 2023?"
    picks = extract(q, rank(q, sources, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter")
    assert quoted_answer(q, picks).startswith("Yvette Cooper, speaking as Shadow Home Secretary")


@pytest.mark.parametrize("role,question,speaks_as", [
    # the formal title is the office people name by its own word
    ("The Secretary of State for the Home Department", "Who was Home Secretary in 2013?", True),
    ("Secretary of State for Foreign, Commonwealth and Development Affairs",
     "Who is the Foreign Secretary?", True),
    ("The Chancellor of the Exchequer", "Who was Chancellor in July 2022?", True),
    # another department's secretary, or a junior office in the same one, is not
    ("The Secretary of State for the Home Department", "Who is the Defence Secretary?", False),
    ("Parliamentary Under-Secretary of State for Health", "Who was the Health Secretary?", False),
])
def test_an_office_asked_by_its_everyday_name_is_found_by_its_formal_title(role, question,
                                                                          speaks_as):
    source = Source(1, "d", "2013-10-22", "Immigration Bill", "Theresa May",
                    "I beg to move, That the Bill be now read a Second time.", score=0.9,
                    role=role)
    answer = quoted_answer(question, [Candidate(source, source.passage, 1.0)])
    assert answer.startswith("Theresa May, speaking as ") == speaks_as


def test_the_governments_policy_is_not_what_the_opposition_says_of_it():
    sources = [
        Source(1, "d1", "2023-12-12", "Safety of Rwanda Bill", "Yvette Cooper",
               "Labour would scrap the Rwanda scheme and put the money into a border police "
               "unit.", score=0.9, role="Shadow Home Secretary"),
        Source(2, "d2", "2024-03-06", "Engagements", "Rishi Sunak",
               "We will get flights to Rwanda off the ground in the spring.", score=0.8,
               role="The Prime Minister"),
    ]
    for asked_about, speaker in [
        ("the government's policy on", "Rishi Sunak"),
        ("the opposition's view of", "Yvette Cooper"),
        # a position asked about with no one named as holding it is the government's too;
        # one named as a party's is that party's
        ("the position on", "Rishi Sunak"),
        ("Labour's position on", "Yvette Cooper"),
    ]:
        q = f"What was {asked_about} the Rwanda scheme as of March 2024?"
        picks = extract(q, rank(q, sources, mode="decay", embedder=HashEmbedder()), mode="decay")
        assert picks[0].source.speaker == speaker, q


def test_announcing_a_statement_is_not_what_the_statement_says():
    sources = [Source(1, "d", "2023-10-16", "Israel and Gaza", "Rishi Sunak",
                      "With permission, Mr Speaker, I will make a statement on the situation in "
                      "Israel and Gaza. Hamas terrorists murdered more than 1,300 people. As "
                      "Prime Minister I have been clear: Israel has the right to defend itself.",
                      score=0.9, role="The Prime Minister")]
    q = "What did the Prime Minister say about the situation in Israel?"
    ranked = rank(q, sources, mode="hybrid", embedder=HashEmbedder())
    assert not ranked[0].sentence.startswith("With permission")


REPORTS = [
    Source(1, "r1", "2022-11-03", "Monetary Policy Summary", "",
           "The labour market remains tight: unemployment is 3.5 per cent. The MPC voted by a "
           "majority of 7-2 to raise Bank Rate by 0.75 percentage points to 3 per cent.",
           score=0.9),
    Source(2, "r2", "2022-11-16", "Consumer price inflation", "",
           "CPI rose by 11.1 per cent in the 12 months to October 2022. Food prices rose.",
           score=0.5),
]


def test_a_number_question_quotes_the_sentence_with_its_figure_dated_and_cited():
    q = "What was the Bank Rate in November 2022?"
    picks = extract(q, rank(q, REPORTS, mode="hard_filter"), mode="hard_filter")
    text = quoted_answer(q, picks)
    assert text == ("“The MPC voted by a majority of 7-2 to raise Bank Rate by 0.75 percentage "
                    "points to 3 per cent.” [1] (3 November 2022).")


def test_comparison_quotes_each_period_from_its_own_sources():
    sources = [
        Source(1, "a", "2022-10-19", "CPI", "", "CPI inflation was 11.1 per cent in October.",
               group="2022", score=0.4),
        Source(2, "b", "2025-11-19", "CPI", "", "CPI inflation was 3.6 per cent in October.",
               group="2025", score=0.9),
    ]
    q = "Compare CPI inflation in 2022 and 2025"
    picks = extract(q, rank(q, sources, mode="comparison"), mode="comparison",
                    groups=["2022", "2025"])
    assert [p.source.number for p in picks] == [1, 2]
    text = quoted_answer(q, picks, labels={"2022": "2022", "2025": "2025"})
    assert text.splitlines() == [
        "2022: “CPI inflation was 11.1 per cent in October.” [1] (19 October 2022).",
        "2025: “CPI inflation was 3.6 per cent in October.” [2] (19 November 2025).",
    ]


def test_nothing_to_quote_gives_nothing():
    assert rank("Who?", [Source(1, "x", None, "", "", "Short.")]) == []
    assert extract("Who?", []) == []


def test_a_question_in_the_sources_is_not_the_answer():
    sources = [
        Source(1, "q", "2022-07-20", "Written questions", "Bill Esterson",
               "To ask the Chancellor of the Exchequer what assessment he has made of inflation.",
               score=0.9),
        Source(2, "a", "2022-07-20", "Written answers", "Simon Clarke",
               "The Chancellor, my right hon. Friend the Member for Stratford-on-Avon (Nadhim "
               "Zahawi), has said that the Government will act.", score=0.5),
    ]
    q = "Who was Chancellor in July 2022?"
    picks = extract(q, rank(q, sources, mode="hard_filter"), mode="hard_filter")
    # the office's holder leads, the minister who named him after: not "Simon Clarke [2]: …"
    assert quoted_answer(q, picks).startswith(
        "Nadhim Zahawi, named as Chancellor by Simon Clarke on 20 July 2022 [2]: “The Chancellor")


@pytest.mark.parametrize("text,question,holder", [
    ("The Secretary of State for Defence, my right hon. Friend the Member for Rawmarsh and "
     "Conisbrough (John Healey), has been clear.", "Who is the Defence Secretary?",
     ("John Healey", "Secretary of State for Defence")),
    ("The Governor is required to write to the Chancellor of the Exchequer, George Osborne, "
     "whenever inflation is high.", "Who is the Chancellor of the Exchequer?",
     ("George Osborne", "Chancellor of the Exchequer")),
    ("Defence Secretary Ben Wallace said so.", "Who was the Defence Secretary?",
     ("Ben Wallace", "Defence Secretary")),
    # another office, or the office's shadow, holds no answer; nor does a name the question gives
    ("Shadow Chancellor Rachel Reeves said so.", "Who was the Chancellor?", None),
    ("The Chancellor, my right hon. Friend the Member for Leeds West and Pudsey (Rachel "
     "Reeves), will present her Budget.", "Who is the Prime Minister?", None),
    ("The Chancellor, Rachel Reeves, spoke.", "Was Rachel Reeves the Chancellor?", None),
    ("Rachel Reeves spoke about the Chancellor.", "Who is the Chancellor?", None),
    # a constituency with its own brackets still leads to the holder's name
    ("The Prime Minister, my right hon. Friend the Member for Richmond (Yorks) (Rishi Sunak), "
     "and I are clear.", "Who was Prime Minister in 2022?", ("Rishi Sunak", "Prime Minister")),
    # a peer is named by title and one name
    ("The Home Secretary, my right hon. Friend the Member for Braintree (James Cleverly), will "
     "set out our next steps, and the Foreign Secretary, Lord Cameron, is working with our "
     "allies.", "Who was Foreign Secretary in 2023?", ("Lord Cameron", "Foreign Secretary")),
    # the same noun qualified otherwise, or not at all, is another office
    ("The Home Secretary, my right hon. Friend the Member for Braintree (James Cleverly), will "
     "set out our next steps.", "Who was Foreign Secretary in 2023?", None),
    ("The Secretary of State, my right hon. Friend the Member for East Surrey (Claire "
     "Coutinho), has been clear.", "Who was Foreign Secretary in 2023?", None),
    # the office said after the name holding it
    ("The ANC urged members to support Cyril Ramaphosa, who is now the country's acting "
     "president.", "Who became South Africa's acting president?",
     ("Cyril Ramaphosa", "the country's acting president")),
    ("Jerome Powell, the Fed chair, said so.", "Who is the Fed chair?",
     ("Jerome Powell", "the Fed chair")),
    ("Boris Johnson, the former prime minister, said so.", "Who is the prime minister?", None),
    ("John Smith, the mayor of Leeds, said so.", "Who is the Prime Minister?", None),
])
def test_the_holder_of_the_office_asked_about(text, question, holder):
    assert office_holder(text, question) == holder


def test_an_unqualified_office_is_of_the_speaker_s_department():
    text = ("Our contribution, announced by the Secretary of State, my right hon. Friend the "
            "Member for Doncaster North (Ed Miliband), commits the UK to cut emissions.")
    energy = "Minister of State, Department for Energy Security and Net Zero"
    assert office_holder(text, "Who is the Energy Secretary?", energy) == \
        ("Ed Miliband", "Secretary of State")
    assert office_holder(text, "Who is the Health Secretary?", energy) is None
    assert office_holder(text, "Who is the Energy Secretary?") is None  # no department known
    # an office the text qualifies keeps its own department
    named = text.replace("the Secretary of State,", "the Secretary of State for Health,")
    assert office_holder(named, "Who is the Energy Secretary?", energy) is None
    # the office as the text words it still counts: a Treasury minister's "the Chancellor"
    chancellor = ("The Chancellor, my right hon. Friend the Member for Stratford-on-Avon "
                  "(Nadhim Zahawi), has said so.")
    assert office_holder(chancellor, "Who was Chancellor in July 2022?",
                         "Chief Secretary to the Treasury") == ("Nadhim Zahawi", "Chancellor")


def test_who_answered_is_answered_by_the_speaker_the_question_does_not_name():
    q = ("Which minister answered Lord Chidgey's question in the House of Lords on 28 October "
         "2009 about the Lord's Resistance Army moving into Darfur?")
    asking = Source(1, "q", "2009-10-28", "Sudan: Darfur", "Lord Chidgey",
                    "To ask Her Majesty's Government what is their assessment of the risk of the "
                    "Lord's Resistance Army moving into Darfur.", score=0.9)
    reply = Source(2, "r", "2009-10-28", "Sudan: Darfur", "Baroness Kinnock of Holyhead",
                   "My Lords, there are reports that the Lord's Resistance Army raided camps for "
                   "displaced Darfuris in southern Sudan.", score=0.8)
    site = replace(reply, speaker="cnn.com")
    assert speaker_answers(q, reply) and not speaker_answers(q, asking)
    assert not speaker_answers(q, site)  # an outlet is no one
    assert not speaker_answers("What did the minister say about Darfur?", reply)
    # another peer's supplementary question is no reply, though it asks who asked
    supplementary = "My Lords, what is the Government's assessment of the situation in Darfur?"
    assert not speaker_answers(q, reply, supplementary)
    assert speaker_answers("Which peer asked about Darfur?", reply, supplementary)
    picks = extract(q, rank(q, [asking, reply], mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter")
    assert "Baroness Kinnock of Holyhead [2]" in quoted_answer(q, picks)


PM_2022 = [
    Source(1, "pm", "2022-03-23", "Prime Minister / Engagements", "Boris Johnson",
           "As Prime Minister I can tell the House that the UK has now supplied thousands of "
           "anti-tank missiles to Ukraine.", score=0.9, role="The Prime Minister"),
    Source(2, "g", "2022-09-23", "The Growth Plan 2022", "Kwasi Kwarteng",
           "As Chancellor I am setting out the Government's plan for growth, under the "
           "leadership of my right hon. Friend the Prime Minister, the Member for South West "
           "Norfolk (Liz Truss).", score=0.8, role="The Chancellor of the Exchequer"),
    Source(3, "a", "2022-11-17", "Autumn Statement", "Jeremy Hunt",
           "The Prime Minister, my right hon. Friend the Member for Richmond (Yorks) (Rishi "
           "Sunak), and I are clear that our No. 1 priority is to help the Bank of England.",
           score=0.7, role="The Chancellor of the Exchequer"),
]


def test_an_office_that_changed_hands_in_the_period_is_answered_holder_by_holder():
    q = "Who was Prime Minister in 2022?"
    ranked = rank(q, PM_2022, mode="hard_filter", embedder=HashEmbedder())
    turns = succession(q, ranked, "person")
    assert [c.source.number for c in turns] == [1, 2, 3]
    lines = quoted_answer(q, turns).splitlines()
    assert lines[0].startswith("Boris Johnson, speaking as Prime Minister on 23 March 2022 [1]")
    assert lines[1].startswith("Liz Truss, named as Prime Minister by Kwasi Kwarteng on "
                               "23 September 2022 [2]")
    assert lines[2].startswith("Rishi Sunak, named as Prime Minister by Jeremy Hunt")
    # a generated sentence naming one of them is the one-holder answer the quote corrects
    quote = quoted_answer(q, turns)
    holders = [holder(c, q) for c in turns]
    assert holders == ["Boris Johnson", "Liz Truss", "Rishi Sunak"]
    assert not agrees("person", "Boris Johnson was Prime Minister [1].", quote, q, every=holders)
    assert agrees("person", "Boris Johnson, Liz Truss and Rishi Sunak held it in turn.", quote, q,
                  every=holders)


def test_one_holder_or_holders_whose_dates_overlap_are_no_succession():
    q = "Who was Prime Minister in 2022?"
    one = rank(q, PM_2022[:1], mode="hard_filter", embedder=HashEmbedder())
    assert succession(q, one, "person") == []
    # Johnson named again after Truss is named: the dates say nothing of who came when
    again = replace(PM_2022[0], number=4, doc_id="pm2", date="2022-10-05")
    ranked = rank(q, PM_2022 + [again], mode="hard_filter", embedder=HashEmbedder())
    assert succession(q, ranked, "person") == []
    # a question asking for no office, or no person, has no holders
    assert succession("Who spoke about growth in 2022?", ranked, "person") == []
    assert succession(q, ranked, "number") == []


def test_the_noun_a_which_question_opens_with_is_the_kind_of_answer_not_the_office():
    q = "Which minister was Health Secretary in November 2013?"
    brown = Source(1, "pm", "2010-03-24", "Engagements", "Gordon Brown", "As Prime Minister I "
                   "have made it clear.", score=0.9, role="The Prime Minister")
    hunt = Source(2, "hs", "2013-11-27", "NHS", "Jeremy Hunt", "As Health Secretary I have "
                  "announced £250 million.", score=0.8, role="Secretary of State for Health")
    assert not speaks_as_asked(office_words(q), brown)
    assert speaks_as_asked(office_words(q), hunt)
    assert speaks_as_asked(office_words("Who was Prime Minister in March 2010?"), brown)


def test_an_office_is_held_as_of_the_day_it_is_said_not_in_a_period_spoken_of():
    q = "Who was Prime Minister in 2022?"
    ranked = rank(q, PM_2022, mode="hard_filter", embedder=HashEmbedder())
    year = (dt.date(2022, 1, 1), dt.date(2022, 12, 31))
    assert len(succession(q, ranked, "person", period=year)) == 3
    # asked of March, the autumn's sources (found because they speak of "this year") name
    # later holders: the one holder of March is no succession
    march = (dt.date(2022, 3, 1), dt.date(2022, 3, 31))
    assert succession(q, ranked, "person", period=march) == []


def test_a_holder_named_at_another_time_is_not_the_holder_in_the_period_asked():
    # "The Prime Minister, Theresa May, has announced…" (June 2018) does not say who became
    # Prime Minister in September 2022: it is not labelled as the holder, and the line of that
    # month naming one is quoted for it
    q = parse("After Boris Johnson resigned, who became Prime Minister in September 2022?",
              dt.date(2022, 10, 1))
    old = Source(1, "d2018", "2018-06-18", "NHS funding", "Department of Health",
                 "The Prime Minister, Theresa May, has announced a new funding settlement for "
                 "the NHS.", score=0.9)
    new = Source(2, "d2022", "2022-09-23", "The Growth Plan", "Kwasi Kwarteng",
                 "I am setting out the plan for growth, under the leadership of my right hon. "
                 "Friend the Prime Minister, the Member for South West Norfolk (Liz Truss).",
                 score=0.5)
    # ranked as a wide news index had them: the old line first
    ranked = [Candidate(old, old.passage, 1.0), Candidate(new, new.passage, 0.9)]
    quote = choose(q, "hard_filter", ranked, [old, new], [], kind="person")
    assert "Theresa May, named as" not in quote.shown
    assert "Liz Truss, named as Prime Minister" in quote.shown


def test_a_speaker_in_the_office_on_another_day_is_not_its_holder_in_the_period_asked():
    """"Who took over as Defence Secretary in October 2011?": the Defence Secretary speaking in
    July 2016 (found because the debate speaks of the decade) held the office then, not in
    October 2011; the Prime Minister naming the new Defence Secretary that month answers."""
    q = parse("Who took over as Secretary of State for Defence in October 2011?",
              dt.date(2025, 11, 26))
    later = Source(1, "d2016", "2016-07-18", "UK's Nuclear Deterrent", "Michael Fallon",
                   "As Defence Secretary I want to close this debate by reminding the House that "
                   "the threats we face have not gone away.", score=0.9,
                   role="The Secretary of State for Defence")
    named = Source(2, "d2011", "2011-10-19", "Engagements", "David Cameron",
                   "The new Secretary of State for Defence, my right hon. Friend the Member for "
                   "Runnymede and Weybridge (Philip Hammond), will take forward the review.",
                   score=0.8, role="The Prime Minister")
    ranked = rank_query(q, "hard_filter", [later, named], embedder=HashEmbedder())
    quote = choose(q, "hard_filter", ranked, [later, named], [], kind="person")
    assert quote.shown.startswith("Philip Hammond, named as Secretary of State for Defence")
    # asked of July 2016, the speaker in the office is its holder
    q16 = parse("Who was the Secretary of State for Defence in July 2016?", dt.date(2025, 11, 26))
    ranked = rank_query(q16, "hard_filter", [later, named], embedder=HashEmbedder())
    assert choose(q16, "hard_filter", ranked, [later, named], [], kind="person").shown.startswith(
        "Michael Fallon, speaking as Secretary of State for Defence on 18 July 2016")


def test_a_figure_the_question_gives_is_not_the_answer():
    q = "How much has Deborah James, who has died aged 40, raised through her fund?"
    assert stated_figures("Deborah James has died at home aged 40.", q) == (0, 0)
    assert stated_figures("Her fund has raised more than £7m.", q) == (1, 0)
    # an expectation is no level, unless an expectation is what is asked
    hedged = "Losses of timber and crops, plus clean-up costs, may approach $3 billion."
    assert stated_figures(hedged, "How large were the losses?") == (0, 1)
    assert stated_figures(hedged, "How large did the Fed say the losses might be?") == (1, 0)
    # "how large" with a word of money asks a sum: a count of the scene's eruptions is none
    costs = "How large did the Fed say losses and clean-up costs from the eruptions might be?"
    assert stated_figures("Areas were hurt by the three major eruptions.", costs) == (0, 0)
    assert stated_figures(hedged, costs) == (1, 0)
    sources = [
        Source(1, "s", "2022-06-28", "Deborah James dies", "",
               "Cancer campaigner Deborah James, who raised millions through her fund, has "
               "died at home aged 40. Her Bowelbabe fund has gone on to raise more than £7m "
               "for research.", score=0.9),
    ]
    picks = extract(q, rank(q, sources, mode="hybrid", embedder=HashEmbedder()), mode="hybrid")
    assert any("£7m" in p.sentence for p in picks)


def test_a_how_many_question_is_answered_by_the_figure_that_counts_what_it_asks():
    q = "Serena Williams announced she will retire after the U.S. Open. How many grand slams " \
        "has she won?"
    assert counted(q) == {"grand", "slam"}
    assert counted("How many Russians could soon be conscripted?") == {"russia"}
    assert counted("What is the Rwanda scheme?") == set()
    assert counts("She has won 23 grand slam singles titles.", counted(q))
    assert not counts("Serena Williams, 40, announced she would retire.", counted(q))
    sources = [
        Source(1, "a", "2022-08-10", "Serena Williams to retire", "",
               "Serena Williams, 40, announced in Vogue that she would retire from tennis "
               "after the U.S. Open.", score=0.9),
        Source(2, "b", "2022-08-09", "Serena Williams says she is evolving away from tennis", "",
               "Williams has won 23 grand slam singles titles, the most in the Open era.", score=0.8),
    ]
    picks = extract(q, rank(q, sources, mode="hybrid", embedder=HashEmbedder()), mode="hybrid")
    assert "23 grand slam" in quoted_answer(q, picks)


def test_how_many_voted_is_answered_by_the_division_s_tally():
    q = "How many MPs voted in favour of renewing the UK's nuclear deterrent in July 2016?"
    tally = "The House divided: Ayes 472, Noes 117."
    assert counts(tally, counted(q), q)
    assert counts(tally, set(), "How many MPs voted against the motion?")
    assert counts("Contents, 201; Not-Contents, 150.", set(), "How many peers supported it?")
    assert not counts("The motion was agreed to.", counted(q), q)
    assert not counts(tally, set(), "How many people attended?")
    # a distance is not a count of MPs, unless miles are what is counted
    robertson = "Scotland's MPs are opposed to it, and the weapons are based on the Clyde, " \
        "25 miles from our largest city."
    assert stated_figures(robertson, q) == (0, 0)
    assert stated_figures("The route is 25 miles long.", "How many miles long is the route?") \
        == (1, 0)
    sources = [
        Source(1, "a", "2016-07-18", "Trident", "Angus Robertson", robertson, score=0.9),
        Source(2, "b", "2016-07-18", "Trident", "", tally, score=0.5),
    ]
    picks = extract(q, rank(q, sources, mode="hybrid", embedder=HashEmbedder()), mode="hybrid")
    assert "Ayes 472" in quoted_answer(q, picks)


def test_a_count_of_what_is_asked_joins_from_another_source_below_the_usual_cut():
    from trag_tui.answering.ranking import FEATURES

    q = "How many MPs voted in favour of renewing Trident in July 2016?"
    counted_feature = tuple(1.0 if f == "counted" else 0.0 for f in FEATURES)
    speech = Source(1, "a", "2016-07-18", "Trident", "Angus Robertson",
                    "Scotland's MPs are overwhelmingly opposed to the renewal of Trident.")
    tally = Source(2, "b", "2016-07-18", "Trident", "", "The House divided: Ayes 472, Noes 117.")
    other = Source(3, "c", "2016-07-18", "Trident", "", "It will cost 31 billion pounds.")
    ranked = [Candidate(speech, speech.passage, 1.0, 0),
              Candidate(tally, tally.passage, 0.6, 0, features=counted_feature),
              Candidate(other, other.passage, 0.58, 0)]
    assert [p.source.number for p in extract(q, ranked, kind="number")] == [1, 2]
    # under the floor of the best line's score it is off the subject, counted or not
    low = [ranked[0], replace(ranked[1], score=0.4)]
    assert [p.source.number for p in extract(q, low, kind="number")] == [1]


def test_a_number_word_joined_to_another_word_is_a_kind_not_a_count():
    assert quantities("a negotiated two-state solution") == []
    assert quantities("the two-child limit") == []
    assert [str(x) for x in quantities("twenty-five people")] == ["25"]
    assert [str(x) for x in quantities("a forty-two-year-old")] == ["42"]  # an age


def test_how_many_times_is_answered_by_the_ordinal_of_the_latest_time():
    q = "How many times in a row has the Bank of England now raised interest rates?"
    assert gives("number", "Interest rates are expected to rise for a seventh time in a row.", q)
    assert gives("number", "It was the Bank's 7th straight increase.", q)
    assert not gives("number", "It rose for the first time since 2001.", q)
    assert not gives("number", "They won for a seventh time.", "How many people came?")
    # so the sentence that gives the count is quoted alone, without another source's figure
    bank = Source(1, "a", "2022-09-22", "Bank expected to hike rates", "",
                  "Interest rates are expected to rise for a seventh time in a row today.")
    loans = Source(2, "b", "2022-09-22", "Mortgage rates", "",
                   "Mortgage rates rose past 6% after another interest rate rise.")
    ranked = [Candidate(bank, bank.passage, 1.0, 0), Candidate(loans, loans.passage, 0.9, 0)]
    assert [p.source.number for p in extract(q, ranked, kind="number")] == [1]


def test_a_percentage_asked_for_is_not_answered_by_a_count():
    q = "What percentage of babies in the UK were born out of wedlock last year?"
    assert stated_figures("A python gave birth to six baby pythons.", q) == (0, 0)
    assert stated_figures("51.3 per cent of babies were born outside marriage.", q) == (1, 0)
    # a count asked for in words is stated in words too, and a span of time does not count
    q = "How many Russians could soon be conscripted?"
    assert stated_figures("Up to three hundred thousand reservists may be called up.", q) == (1, 0)
    assert stated_figures("They served for less than ten years.", q) == (0, 0)


def test_a_sum_named_as_what_is_asked_is_answered_by_money():
    q = ("Which general salary threshold did the Government say in October 2020 would apply to "
         "skilled workers under the new points-based immigration system?")
    assert answer_type(q) == "number"
    # "points-based" names the system, not points asked for
    assert stated_figures("Skilled workers will need 70 points.", q) == (0, 0)
    assert stated_figures("The general salary threshold will be £25,600.", q) == (1, 0)
    assert answer_type("What was the value of unpaid tax debts at 31 March 2009?") == "number"
    assert answer_type("Which value matters most to Melanie?") is None
    assert stated_figures("Rates rose by 25 points.", "How much did rates rise, in points?") \
        == (1, 0)


def test_a_rate_asked_for_is_not_answered_by_a_count():
    q = "What was the unemployment rate in November 2014?"
    assert stated_figures("There were 1.96 million unemployed people.", q) == (0, 0)
    assert stated_figures("The unemployment rate for July to September 2014 was 6.0 per cent.", q) \
        == (1, 0)
    assert stated_figures("There were 1.96 million unemployed people.",
                          "How many people were unemployed in November 2014?") == (1, 0)
    # another rate than the one asked is no answer, though the report on it states it
    q = "What was the inflation rate in October 2011?"
    assert stated_figures("Bank Rate has been held at 0.5 per cent since March 2009.", q) == (0, 1)
    assert stated_figures("CPI inflation rises to 5.2 per cent", q) == (1, 0)
    assert stated_figures("Bank Rate held at 4 per cent.", "What is Bank Rate now?") == (1, 0)


def test_for_a_period_asked_about_the_sentence_that_speaks_of_it_ranks_first():
    # "last month" said in April 2022 is March 2022; a year's average speaks of no one month
    q = "What was the inflation rate in March 2022?"
    march = (dt.date(2022, 3, 1), dt.date(2022, 3, 31))
    sources = [
        Source(1, "a", "2023-01-18", "Inflation", "", "Inflation averaged 9.1 per cent in 2022.",
               score=0.9),
        Source(2, "b", "2022-04-13", "Inflation", "", "Last month inflation was 7 per cent.",
               score=0.8),
    ]
    ranked = rank(q, sources, mode="hard_filter", embedder=HashEmbedder(), period=march)
    assert ranked[0].source.doc_id == "b"
    unaware = rank(q, sources, mode="hard_filter", embedder=HashEmbedder())
    assert unaware[0].source.doc_id == "a"  # without the period, the first source's line leads
    # a sentence naming only another time gives another period's figure
    q = "What was Bank Rate in 2024?"
    year = (dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    sources = [
        Source(1, "old", "2025-11-06", "Bank Rate", "", "Bank Rate stood at 0.1 per cent in 2021.",
               score=0.9),
        Source(2, "rate", "2025-11-06", "Bank Rate", "", "Bank Rate ended 2024 at 4.75 per cent.",
               score=0.5),
    ]
    ranked = rank(q, sources, mode="hard_filter", embedder=HashEmbedder(), period=year)
    assert [c.source.doc_id for c in ranked[:2]] == ["rate", "old"]
    # the title's reference period speaks for a sentence that names no time of its own
    titled = [Source(1, "cpi", "2024-06-19", "Consumer price inflation, May 2024", "",
                     "The index rose by 2.0 per cent.", score=0.5),
              Source(2, "other", "2024-06-19", "Consumer price inflation", "",
                     "The index rose by 2.3 per cent.", score=0.5)]
    may = (dt.date(2024, 5, 1), dt.date(2024, 5, 31))
    ranked = rank("What was inflation in May 2024?", titled, mode="hard_filter",
                  embedder=HashEmbedder(), period=may)
    assert next(c for c in ranked if c.position != HEADLINE).source.doc_id == "cpi"


@pytest.mark.parametrize("q, period, sources", [
    # In March 2022 the latest figure was February's; November's figure is October's. What was
    # said in March is merely published in it, not another time's, as the temporal contract
    # orders them: it leads, though the later line is retrieved first.
    ("What was the inflation rate in March 2022?", (dt.date(2022, 3, 1), dt.date(2022, 3, 31)),
     [Source(1, "other", "2022-11-16", "Consumer price inflation, October 2022", "",
             "CPI inflation rose to 11.1 per cent in October.", score=0.9),
      Source(2, "said", "2022-03-23", "Spring Statement", "Rishi Sunak",
             "CPI inflation rose to 6.2 per cent in February.", score=0.5)]),
    # A January article is among the sources of "this week" because another of its sentences
    # speaks of the week; its own sentences that name no time are January's news.
    ("Which new character did the brand add to its lineup this week?",
     (dt.date(2022, 9, 24), dt.date(2022, 9, 30)),
     [Source(1, "other", "2022-01-20", "Characters", "",
             "The brand is adding a new character to its lineup.", score=0.9),
      Source(2, "said", "2022-09-28", "Characters", "",
             "The brand is adding a new character to its lineup.", score=0.5)]),
])
def test_a_line_said_in_the_period_asked_about_ranks_above_another_times(q, period, sources):
    def first(ranked):
        return next(c for c in ranked if c.position != HEADLINE).source.doc_id

    assert first(rank(q, sources, mode="hard_filter", embedder=HashEmbedder(),
                      period=period)) == "said"
    assert first(rank(q, sources, mode="hard_filter", embedder=HashEmbedder())) == "other"


def test_a_figure_told_as_it_was_back_then_is_not_the_level_now():
    assert stated_figures("Back then, the agency estimated that it cost $233,610.") == (0, 1)
    assert stated_figures("It now costs $310,605 to raise a child.") == (1, 0)
    # unless the question asks about that earlier time
    assert stated_figures("Last year, inflation averaged 9 per cent.",
                          "What was inflation last year?") == (1, 0)


def test_a_change_asked_for_by_its_size_is_the_figure_after_by():
    q = "The Bank of England raised Bank Rate in November 2022. By how much did it rise?"
    assert stated_figures("The MPC voted by a majority of 7 to 2 to increase Bank Rate by 0.75 "
                          "percentage points, to 3 per cent.", q) == (1, 3)
    assert stated_figures("This is the largest rise since 1989; the rate stood at 0.1 per "
                          "cent in December 2021.", q) == (0, 1)
    assert stated_figures("Bank Rate raised to 3 per cent", q) == (0, 1)
    assert stated_figures("Flying insects have plunged by nearly 60% since 2004.",
                          "The number of flying insects has plunged by what percentage?") == (1, 0)
    # asked for the level, every figure stated as one counts
    assert stated_figures("Bank Rate raised to 3 per cent", "What was Bank Rate?") == (1, 0)


def test_a_figure_that_is_expected_or_a_peak_is_not_the_level_asked_for():
    assert stated_figures("CPI inflation rose to 6.2 per cent in February.") == (1, 0)
    assert stated_figures("The OBR now expects inflation to average 7.4 per cent this year, "
                          "peaking at close to 9 per cent.") == (0, 2)
    assert stated_figures("Unemployment rose to 5.0 per cent, up from 4.8 per cent.") == (1, 1)
    sources = [
        Source(1, "s", "2022-03-23", "Spring Statement", "Rishi Sunak",
               "The OBR now expects inflation to average 7.4 per cent this year. CPI inflation "
               "rose to 6.2 per cent in February.", score=0.9),
    ]
    q = "What was the inflation rate in March 2022?"
    picks = extract(q, rank(q, sources, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter")
    assert [p.sentence for p in picks] == ["CPI inflation rose to 6.2 per cent in February."]


def test_a_current_figure_comes_from_the_newest_source_not_the_word_rate():
    sources = [
        Source(1, "old", "2025-10-22", "CPI", "",
               "CPI inflation was 3.8 per cent in September, the same rate as in August.",
               score=0.9),
        Source(2, "new", "2025-11-19", "CPI", "",
               "CPI inflation fell to 3.6 per cent in October.", score=0.8),
    ]
    q = "What is the current inflation rate?"
    picks = extract(q, rank(q, sources, mode="decay", embedder=HashEmbedder()), mode="decay")
    assert picks[0].source.number == 2


def test_an_open_question_gets_an_excerpt_of_the_named_speaker_in_spoken_order():
    sources = [
        Source(1, "k", "2005-07-20", "PATRIOT Act", "Tom DeLay",
               "This week the House will consider the reauthorization of the PATRIOT Act. "
               "Members will have an opportunity to vote. In the PATRIOT Act's four-year "
               "history no abuses of the PATRIOT Act have been documented.", score=0.9),
        Source(2, "o", "2005-07-20", "PATRIOT Act", "John Conyers",
               "The PATRIOT Act reauthorization is rushed and the House deserves a real debate.",
               score=0.95),
    ]
    q = "What did Tom DeLay say about the PATRIOT Act reauthorization?"
    ranked = rank(q, sources, mode="hybrid", embedder=HashEmbedder())
    assert ranked[0].source.number == 1  # the named speaker's, though the other source scored higher
    picks = extract(q, ranked, mode="hybrid")
    text = quoted_answer(q, picks)
    assert text.startswith("Tom DeLay [1] (20 July 2005): “This week the House will consider")
    assert "no abuses of the PATRIOT Act have been documented" in text
    assert "John Conyers" not in text


@pytest.mark.parametrize("sentence,names", [
    ("It takes the seat of Associate Justice Stephen Breyer.", ["Stephen Breyer"]),
    ("Judge Ketanji Brown Jackson was sworn in.", ["Ketanji Brown Jackson"]),
    ("Senate Majority Leader Chuck Schumer spoke.", ["Chuck Schumer"]),
    ("Then Prime Minister Theresa May replied.", ["Theresa May"]),
    # a body, a title or a possessive office is no person
    ("The Supreme Court's first Black woman justice.", []),
    ("The Bank of England said so.", []),
    ("Hours before Buckingham Palace announced it.", []),
    ("From the anthem to The Star-Spangled Banner.", []),
    # an office of something runs on through "and" into its own capitalised words
    ("My right hon. Friend the Secretary of State for Energy Security and Net Zero agrees.", []),
    ("Foreign Secretary David Lammy and Home Secretary Yvette Cooper met.",
     ["David Lammy", "Yvette Cooper"]),
    # a possessive is no part of the name: the question naming Jacob Zuma names him
    ("More: South Africa's President Jacob Zuma's resignation", ["Jacob Zuma"]),
])
def test_a_title_before_a_name_is_not_part_of_it(sentence, names):
    assert person_names(sentence) == names


def _quoted(question: str, passage: str, day: str, title: str, mode: str = "hybrid") -> str:
    """The quoted answer over one news source with the hash embedder."""
    sources = [Source(1, "a", day, title, "", passage, score=0.9)]
    ranked = rank(question, sources, mode=mode, embedder=HashEmbedder())
    return quoted_answer(question, extract(question, ranked, mode=mode))


def test_a_name_the_question_gives_under_another_style_is_not_new():
    passage = ("Prince Charles ascended the throne on the death of the Queen. His son Prince "
               "William is now first in line to the throne.")
    q = "King Charles III became the new monarch. Who is next in the line of succession?"
    # "Prince Charles" is whom the question calls "King Charles III"; "Prince William" is new
    assert "Prince William is now first in line" in _quoted(q, passage, "2022-09-15", "Royals")


def test_whose_seat_is_answered_by_the_name_after_a_title():
    passage = ("Judge Ketanji Brown Jackson becomes the Supreme Court's first Black woman justice. "
               "Jackson, who was confirmed by the Senate in April, will take the seat occupied by "
               "Associate Justice Stephen Breyer.")
    q = ("Justice Ketanji Brown Jackson made history this week, becoming the first Black woman to "
         "sit on the Supreme Court. Whose seat is she filling?")
    assert "Stephen Breyer" in _quoted(q, passage, "2022-06-30", "Jackson sworn in", "hard_filter")


def test_who_did_the_named_speaker_honour_is_someone_else():
    assert "Verlie Doing" in person_names("Verlie Doing has touched every life in Searchlight.")
    assert person_names("The Minister has touched every life.") == []
    sources = [
        Source(1, "r", "2005-07-20", "Tribute", "Harry Reid",
               "I am proud to honor an authentic Searchlight hero today. Verlie Doing has "
               "touched every life in Searchlight, including my own.", score=0.9),
    ]
    q = "Who did Harry Reid honor in July 2005?"
    picks = extract(q, rank(q, sources, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter")
    assert "Verlie Doing" in quoted_answer(q, picks)


def test_a_when_question_is_answered_by_a_time_told_relative_to_the_day_it_was_said():
    sources = [
        Source(1, "a", "2023-03-23", "Session 5", "Gina",
               "Gina: My online clothing store has been a roller coaster but rewarding.",
               score=0.9),
        Source(2, "b", "2023-03-23", "Session 5", "Gina",
               "Gina: I finally opened the online clothing store last week after months of work.",
               score=0.5),
    ]
    q = "When did Gina open her online clothing store?"
    picks = extract(q, rank(q, sources, mode="hybrid", embedder=HashEmbedder()), mode="hybrid")
    text = quoted_answer(q, picks)
    assert "opened the online clothing store last week" in text
    assert text.endswith("(last week: 2023-03-13 to 2023-03-19).")


def test_a_date_the_quote_already_states_is_not_repeated_after_it():
    sources = [Source(1, "r", "2025-11-19", "CPI", "",
                      "CPI rose by 3.6 per cent in the 12 months to October 2025.", score=0.9)]
    q = "What is the current inflation rate?"
    text = quoted_answer(q, extract(q, rank(q, sources, mode="decay"), mode="decay"))
    # the sentence says the time it speaks of; the tag gives the other time, its publication
    assert text == ("“CPI rose by 3.6 per cent in the 12 months to October 2025.” [1] "
                    "(published 19 November 2025).")


def test_the_period_asked_about_named_in_other_words_is_told_after_the_quote():
    # "the previous three months" is April to June's figure: the reader is told which months
    sources = [Source(1, "r", "2025-11-11", "Labour market overview, November 2025", "",
                      "The UK unemployment rate rose to 5.0 per cent in July to September 2025, up "
                      "from 4.8 per cent in the previous three months.", score=0.9)]
    q = "What was the unemployment rate in April to June 2025?"
    spring = (dt.date(2025, 4, 1), dt.date(2025, 6, 30))
    picks = extract(q, rank(q, sources, mode="hard_filter", period=spring), mode="hard_filter")
    assert quoted_answer(q, picks, period=spring).endswith(
        "in the previous three months.” [1] (published 11 November 2025) "
        "(the previous three months: April 2025 to June 2025).")
    # asked about the quarter the sentence names in its own words, nothing is added
    summer = (dt.date(2025, 7, 1), dt.date(2025, 9, 30))
    assert quoted_answer(q, picks, period=summer).endswith("[1] (published 11 November 2025).")


def test_a_sum_of_money_asked_for_is_answered_by_money():
    passage = ("Gov. Gavin Newsom signed the law on Monday, creating a 10-member Fast Food Council "
               "to set standards for wages and working conditions. The law caps minimum wage "
               "increases for fast food workers at $22 an hour next year.")
    q = ("Gov. Gavin Newsom signed a new fast food law that gives fast food workers more "
         "protection, plus a starting pay of how much?")
    assert "$22 an hour" in _quoted(q, passage, "2022-09-06", "Newsom signs fast food law")
    assert stated_figures("It creates a 10-member council.", q) == (0, 0)
    # a rate is not money, however much it is raised
    assert stated_figures("It rose to 3 per cent.", "How much has the Bank raised rates?") == (1, 0)


def test_the_question_as_asked_says_what_is_counted_when_search_dropped_how_many():
    import datetime as dt

    from trag_tui.temporal.question import parse

    passage = ("Russia has proposed that immigrants who have had Russian citizenship for less "
               "than 10 years will undergo compulsory military service. The announcement would "
               "see 300,000 reservists called up, according to the Defense Minister.")
    sources = [Source(1, "a", "2022-09-22", "Russia drafts protesters", "", passage, score=0.9)]
    q = "How many Russians could soon be conscripted into the country's military?"
    searched = parse(q, dt.date(2022, 9, 22)).semantic_query
    assert not searched.lower().startswith("how many")  # what search used has no "How many"
    ranked = rank(searched, sources, mode="hybrid", embedder=HashEmbedder(), full=q)
    text = quoted_answer(q, extract(searched, ranked, mode="hybrid", full=q))
    # "10 years" is a span of time, not the count of people asked for
    assert "300,000 reservists" in text


def test_a_digit_in_a_company_name_is_not_the_figure_asked_for():
    passage = ("Millions of baby swings and rockers that pose a risk to infants have been recalled, "
               "according to an announcement Monday. The recall affects 2 million MamaRoo swings "
               "and 220,000 RockaRoo rockers, according to the CPSC.")
    q = "Approximately how many baby swings and rockers were recalled due to infant injuries?"
    # the headline's "4moms" gives no figure, so the sentence that does joins the quote
    assert "2 million MamaRoo swings" in _quoted(
        q, passage, "2022-08-15", "4moms recalls millions of baby swings and rockers", "hard_filter")


def test_from_when_is_answered_by_a_day_not_a_year_and_the_day_gets_its_year():
    passage = ("Criminal barristers have voted for an indefinite and uninterrupted strike over "
               "pay and legal aid. The vice-chair said barristers have endured collapses in "
               "their income since 2006 and cuts to legal aid. On Monday they voted to escalate "
               "the action with a full walkout set to begin on 5 September.")
    q = "Criminal barristers protesting against cuts to legal aid have voted to strike from when?"
    text = _quoted(q, passage, "2022-08-23", "Barristers vote to strike")
    assert "begin on 5 September" in text and "since 2006" not in text
    # the quote says the day; the tag adds only its year
    assert text.endswith("(5 September 2022).")
    # "in what year" is answered by a year as before
    q = "In what year did the collapse in barristers' income start?"
    assert "since 2006" in _quoted(q, passage, "2022-08-23", "Barristers vote to strike")


def test_the_person_answer_is_whom_the_source_talks_about_not_a_place_it_names():
    assert person_names("They allowed the Searchlight Police to have a night out.") == []
    sources = [
        Source(1, "r", "2005-07-20", "Tribute", "Harry Reid",
               "I am proud to honor an authentic Searchlight hero today. She would take my "
               "mother to Las Vegas to shop and looked after her. Verlie came to town in 1968. "
               "Verlie Doing has touched every life in Searchlight. Verlie still owns the "
               "store.", score=0.9),
    ]
    q = "Who did Harry Reid honor in July 2005?"
    ranked = rank(q, sources, mode="hard_filter", embedder=HashEmbedder())
    picks = extract(q, ranked, mode="hard_filter")
    assert any("Verlie Doing" in p.sentence for p in picks)
    assert "Verlie Doing has touched every life" in quoted_answer(q, picks)


def test_the_sentence_after_a_quoted_one_joins_the_excerpt_more_easily():
    # The sentence carrying the point ("special needs") shares no word with the question; it
    # joins because it follows the quoted one, while an equally weak remote one does not.
    passage = ("I thank Senator Frist for introducing the IDEA legislation today. "
               "This issue, helping the special needs of children in education, matters to "
               "millions of families. We met at the committee on Tuesday afternoon. "
               "The weather in the capital was cold and wet all week long.")
    source = Source(1, "k", "1997-01-28", "IDEA", "Edward M. Kennedy", passage, score=0.9)
    weak = (ranker_cuts().join_next + ranker_cuts().join) / 2
    ranked = [Candidate(source, "I thank Senator Frist for introducing the IDEA legislation today.",
                        1.0, 0),
              Candidate(source, "This issue, helping the special needs of children in education, "
                                "matters to millions of families.", weak, 1),
              Candidate(source, "The weather in the capital was cold and wet all week long.",
                        weak, 3)]
    q = "What did Senator Kennedy say about IDEA legislation?"
    text = quoted_answer(q, extract(q, ranked, mode="hybrid"))
    assert "special needs" in text and "weather" not in text


def test_a_second_source_joins_an_open_answer_only_when_it_speaks_of_the_subject():
    q = "What was the government's immigration policy?"
    line = "We will get flights to Rwanda off the ground to end illegal immigration."
    best = Candidate(Source(1, "a", "2024-03-06", "PMQs", "Rishi Sunak", line, score=0.9),
                     line, 1.0, 0)
    # the second source's line need not say the word, so long as the source speaks of it
    for passage, joins in [("The Government's NHS workforce plan will double medical school "
                            "places. Fuel duty is frozen.", False),
                           ("Our system will be based on skills. Net immigration must fall.",
                            True)]:
        two = Source(2, "b", "2024-03-06", "Debate", "Jeremy Hunt", passage, score=0.8)
        second = Candidate(two, passage.split(". ")[0] + ".", 0.9, 0)
        text = quoted_answer(q, extract(q, [best, second], mode="decay"))
        assert ("Jeremy Hunt [2]" in text) is joins


def test_a_second_source_that_says_what_the_first_says_does_not_join():
    q = "After nobody won the Mega Millions lottery jackpot Tuesday, the top prize ballooned to:"
    line = ("A giant Mega Millions lottery jackpot ballooned to $1.02 billion after no one matched "
            "all six numbers Tuesday night and won the top prize.")
    best = Candidate(Source(1, "a", "2022-07-23", "Mega Millions", "", line, score=0.9), line, 1.0, 0)
    for said, joins in [("The already-giant $810 million Mega Millions lottery jackpot ballooned "
                         "to $1.02 billion after no one matched all six numbers Tuesday night "
                         "and won the top prize.", False),
                        ("The Mega Millions jackpot is the third largest in the lottery's "
                         "history, and no one has matched the six numbers since April.", True)]:
        two = Source(2, "b", "2022-07-27", "Mega Millions", "", said, score=0.8)
        picks = extract(q, [best, Candidate(two, said, 0.95, 0)], mode="hybrid")
        assert (two in [c.source for c in picks]) is joins


def test_a_second_source_of_another_time_does_not_join_an_answer_about_a_period():
    q = "What was CPI inflation in April 2024?"
    line = "The CPI rose by 2.0 per cent in the 12 months to May 2024, down from 2.3 per cent in April."
    best = Candidate(Source(1, "may", "2024-06-19", "Consumer price inflation, May 2024", "", line,
                            score=0.9), line, 1.0, 1)
    headline = "CPI inflation rises to 3.8 per cent in the 12 months to July 2025."
    later = Source(2, "july", "2025-08-20", "Consumer price inflation, July 2025", "", headline,
                   score=0.8)
    other = [0.0] * len(FEATURES)
    for of_another, joins in [(1.0, False), (0.0, True)]:
        other[FEATURES.index("other_time")] = of_another
        second = Candidate(later, headline, 0.95, 0, features=tuple(other))
        picks = extract(q, [best, second], mode="hard_filter")
        assert (later in [c.source for c in picks]) is joins


def test_who_and_when_without_a_subject_quotes_the_opening_of_the_longest_statement():
    long = ("There will be no recorded votes for the remainder of the day. Members may attend "
            "committee hearings this afternoon. We hope to debate the nominee this afternoon. "
            "We will let Senators know later in the day.")
    sources = [
        Source(1, "a", "1997-01-28", "Schedule", "Trent Lott", "We will check into it.",
               score=0.95),
        Source(2, "b", "1997-01-28", "Schedule", "Trent Lott", long, score=0.9),
        Source(3, "c", "1997-01-28", "Schedule", "John Warner",
               "Senator Lott said we would vote tomorrow.", score=0.99),
    ]
    q = "What did Senator Lott say?"
    ranked = rank(q, sources, mode="hard_filter")
    assert (ranked[0].source.number, ranked[0].position) == (2, 0)
    assert "no recorded votes" in quoted_answer(q, extract(q, ranked, mode="hard_filter"))
    # a question with a subject is ranked by the subject, not by where the sentence stands
    q = "What did Senator Lott say about the debate on the nominee?"
    ranked = rank(q, sources, mode="hard_filter")
    assert "debate the nominee" in ranked[0].sentence


def test_a_body_named_by_its_initials_publishing_without_a_subject_is_quoted_from_its_opening():
    release = ("CPI inflation falls to 3.6 per cent. The Consumer Prices Index rose by 3.6 per "
               "cent in the 12 months to October 2025. The figures were published at 7am.")
    sources = [
        Source(1, "a", "2025-11-11", "Labour market", "Office for National Statistics (summary)",
               "The ONS continues to advise caution about the survey. Unemployment rose to 5.0 "
               "per cent.", score=0.95),
        Source(2, "b", "2025-11-19", "Consumer price inflation",
               "Office for National Statistics (summary)", release, score=0.9),
    ]
    # "the ONS" names the Office for National Statistics, and "publish" says how it was put
    # out, not what about: the gist of what it published is its longest statement's opening
    assert names_speaker("What did the ONS publish in November 2025?", sources[0])
    assert not names_speaker("What did the OBR publish in November 2025?", sources[0])
    q = "What did the ONS publish?"  # as retrieval searched for it, the time taken out
    ranked = rank(q, sources, mode="hard_filter")
    assert (ranked[0].source.number, ranked[0].position) == (2, 0)
    assert "falls to 3.6 per cent" in quoted_answer(q, extract(q, ranked, mode="hard_filter"))


def test_names_the_question_gives_that_no_source_mentions():
    sources = PMQS
    assert unmentioned("How did Serena Williams do at the US Open?", sources) == ["Serena Williams", "US Open"]
    # a surname is enough; sentence openers, weekdays and question words are not names
    assert unmentioned("Did Mr Keir Starmer answer Kemi Badenoch on Monday?", sources) == []
    assert unmentioned("Compare UK emissions in 2018 and 2024", sources) == []
    assert unmentioned("On Wednesday What did Prime Minister Starmer say? Who is Rishi Sunak's "
                       "successor?", sources) == ["Rishi Sunak"]
    # any word of the name will do: "the Boston Fed" is the Federal Reserve Bank of Boston
    report = [Source(1, "b", "2004-12-01", "Beige Book, December 2004: Federal Reserve Bank of "
                     "Boston (First District)", "", "Home sales slowed.", score=0.9)]
    assert unmentioned("What did the Boston Fed say about housing?", report) == []
    # an office is named by its own word: "the Secretary of State for Health" is not the
    # Defence Secretary, while "the Prime Minister" is named by its shared words alone
    health = [Source(1, "h", "2013-11-27", "NHS Funding", "Dan Poulter",
                     "My right hon. Friend the Secretary of State for Health, Jeremy Hunt, has "
                     "announced £250 million.", score=0.9)]
    assert unmentioned("Who was the Defence Secretary as of March 2014?", health) == \
        ["Defence Secretary"]
    assert unmentioned("Who was the Health Secretary in 2013?", health) == []
    assert unmentioned("What did the Prime Minister say?", sources) == []
    # an acronym is a name of one word, mentioned when written in words or with stops
    labour = [Source(1, "o", "2011-10-12", "Labour market", "",
                     "There were 2.57 million unemployed people. The National Health Service and "
                     "the U.S.A. were not mentioned by the survey.", score=0.9)]
    assert unmentioned("What was GDP growth in 2011?", labour) == ["GDP"]
    assert unmentioned("What did the NHS get? And the USA?", labour) == []
    assert unmentioned("What did Rachel Reeves say about GDP?", labour) == ["Rachel Reeves", "GDP"]
    # a capitalised word alone is often a common one ("Christmas", "Britain" for the UK)
    assert unmentioned("What did Britain do at Christmas?", labour) == []


@pytest.mark.parametrize("title,expected", [
    ("'Squid Game': Netflix green lights season 2 - CNN", "'Squid Game': Netflix green lights season 2"),
    ("Man discovers rare purple pearl in $14 clam appetizer at ...",
     "Man discovers rare purple pearl in $14 clam appetizer at…"),
    # headings and series names state nothing
    ("House of Commons: PRIME MINISTER / Engagements", None),
    ("Beige Book, May 1970: Federal Reserve Bank of Boston (First District)", None),
    ("conv-26 session 1: Caroline and Melanie, 1:56 pm on 8 May, 2023", None),
    ("Consumer price inflation, October 2025", None),
])
def test_a_headline_is_a_title_that_states_something(title, expected):
    assert headline(title) == expected


def test_a_title_several_documents_carry_heads_them_and_is_no_headline():
    """Every speech of a debate carries its heading; "Question for urgent oral answer / Cattle
    Theft: Keady" states nothing, and "Which minister answered…?" is not answered by it."""
    heading = "Northern Ireland Assembly: Question for urgent oral answer / Cattle Theft: Keady"
    assert headline(heading) is not None  # alone, it reads as a headline
    asked = Source(1, "ni.6.2", "2009-10-13", heading, "David McClarty",
                   "To ask the Minister of Agriculture and Rural Development what action she has taken "
                   "over the theft of cattle at Keady.")
    answered = Source(2, "ni.6.3", "2009-10-13", heading, "Michelle Gildernew",
                      "The question is about the theft of 16 cattle infected by tuberculosis at Keady.",
                      role="The Minister of Agriculture and Rural Development")
    question = "Which minister answered the urgent question about the theft of cattle at Keady?"
    ranked = rank(question, [asked, answered], embedder=HashEmbedder(384))
    assert all(c.position != HEADLINE for c in ranked)
    assert all(c.sentence != heading for c in extract(question, ranked))
    # one story's own headline is still its headline
    story = replace(asked, title="Minister answers urgent question on stolen cattle at Keady")
    assert any(c.position == HEADLINE for c in rank(question, [story, answered], embedder=HashEmbedder(384)))


@pytest.mark.parametrize("titles, newest_first", [
    (("Monkeypox cases climb across the country", "Monkeypox spreads to more states as cases rise"),
     True),
    (("conv-1 session 2: Ann and Bo", "conv-1 session 9: Ann and Bo"), False),
])
def test_news_asked_about_in_the_present_leans_to_the_later_report(titles, newest_first):
    """Two equally good sentences: the later news report supersedes the earlier one; a later
    turn of a conversation does not supersede what was said before."""
    sources = [
        Source(1, "old", "2022-05-18", titles[0], "", "Monkeypox cases were highest in Texas.",
               score=0.9),
        Source(2, "new", "2022-08-05", titles[1], "",
               "Monkeypox cases were highest in California.", score=0.9),
    ]
    q = "Which state has the most confirmed cases of monkeypox?"
    ranked = rank(q, sources, mode="hybrid", embedder=HashEmbedder())
    first = next(c for c in ranked if c.position != HEADLINE)
    assert (first.source.doc_id == "new") is newest_first
    # the same question about the past has no lean: the retrieval order stands
    past = rank("Which state had the most confirmed cases of monkeypox?", sources, mode="hybrid",
                embedder=HashEmbedder())
    assert next(c for c in past if c.position != HEADLINE).source.doc_id == "old"


@pytest.mark.parametrize("titles, fresh_first", [
    (("LeBron James signs his contract extension", "LeBron James buys into a new league"), True),
    (("conv-1 session 2: Ann and Bo", "conv-1 session 9: Ann and Bo"), False),
])
def test_news_asked_about_with_no_time_leans_to_the_days_before_it_is_asked(titles, fresh_first):
    """Asked in the past tense, with no time named, on 30 September: the report of that week
    is the news meant, over an equally good one from August; a conversation has no such lean."""
    sources = [
        Source(1, "aug", "2022-08-18", titles[0], "",
               "LeBron James agreed a deal in the basketball league.", score=0.9),
        Source(2, "sep", "2022-09-29", titles[1], "",
               "LeBron James agreed a deal in the pickleball league.", score=0.8),
    ]
    q = "Which league did LeBron James agree a deal in?"

    def first(mode="hybrid", **kw):
        ranked = rank(q, sources, mode=mode, **kw)
        return next(c for c in ranked if c.position != HEADLINE).source.doc_id

    assert first() == "aug"  # without the day asked, the retrieval order stands
    assert (first(as_of="2022-09-30") == "sep") is fresh_first
    # a point-in-time question has its period already: no lean
    assert first("hard_filter", as_of="2022-09-30") == "aug"


def test_a_period_whose_sources_do_not_speak_of_the_subject_is_left_out():
    """Over the oldest sources retrieval had, about a trip to NATO, the older block would quote
    something that is no answer to how the climate targets changed."""
    sources = [
        Source(1, "nato", "1997-01-28", "NATO", "Carl Levin",
               "I recently returned from a trip to NATO headquarters in Stuttgart.",
               group="older", score=0.9),
        Source(2, "ccc", "2019-06-24", "Climate Change Act", "Chris Skidmore",
               "The order amends the climate target from an 80 per cent reduction to net zero "
               "by 2050.", group="newer", score=0.8),
    ]
    q = "How has the discussion on climate change targets evolved?"
    picks = extract(q, rank(q, sources, mode="evolution"), mode="evolution",
                    groups=["older", "newer"])
    assert [p.source.doc_id for p in picks] == ["ccc"]


def test_a_period_whose_best_line_misses_the_names_the_others_speak_of_is_left_out():
    """"UK" and "position" are in the question and in a line on climate action: over the
    older sources, it would be quoted as the UK's position on Israel and Gaza."""
    sources = [
        Source(1, "ccc", "2023-06-28", "Progress report", "",
               "The UK has lost its clear global leadership position on climate action.",
               group="older", score=0.9),
        Source(2, "fco", "2025-11-20", "Middle East", "Hamish Falconer",
               "Our position is that Israel must allow aid to flow into Gaza at scale.",
               group="newer", score=0.8),
    ]
    q = "How did the UK position on Israel and Gaza evolve from 2023 to 2025?"
    picks = extract(q, rank(q, sources, mode="evolution", embedder=HashEmbedder()),
                    mode="evolution", groups=["older", "newer"])
    assert [p.source.doc_id for p in picks] == ["fco"]
    # a period whose line names them stays
    sources[0] = replace(sources[0], passage="The UK position on Israel is that it has the "
                         "right to defend itself.")
    picks = extract(q, rank(q, sources, mode="evolution", embedder=HashEmbedder()),
                    mode="evolution", groups=["older", "newer"])
    assert [p.source.doc_id for p in picks] == ["ccc", "fco"]


def test_the_period_floor_needs_a_best_line_worth_something():
    """When every line scores below zero there is no good line to measure the others by, and
    every period keeps its quote."""
    older = Source(1, "a", "2020-01-01", "t", "", "x", group="older")
    newer = Source(2, "b", "2024-01-01", "t", "", "y", group="newer")
    ranked = [Candidate(newer, "The newer line.", -0.1, 0), Candidate(older, "The older line.", -0.5, 0)]
    picks = extract("How has it changed?", ranked, mode="evolution", groups=["older", "newer"])
    assert [p.source.doc_id for p in picks] == ["a", "b"]
    ranked = [Candidate(newer, "The newer line.", 1.0, 0), Candidate(older, "The older line.", 0.4, 0)]
    picks = extract("How has it changed?", ranked, mode="evolution", groups=["older", "newer"])
    assert [p.source.doc_id for p in picks] == ["b"]


def test_a_pronoun_answering_who_brings_the_sentence_that_says_who():
    # "Tuesday night, he picked up his first Hart Trophy" scores best for "Who won the Hart
    # Trophy?", but only the sentence before it says who "he" is.
    src = Source(1, "a", "2022-06-21", "NHL awards", "",
                 "Toronto Maple Leafs forward Auston Matthews took a major leap this season. "
                 "Tuesday night, he picked up his first Hart Trophy as the league MVP. "
                 "Igor Shesterkin won the Vezina Trophy.", score=0.9)
    lines = ["Toronto Maple Leafs forward Auston Matthews took a major leap this season.",
             "Tuesday night, he picked up his first Hart Trophy as the league MVP.",
             "Igor Shesterkin won the Vezina Trophy."]
    ranked = [Candidate(src, lines[1], 1.4, 1), Candidate(src, lines[2], 1.0, 2),
              Candidate(src, lines[0], 0.6, 0)]
    q = "Who won the NHL's Hart Trophy?"
    answer = quoted_answer(q, extract(q, ranked, kind="person"), kind="person")
    assert "Auston Matthews took a major leap this season. Tuesday night, he picked up" in answer
    # a sentence that names its subject, or a question not asking who, is quoted as it is
    q2 = "What did he pick up on Tuesday night?"
    assert "Auston Matthews" not in quoted_answer(q2, extract(q2, ranked, kind=None), kind=None)
    named = [replace(ranked[0], sentence="On Tuesday Matthews picked up his first Hart Trophy.")] \
        + ranked[1:]
    assert "took a major leap" not in quoted_answer(q, extract(q, named, kind="person"),
                                                    kind="person")


def test_a_year_asked_for_is_given_by_a_year_not_by_the_day_it_was_said():
    q = ("Ukrainians this week celebrated Independence Day, which marks the date the country "
         "split from the Soviet Union in which year?")
    said = [
        Source(1, "d1", "2022-08-23", "Ukraine marks Independence Day", "",
               "Ukraine's Independence Day, which on Wednesday marked the 31st anniversary of "
               "when the country voted to break with the Soviet Union, was a somber affair.",
               score=0.9),
        Source(2, "d2", "2022-08-24", "Independence Day in wartime", "",
               "Parades were cancelled in Kyiv this year. Celebrating the day it declared "
               "independence from the Soviet Union, Aug. 24, 1991, has been a way for Ukraine "
               "to push away from its past.", score=0.8),
    ]
    ranked = rank(q, said, mode="hard_filter", embedder=HashEmbedder())
    picks = extract(q, ranked, mode="hard_filter")
    assert any("1991" in c.sentence for c in picks)
    # "Thirty-one years ago" gives the year too; a day with no year does not, though it
    # answers "when?"
    assert gives("date", "Thirty-one years ago it declared independence.", q, "2022-08-24")
    for day in ("Yesterday it marked the anniversary.", "A nation emerged on February 24."):
        assert not gives("date", day, q, "2022-08-24")
        assert gives("date", day, "When did it happen?", "2022-08-24")


def test_a_blank_after_since_is_filled_by_a_year():
    q = "The Fed raised its key rate by 0.75 points. This was the highest hike since:"
    assert gives("date", "It was the Fed's largest hike since 1994.", q, "2022-06-16")
    assert not gives("date", "The Fed raised its rate by a quarter point Wednesday.", q,
                     "2022-06-16")


def test_a_generated_answer_agrees_with_the_quote_on_what_was_asked():
    who = "Which tennis star pulled out of Wimbledon ahead of the semi-finals due to injury?"
    quote = "cnn.com [2] (7 July 2022): “Rafael Nadal has withdrawn from Wimbledon due to an injury.”"
    assert agrees("person", "Rafael Nadal withdrew from Wimbledon with an abdominal injury.",
                  quote, who)
    assert not agrees("person", "Serena Williams returns to grand slam action at Wimbledon.",
                      quote, who)
    many = ("Serena Williams announced she will likely be retiring after the U.S. Open. How many "
            "grand slams has she won?")
    quote = "cnn.com [1] (9 August 2022): “She has won 23 grand slam singles titles.”"
    assert agrees("number", "Williams has won 23 grand slam titles.", quote, many)
    assert not agrees("number", "Serena Williams, 40, announced she will likely retire.", quote,
                      many)
    when = "When did the rocket launch?"
    quote = "cnn.com [1] (16 November 2022): “Artemis I lifted off on 16 November 2022.”"
    assert agrees("date", "Artemis I launched on November 16, 2022.", quote, when)
    assert not agrees("date", "Artemis I launched on 29 August 2022.", quote, when)
    # open questions have no one answer to agree on, and nothing quoted has none to disagree
    assert agrees(None, "Anything the sources say.", quote, "What is the Artemis programme?")
    assert agrees("date", "Artemis I launched on 29 August 2022.", "", when)


def test_a_generated_answer_to_where_must_name_the_quoted_place():
    where = ("NASA made history this week after successfully completing its first launch from a "
             "commercial spaceport outside the US. Where did the launch occur?")
    assert answer_type(where) is None and gate_kind(where, None) == "place"
    assert gate_kind("Which country confirmed its first cases?", None) == "place"
    assert gate_kind("Which team won the Stanley Cup?", None) is None
    assert gate_kind("Who is the Prime Minister?", "person") == "person"
    quote = ("cnn.com [2] (27 June 2022): “NASA has successfully launched a rocket from "
             "Australia’s remote Northern Territory.”")
    # supported by its source, but it names no place the question does not
    said = "The NASA launch was a historic achievement for the agency's first commercial spaceport."
    assert not gives("place", said, where)
    assert gives("place", "NASA launched the rocket from Australia.", where)
    assert agrees("place", "NASA launched the rocket from Australia.", quote, where)
    assert not agrees("place", "NASA launched the rocket from Florida.", quote, where)


def test_a_figure_dated_to_another_time_than_asked_is_flagged():
    import datetime as dt
    q = "How many small boat arrivals were there in 2022?"
    start, end = dt.date(2022, 1, 1), dt.date(2022, 12, 31)

    def picks(text: str) -> list[Candidate]:
        said = [Source(1, "d1", "2022-04-19", "Migration", "Priti Patel", text, score=0.9)]
        return extract(q, rank(q, said, mode="hard_filter", embedder=HashEmbedder()),
                       mode="hard_filter", kind="number")

    assert figure_elsewhen(picks("Last year more than 28,000 people crossed the channel in "
                                 "small boats."), "number", start, end)
    # a figure of the year asked, or a time that dates something else, is not flagged
    assert not figure_elsewhen(picks("This year 4,000 people have crossed the channel in small "
                                     "boats."), "number", start, end)
    assert not figure_elsewhen(picks("There were 7,000 small boat arrivals, and the numbers "
                                     "will rise again next month."), "number", start, end)
    assert not figure_elsewhen(picks("Last year more than 28,000 people crossed the channel."),
                               "number", None, None)


def test_a_figure_of_no_time_under_another_periods_title_is_flagged():
    # October 2025's "CPI inflation falls to 3.6 per cent" is no answer for August 2023
    q = "What was CPI inflation in August 2023?"

    def picks(title: str, day: str = "2025-11-19",
              line: str = "CPI inflation falls to 3.6 per cent.") -> list[Candidate]:
        said = [Source(1, "d1", day, title, "", line, score=0.9)]
        return extract(q, rank(q, said, mode="hard_filter", embedder=HashEmbedder()),
                       mode="hard_filter", kind="number")

    august = dt.date(2023, 8, 1), dt.date(2023, 8, 31)
    assert figure_elsewhen(picks("Consumer price inflation, October 2025"), "number", *august)
    # a title of the period asked, or a source published in it: not flagged
    assert not figure_elsewhen(picks("Consumer price inflation, August 2023"), "number", *august)
    # a title of no period: the line is of the day it was said, two years on, but a release
    # soon after the period may be its own
    assert figure_elsewhen(picks("Consumer price inflation"), "number", *august)
    assert not figure_elsewhen(picks("Consumer price inflation", "2023-09-20"), "number", *august)
    assert not figure_elsewhen(picks("Consumer price inflation, July 2023", "2023-08-16"),
                               "number", *august)
    # nor a title naming the month the release came out in: it names the release, not the
    # months it speaks of ("Labour market statistics, October 2011" gives June to August's)
    summer = dt.date(2011, 6, 1), dt.date(2011, 8, 31)
    assert not figure_elsewhen(picks("Labour market statistics, October 2011", "2011-10-12",
                                     "There were 2.57 million unemployed people."),
                               "number", *summer)


def test_a_figure_set_for_the_period_asked_is_not_flagged_by_the_day_it_was_announced():
    q = "By how much was the NHS England budget to be higher in 2023-24?"
    start, end = dt.date(2023, 1, 1), dt.date(2024, 12, 31)
    said = [Source(1, "d1", "2018-06-18", "NHS Funding", "Jeremy Hunt",
                   "Yesterday the Prime Minister announced that the NHS England budget will "
                   "increase by £20.5 billion a year in real terms by 2023-24.", score=0.9)]
    picks = extract(q, rank(q, said, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter", kind="number")
    assert not figure_elsewhen(picks, "number", start, end)
    # the same announcement with no period of its own is flagged
    said = [Source(1, "d1", "2018-06-18", "NHS Funding", "Jeremy Hunt",
                   "Yesterday the Prime Minister announced that the NHS England budget will "
                   "increase by £20.5 billion a year in real terms.", score=0.9)]
    picks = extract(q, rank(q, said, mode="hard_filter", embedder=HashEmbedder()),
                    mode="hard_filter", kind="number")
    assert figure_elsewhen(picks, "number", start, end)


def test_a_figure_stated_next_to_the_period_asked_about_is_that_period_s():
    # both sentences speak of 2023; only the later report states a figure for it
    q = "How many people crossed the Channel in small boats in 2023?"
    year = (dt.date(2023, 1, 1), dt.date(2023, 12, 31))
    sources = [
        Source(1, "nov", "2023-11-23", "Net migration", "",
               "Around 45,700 people crossed the channel in small boats in 2022; crossings in 2023 "
               "are running about a third lower.", score=0.9),
        Source(2, "may", "2025-05-22", "Net migration", "",
               "Home Office figures show that 36,816 people crossed the English Channel in small "
               "boats in 2024, up from 29,437 in 2023 but below the record of 45,774 in 2022.",
               score=0.8),
    ]
    ranked = rank(q, sources, mode="hard_filter", embedder=HashEmbedder(), period=year)
    assert ranked[0].source.doc_id == "may"


def test_a_comparison_period_is_answered_only_by_a_line_of_that_period():
    """A source published at another time is in a period's block because it speaks of the
    period somewhere; its line is quoted for the period only when the line itself does."""
    y2012 = (dt.date(2012, 1, 1), dt.date(2012, 12, 31))
    y2024 = (dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    sources = [
        Source(1, "a", "2010-03-24", "Debate", "Gordon Brown",
               "Unemployment, at 7.8 per cent, is far lower than was forecast a year ago.",
               group="2012"),
        Source(2, "b", "2024-08-01", "Summary", "",
               "The unemployment rate was 4.4 per cent in the three months to May.", group="2024"),
        Source(3, "c", "2025-11-11", "Overview", "",
               "Unemployment was 5.0 per cent in 2024 as a whole, the release says.", group="2024"),
        Source(4, "d", "2013-02-01", "Review", "",
               "Unemployment averaged 8.0 per cent in 2012, the statistics show.", group="2012"),
    ]
    ranked = rank("unemployment", sources, mode="comparison")
    spans = {"2012": y2012, "2024": y2024}
    picks = extract("unemployment", ranked, mode="comparison", groups=["2012", "2024"],
                    spans=spans)
    assert [c.source.number for c in picks] == [4, 2]
    # without the line that speaks of 2012, the period has nothing to quote
    ranked = rank("unemployment", sources[:3], mode="comparison")
    picks = extract("unemployment", ranked, mode="comparison", groups=["2012", "2024"],
                    spans=spans)
    assert [c.source.number for c in picks] == [2]


def test_the_subject_a_comparison_names_may_be_who_speaks():
    """"Loan demand in Chicago: 1988 versus 2009": the Chicago Fed's 2009 report speaks of "the
    District", never "Chicago"; its lines are still Chicago's, and the period is answered."""
    sources = [
        Source(1, "a", "1988-05-04", "Beige Book, May 1988", "Federal Reserve Bank of Chicago",
               "Interest rates on loans are edging up in the Chicago area.", group="1988"),
        Source(2, "b", "2009-09-09", "Beige Book, September 2009", "Federal Reserve Bank of Chicago",
               "Demand for auto loans in the District increased with the rise in sales.", group="2009"),
    ]
    q = "Loan demand in Chicago: 1988 versus 2009"
    ranked = rank(q, sources, mode="comparison")
    picks = extract(q, ranked, mode="comparison", groups=["1988", "2009"])
    assert [c.source.number for c in picks] == [1, 2]


def test_the_subject_a_comparison_names_may_be_in_the_title_of_the_report():
    """"Wages according to the Tenth District: April 2009 compared with September 2015": the
    September report's line writes "Tenth District", April's does not, but April's report is
    titled the Tenth District's: its wage line is the district's, and April is answered."""
    title = "Beige Book, {}: Federal Reserve Bank of Kansas City (Tenth District)"
    sources = [
        Source(1, "a", "2009-04-15", title.format("April 2009"), "Federal Reserve Bank of Kansas City",
               "Only a small number of firms reported labor shortages, resulting in minimal wage "
               "pressures.", group="April 2009"),
        Source(2, "b", "2015-09-02", title.format("September 2015"),
               "Federal Reserve Bank of Kansas City",
               "Prices across industries in the Tenth District were mixed while wage growth "
               "slowed in many sectors.", group="September 2015"),
    ]
    q = "Wages according to the Tenth District: April 2009 compared with September 2015"
    ranked = rank(q, sources, mode="comparison")
    picks = extract(q, ranked, mode="comparison", groups=["April 2009", "September 2015"])
    assert [c.source.number for c in picks] == [1, 2]
    # a report whose title does not name the district either is left out, as before
    sources[0] = replace(sources[0], title="Beige Book, April 2009")
    ranked = rank(q, sources, mode="comparison")
    picks = extract(q, ranked, mode="comparison", groups=["April 2009", "September 2015"])
    assert [c.source.number for c in picks] == [2]


def test_a_period_line_on_the_topic_comes_before_a_figure_on_something_else():
    """"Wages" asks for a figure, and July 2008's report gives one only on crops ("lagged … by
    2 to 3 weeks"): its line on wages is quoted all the same. "Chicago" is in every source's
    speaker, so a line naming the Chicago area is not on the topic for that."""
    title = "Beige Book, {}: Federal Reserve Bank of Chicago (Seventh District)"
    speaker = "Federal Reserve Bank of Chicago"
    sources = [
        Source(1, "a", "1973-09-12", title.format("September 1973"), speaker,
               "Some home furnace maintenance fees in the Chicago area jumped 55 percent in the "
               "summer. Wage settlements ran at about 7 percent a year.", group="September 1973"),
        Source(2, "b", "2008-07-23", title.format("July 2008"), speaker,
               "Although crop development lagged that of a year ago by 2 to 3 weeks, conditions "
               "improved. Wage pressures remained limited outside skilled labor positions.",
               group="July 2008"),
    ]
    q = "Compare the Chicago Reserve Bank's view of wages in September 1973 and in July 2008"
    ranked = rank(q, sources, mode="comparison")
    picks = extract(q, ranked, mode="comparison", groups=["September 1973", "July 2008"])
    assert [c.sentence.split()[0] for c in picks] == ["Wage", "Wage"]


def test_a_period_with_no_line_of_its_own_is_answered_by_a_line_that_speaks_of_it():
    """Retrieval answers a passage for one compared period only: February's release is
    February's, though it also states January's figure. January's block, holding only a
    release whose twelve months merely include January, quotes February's line on January
    under January's label, and not the other release's May figure."""
    jan, feb = (dt.date(2024, 1, 1), dt.date(2024, 1, 31)), (dt.date(2024, 2, 1), dt.date(2024, 2, 29))
    sources = [
        Source(1, "may", "2024-06-19", "Consumer price inflation, May 2024", "",
               "The CPI rose by 2.0 per cent in the 12 months to May 2024.", group="January 2024"),
        Source(2, "feb", "2024-03-20", "Consumer price inflation, February 2024", "",
               "The CPI rose by 3.4 per cent in the 12 months to February 2024, down from 4.0 "
               "per cent in January.", group="February 2024"),
    ]
    q = "How did CPI inflation in February 2024 compare with January 2024?"
    ranked = rank(q, sources, mode="comparison")
    picks = extract(q, ranked, mode="comparison", groups=["January 2024", "February 2024"],
                    spans={"January 2024": jan, "February 2024": feb}, kind="number")
    assert [(c.source.number, c.source.group) for c in picks] == [
        (2, "January 2024"), (2, "February 2024")]
    text = quoted_answer(q, picks, kind="number",
                         labels={"January 2024": "January 2024", "February 2024": "February 2024"})
    # one line speaking of both periods, quoted once under both labels
    assert text.startswith("January 2024 and February 2024: ") and len(text.splitlines()) == 1
    assert "4.0 per cent in January" in text and "2.0 per cent" not in text


def test_each_period_is_answered_by_its_best_line_that_gives_what_was_asked():
    """A figure asked for over time: a period's best line without one ("Inflation rose sharply
    as energy prices climbed") gives way to its best line with the rate in it."""
    old = Source(1, "a", "2022-10-19", "CPI", "", "x", group="2022", score=0.9)
    new = Source(2, "b", "2024-05-22", "CPI", "", "x", group="2024", score=0.8)
    ranked = [
        Candidate(old, "Inflation rose sharply this year as energy prices climbed.", 1.0, 0),
        Candidate(new, "CPI inflation was 2.0 per cent in the 12 months to May 2024.", 0.9, 0),
        Candidate(old, "CPI inflation reached 11.1 per cent in the 12 months to October.", 0.6, 1),
    ]
    q = "How has inflation developed since 2021?"
    picks = extract(q, ranked, mode="evolution", groups=["2022", "2024"])
    assert [p.sentence.split()[3] for p in picks] == ["11.1", "2.0"]


def test_each_compared_period_is_ranked_against_its_own_period():
    """The temporal contract: a line that speaks of exactly the asked period ranks above one
    merely published in it, and in a comparison the asked period is each block's own, not the
    span from the first to the last ("the year ending June 2023 and 2024" spans two years and a
    half, of which neither line speaks)."""
    q = parse("Compare unemployment in 2012 and 2024", dt.date(2025, 11, 22))
    assert q.time == "about" and len(q.periods) == 2
    sources = [
        Source(1, "d", "2013-02-01", "Review", "",
               "Unemployment averaged 8.0 per cent in 2012, the statistics show.", group="2012",
               score=0.5),
        Source(2, "b", "2024-03-01", "Summary", "",
               "Unemployment was 3.9 per cent in 2023, the release says.", group="2024",
               score=0.9),
        Source(3, "c", "2025-11-11", "Overview", "",
               "Unemployment was 4.1 per cent in 2024, the release says.", group="2024",
               score=0.5),
    ]
    ranked = rank_query(q, "comparison", sources, embedder=HashEmbedder())
    fit = FEATURES.index("period_fit")
    assert {c.source.doc_id: c.features[fit] for c in ranked} == {"d": 1.0, "b": 0.0, "c": 1.0}
    picks = choose(q, "comparison", ranked, sources, [], kind="number").picks
    assert [c.source.doc_id for c in picks] == ["d", "c"]
    # judged against the whole span, no line speaks of the period asked
    whole = rank("Unemployment", sources, mode="comparison", embedder=HashEmbedder(),
                 period=(q.start, q.end))
    assert {c.features[fit] for c in whole} == {0.0}


def test_a_comparison_with_the_present_ranks_its_open_period_against_the_whole_span():
    # "compared to a year ago" sets 2021 against the present, a period with no start
    q = parse("Rents in the US recently hit a record high. Which of the following US cities saw "
              "the biggest increase compared to a year ago?", dt.date(2022, 8, 25))
    assert q.intent == "comparison" and q.time == "about"
    now = next((a, b) for a, b in q.periods if a is None)
    sources = [Source(1, "a", "2022-08-20", "Rents", "", "Rents in Miami rose 40 per cent on a "
                      "year earlier.", group=period_label(*now), score=0.5)]
    ranked = rank_query(q, "comparison", sources, embedder=HashEmbedder())
    assert ranked and ranked[0].source.doc_id == "a"


def test_times_named_inside_the_period_speak_of_the_stretch_they_span():
    # each month is a sliver of the year asked about; together they span it
    q = "How many times was Bank Rate cut between August 2024 and August 2025?"
    span = (dt.date(2024, 8, 1), dt.date(2025, 8, 31))
    summary = Source(1, "s", "2025-11-06", "Monetary Policy Summary, November 2025", "",
                     "Since then the Committee has reduced it five times, in August 2024, "
                     "November 2024, February 2025, May 2025 and August 2025. Bank Rate peaked "
                     "in August 2023.", score=0.5)
    fit = FEATURES.index("period_fit")
    rows = {c.sentence[:5]: c for c in rank(q, [summary], mode="hard_filter",
                                             embedder=HashEmbedder(), period=span)}
    assert rows["Since"].features[fit] == 1.0
    # one month inside the year is still no more than itself
    may = rank(q, [replace(summary, passage="It was cut in May 2025.")], mode="hard_filter",
               embedder=HashEmbedder(), period=span)
    assert may[0].features[fit] == 0.0
    # and a count of times is not a share: "cut to 5 per cent" gives no count
    assert stated_figures("Bank Rate cut to 5 per cent, the first reduction since 2020", q) \
        == (0, 0)
    assert stated_figures("It was reduced five times.", q) == (1, 0)


def test_a_figure_for_a_window_ending_later_is_another_times():
    # June's annual rate is June's figure, though its twelve months hold March; the year's
    # window still fits a question about that year ending June
    q = "What was the inflation rate in March 2022?"
    june = Source(1, "june", "2022-07-20", "Statement", "Simon Clarke",
                  "CPI inflation rose to 9.4 per cent in the 12 months to June 2022.", score=0.9)
    other = FEATURES.index("other_time"), FEATURES.index("period_fit")
    march = (dt.date(2022, 3, 1), dt.date(2022, 3, 31))
    row = rank(q, [june], mode="hard_filter", embedder=HashEmbedder(), period=march)[0]
    assert (row.features[other[0]], row.features[other[1]]) == (1.0, 0.0)
    year = (dt.date(2021, 7, 1), dt.date(2022, 6, 30))
    row = rank(q, [june], mode="hard_filter", embedder=HashEmbedder(), period=year)[0]
    assert (row.features[other[0]], row.features[other[1]]) == (0.0, 1.0)


def test_a_line_naming_only_the_time_its_figure_is_measured_against_is_its_reports():
    # October's release: "Core CPI … rose by 6.5 per cent, unchanged from September" states
    # October's core rate; September is only what it is measured against
    october = (dt.date(2022, 10, 1), dt.date(2022, 10, 31))
    release = Source(1, "r", "2022-11-16", "Consumer price inflation, October 2022", "",
                     "Core CPI, excluding energy, food, alcohol and tobacco, rose by 6.5 per cent, "
                     "unchanged from September. CPI rose by 11.1 per cent in the 12 months to "
                     "October 2022, up from 10.1 per cent in September.", score=0.9)
    other, fit = FEATURES.index("other_time"), FEATURES.index("period_fit")
    rows = {c.sentence[:4]: c for c in rank("What was core CPI inflation in October 2022?",
                                             [release], mode="hard_filter",
                                             embedder=HashEmbedder(), period=october)}
    assert (rows["Core"].features[fit], rows["Core"].features[other]) == (1.0, 0.0)
    assert of_period(rows["Core"], october)
    # a line naming its own time keeps to it: the 11.1 per cent is October's by its words
    assert rows["CPI "].features[fit] == 1.0
    september = (dt.date(2022, 9, 1), dt.date(2022, 9, 30))
    line = rank("What was core CPI inflation in September 2022?", [release], mode="hard_filter",
                embedder=HashEmbedder(), period=september)
    assert {c.sentence[:4]: c.features[fit] for c in line} == {"Core": 1.0, "CPI ": 1.0}


def test_a_line_naming_no_time_is_of_the_period_its_title_names():
    # "Net migration halves to 431,000" under "…, year ending December 2024", published in May
    # 2025, answers for 2024 in a comparison; a line of no time under an undated title does not
    y2024 = (dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    release = Source(1, "r", "2025-05-22", "Long-term international migration, provisional, year "
                     "ending December 2024", "", "Net migration halves to 431,000.", group="2024")
    speech = Source(2, "s", "2025-05-12", "Immigration White Paper", "Chris Philp",
                    "Labour voted against our measures on net migration.", group="2024")
    ranked = rank("net migration", [release, speech], mode="comparison")
    line = {c.source.doc_id: c for c in ranked if c.position != HEADLINE}
    assert of_period(line["r"], y2024) and not of_period(line["s"], y2024)
    # a title naming a longer stretch ("Spending Review 2025") is not the quarter's
    review = Source(3, "v", "2025-06-11", "House of Commons: Spending Review 2025", "Mel Stride",
                    "Unemployment is now rising.", group="2025")
    c = next(c for c in rank("unemployment", [review], mode="comparison")
             if c.position != HEADLINE)
    assert not of_period(c, (dt.date(2025, 7, 1), dt.date(2025, 9, 30)))
    assert of_period(c, (dt.date(2025, 1, 1), dt.date(2025, 12, 31)))


def test_an_open_question_about_a_period_answered_only_by_another_times_lines_is_flagged():
    # no source speaks of August 2023: June 2024's release gives services inflation for May
    q = parse("What was services inflation in August 2023?", dt.date(2025, 12, 31))
    assert q.intent == "point_in_time" and answer_type(q.question) is None
    june = Source(1, "june", "2024-06-19", "Consumer price inflation, May 2024", "",
                  "Services inflation was 5.7 per cent, only slightly lower than in April.",
                  score=0.9)
    ranked = rank_query(q, "hard_filter", [june], embedder=HashEmbedder())
    shown = choose(q, "hard_filter", ranked, [june], [], kind=None).shown
    assert shown.startswith("No source found speaks of August 2023 itself; the closest they "
                            "come:\n")
    # a line on the subject that speaks of the period itself: the note would not be true
    august = replace(june, number=2, doc_id="aug", date="2023-09-20",
                     title="Consumer price inflation, August 2023",
                     passage="Services inflation was 6.8 per cent in August 2023.", score=0.5)
    ranked = rank_query(q, "hard_filter", [june, august], embedder=HashEmbedder())
    assert not choose(q, "hard_filter", ranked, [june, august], [], kind=None).shown.startswith(
        "No source found")
    # nor is a line said in the period flagged, whatever it names
    said = replace(june, date="2023-08-16", title="Statement", score=0.9)
    ranked = rank_query(q, "hard_filter", [said], embedder=HashEmbedder())
    assert not choose(q, "hard_filter", ranked, [said], [], kind=None).shown.startswith(
        "No source found")


def quoted_for(q: str, sources: list[Source], period: tuple[dt.date, dt.date],
               kind: str | None) -> list[Candidate]:
    """The sentences quoted for a question about `period` from `sources`."""
    return extract(q, rank(q, sources, mode="hard_filter", embedder=HashEmbedder(),
                           period=period), mode="hard_filter", kind=kind)


def test_a_figure_of_no_time_said_after_the_period_is_flagged():
    # November 2025's "Bank Rate held at 4 per cent" is November's rate, not August 2023's
    q = "What was Bank Rate in August 2023?"
    august = dt.date(2023, 8, 1), dt.date(2023, 8, 31)
    held = Source(1, "nov", "2025-11-06", "Bank Rate decision", "",
                  "Bank Rate held at 4 per cent.", score=0.9)
    picks = quoted_for(q, [held], august, "number")
    assert figure_elsewhen(picks, "number", *august)
    # said in the period, it is the period's
    held = replace(held, date="2023-08-03")
    picks = quoted_for(q, [held], august, "number")
    assert not figure_elsewhen(picks, "number", *august)


def test_a_figure_stated_next_to_another_period_is_that_period_s():
    q = "What was core inflation in January 2025?"
    january = dt.date(2025, 1, 1), dt.date(2025, 1, 31)

    def picks(line: str, title: str = "Consumer price inflation, September 2025"
              ) -> list[Candidate]:
        said = [Source(1, "d1", "2025-10-22", title, "", line, score=0.9)]
        return quoted_for(q, said, january, None)

    assert figure_elsewhen(picks("In brief: CPI 3.8 per cent (September 2025), core 3.5 per "
                                 "cent."), None, *january)
    # a figure next to the period asked is its own; a baseline's or a window's figure does not
    # date the sentence's level
    assert not figure_elsewhen(picks("Core inflation was 3.2 per cent in January 2025, and 3.5 "
                                     "per cent in September 2025."), None, *january)
    october = dt.date(2022, 10, 1), dt.date(2022, 10, 31)
    said = [Source(1, "d1", "2022-11-16", "Consumer price inflation, October 2022", "",
                   "Core CPI rose by 6.5 per cent, unchanged from September.", score=0.9)]
    line = quoted_for(q, said, october, None)
    assert not figure_elsewhen(line, None, *october)


_FIRES = "There have been 420 fires in Spain since the start of the year, far outstripping " \
    "the 247 in the whole of 2021."
_FEDERER = "Roger Federer, who became the first man to win 20 Grand Slam titles in tennis, is " \
    "retiring from competition."


@pytest.mark.parametrize("q, period, said, line, flagged", [
    # this year's count comes first; 2021's is what it is measured against
    ("How many wildfires were there in Spain in 2022?", ("2022-01-01", "2022-12-31"),
     "2022-08-20", _FIRES, False),
    # a career count said nine days before the week asked about still held in it; said months
    # before, it is another time's
    ("Roger Federer retired this week. How many Grand Slam singles titles did he win?",
     ("2022-09-24", "2022-09-30"), "2022-09-15", _FEDERER, False),
    ("Roger Federer retired this week. How many Grand Slam singles titles did he win?",
     ("2022-09-24", "2022-09-30"), "2022-05-15", _FEDERER, True),
])
def test_which_figures_date_a_line_to_another_time(q, period, said, line, flagged):
    span = (dt.date.fromisoformat(period[0]), dt.date.fromisoformat(period[1]))
    sources = [Source(1, "d1", said, "News", "", line, score=0.9)]
    assert figure_elsewhen(quoted_for(q, sources, span, "number"), "number", *span) is flagged


def _cleveland(date: str, line: str, number: int, score: float) -> Candidate:
    source = Source(number, f"cl:{date}", date, "Beige Book: Federal Reserve Bank of Cleveland",
                    "Federal Reserve Bank of Cleveland", line, score=score)
    return Candidate(source, line, score, 3)


def test_the_latest_reports_are_quoted_from_the_newest_one_on_the_subject():
    q = parse("What do the latest reports say about auto dealer sales in the Cleveland district?",
              dt.date(2020, 6, 1))
    march = _cleveland("2020-03-04", "Auto dealers reported strong sales thanks to elevated "
                       "consumer confidence and low interest rates.", 1, 1.5)
    may = _cleveland("2020-05-27", "One auto dealer reported that the impact of COVID-19 has been "
                     "unprecedented, with total sales down 55 percent year over year.", 2, 1.37)
    off = _cleveland("2020-05-27", "Manufacturers said demand for steel was weak in the spring.",
                     3, 1.4)
    september = _cleveland("2019-09-04", "Auto dealers reported solid sales in July.", 4, 1.41)
    ranked = [march, september, off, may]
    sources = [c.source for c in ranked]
    text = choose(q, "decay", ranked, sources, [], kind=None).text
    assert text.startswith("Federal Reserve Bank of Cleveland [2]") and "55 percent" in text
    assert "strong sales" not in text and "steel" not in text
    # a newer line on none of the subject does not lead; far below the best, nor does one on it
    assert choose(q, "decay", [march, off], sources, [], kind=None).text.startswith(
        "Federal Reserve Bank of Cleveland [1]")
    low = replace(may, score=1.0)
    assert "[1]" in choose(q, "decay", [march, low], sources, [], kind=None).text.split(":")[0]
    # news leans to the fresh report in its own ranking: its order is kept
    news = [replace(c, source=replace(c.source, title=f"Autos {c.source.number} | CNN")) for c in
            (march, may)]
    headlined = [*news, Candidate(news[0].source, "Car sales slow", 1.2, HEADLINE)]
    assert choose(q, "decay", headlined, [c.source for c in news], [],
                  kind=None).picks[0].source.number == 1


def test_a_speaker_recorded_by_office_and_name_is_read_as_both():
    from trag_tui.answering.sources import labelled

    assert labelled("The Cabinet Secretary for Education and Lifelong Learning (Fiona Hyslop)",
                    "") == ("Fiona Hyslop", "Cabinet Secretary for Education and Lifelong Learning")
    # a constituency and a party, a district, or an office already recorded are left as they are
    assert labelled("Ken Macintosh (Eastwood) (Lab)", "") == ("Ken Macintosh (Eastwood) (Lab)", "")
    assert labelled("Federal Reserve Bank of Atlanta (Sixth District)", "") == (
        "Federal Reserve Bank of Atlanta (Sixth District)", "")
    assert labelled("The Minister for Health (Ann Smith)", "Minister for Health") == (
        "The Minister for Health (Ann Smith)", "Minister for Health")
    name, role = labelled("The Minister for Public Health and Sport (Shona Robison)", "")
    source = Source(1, "a", "2009-10-29", "Scottish Parliament: H1N1", name, "…", role=role)
    question = "Which minister for public health made the statement on H1N1 on 29 October 2009?"
    assert speaks_as_asked(office_words(question), source) and not names_speaker(question, source)


def test_an_older_source_is_no_second_answer_to_a_current_question():
    q = "What is the latest on the baby formula shortage?"
    line = "Many stores still have empty shelves where baby formula was once plentiful."
    best = Candidate(Source(1, "a", "2022-07-21", "Formula", "", line, score=0.9), line, 1.0, 0)
    said = "Baby formula shortages have left parents searching several stores for supplies."
    for date, mode, joins in [("2022-06-28", "decay", False), ("2022-06-28", "hybrid", True),
                              ("2022-07-21", "decay", True)]:
        two = Source(2, "b", date, "Formula", "", said, score=0.8)
        picks = extract(q, [best, Candidate(two, said, 0.95, 0)], mode=mode)
        assert (two in [c.source for c in picks]) is joins, (date, mode)


def test_a_question_gives_no_answer_of_any_kind():
    q = "When are resurfacing works on the Kessock Bridge planned to start?"
    asked = ("To ask the Scottish Executive whether it plans to resurface the Kessock Bridge "
             "before 2012 and, if so, when the work will start.")
    reply = "Resurfacing works are planned to start in March 2011 at the earliest."
    assert not gives("date", asked, q) and gives("date", reply, q)
    assert not gives("person", "Will Liz Truss be the next prime minister?", "Who will lead?")
    assert gives(None, asked, q)  # an open question's excerpt may still quote it
    question = Candidate(Source(1, "q", "2009-10-30", "Kessock Bridge", "David Stewart", asked),
                         asked, 1.0, 0)
    answer = Candidate(Source(2, "r", "2009-10-30", "Kessock Bridge", "Stewart Stevenson", reply),
                       reply, 0.9, 0)
    picks = extract(q, [question, answer], mode="hard_filter")
    assert answer in picks


def test_an_office_holders_other_turns_of_the_day_speak_in_the_office():
    # a reply's later turns seldom carry the office again: they are the office holder's too
    q = "How many times had police used Tasers up to March 2009, according to the policing minister?"
    sources = [
        Source(1, "a", "2009-10-26", "Oral Answers / Tasers", "David Hanson",
               "The police use of Taser has shown that it provides an effective option for police.",
               score=0.9, role="The Minister for Policing, Crime and Counter-Terrorism"),
        Source(2, "b", "2009-10-26", "Oral Answers / Tasers", "Norman Baker",
               "Tasers have been implicated in the deaths of more than 300 people in the United "
               "States.", score=0.8),
        Source(3, "c", "2009-10-26", "Oral Answers / Tasers", "David Hanson",
               "The hon. Gentleman will know that Tasers have been used 4,818 times up to March "
               "2009.", score=0.7),
        Source(4, "d", "2009-10-27", "Oral Answers / Policing", "David Hanson",
               "Police numbers have risen to 142,000 officers.", score=0.6),
    ]
    sources = _same_day_office(sources)  # as `numbered` gives them
    assert [bool(s.role) for s in sources] == [True, False, True, False]
    theirs = FEATURES.index("theirs")
    ranked = rank(q, sources, mode="hard_filter", embedder=HashEmbedder())
    speaks = {c.source.doc_id: c.features[theirs] for c in ranked}
    assert speaks == {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0}  # not his turn of another day
    picks = extract(q, ranked, mode="hard_filter")
    assert "4,818" in quoted_answer(q, picks, kind="number")
    # the quote reads the office as the ranking does: the later turn names its holder
    who = "Who was the policing minister on 26 October 2009?"
    assert holder(next(c for c in ranked if c.source.doc_id == "c"), who) == "David Hanson"


def test_a_figure_stated_right_after_words_of_what_is_asked_is_its_figure():
    assert figure_words("Annual growth in regular pay, excluding bonuses, slowed to 4.6 per cent.") \
        == ["gular pay, excluding bonuses, slowed to  … "]
    # not back past a colon, nor on past the clause's end
    assert figure_words("what we inherited: the last Government spent £700 million on Rwanda") \
        == [" the last Government spent  …  on Rwanda"]
    assert figure_words("With CPI inflation at 3.8 per cent, real regular pay is still growing") \
        == ["With CPI inflation at  … "]
    q = "How fast is regular pay growing at the moment?"
    release = Source(1, "r", "2025-11-11", "Labour market overview, UK: November 2025",
                     "Office for National Statistics",
                     "With CPI inflation at 3.8 per cent, real regular pay is still growing, but "
                     "more slowly than earlier in the year. Annual growth in regular pay, "
                     "excluding bonuses, slowed to 4.6 per cent.", score=0.9)
    ranked = rank("How fast is regular pay growing", [release], mode="decay", full=q,
                  embedder=HashEmbedder())
    of = FEATURES.index("figure_of")
    assert {c.sentence[:6]: c.features[of] for c in ranked} == {"With C": 0.0, "Annual": 1.0}
    assert ranker_weights()[of] > 0
