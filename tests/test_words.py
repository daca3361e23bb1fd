"""The answer side's one stemmer: the forms of a word meet, and different words stay apart."""
from __future__ import annotations

import pytest

from trag_tui.text.words import content_words, stem


@pytest.mark.parametrize("forms", [
    ("peak", "peaks", "peaked", "peaking"),
    ("rate", "rates", "rated"),
    ("raise", "raised", "raises", "raising"),
    ("class", "classes"),
    ("unemployment", "unemployed"),
    ("country", "countries"),
])
def test_the_forms_of_a_word_share_one_stem(forms):
    assert len({stem(w) for w in forms}) == 1, {w: stem(w) for w in forms}


@pytest.mark.parametrize("a,b", [("peak", "pea"), ("class", "clash"), ("rate", "ratio"),
                                 ("bus", "bu"), ("used", "us")])
def test_different_words_keep_different_stems(a, b):
    assert stem(a) != stem(b)


def test_a_question_s_verb_meets_the_sentence_s_other_form():
    # "When did Bank Rate peak?" over "Bank Rate peaked at 5.25 per cent…"
    assert content_words("When did Bank Rate peak?") <= content_words(
        "Bank Rate peaked at 5.25 per cent between August 2023 and August 2024.")
