"""The answer stages end to end: sources, prompt, the gate at work, the quoted answer, the
stream of events, cancelling; the sentence prompt is compared with golden files
(regenerate with TRAG_TUI_UPDATE_GOLDEN=1 after a deliberate change)."""
from __future__ import annotations

import datetime as dt
import json
import threading
import time
from dataclasses import replace

import pytest

from tests.answering.results import (
    AS_OF,
    RESULTS,
    TEXTS,
    TQ,
    comparison_result,
    decay_result,
    empty_result,
    evolution_result,
    golden,
    hard_filter_result,
    hit,
    hybrid_result,
    passages_for,
    result,
    run,
)
from tests.fakes import ScriptedGenerator, jsonl_index
from trag_tui.answering.events import Done, Quoted, Retrieved, Token, Writing
from trag_tui.answering.facts import office_asked
from trag_tui.answering.pipeline import answer, ask, no_documents_message
from trag_tui.answering.prompt import ANSWER_SYSTEM_PROMPT, prompt_text
from trag_tui.answering.ranking import evidence, rank
from trag_tui.answering.sources import Source, _with_lead, arrange, window
from trag_tui.errors import GenerationError
from trag_tui.models.generation import estimate_tokens
from trag_tui.render import NO_MODEL_NOTE, render_answer
from trag_tui.retrieval.modes import SearchResult
from trag_tui.settings import Settings
from trag_tui.text.labels import period_label
from trag_tui.text.sentences import quotable, runs


@pytest.mark.parametrize("mode", sorted(RESULTS))
def test_prompt_matches_golden(mode):
    gen = ScriptedGenerator(["ok [1]"])
    run(RESULTS[mode](), gen)
    assert len(gen.calls) == 1
    golden(f"sentences_{mode}", prompt_text(gen.messages))


def test_empty_period_matches_golden():
    gen = ScriptedGenerator(["must not be called"])
    events = run(empty_result(), gen)
    golden("empty_period", render_answer(events[-1]))


def test_system_prompt_is_fixed_and_first():
    systems = set()
    for make in RESULTS.values():
        gen = ScriptedGenerator(["ok"])
        run(make(), gen)
        assert gen.messages[0] == {"role": "system", "content": ANSWER_SYSTEM_PROMPT}
        assert [m["role"] for m in gen.messages] == ["system", "user"]
        systems.add(gen.messages[0]["content"])
    assert len(systems) == 1


def test_evolution_blocks_in_time_order():
    gen = ScriptedGenerator(["ok"])
    events = run(evolution_result(), gen)
    user = gen.messages[1]["content"]
    older, middle, newer = (user.index(f"{g} PERIOD") for g in ("OLDER", "MIDDLE", "NEWER"))
    assert older < middle < newer
    assert [s.group for s in events[0].sources] == ["older", "older", "middle", "newer"]
    assert [s.date for s in events[0].sources] == ["2012-03-01", "2012-09-09", "2019-05-20", "2023-11-15"]


def test_comparison_has_one_block_per_period_including_empty_ones():
    gen = ScriptedGenerator(["ok"])
    run(comparison_result(), gen)
    user = gen.messages[1]["content"]
    assert user.index("PERIOD 2012:") < user.index("PERIOD 2023:") < user.index("PERIOD March 2016:")
    assert "PERIOD March 2016:\nNo documents from this period." in user
    assert "period by period" in user


def test_period_labels():
    d = dt.date
    assert period_label(d(2019, 1, 1), d(2019, 12, 31)) == "2019"
    assert period_label(d(2016, 3, 1), d(2016, 3, 31)) == "March 2016"
    assert period_label(d(2016, 2, 1), d(2016, 2, 29)) == "February 2016"
    assert period_label(d(2016, 3, 1), d(2016, 5, 31)) == "March 2016 to May 2016"
    assert period_label(d(2010, 1, 1), d(2012, 12, 31)) == "2010 to 2012"
    assert period_label(d(2010, 3, 24), d(2010, 3, 24)) == "2010-03-24"
    assert period_label(d(2010, 3, 2), d(2010, 4, 9)) == "2010-03-02 to 2010-04-09"
    assert period_label(None, d(2010, 4, 9)) == "up to 2010-04-09"


def test_arrange_keeps_every_hit_once():
    for make in RESULTS.values():
        res = make()
        flat = [h.chunk_id for _, hs in arrange(res) for h in hs]
        assert sorted(flat) == sorted(h.chunk_id for h in res.hits)


def test_overflow_surfaces_from_answer_without_calling_the_model():
    gen = ScriptedGenerator(["never"], n_ctx=150)
    events = answer(decay_result(), {}, generator=gen, settings=Settings(max_tokens=100))
    with pytest.raises(GenerationError):
        list(events)
    assert gen.calls == []


def test_window_centres_on_the_matched_chunk():
    parent = " ".join(f"w{i}" for i in range(300))
    chunk = " ".join(f"w{i}" for i in range(150, 170))
    text, cut = window(parent, chunk, 40, estimate_tokens)
    assert cut and chunk in text and text.startswith("…") and text.endswith("…")


def test_unsupported_answer_falls_back_to_a_quoted_one():
    gen = ScriptedGenerator(["Inflation", " is", " 5.2 per cent", " [5]."])
    done = run(decay_result(), gen)[-1]
    assert done.unsupported and done.extractive and done.invalid_citations == [5]
    assert [d.sentence for d in done.dropped] == ["Inflation is 5.2 per cent."]
    assert "5.2" not in done.answer and done.answer.count("“") >= 1
    assert done.citations and all(f"[{n}]" in done.answer for n in done.citations)
    text = render_answer(done)
    assert "Evidence:" in text and "Sources:" in text
    # the quote stands alone: nothing is said of the check the model's sentence failed
    assert "check" not in text and "Not shown" not in text


def test_a_true_sentence_without_the_figure_asked_for_gives_way_to_the_quoted_answer():
    gen = ScriptedGenerator(["Wages grew faster than prices [1]."])  # [1]: the 2023 report
    done = run(decay_result(), gen)[-1]
    assert [(d.sentence, d.reason) for d in done.dropped] == [
        ("Wages grew faster than prices.",
         "supported, but gives no figure the question asks for")]
    assert done.extractive and "per cent" in done.answer
    done = run(decay_result(), ScriptedGenerator(["Inflation fell to 2 per cent [1]."]))[-1]
    assert not done.extractive and done.answer.startswith("Inflation fell to 2 per cent [1]")


def test_a_true_sentence_giving_another_figure_than_the_quote_gives_way_to_it():
    # [3] (2012) states 3 per cent; the best sentence for "now" is the 2023 report's 2 per cent
    gen = ScriptedGenerator(["The minister said inflation was 3 per cent [3]."])
    done = run(decay_result(), gen)[-1]
    assert [(d.sentence, d.reason) for d in done.dropped] == [
        ("The minister said inflation was 3 per cent.",
         "supported, but gives another figure than the best-matching source sentence")]
    assert done.extractive and "2 per cent" in done.answer and "3 per cent" not in done.answer


def test_a_true_sentence_naming_no_place_gives_way_to_the_quote_for_where():
    tq = TQ("Where did the rocket launch from in June 2022?", "point_in_time",
            start=dt.date(2022, 6, 1), end=dt.date(2022, 6, 30),
            semantic_query="Where did the rocket launch from")
    res = result("hard_filter", tq, [hit(1, "2022-06-27", "NASA launched a rocket from Australia. "
                                        "The launch was a historic achievement for the agency.",
                                        speaker="")])
    done = run(res, ScriptedGenerator(["The launch was a historic achievement for the agency [1]."]))[-1]
    assert [(d.sentence, d.reason) for d in done.dropped] == [
        ("The launch was a historic achievement for the agency.",
         "supported, but gives no place the question asks for")]
    assert done.extractive and "Australia" in done.answer
    done = run(res, ScriptedGenerator(["NASA launched a rocket from Australia [1]."]))[-1]
    assert not done.extractive and done.answer.startswith("NASA launched a rocket from Australia [1]")


def test_an_open_answer_from_another_source_than_the_quoted_one_gives_way_to_it():
    tq = TQ("What was said about mortgage costs in 2019?", "point_in_time",
            start=dt.date(2019, 1, 1), end=dt.date(2019, 12, 31), semantic_query="mortgage costs")
    res = result("hard_filter", tq, [hit(3, "2019-05-20", TEXTS[3], score=0.9),
                                     hit(4, "2019-02-11", TEXTS[4], score=0.4)])
    quote = run(res, evidence_only=True)[-1].answer
    assert quote == "Jane Smith [2] (20 May 2019): “Borrowers face higher mortgage costs.”"
    # [1], on housing and rents, states it; the quote comes from [2]
    done = run(res, ScriptedGenerator(["Members debated housing and rents at length [1]."]))[-1]
    assert [(d.sentence, d.reason) for d in done.dropped] == [
        ("Members debated housing and rents at length.",
         "supported, but by another source than the best-matching ones")]
    assert done.extractive and done.answer == quote
    done = run(res, ScriptedGenerator(["Borrowers face higher mortgage costs [2]."]))[-1]
    assert not done.extractive and done.answer.startswith("Borrowers face higher mortgage costs [2]")


def test_the_model_is_stopped_once_two_sentences_failed_and_none_passed():
    # A sentence is judged when the next one starts, so the second failure is known on the
    # third piece; the fourth is never asked for.
    script = ["Inflation is 9 per cent [1].", " Rates are 7 per cent [1].", " Prices",
              " never asked for."]
    done = run(decay_result(), ScriptedGenerator(script))[-1]
    assert [d.sentence for d in done.dropped][:2] == ["Inflation is 9 per cent.",
                                                      "Rates are 7 per cent."]
    assert done.extractive and done.timings["pieces"] == 3
    # one good sentence first: the model keeps going past later failures
    gen = ScriptedGenerator(["Inflation fell to 2 per cent [1].", " Rates are 7 per cent [1].",
                             " Inflation is 9 per cent [1].", " Wages grew faster than prices [1]."])
    done = run(decay_result(), gen)[-1]
    assert not done.extractive and len(done.dropped) == 3 and done.timings["pieces"] == 4


def test_sources_list_closes_the_rendered_answer():
    done = run(decay_result(), ScriptedGenerator(["Inflation fell to 2 per cent [1]."]))[-1]
    assert done.answer == "Inflation fell to 2 per cent [1] (15 November 2023)."
    text = render_answer(done)
    assert text.index("Evidence:") < text.index("Sources:")
    assert "[1] 2023-11-15 | Debate 2 | Jane Smith (doc-2)" in text
    assert "also reported in: doc-9, doc-10" in text
    golden("rendered_decay", text)


def test_model_invented_source_list_is_cut():
    gen = ScriptedGenerator(["The Bank raised interest rates [2].", "\n[1] 2021-01-01 | made up",
                             " | more"])
    done = run(hard_filter_result(), gen)[-1]
    assert done.answer == "The Bank raised interest rates [2] (20 May 2019)."
    assert gen.calls[0]["stop"] and gen.calls[0]["max_tokens"] == 64


def test_evidence_cites_dated_best_sentences():
    done = run(decay_result())[-1]
    assert 1 <= len(done.evidence) <= 4
    numbers = {s.number: s for s in done.sources}
    for e in done.evidence:
        assert e.number in numbers and e.date == numbers[e.number].date
        assert e.sentence in numbers[e.number].passage
        assert "nflation" in e.sentence  # the sentence that matches the query, not the first
    assert [e.number for e in done.evidence] == sorted(e.number for e in done.evidence)


def test_evidence_covers_every_period_first():
    sources = [Source(i, f"d{i}", f"20{10 + i}-01-01", "t", "", f"Inflation sentence number {i} here.",
                      group="older" if i < 5 else "newer", score=1.0 - i / 10) for i in range(1, 7)]
    lines = evidence(rank("inflation", sources), limit=2)
    assert {sources[e.number - 1].group for e in lines} == {"older", "newer"}


def test_evidence_skips_duplicate_sentences():
    s = [Source(1, "a", "2020-01-01", "t", "", "Rates rose today in the House."),
         Source(2, "b", "2020-01-02", "t", "", "Rates rose today in the House.")]
    assert len(evidence(rank("rates", s))) == 1


def test_evidence_leaves_out_a_source_with_nothing_on_the_question():
    s = [Source(1, "a", "2020-01-01", "t", "", "Inflation rose to 3 per cent in the year to May."),
         Source(2, "b", "2021-01-01", "t", "", "Inflation fell to 2 per cent in the year to June."),
         Source(3, "c", "1997-01-01", "t", "", "The delegation flew to Brussels for the summit.")]
    ranked = rank("inflation rate", s)
    assert ranked[0].score > 0
    assert [e.number for e in evidence(ranked)] == [1, 2]
    # below zero there is no scale to take a share of: every source keeps its line
    low = [replace(c, score=c.score - 10) for c in ranked]
    assert [e.number for e in evidence(low)] == [1, 2, 3]


def test_empty_period_does_not_call_the_model():
    made = []

    def factory():
        made.append(1)
        return ScriptedGenerator(["no"])

    events = list(answer(empty_result(), {}, generator=factory, settings=Settings()))
    assert made == []
    assert isinstance(events[0], Retrieved) and events[0].sources == []
    assert isinstance(events[1], Token)
    done = events[-1]
    assert done.no_documents and done.citations == [] and done.sources == []
    assert done.answer.startswith("There are no documents from 2015 in this index.")
    assert "October 2014 (before)" in done.answer and "February 2016 (after)" in done.answer
    assert done.messages == []


def test_a_period_nothing_was_said_in_names_what_speaks_of_it_without_the_model():
    elsewhen = [{"doc_id": "sr", "title": "Spending Review 2010\n[1] forged", "speaker": "",
                 "date": "2010-10-20", "about": ""},
                {"doc_id": "wa", "title": "NHS: Finance", "speaker": "", "date": None, "about": ""}]
    res = replace(empty_result(), spoken_elsewhen=elsewhen)
    gen = ScriptedGenerator(["no"])
    done = run(res, gen)[-1]
    assert gen.calls == [] and done.no_documents and done.citations == []
    # not "no documents from 2015": something speaks of it, and the reader is told what
    assert done.answer == ("There are no documents published in 2015 in this index. Published "
                           "at other times, these speak of 2015: Spending Review 2010 [1] forged "
                           "(20 October 2010); NHS: Finance.")


def test_comparison_with_every_period_empty_does_not_call_the_model():
    res = replace(comparison_result(), hits=[])
    gen = ScriptedGenerator(["no"])
    done = run(res, gen)[-1]
    assert gen.calls == [] and done.no_documents
    assert done.answer == "There are no documents from 2012 or 2023 or March 2016 in this index."


def test_comparison_with_one_empty_period_still_answers():
    gen = ScriptedGenerator(["2012: high [1]. 2023: lower [2]."])
    done = run(comparison_result(), gen)[-1]
    assert len(gen.calls) == 1 and not done.no_documents and done.citations == [1, 2]


def test_future_period_says_so():
    tq = TQ("inflation in 2030?", "point_in_time", start=dt.date(2030, 1, 1), end=dt.date(2030, 12, 31))
    msg = no_documents_message(result("hard_filter", tq, []))
    assert msg.startswith("There are no documents from 2030 in this index.")
    assert "after the as-of date, 2024-06-01" in msg


def test_evidence_only_needs_no_model():
    events = list(answer(decay_result(), {}, generator=lambda: pytest.fail("model loaded"),
                         evidence_only=True))
    done = events[-1]
    assert done.extractive and done.answer.startswith("Jane Smith [")
    assert done.evidence and done.sources and done.unsupported
    assert done.messages == []  # no prompt was sent
    text = render_answer(done)
    assert NO_MODEL_NOTE in text and "check" not in text


def test_render_without_the_streamed_answer():
    done = run(decay_result(), ScriptedGenerator(["Inflation fell to 2 per cent [1]."]))[-1]
    rest = render_answer(done, with_answer=False)
    assert "Inflation fell to 2 per cent [1]" not in rest and rest.startswith("Evidence:")
    # the quote, then the model's checked sentence beneath it
    assert render_answer(done).startswith(done.shown + "\n\nEvidence:")
    assert done.shown.endswith("\n\nInflation fell to 2 per cent [1] (15 November 2023).")


def test_sentences_stream_as_they_pass():
    produced = []

    def script(messages):
        for piece in ["The Bank raised", " interest rates [2].", " The inflation target",
                      " remains 2 per cent [1].", " Prices doubled"]:
            produced.append(piece)
            yield piece

    res = hard_filter_result()
    stream = answer(res, passages_for(res.hits), generator=ScriptedGenerator(script),
                    settings=Settings(max_tokens=64))
    assert isinstance(next(stream), Retrieved)
    quoted = next(stream)  # the quoted answer, before the model has written a word
    assert isinstance(quoted, Quoted) and quoted.text.startswith("Jane Smith [2] (20 May 2019)")
    assert produced == [] and quoted.evidence
    assert [next(stream), next(stream)] == [Writing(1), Writing(2)]  # written, not yet shown
    assert isinstance(next(stream), Writing)
    first = next(stream)
    assert isinstance(first, Token) and first.text == "The Bank raised interest rates [2] (20 May 2019)."
    assert len(produced) == 3  # shown once its sentence was complete, before the rest was written
    rest = [e for e in stream if not isinstance(e, Writing)]
    assert [type(e) for e in rest] == [Token, Done]
    done = rest[-1]
    assert not done.stopped and done.timings["first_token"] >= 0
    assert done.timings["first_shown"] >= done.timings["first_token"]
    assert [d.sentence for d in done.dropped] == ["Prices doubled"]


def test_cancel_mid_stream_stops_cleanly():
    cancel = threading.Event()
    produced = []

    def script(messages):
        yield "Inflation fell to 2 per cent [1]."
        for i in range(100):
            if i == 3:
                cancel.set()  # Esc pressed while the fourth piece is being written
            produced.append(i)
            yield f" w{i}"

    done = run(decay_result(), ScriptedGenerator(script), cancel=cancel)[-1]
    # what was checked stays; the unfinished sentence is never shown unchecked
    assert done.stopped and done.answer == "Inflation fell to 2 per cent [1] (15 November 2023)."
    assert len(produced) == 4  # the stream was closed, not drained
    assert "(stopped)" in render_answer(done)


def test_cancel_before_generation():
    cancel = threading.Event()
    cancel.set()
    gen = ScriptedGenerator(["never"])
    done = run(decay_result(), gen, cancel=cancel)[-1]
    assert done.stopped and done.answer == "" and done.evidence


def test_keyboard_interrupt_mid_stream_yields_stopped_done():
    def script(messages):
        yield "Inflation fell to 2 per cent [1]. Partial"
        yield " answer"
        raise KeyboardInterrupt

    events = run(decay_result(), ScriptedGenerator(script))
    done = events[-1]
    assert isinstance(done, Done) and done.stopped
    assert done.answer == "Inflation fell to 2 per cent [1] (15 November 2023)."
    assert done.citations == [1]


def test_done_to_dict_is_json():
    done = run(evolution_result(), ScriptedGenerator(["Changed [1] [4]."]))[-1]
    data = json.loads(json.dumps(done.to_dict()))
    assert data["question"] == "How has the view on inflation changed since 2012?"
    assert data["mode"] == "evolution" and data["as_of"] == "2024-06-01"
    assert data["extractive"] and data["dropped"][0]["sentence"] == "Changed."
    assert len(data["sources"]) == 4 and data["citations"]


@pytest.fixture(scope="module")
def small_index(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("answer-corpus")
    rows = []
    for year in (2012, 2016, 2020, 2023):
        rows.append({"id": f"infl-{year}", "date": f"{year}-05-15", "title": f"Inflation {year}",
                     "source": "MP", "text": f"In {year} the House discussed inflation. "
                     f"Inflation stood at {year - 2010} per cent that spring, the minister said."})
    index = jsonl_index(tmp, rows, k=4)
    yield index
    index.close()


def test_ask_end_to_end(small_index):
    gen = ScriptedGenerator(["It was 13 per cent [1]."])
    events = list(ask(small_index, "What is the inflation rate now?", as_of=AS_OF, generator=gen))
    retrieved, done = events[0], events[-1]
    assert isinstance(retrieved, Retrieved) and retrieved.sources
    assert retrieved.sources[0].date == "2023-05-15"  # newest first for a "now" question
    assert done.citations == [1] and done.timings["retrieval"] > 0


def test_ask_empty_period_end_to_end(small_index):
    gen = ScriptedGenerator(["never"])
    done = list(ask(small_index, "What was said about inflation in 2014?", as_of=AS_OF,
                    generator=gen))[-1]
    assert gen.calls == [] and done.no_documents
    assert "There are no documents from 2014" in done.answer


def test_ask_quotes_a_past_year_s_figure_from_a_report_published_after_it(tmp_path):
    # A year's figure is published once the year is over: the 2025 report speaks of 2022, so a
    # question about 2022's arrivals finds it beside the period's own speech, quotes it first,
    # and dates it by both times.
    rows = [
        {"id": "pmqs-2022", "date": "2022-04-19", "title": "Small boats", "source": "Priti Patel",
         "text": "Last year more than 28,000 people crossed the channel in small boats."},
        {"id": "report-2025", "date": "2025-05-22", "title": "Small boat arrivals",
         "source": "Office for National Statistics", "text": REPORTED},
    ]
    index = jsonl_index(tmp_path, rows, k=4)
    try:
        q = "How many small boat arrivals were there in 2022?"
        events = list(ask(index, q, as_of=dt.date(2025, 11, 22), evidence_only=True))
        done = events[-1]
        assert {s.doc_id for s in events[0].sources} == {"pmqs-2022", "report-2025"}
        assert done.answer.startswith("Office for National Statistics [")
        assert "(published 22 May 2025): “Home Office figures show" in done.answer
        assert "45,774 in 2022" in done.answer
        # asked on a day before the report, it is not there to quote
        done = list(ask(index, q, as_of=dt.date(2025, 1, 1), evidence_only=True))[-1]
        assert done.answer.startswith("No source found gives the figure for 2022")
    finally:
        index.close()


def test_window_starts_at_a_whole_sentence_that_can_be_quoted():
    # Cutting "…LIHEAP, I want to thank … for introducing the IDEA legislation" mid-sentence
    # lost the very sentence the question needed; the window starts where a sentence starts.
    sentences_ = [f"Sentence number {i} says something about topic {i} at length today." for i in range(40)]
    parent = " ".join(sentences_)
    chunk = " ".join(sentences_[30:33])
    text, cut = window(parent, chunk, 120, estimate_tokens)
    assert cut and chunk in text
    # the passage's opening sentence, then the window from a whole sentence
    assert text.startswith(sentences_[0] + " … Sentence number")
    assert quotable(text)[1].startswith("Sentence number 2")
    # a cut inside a sentence is still marked "…word" and not quoted
    assert quotable("…topic 3 at length today. Sentence number 4 says it.") == [
        "Sentence number 4 says it."]


def test_a_window_past_the_opening_keeps_the_opening_sentence():
    # A story's point is its first sentence ("…without power… disabled by Hurricane Fiona");
    # a match on the restoration figures further down had left it out of the source.
    lead = "More than a million people are without power after Hurricane Fiona struck."
    body = [f"Crews in town {i} restored lines to {i} thousand homes on the island." for i in range(60)]
    chunk = " ".join(body[40:43])
    text, cut = window(" ".join([lead, *body]), chunk, 120, estimate_tokens)
    assert cut and chunk in text and text.startswith(lead + " … ")
    assert runs(text)[0] == [lead] and runs(text)[1][0].startswith("Crews in town")
    # cut mid-sentence, the window goes on from its next whole sentence
    passage = " ".join([lead, *body])
    assert _with_lead(passage, "…homes on the island. " + body[9] + "…", 120, estimate_tokens) \
        == f"{lead} … {body[9]}…"
    text, _ = window(" ".join([lead, *body]), body[20] + " " + body[21], 120, estimate_tokens)
    assert text.startswith(lead + " … Crews in town")
    # a long opening is left out (more than a quarter of the window), as is one already in it
    long_lead = "The storm " + "and the rain " * 20 + "hit the island."
    text, _ = window(" ".join([long_lead, *body]), chunk, 120, estimate_tokens)
    assert text.startswith("… Crews in town")
    text, _ = window(" ".join([lead, *body[:3]]), body[1], 120, estimate_tokens)
    assert text.count(lead) == 1


def test_the_opening_sentence_leads_and_is_not_joined_to_the_window():
    lead = "More than a million people are without power after Hurricane Fiona struck."
    first = "Crews restored lines to forty thousand homes on the island on Tuesday."
    src = Source(1, "d1", "2022-09-22", "Storm", "", f"{lead} … {first} The rest came later on.")
    ranked = rank("Which hurricane left people without power?", [src])
    by = {c.sentence: c.position for c in ranked}
    assert by[lead] == 0 and by[first] == 2  # a gap: quoted together they read "… "
    window_only = Source(1, "d1", "2022-09-22", "Storm", "", f"… {first} The rest came later on.")
    lead_score = {c.sentence: c.score for c in ranked}[first]
    assert lead_score == {c.sentence: c.score for c in rank(
        "Which hurricane left people without power?", [window_only])}[first]


def test_a_heading_stays_a_sentence_of_its_own_in_a_windowed_passage():
    # Folding a report's line breaks had run its heading into the first sentence: "Net
    # migration: 283,000 in the year to September 2018 Net migration to the UK…".
    report = ("# Net migration: 283,000 in the year to September 2018\n\nNet migration to the UK "
              "was estimated at **283,000**.\n\n## EU and non-EU ##\nEU net migration fell to "
              "57,000. Programmers use C# daily.")
    text, cut = window(report, report, 500, estimate_tokens)
    assert not cut and "\n" not in text
    assert quotable(text) == ["Net migration: 283,000 in the year to September 2018",
                              "Net migration to the UK was estimated at 283,000.",
                              "EU and non-EU", "EU net migration fell to 57,000.",
                              "Programmers use C# daily."]
    # a window that starts inside a heading leaves its closing mark first: the paragraph after
    # it is not a heading, and is split into its sentences
    body = ("The Consumer Prices Index rose by 3.6 per cent in the 12 months to October 2025, "
            "down from 3.8 per cent in September. Inflation is above the 2.0 per cent reached in "
            "mid-2024. " * 2)
    assert quotable(f"…to 3.6 per cent # {body}#") == [
        "The Consumer Prices Index rose by 3.6 per cent in the 12 months to October 2025, down "
        "from 3.8 per cent in September.",
        "Inflation is above the 2.0 per cent reached in mid-2024."] * 2
    # a hostile line (a heading marker, then 100,000 spaces) costs no more than a plain one
    started = time.perf_counter()
    window("# x" + " " * 100_000 + "y", "", 50, estimate_tokens)
    assert time.perf_counter() - started < 2.0


@pytest.mark.parametrize("opening, quoted", [
    ("Washington (CNN) Kansas on Tuesday voted.", "Kansas on Tuesday voted."),
    ("Kyiv, Ukraine (CNN) The day was somber.", "The day was somber."),
    ("WASHINGTON (AP) — The Senate voted.", "The Senate voted."),
    ("New York CNN Business — Prices rose.", "Prices rose."),
    ("RENO, Nev. – A buyer got more.", "A buyer got more."),
    ("(CNN) “We won,” she said.", "“We won,” she said."),
    # not datelines: a party, an acronym, a dash inside the sentence, a speech's address
    ("President Biden (D) said no.", "President Biden (D) said no."),
    ("The Bank (BoE) raised rates.", "The Bank (BoE) raised rates."),
    ("NATO — the alliance — met.", "NATO — the alliance — met."),
    ("Boris Johnson — the prime minister — said so.", "Boris Johnson — the prime minister — said so."),
    ("Mr. LOTT. Mr. President, I rise today.", "Mr. LOTT."),
])
def test_a_news_dateline_is_not_quoted(opening, quoted):
    # where a story was filed is not what it reports ("Washington (CNN) Kansas…" had made an
    # answer name "Washington" for a question about Kansas)
    assert quotable(opening)[0] == quoted


def test_a_short_line_without_a_closing_mark_is_a_sentence_of_its_own():
    # Folded, a story's byline and summary points ran into its lead ("Aye Aye Win, AP A strong
    # quake collapsed a bridge … YANGON, Burma (AP) — A strong earthquake…"): one sentence,
    # too long to quote down to its figure
    story = ("Aye Aye Win, AP\n\nA strong quake collapsed a bridge\n\n"
             "YANGON, Burma (AP) — A strong earthquake collapsed a bridge in northern Burma.\n\n"
             "It was a magnitude-6.8 quake, said the agency, and\n\nnot the first.")
    text, cut = window(story, story, 500, estimate_tokens)
    assert not cut and quotable(text) == [
        "Aye Aye Win, AP", "A strong quake collapsed a bridge",
        "A strong earthquake collapsed a bridge in northern Burma.",  # its dateline left out
        "It was a magnitude-6.8 quake, said the agency, and not the first."]  # ends on "and"
    # the agency's name on a line of its own is no sentence
    assert quotable(window("Doug Stanglin\n\nUSA TODAY\n\nTime named the Ebola fighters.",
                           "", 500, estimate_tokens)[0]) == ["Doug Stanglin",
                                                             "Time named the Ebola fighters."]
    # a figure alone is read with what follows it ("$5" "That's how much a gallon…"); a label
    # in capitals and a quiz's lettered choices stay the newsletter's furniture
    letter = ("QUIZ TIME\n\nStarbucks brought back a drink. What does PSL stand for?\n\n"
              "A. MacBook\n\nB. iPad\n\nC. Apple Watch\n\nD. iPhone\n\nTODAY'S NUMBER\n\n$5"
              "\n\nThat's how much a gallon of regular gas now costs.")
    assert quotable(window(letter, "", 500, estimate_tokens)[0]) == [
        "What does PSL stand for?",
        "TODAY'S NUMBER $5 That's how much a gallon of regular gas now costs."]


def test_a_window_past_the_opening_keeps_the_byline_and_the_lead():
    # the opening kept before a window is the story's first sentence, not its byline alone
    lead = "Time magazine has named the Ebola fighters as its Person of the Year."
    body = [f"Crews in town {i} restored lines to {i} thousand homes on the island." for i in range(60)]
    story = "Doug Stanglin\n\nUSA TODAY\n\n" + lead + "\n\n" + " ".join(body)
    text, cut = window(story, " ".join(body[40:43]), 120, estimate_tokens)
    assert cut and runs(text)[0] == ["Doug Stanglin", lead]


def test_only_a_story_s_opening_is_read_as_a_dateline():
    # a passage cut from later in its story ("… ") starts with no dateline
    assert quotable("… The vote came late. Washington (CNN) Kansas voted.")[1] == (
        "Washington (CNN) Kansas voted.")


@pytest.mark.parametrize("text, quoted", [
    ("Brandon Bell/Getty Images A deadly avian flu has meant fewer eggs.",
     ["A deadly avian flu has meant fewer eggs."]),
    ("National Park Service/AP The park began evacuating people Monday.",
     ["The park began evacuating people Monday."]),
    ("JUST WATCHED See the flooding that shut the park Replay More Videos ... The park closed.",
     ["The park closed."]),
    ("JUST WATCHED What is a bear market? Stocks fell on Monday.", ["Stocks fell on Monday."]),
    ("MUST WATCH 'No way out': A commentator predicts his future 02:10 May faced a vote.",
     ["May faced a vote."]),
    ("Hide Caption 7 of 59 Photos: The royal family met naturalist David Attenborough.",
     ["The royal family met naturalist David Attenborough."]),
    ("(Photo by Justin Sullivan/Getty Images) Gas prices over $6 are displayed.",
     ["Gas prices over $6 are displayed."]),
    ("Editors USA TODAY Biden is set to announce the plan.", ["Biden is set to announce the plan."]),
    ("QUIZ TIME Which landmark is rusting? A. Eiffel Tower B. Golden Gate Bridge C. Taj Mahal "
     "D. Big Ben IN MEMORIAM James Caan has died.",
     ["IN MEMORIAM James Caan has died."]),
    # the quiz's question restates what is asked and answers nothing
    ("QUIZ TIME Starbucks brought back its drink known as the \"PSL.\" What does it stand for? "
     "A. one B. two C. three D. four IN MEMORIAM James Caan has died.",
     ["What does it stand for?", "IN MEMORIAM James Caan has died."]),
    ("1. How relevant is this ad to you? Video player was slow to load content Video content "
     "never loaded Ad froze or did not finish loading Audio on ad was too loud Other issues "
     "The park closed.", ["1.", "The park closed."]),
    # not furniture: a slash in the text, a credit-like word mid-sentence
    ("The 24/7 news cycle wears on. He quoted AP reports.",
     ["The 24/7 news cycle wears on.", "He quoted AP reports."]),
    ("A. J. Smith met B. B. King. C. S. Lewis wrote it.",
     ["A. J. Smith met B. B. King.", "C. S. Lewis wrote it."]),
])
def test_a_news_page_s_furniture_is_not_quoted(text, quoted):
    # a video widget, a gallery counter, a photo credit or a byline is not what the story says
    assert quotable(text) == quoted


def test_a_quote_that_names_no_holder_of_the_office_asked_about_says_so_first():
    tq = TQ("Who was Home Secretary in 2020?", "point_in_time", start=dt.date(2020, 1, 1),
            end=dt.date(2020, 12, 31), semantic_query="Home Secretary")
    said = "The Home Secretary has appointed a clandestine channel threat commander."
    res = result("hard_filter", tq, [hit(1, "2020-10-21", said, speaker="Chris Philp")])
    done = run(res, evidence_only=True)[-1]
    # "Chris Philp [1]: “The Home Secretary has…”" must not read as naming him
    assert done.answer.startswith("No source found names who held that office; the closest "
                                  "they come:\nChris Philp [1] (21 October 2020): “")
    named = "The Home Secretary, Priti Patel, has appointed a clandestine channel threat commander."
    done = run(replace(res, hits=[hit(1, "2020-10-21", named, speaker="Chris Philp")]),
               evidence_only=True)[-1]
    assert done.answer.startswith("Priti Patel, named as Home Secretary by Chris Philp on "
                                  "21 October 2020 [1]: “")


def test_an_office_acting_in_the_question_is_not_asked_of_its_holder():
    # the President nominates; the nominee is asked for, whom no "President" names
    tq = TQ("Whom did the President nominate to the Supreme Court in July 2005?", "point_in_time",
            start=dt.date(2005, 7, 1), end=dt.date(2005, 7, 31),
            semantic_query="Whom did the President nominate to the Supreme Court")
    said = "The President has nominated Judge John Roberts to the Supreme Court."
    res = result("hard_filter", tq, [hit(1, "2005-07-20", said, speaker="Bill Frist")])
    done = run(res, evidence_only=True)[-1]
    assert done.answer == "Bill Frist [1] (20 July 2005): “" + said + "”"


@pytest.mark.parametrize("question, asked", [
    ("Who was Home Secretary in 2020?", True),
    ("Which MP was Chancellor in July 2022?", True),
    ("Which minister was Health Secretary in November 2013?", True),
    ("Who took over as Secretary of State for Defence in October 2011?", True),
    ("Who replaced Boris Johnson as Prime Minister?", True),
    ("Whom did the President nominate to the Supreme Court?", False),
    ("Who did President Joe Biden say was killed?", False),
    ("Who chaired the House of Lords Leader's Group on the code of conduct?", False),
    ("Which minister replied to the debate on Sri Lanka?", False),
])
def test_an_office_is_asked_of_its_holder_where_a_word_of_being_comes_before_it(question, asked):
    assert office_asked(question) is asked


def test_an_office_that_changed_hands_in_the_period_names_each_holder_in_date_order():
    tq = TQ("Who was Prime Minister in 2022?", "point_in_time", start=dt.date(2022, 1, 1),
            end=dt.date(2022, 12, 31), semantic_query="Who was Prime Minister")
    hits = [
        hit(1, "2022-03-23", "The Prime Minister, my right hon. Friend the Member for Uxbridge "
            "and South Ruislip (Boris Johnson), has spoken to President Zelensky.",
            speaker="Ben Wallace", score=0.9),
        hit(2, "2022-11-17", "The Prime Minister, my right hon. Friend the Member for Richmond "
            "(Yorks) (Rishi Sunak), and I are clear about our priority.", speaker="Jeremy Hunt"),
    ]
    res = result("hard_filter", tq, hits)
    roles = {1: "The Secretary of State for Defence", 2: "The Chancellor of the Exchequer"}
    # the model names one of them: true of March, but not the answer for the year
    said = "The Prime Minister, Boris Johnson, has spoken to President Zelensky [1]."
    done = run(res, ScriptedGenerator([said]), roles=roles)[-1]
    assert done.extractive and len(done.dropped) == 1
    assert "gives another person" in done.dropped[0].reason
    assert done.answer.startswith(
        "The sources of 2022 name 2 holders of that office in turn, in date order:\n"
        "Boris Johnson, named as Prime Minister by Ben Wallace on 23 March 2022 [1]: “")
    assert "\nRishi Sunak, named as Prime Minister by Jeremy Hunt on 17 November 2022 [2]: “" \
        in done.answer
    assert done.citations == [1, 2]


LAST_YEAR = "Last year more than 28,000 people crossed the channel in small boats."


def boats_2022(said: str = LAST_YEAR) -> SearchResult:
    """"How many small boat arrivals were there in 2022?" over one speech of April 2022."""
    tq = TQ("How many small boat arrivals were there in 2022?", "point_in_time",
            start=dt.date(2022, 1, 1), end=dt.date(2022, 12, 31),
            semantic_query="How many small boat arrivals were there")
    return result("hard_filter", tq, [hit(1, "2022-04-19", said, speaker="Priti Patel")])


def test_a_quoted_figure_of_another_year_than_asked_says_so_first():
    res = boats_2022()
    done = run(res, evidence_only=True)[-1]
    # the 2021 figure is the nearest the sources come, and must not read as 2022's
    assert done.answer.startswith("No source found gives the figure for 2022; the closest they "
                                  "come:\nPriti Patel [1] (published 19 April 2022): “Last year")
    assert done.answer.endswith("(Last year: 2021).")
    this_year = "This year more than 4,000 people have crossed the channel in small boats."
    done = run(boats_2022(this_year), evidence_only=True)[-1]
    assert done.answer.startswith("Priti Patel [1] (19 April 2022): “This year")


REPORTED = ("Home Office figures show that 36,816 people crossed the English Channel in small "
            "boats in 2024, up from 29,437 in 2023 but below the record of 45,774 in 2022.")


def test_an_answer_whose_sources_never_name_whom_it_asks_about_says_so_first():
    res = hybrid_result()
    res = replace(res, query=replace(res.query, question="What did Roger Federer say about mortgage costs?"))
    events = run(res, ScriptedGenerator(["Borrowers face higher mortgage costs [1]."]))
    done = events[-1]
    tokens = [e.text for e in events if isinstance(e, Token)]
    assert tokens[0] == "No source found mentions Roger Federer; the closest they come:\n"
    assert done.unmentioned == ["Roger Federer"] and done.to_dict()["unmentioned"] == ["Roger Federer"]
    assert done.answer == tokens[0] + "Borrowers face higher mortgage costs [1]."
    # the quoted answer opens the same way; a name the sources give (Jane Smith) is not listed
    res = replace(res, query=replace(res.query, question="What did Jane Smith and Roger Federer say?"))
    done = run(res, evidence_only=True)[-1]
    assert done.extractive and done.unmentioned == ["Roger Federer"]
    assert done.answer.startswith("No source found mentions Roger Federer; the closest they "
                                  "come:\nJane Smith [1] (20 May 2019): “")
    # a question whose names the sources give opens with the answer itself
    assert run(hybrid_result(), evidence_only=True)[-1].unmentioned == []


def test_a_window_moved_to_a_whole_sentence_keeps_every_matched_word():
    # A match at the end of a passage grows its window leftwards; starting that window at a
    # whole sentence must not give up the matched chunk's own last sentence at the other end.
    sentences_ = [f"Item {i} " + " ".join(f"w{i}x{j}" for j in range(17)) + " ends." for i in range(40)]
    chunk = " ".join(sentences_[37:])
    text, cut = window(" ".join(sentences_), chunk, 120, estimate_tokens)
    assert cut and chunk in text
    assert text.endswith(sentences_[-1]) and quotable(text)[-1] == sentences_[-1]


def test_an_opening_followed_by_its_window_is_one_run():
    # When the window starts at the sentence right after the opening, nothing lies between
    # them: no " … ", and the two are ranked and quoted as one run.
    lead = "More than a million people are without power after Hurricane Fiona struck."
    body = [f"Crews in town {i} restored lines to {i} thousand homes on the island." for i in range(60)]
    passage = " ".join([lead, *body])
    text = _with_lead(passage, "… " + " ".join(body[:5]) + "…", 120, estimate_tokens)
    assert text == f"{lead} {' '.join(body[:5])}…"
    assert len(runs(text)) == 1 and runs(text)[0][:2] == [lead, body[0]]


def test_the_quote_comes_first_and_the_checked_sentences_beneath_it():
    events = run(hard_filter_result(), ScriptedGenerator(["The Bank raised interest rates [2]."]))
    kinds = [type(e) for e in events if not isinstance(e, Writing)]
    assert kinds == [Retrieved, Quoted, Token, Done]
    quoted, done = next(e for e in events if isinstance(e, Quoted)), events[-1]
    # the answer itself is unchanged: the model's checked sentence; the shells show it under
    # the quote
    assert done.answer == "The Bank raised interest rates [2] (20 May 2019)."
    assert done.shown == quoted.text + "\n\n" + done.answer
    # with nothing from the model, the quote is the answer, sent again only to keep the
    # Token texts adding up to it
    events = run(hard_filter_result(), ScriptedGenerator(["Prices doubled."]))
    tokens = [e for e in events if isinstance(e, Token)]
    done = events[-1]
    assert [t.repeat for t in tokens] == [True] and tokens[0].text == done.answer
    assert done.shown == done.answer == next(e for e in events if isinstance(e, Quoted)).text


def test_a_comparison_says_which_period_has_no_documents_and_the_nearest():
    events = run(comparison_result(), evidence_only=True)
    quoted, done = next(e for e in events if isinstance(e, Quoted)), events[-1]
    assert quoted.notes == [
        "No documents from March 2016: the nearest are [1] (1 March 2012), [2] (15 November 2023)."]
    assert done.shown.startswith(quoted.notes[0] + "\n")
    # a note beside the answer, not part of it
    assert "March 2016" not in done.answer and "shown" not in done.to_dict()


def test_a_period_that_only_later_sources_speak_of_is_not_said_to_have_no_documents():
    # "No documents from that period" only when nothing was published in it and nothing speaks
    # of it: a source of 2017 in March 2016's block speaks of it, and the reader is told that
    # the period is answered from another time.
    res = comparison_result()
    later = hit(5, "2017-04-02", "In March last year inflation was 0.5 per cent.", score=0.7,
                group="March 2016")
    events = run(replace(res, hits=res.hits + [later]), evidence_only=True)
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert not any(n.startswith("No documents from March 2016") for n in quoted.notes)
    assert ("Nothing published in March 2016 was found; it is answered from what speaks of it: "
            "[3] (2 April 2017).") in quoted.notes
    assert "March 2016" in quoted.text  # the period is answered from what speaks of it
    # when no line of them answers for the period, the note does not say they do
    aside = hit(5, "2017-04-02", "The weather in March last year was mild.", score=0.7,
                group="March 2016")
    events = run(replace(res, hits=res.hits + [aside]), evidence_only=True)
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert "March 2016" not in quoted.text
    assert ("Nothing published in March 2016 was found, and nothing quoted speaks of it; its "
            "sources are [3] (2 April 2017).") in quoted.notes


def test_a_period_answered_by_a_line_of_another_period_s_source_says_so():
    # March 2016 has no source of its own; a 2023 source's line states its figure, so the
    # period is quoted from that line, under its own label, and the note names that source
    res = comparison_result()
    hits = [replace(h, group=g) for h, g in zip(res.hits, ("2012", "2023"))] + [
        hit(5, "2023-11-20", "Inflation was 4.6 per cent in October 2023, against 0.5 per cent "
            "in March 2016.", score=0.7, group="2023")]
    events = run(replace(res, hits=hits), evidence_only=True)
    quoted = next(e for e in events if isinstance(e, Quoted))
    march = [line for line in quoted.text.splitlines() if line.startswith("March 2016: ")]
    assert len(march) == 1 and "0.5 per cent in March 2016" in march[0]
    assert any(n.startswith("Nothing published in March 2016 was found; it is answered from "
                            "what speaks of it: [") for n in quoted.notes)
    assert not any(n.startswith("No documents from March 2016") for n in quoted.notes)
    # with a source of the period's own block nearer to it, the quoted one is still named first
    near = hit(6, "2017-01-10", "Prices rose in 2016 as the pound fell.", score=0.6,
               group="March 2016")
    events = run(replace(res, hits=hits[:2] + [near, hits[2]]), evidence_only=True)
    quoted = next(e for e in events if isinstance(e, Quoted))
    assert ("Nothing published in March 2016 was found; it is answered from what speaks of it: "
            "[3] (20 November 2023), [4] (10 January 2017).") in quoted.notes


def test_an_answer_about_now_from_old_sources_says_how_old():
    res = decay_result()
    old = run(res, evidence_only=True)[-1]
    assert old.shown.startswith("The newest source is 7 months old (15 November 2023, as of "
                                "1 June 2024).\n")
    fresh = replace(res, query=replace(res.query, as_of=dt.date(2023, 12, 1)))
    assert "newest source" not in run(fresh, evidence_only=True)[-1].shown


def test_the_streamed_answer_and_the_finished_one_are_laid_out_by_one_function():
    """The CLI streams the quote, then the checked sentences as a paragraph beneath it; what it
    prints adds up to Done.shown, which `beneath` lays out with the same `paragraph_beneath`."""
    from trag_tui.answering.events import beneath, paragraph_beneath
    from trag_tui.cli import _streamed

    events = run(decay_result(), ScriptedGenerator(["Inflation fell to 2 per cent [1]."]))
    printed, quoted = [], None
    for event in events:
        if isinstance(event, (Quoted, Token)):
            text, quoted = _streamed(event, quoted)
            printed.append(text)
    done = events[-1]
    lead = next(e for e in events if isinstance(e, Quoted)).shown
    assert not done.extractive and "".join(printed) == done.shown
    assert done.shown == beneath(lead, done.answer.strip()) == lead + paragraph_beneath(done.answer)


def test_a_sentence_cut_where_a_passage_ends_is_quoted_whole(tmp_path):
    # passages are cut from a document by word count: the one ending "…rose in June" and the
    # one beginning "to a level 3 percent higher…" each quote the sentence whole
    filler = " ".join(f"Sentence number {i} says little." for i in range(150))
    after = " ".join(f"Line {i} adds little." for i in range(170))
    # a heading's line ends it as a stop does: it is not taken into the sentence after it
    text = (filler + "\n\nFarm prices\n\nThe Minnesota farm price index rose in June to a level 3 "
            "percent higher than in May. Meat prices account for much of the increase. " + after)
    words = text.split()
    cut = words.index("June") + 1
    idx = jsonl_index(tmp_path, [{"id": "bb", "date": "1987-08-03", "title": "Beige Book",
                                  "text": text}], chunk_words=cut, chunk_overlap=0,
                      parent_words=cut)
    try:
        from trag_tui.answering.sources import fetch_quotes
        ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks WHERE searchable = 1")]
        assert len(ids) == 2
        hits = [type("Hit", (), {"chunk_id": i, "text": ""})() for i in ids]
        passages = [t for t, _ in fetch_quotes(idx.conn, hits).values()]
        whole = "rose in June to a level 3 percent higher than in May."
        assert all(whole in p for p in passages)
        first, second = sorted(passages, key=lambda p: not p.startswith("Sentence number 0"))
        assert first.endswith(whole) and second.startswith("The Minnesota farm")
    finally:
        idx.close()
