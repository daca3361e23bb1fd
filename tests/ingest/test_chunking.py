"""Chunking keeps offsets exact and covers every word."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from trag_tui.chunking import chunk_text


def _words(n: int) -> str:
    return " ".join(f"w{i}" for i in range(n))


def test_short_document_is_one_searched_chunk():
    chunks = chunk_text("A short speech about NHS funding.", 200, 40, 600)
    assert len(chunks) == 1 and chunks[0].searchable and chunks[0].parent is None


def test_parent_child_layout_and_offsets():
    text = _words(1500)
    chunks = chunk_text(text, 200, 40, 600)
    parents = [c for c in chunks if not c.searchable]
    children = [c for c in chunks if c.searchable]
    assert len(parents) == 3
    for c in chunks:
        assert text[c.start_char:c.end_char] == c.text
    for c in children:
        p = chunks[c.parent]
        assert p.start_char <= c.start_char and c.end_char <= p.end_char
        assert len(c.text.split()) <= 200
    covered = set()
    for c in children:
        covered.update(c.text.split())
    assert covered == set(text.split())


@given(st.text(max_size=3000), st.integers(5, 60), st.integers(0, 4))
@settings(max_examples=60, deadline=None)
def test_children_cover_all_words(text, size, overlap):
    chunks = chunk_text(text, size, overlap, size * 3)
    words = text.split()
    got = [w for c in chunks if c.searchable for w in c.text.split()]
    assert set(got) == set(words)
    for c in chunks:
        assert text[c.start_char:c.end_char] == c.text
