"""The gate between the model and the reader: what a sentence must share with one source sentence."""
from __future__ import annotations

from decimal import Decimal

import pytest

from trag_tui.answering.facts import Quantity, in_figures, names, quantities
from trag_tui.answering.gate import Gate, SourceFacts, check, citations, cut_point, index_sources
from trag_tui.temporal.mentions import dates
from trag_tui.text.sentences import split

BANK = [
    SourceFacts(1, "2022-11-03", "Monetary Policy Summary, November 2022",
                "The labour market remains tight: unemployment is 3.5 per cent, the lowest since "
                "the 1970s. In brief: Bank Rate 3 per cent (from 2.25 per cent)."),
    SourceFacts(2, "2022-11-16", "Consumer price inflation, October 2022",
                "The Bank raised Bank Rate by 0.75 percentage points to 3 per cent on 3 November "
                "and expects inflation to fall from early next year."),
]
PMQS = [
    SourceFacts(1, "2025-11-19", "Keir Starmer The Prime Minister Engagements",
                "This morning I had meetings with ministerial colleagues and others. As Prime "
                "Minister I have said that our focus is the cost of living, and the Chancellor, "
                "my right hon. Friend the Member for Leeds West and Pudsey (Rachel Reeves), will "
                "present her Budget next Wednesday."),
]


def test_units_are_normalised():
    assert quantities("3 per cent") == quantities("3%") == [Quantity(Decimal(3), "%")]
    assert quantities("£33.9 billion") == quantities("£33.9bn")
    assert quantities("0.75 points")[0].matches(quantities("0.75 percentage points")[0])
    assert quantities("7,000 people")[0].value == Decimal(7000)
    assert quantities("2.57 million")[0].value == Decimal(2570000)
    # years are dates, not quantities
    assert quantities("in 2022 it rose") == []


def test_numbers_written_as_words_are_figures():
    assert quantities("extended six months") == quantities("extended 6 months")
    assert quantities("an estimated one million people")[0].value == Decimal(1000000)
    assert [q.value for q in quantities("twenty-five years, two hundred staff")] == [25, 200]
    assert in_figures("a three-day trip. Six people died") == "a 3-day trip. 6 people died"
    # "one" alone, a fraction, an ordinal and a name inside a sentence stay words
    for text in ("one of the few", "two-thirds of Puerto Rico", "the twenty-first century",
                 "Big Ten schools", "the Seven Network"):
        assert in_figures(text) == text and quantities(text) == []


def test_a_claim_in_figures_stands_on_a_source_in_words():
    pool = index_sources([SourceFacts(
        1, "2022-06-27", "Griner trial", "A Russian court ruled that the WNBA star's detention "
        "be extended six months pending the outcome of her trial.")])
    assert check("Her detention was extended by 6 months.", pool).supported
    assert check("Her detention was extended by six months.", pool).supported
    assert not check("Her detention was extended by 7 months.", pool).supported


def test_a_digit_inside_a_name_is_no_figure():
    assert quantities("4moms recalls millions of baby swings") == []
    assert quantities("COVID-19 vaccines for the F-35 crews") == []
    # a short unit or an ordinal's ending still leaves the figure, and so does a range
    assert [q.value for q in quantities("-23C on the 3rd day, ages 5-11")] == [23, 3, 5, 11]


def test_dates_are_read_at_their_precision():
    assert dates("on 3 November 2022") == [(2022, 11, 3)]
    assert dates("in November 2022") == [(2022, 11, None)]
    assert dates("2025-11-19") == [(2025, 11, 19)]
    assert dates("since 2020") == [(2020, None, None)]
    assert dates("They may agree") == []


def test_names_skip_sentence_framing():
    assert names("According to the sources, David Cameron is the leader.") == ["david", "camero"]


def test_segmenter_keeps_abbreviations_inside_the_sentence():
    text = ("The new Chancellor, my right hon. Friend the Member for Stratford-on-Avon "
            "(Nadhim Zahawi), spoke. The No. 1 priority is growth. Mr. Smith agreed.")
    parts = split(text)
    assert len(parts) == 3
    assert "Nadhim Zahawi" in parts[0]
    # a title glued to the word before it is still a title, not an end
    assert split("I rise to honor a pillar of my hometown, Searchlight, NV--Mrs. Verlie Doing. "
                 "She is ninety.") == ["I rise to honor a pillar of my hometown, Searchlight, "
                                       "NV--Mrs. Verlie Doing.", "She is ninety."]


def test_number_must_stand_in_a_sentence_about_the_same_thing():
    pool = index_sources(BANK)
    # source [1] says 3.5 per cent about unemployment, not Bank Rate
    assert not check("Bank Rate was 3.5%.", pool).supported
    ok = check("The Bank raised Bank Rate to 3%.", pool)
    assert ok.supported and ok.source in (1, 2)
    assert check("Bank Rate rose by 0.75 points to 3 per cent.", pool).source == 2


def test_invented_name_is_not_supported():
    pool = index_sources(PMQS)
    assert not check("The Prime Minister is David Cameron.", pool).supported
    # the speaker of a source counts for names it states
    assert check("Keir Starmer said the focus as Prime Minister is the cost of living.",
                 pool).supported


def test_dates_are_checked_against_the_sentence_and_the_source_date():
    pool = index_sources(BANK)
    assert check("Bank Rate was raised to 3 per cent on 3 November 2022.", pool).supported
    assert not check("Bank Rate was raised to 3 per cent on 5 December 2022.", pool).supported


def test_negation_must_be_stated():
    pool = index_sources(BANK)
    assert not check("The Bank did not raise Bank Rate to 3 per cent.", pool).supported


def test_citations_are_read_and_removed():
    assert citations("Bank Rate is 3% [2].") == ("Bank Rate is 3%.", [2])
    assert citations("A [1, 3] and B [3].") == ("A and B.", [1, 3])


@pytest.mark.parametrize("text,cut_at", [
    ("Bank Rate is 3% [2].\n[1] 2024-06-30 | Consumer price inflation", "\n[1] 2024"),
    ("Inflation fell. Question: what next?", "Question:"),
    ("Rates rose [1]. 2011 | Ed Miliband (Leader) | House of Commons: PMQs", "2011 | Ed"),
    ("It rose. " + "the rate the rate the rate " * 3, "the rate the rate the rate the rate"),
])
def test_output_is_cut_where_it_stops_being_an_answer(text, cut_at):
    cut = cut_point(text)
    assert cut is not None
    assert text[cut:].lstrip().startswith(cut_at.strip()[:8])


def feed_all(gate: Gate, pieces: list[str]) -> list:
    out = []
    for p in pieces:
        out += gate.feed(p)
        if gate.done:
            break
    return out + gate.finish()


def test_gate_streams_supported_sentences_and_drops_the_rest():
    gate = Gate(BANK, date_tags=True)
    pieces = ["The Bank raised Bank Rate", " by 0.75 percentage points to 3 per cent [2].",
              " Unemployment rose to 5.2 per cent [1].", " Bank Rate was 3.5% [1]."]
    first = gate.feed(pieces[0])
    assert first == []  # nothing is shown before its sentence is complete and checked
    claims = feed_all(gate, pieces[1:])
    assert [c.source for c in claims] == [2]
    assert claims[0].text == ("The Bank raised Bank Rate by 0.75 percentage points to 3 per cent "
                              "[2] (3 November 2022; published 16 November 2022).")
    assert len(gate.dropped) == 2
    assert all(d.reason for d in gate.dropped)


def test_gate_attaches_an_uncited_sentence_to_its_source():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["Bank Rate was raised by 0.75 percentage points to 3 per cent."])
    assert [c.text for c in claims] == [
        "Bank Rate was raised by 0.75 percentage points to 3 per cent [2]."]


@pytest.mark.parametrize("lead", ["The answer is: ", "Answer: ", "2022: ", "Newer sources: "])
def test_gate_shows_the_sentence_without_the_models_lead_in(lead):
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, [lead + "Bank Rate was raised by 0.75 percentage points to 3 per cent."])
    assert [c.text for c in claims] == [
        "Bank Rate was raised by 0.75 percentage points to 3 per cent [2]."]


def test_gate_keeps_a_sentence_without_a_lead_in_as_written():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["the Bank raised Bank Rate by 0.75 percentage points to 3 per cent."])
    assert [c.text for c in claims] == [
        "the Bank raised Bank Rate by 0.75 percentage points to 3 per cent [2]."]


def test_gate_moves_a_wrong_citation_to_the_source_that_states_it():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["The Bank raised Bank Rate by 0.75 percentage points [1]."])
    assert [c.source for c in claims] == [2]


def test_gate_records_invalid_citations_and_cuts_fake_listings():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["Bank Rate is 3 per cent [7].\n[1] 2024-06-30 | CPI, 5.2%"])
    assert gate.invalid_citations == [7]
    assert [c.source for c in claims] == [1]
    assert gate.done


def test_gate_drops_repeated_sentences():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["Bank Rate is 3 per cent [1]. Bank Rate is 3 per cent [1]."])
    assert len(claims) == 1
    assert gate.dropped[0].reason == "repeats an earlier sentence"


def test_gate_drops_a_sentence_that_says_less_than_one_shown_before():
    gate = Gate(BANK, date_tags=False)
    claims = feed_all(gate, ["The Bank raised Bank Rate by 0.75 percentage points to 3 per cent "
                             "[2]. The Bank raised Bank Rate [2]."])
    assert len(claims) == 1
    assert gate.dropped[0].reason == "repeats an earlier sentence"


MOON = [SourceFacts(1, "2022-06-15", "Strawberry supermoon",
                    "The strawberry supermoon illuminated the skies this week. The name comes "
                    "from the Algonquin tribes, who harvested strawberries in June.")]


NEWTON_JOHN = [
    SourceFacts(1, "2022-08-08", "Olivia Newton John, singer and actress, dead at 73",
                "Photos: Australian pop star Olivia Newton-John's life in pictures."),
    SourceFacts(2, "2022-08-09", "Hollywood mourns Olivia Newton-John",
                "Fans mourned the Australian singer and Grease star Olivia Newton-John, who "
                "died on Monday."),
]


def test_gate_holds_an_open_answer_to_the_sources_quoted():
    q = "Which blockbuster movie catapulted Olivia Newton-John to superstardom?"
    gate = Gate(NEWTON_JOHN, date_tags=False, question=q, quoted_from=frozenset({2}))
    # a sentence only another source states is not shown; one the quoted source states too is
    # shown under it
    claims = feed_all(gate, ["Olivia Newton-John: a life in pictures [1]. The Australian star "
                             "Olivia Newton-John [1]."])
    assert [c.text for c in claims] == ["The Australian star Olivia Newton-John [2]."]
    assert gate.dropped[0].reason == "supported, but by another source than the best-matching ones"
    # with no quoted sources named, any supported sentence stands
    gate = Gate(NEWTON_JOHN, date_tags=False, question=q)
    claims = feed_all(gate, ["Olivia Newton-John: a life in pictures [1]."])
    assert [c.source for c in claims] == [1]


def test_gate_drops_a_true_sentence_that_only_says_what_the_question_says():
    gate = Gate(MOON, date_tags=False, question="A strawberry supermoon illuminated the skies "
                "this week. Where does the strawberry moniker come from?")
    claims = feed_all(gate, ["The strawberry supermoon illuminated the skies this week [1]. "
                             "The name comes from the Algonquin tribes [1]."])
    assert [c.text for c in claims] == ["The name comes from the Algonquin tribes [1]."]
    assert gate.dropped[0].reason == "supported, but only says what the question says"


@pytest.mark.parametrize("question", [
    "True or false: the strawberry supermoon illuminated the skies this week?",
    "Did the strawberry supermoon illuminate the skies this week?",
])
def test_for_a_yes_or_no_question_the_sentence_that_says_it_is_the_answer(question):
    gate = Gate(MOON, date_tags=False, question=question)
    claims = feed_all(gate, ["The strawberry supermoon illuminated the skies this week [1]."])
    assert len(claims) == 1


def test_a_date_the_question_asks_for_is_something_new():
    gate = Gate(BANK, date_tags=False, question="When did the Bank raise Bank Rate by 0.75 "
                "percentage points to 3 per cent?")
    claims = feed_all(gate, ["The Bank raised Bank Rate by 0.75 percentage points to 3 per cent "
                             "on 3 November [2]."])
    assert len(claims) == 1


def test_words_in_another_order_or_another_relation_do_not_support_a_claim():
    pool = index_sources([
        SourceFacts(1, "2010-03-24", "Engagements",
                    "David Cameron (Witney) (Con): Will the Prime Minister confirm the figures?"),
        SourceFacts(2, "2025-11-11", "Labour market",
                    "The UK unemployment rate rose to 5.0 per cent in July to September 2025, up "
                    "from 4.8 per cent in the previous three months."),
    ])
    assert not check("The Prime Minister is David Cameron.", pool).supported
    assert not check("The unemployment rate today is 4.8%.", pool).supported
    assert check("The unemployment rate rose to 5 per cent.", pool).source == 2


def test_a_claim_with_nothing_to_check_is_dropped():
    assert check("2020: 2020:", index_sources(BANK)).reason == "states nothing the sources can confirm"


def test_a_trimmed_passage_does_not_lend_its_cut_sentences():
    pool = index_sources([SourceFacts(
        1, "2025-11-20", "Defence",
        "…was clear. The Secretary of State for Defence will publish the review. "
        "The Defence Secretary, my right hon.…")])
    assert [s.text for s in pool] == ["The Secretary of State for Defence will publish the review."]


def test_a_previous_value_and_a_speakers_name_do_not_make_a_claim():
    pool = index_sources([
        SourceFacts(1, "2022-11-03", "Bank of England", "In brief: Bank Rate 3 per cent (from 2.25 per cent)."),
        SourceFacts(2, "2010-03-24", "David Cameron", "The Prime Minister is running out of excuses."),
    ])
    assert not check("Bank Rate was 2.25%.", pool).supported  # "from 2.25" is the old rate
    assert check("Bank Rate is 3 per cent.", pool).supported
    # the speaker's name backs what they said, not an identity the sentence never states
    assert not check("The Prime Minister is David Cameron.", pool).supported
    assert check("David Cameron said the Prime Minister is running out of excuses.", pool).supported


def test_an_empty_question_is_refused_by_the_library():
    from trag_tui.answering.pipeline import ask
    from trag_tui.retrieval.modes import search

    with pytest.raises(ValueError, match="empty"):
        search(None, "   ")
    with pytest.raises(ValueError, match="empty"):
        next(ask(None, ""))


def test_only_a_backward_looking_time_dates_what_a_sentence_reports():
    from trag_tui.temporal.mentions import reported_when

    assert reported_when("I went to the group yesterday.", "2023-05-08").label == "7 May 2023"
    assert reported_when("We paid it ten years ago.", "2023-05-08").label == "2013"
    # a number written as two words is one number: not "one years ago" out of "Thirty-one"
    assert reported_when("Thirty-one years ago, it declared independence.", "2022-08-24").label == "1991"
    assert reported_when("It began twenty five years ago.", "2022-08-24").label == "1997"
    # "this autumn" said in July may be the coming autumn: no date is better than a wrong one
    assert reported_when("The discount comes this autumn.", "2022-07-20") is None
    # another time in the sentence does not make one span with it: June 2019, not 1990 to June
    assert reported_when("Parliament legislated last month to replace the target of an 80 per "
                         "cent reduction on 1990 levels.", "2019-07-10").label == "June 2019"


def test_a_time_ahead_that_names_one_period_dates_what_is_planned():
    from trag_tui.temporal.mentions import reported_when

    # said on Monday 3 April 2023
    assert reported_when("I'm hosting a dance competition next month.", "2023-04-03").label == "May 2023"
    assert reported_when("See you tomorrow!", "2023-04-03").label == "4 April 2023"
    assert reported_when("We fly out next week.", "2023-04-03").start.isoformat() == "2023-04-10"
    assert reported_when("I will go back next year.", "2023-04-03").label == "2024"
    # "next Friday" may be this coming one or the one after; "in the next month" is thirty days
    assert reported_when("The show is next Friday.", "2023-04-03") is None
    assert reported_when("Few will go out in the next month.", "2023-04-03") is None
    # a time looking back wins over one ahead in the same sentence
    assert reported_when("Yesterday we agreed to meet next week.", "2023-04-03").label == "2 April 2023"
