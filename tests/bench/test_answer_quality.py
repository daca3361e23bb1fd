"""The answer bench's scorer: a gold answer is held by the words a reader would take for it."""
from bench.answer_quality import holds


def test_a_count_in_words_holds_its_digits():
    assert holds("A Russian judge sentenced Brittney Griner to nine years", "9")
    assert holds("An estimated one million people gathered", "1 million")
    assert holds("They have been married four times", "Four")
    assert holds("rose to 5.0 per cent", "5%")


def test_words_that_are_not_that_count_do_not_hold_it():
    assert not holds("one of the few members of the cabinet", "1")
    assert not holds("nineteen years", "9")
    assert not holds("$4.96", "$4")
    assert not holds("someone said it", "1")


def test_an_evolution_answers_block_labels_are_no_unsupported_names():
    from bench.answer_quality import unsupported_terms

    answer = ("Older sources: Gina [2] (8 February 2023): “I found a new fashion piece.”\n"
              "Newer sources: Gina [9] (13 June 2023): “I made a video for Zara.”")
    sources = "I found a new fashion piece. I made a video."
    assert unsupported_terms(answer, sources, "When did Gina make a video?") == ["zara"]


def test_a_comparisons_key_is_held_only_when_each_periods_figure_is():
    answer = "June 2010: CPI was 3.4 per cent. November 2023: CPI was 4.6 per cent."
    assert holds(answer, "3.4% | 4.6%")
    assert not holds("June 2010: CPI was 3.4 per cent.", "3.4% | 4.6%")
