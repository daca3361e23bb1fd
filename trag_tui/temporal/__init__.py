"""Reading time: in a question (its intent and periods) and in a document (its date).

- `calendar`: period arithmetic (months, quarters, N units back);
- `lexicon`: the words and regex pieces, every language in one place;
- `rules`: the table of time expressions, one (regex, handler) row each;
- `cues`: the words that reveal the intent (current, evolution, comparison, a quantity);
- `dateparse`: the one dateparser wrapper, for what the table does not list;
- `question`: a question's `TemporalQuery`, following the temporal-query contract;
- `document_dates`: a document's date from its file name or its text.
"""
from __future__ import annotations

__all__ = ["TemporalQuery", "parse", "soft_edge"]


def __getattr__(name: str):
    # Imported on first use: indexing dates documents without paying for the question rules.
    if name in __all__:
        from . import question

        return getattr(question, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
