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
