"""The million-chunk bench times enough questions of every mode for its p50s to mean something."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2].parent / "shared"


@pytest.mark.skipif(not (SHARED / "corpora").is_dir(), reason="the shared corpora are not here")
def test_every_mode_has_its_share_of_the_questions():
    from bench.scale_bench import PER_MODE, queries
    from trag_tui.temporal.question import parse

    asked = queries(120)
    modes = Counter(parse(q, as_of).intent for q, as_of in asked)
    assert set(modes) == {"point_in_time", "current", "evolution", "comparison", "none"}
    assert min(modes.values()) >= PER_MODE
    assert len(set(asked)) == len(asked)  # no question timed twice
