"""The whole-passage prompt and the streaming citation filter of bench/answer_quality.py's
`whole` pipeline (how answers were made before the gate)."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from bench.whole_prompt import CitationFilter, build_context, check_citations
from tests.answering.results import (
    RESULTS,
    decay_result,
    evolution_result,
    golden,
    hard_filter_result,
    long_result,
    passages_for,
    run,
)
from tests.fakes import ScriptedGenerator
from trag_tui.answering.events import Done, Token
from trag_tui.answering.prompt import prompt_text
from trag_tui.errors import GenerationError
from trag_tui.models.generation import estimate_tokens
from trag_tui.render import render_answer


@pytest.mark.parametrize("mode", sorted(RESULTS))
def test_whole_passage_prompt_matches_golden(mode):
    # The numbered sources a reader sees, as a whole-passage prompt (what bench compares with).
    res = RESULTS[mode]()
    golden(f"prompt_{mode}", prompt_text(build_context(res, passages_for(res.hits)).messages))


def test_decay_is_newest_first_and_states_as_of():
    gen = ScriptedGenerator(["ok"])
    res = decay_result()
    events = run(res, gen)
    sources = events[0].sources
    assert [s.date for s in sources] == ["2023-11-15", "2019-05-20", "2012-03-01"]
    assert [s.number for s in sources] == [1, 2, 3]
    user = gen.messages[1]["content"]
    assert "Today is 1 June 2024" in user and "the newest is right" in user
    assert user.index("[1] 15 November 2023") < user.index("[2] 20 May 2019") < user.index("[3] 1 March 2012")
    assert sources[1].also == ("doc-9", "doc-10")
    full = build_context(res, passages_for(res.hits)).messages[1]["content"]
    assert "also reported in: doc-9, doc-10" in full and "supersede" in full


def test_parent_passages_are_quoted():
    res = hard_filter_result()
    events = run(res, ScriptedGenerator(["ok"]))
    assert all(s.passage.startswith("Order, order.") for s in events[0].sources)
    assert "The debate continued." in build_context(res, passages_for(res.hits)).messages[1]["content"]


def test_long_passages_are_windowed_to_the_source_limit():
    res = long_result(2)
    ctx = build_context(res, {}, n_ctx=4096, max_tokens=256, source_tokens=100)
    assert ctx.trimmed and len(ctx.sources) == 2
    assert all(estimate_tokens(s.passage) <= 100 for s in ctx.sources)
    assert ctx.prompt_tokens <= ctx.budget


def test_budget_trims_then_drops_the_least_relevant():
    res = long_result(8)
    roomy = build_context(res, {}, n_ctx=1024, max_tokens=256, source_tokens=400)
    assert roomy.prompt_tokens <= 1024 - 256 and roomy.trimmed
    assert len(roomy.sources) == 8 and not roomy.dropped  # shortening evenly was enough
    ctx = build_context(res, {}, n_ctx=700, max_tokens=256, source_tokens=400)
    assert ctx.prompt_tokens <= 700 - 256
    assert ctx.dropped and len(ctx.sources) < 8
    # the most relevant survive, renumbered from 1 without gaps
    assert [s.doc_id for s in ctx.sources] == [f"doc-{i}" for i in range(1, len(ctx.sources) + 1)]
    assert [s.number for s in ctx.sources] == list(range(1, len(ctx.sources) + 1))
    assert set(ctx.dropped) == {f"doc-{i}" for i in range(len(ctx.sources) + 1, 9)}


def test_budget_keeps_a_source_in_every_period():
    res = evolution_result()
    big = {h.chunk_id: " ".join(["inflation talk."] * 300) for h in res.hits}
    ctx = build_context(res, big, n_ctx=600, max_tokens=200)
    assert {s.group for s in ctx.sources} == {"older", "middle", "newer"}
    assert ctx.prompt_tokens <= 400


def test_prompt_that_cannot_fit_raises_one_line_error():
    res = decay_result()
    with pytest.raises(GenerationError) as err:
        build_context(res, {}, n_ctx=120, max_tokens=100)
    assert "\n" not in str(err.value) and "tokens" in str(err.value)


def test_invalid_citations_are_removed_and_flagged():
    gen = ScriptedGenerator(["The Bank raised interest rates to curb inflation [2]", " [7].",
                             " The inflation target remains 2 per cent [1, 9]", " [12]."])
    events = run(hard_filter_result(), gen)
    done = events[-1]
    assert isinstance(done, Done)
    assert done.answer == ("The Bank raised interest rates to curb inflation [2] (20 May 2019). "
                           "The inflation target remains 2 per cent [1] (11 February 2019).")
    assert done.citations == [1, 2] and done.invalid_citations == [7, 9, 12]
    assert not done.unsupported and not done.extractive
    assert "".join(e.text for e in events if isinstance(e, Token)) == done.answer
    assert "[7]" in render_answer(done) and "do not exist" in render_answer(done)


def test_citation_split_across_tokens():
    f = CitationFilter({1, 2})
    out = "".join(f.feed(p) for p in ["See", " [", "1", "]", " and", " [", "3", "]", "."]) + f.flush()
    assert out == "See [1] and." and f.cited == [1] and f.invalid == [3]


def test_a_citation_formed_by_removing_another_is_checked_too():
    # "[[0]0]" is "[0]" once the invalid "[0]" goes: removed whole and streamed alike
    assert check_citations("a [[0]0] b", {1}) == ("a b", [], [0])
    f = CitationFilter({1})
    assert "".join(f.feed(p) for p in ["a [[0]", "0] b"]) + f.flush() == "a b"
    assert check_citations("a [[0]1]", {1}) == ("a [1]", [1], [0])


def test_brackets_that_are_not_citations_pass_through():
    text, cited, invalid = check_citations("A list [a, b] and a year [2010] stays [ok].", {1})
    assert text == "A list [a, b] and a year [2010] stays [ok]."
    assert cited == [] and invalid == []


@given(st.text(alphabet="ab [],.0123456789\n", max_size=60), st.lists(st.integers(1, 8), max_size=6))
@hsettings(max_examples=300, deadline=None)
def test_streaming_filter_equals_whole_text_filter(text, cuts):
    valid = {1, 2, 3}
    whole, cited, invalid = check_citations(text, valid)
    f = CitationFilter(valid)
    pieces, pos = [], 0
    for c in cuts:
        pieces.append(text[pos:pos + c])
        pos += c
    pieces.append(text[pos:])
    streamed = "".join(f.feed(p) for p in pieces) + f.flush()
    assert streamed == whole
    assert sorted(f.cited) == cited and sorted(f.invalid) == invalid
