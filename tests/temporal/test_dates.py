"""Date readers: table cases for what is understood, properties for what must never happen."""
from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trag_tui.temporal.document_dates import (
    MAX_YEAR,
    MIN_YEAR,
    date_from_filename,
    date_from_text,
    parse_iso,
)

D = dt.date


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("debates2009-10-27d.xml", D(2009, 10, 27)),
        ("westminster2009-10-28a.xml", D(2009, 10, 28)),
        ("spwa2009-10-29.xml", D(2009, 10, 29)),
        # Public Bill Committee: the committee's start date first, the sitting last.
        ("standing2009-10-20_CHILDPOV_05-0_2009-10-27a.xml", D(2009, 10, 27)),
        ("2019-03-28-net-migration.md", D(2019, 3, 28)),
        ("report_20190328.txt", D(2019, 3, 28)),
        ("minutes_2019_03_28.txt", D(2019, 3, 28)),
        ("scan.2019.03.28.md", D(2019, 3, 28)),
        ("2019-03-28_to_2019-04-02.txt", D(2019, 4, 2)),
        ("2019-03-28 then 20230013.txt", D(2019, 3, 28)),  # the later run is no date
        ("notes-2023-13-45.md", None),
        ("2023-02-30.txt", None),
        ("report_123456789.txt", None),
        ("2019-03_28.txt", None),  # mixed separators
        ("v1.2.3.txt", None),
        ("readme.md", None),
        ("0000-01-01.txt", None),
        ("", None),
    ],
)
def test_date_from_filename(name, expected):
    assert date_from_filename(name) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Published 14 March 2024. Updated 2 April 2024.", D(2024, 3, 14)),
        ("Thursday 5th of November, 2009", D(2009, 11, 5)),
        ("Report dated 14 Sept. 2023", D(2023, 9, 14)),
        ("As of March 14, 2024 the rate was", D(2024, 3, 14)),
        ("Dec 1st 1999", D(1999, 12, 1)),
        ("Filed 2024-03-14 at noon", D(2024, 3, 14)),
        ("Filed 2024/03/14", D(2024, 3, 14)),
        ("Signed 14/03/2024", D(2024, 3, 14)),
        ("Signed 03/04/2024", D(2024, 4, 3)),  # day first
        ("Signed 12/31/2024", D(2024, 12, 31)),  # month first only when day first is impossible
        ("Signed 14.03.2024", D(2024, 3, 14)),
        ("First 2 May 2020 then 2019-01-01", D(2020, 5, 2)),  # the first in the text wins
        ("31 February 2024, then 1 March 2024", D(2024, 3, 1)),  # impossible dates are passed over
        ("in March 2024 and in 2025", None),  # no day: not a full date
        ("Version 1.2.2024", D(2024, 2, 1)),
        ("12 votes 2024", None),
        ("", None),
        ("call 020 7219 3000", None),
    ],
)
def test_date_from_text(text, expected):
    assert date_from_text(text) == expected


def test_date_from_text_other_languages_via_dateparser():
    assert date_from_text("Veröffentlicht am 14. März 2024") == D(2024, 3, 14)
    assert date_from_text("Publié le 14 mars 2024") == D(2024, 3, 14)


def test_date_from_text_only_reads_the_opening():
    text = "x" * 6000 + " 14 March 2024"
    assert date_from_text(text) is None
    assert date_from_text(text, max_chars=7000) == D(2024, 3, 14)


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("2009-10-27", D(2009, 10, 27)),
        (" 2009-10-27 ", D(2009, 10, 27)),
        ("2009-10-27T14:30:00Z", D(2009, 10, 27)),
        ("2009-10-27 14:30", D(2009, 10, 27)),
        ("2009-13-27", None),
        ("2009-10", None),
        ("27/10/2009", None),
        ("", None),
        ("2009-10-27 and more words", None),
    ],
)
def test_parse_iso(s, expected):
    assert parse_iso(s) == expected


def test_parse_iso_rejects_non_strings():
    assert parse_iso(None) is None  # type: ignore[arg-type]
    assert parse_iso(20091027) is None  # type: ignore[arg-type]


def _valid(d):
    return d is None or (isinstance(d, dt.date) and MIN_YEAR <= d.year <= MAX_YEAR)


dates_in_range = st.dates(min_value=D(MIN_YEAR, 1, 1), max_value=D(MAX_YEAR, 12, 31))
# Text that looks date-ish often: digits, separators and month words mixed with noise.
datey_text = st.lists(
    st.one_of(
        st.text(max_size=12),
        st.sampled_from(["-", "/", ".", "_", " ", ", ", "March", "Sept.", "of", "mars", "31st", "2024"]),
        st.integers(0, 99999999).map(str),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(datey_text)
def test_readers_never_raise_and_return_valid_dates(s):
    assert _valid(date_from_filename(s))
    assert _valid(date_from_text(s))
    assert _valid(parse_iso(s))


@given(dates_in_range)
def test_filename_round_trip(d):
    assert date_from_filename(f"report_{d:%Y%m%d}.txt") == d
    assert date_from_filename(f"{d.isoformat()}-notes.md") == d
    assert date_from_filename(f"standing2000-01-01_BILL_01-0_{d.isoformat()}a.xml") == d


@given(dates_in_range, st.sampled_from(["{d.day} {m} {d.year}", "{m} {d.day}, {d.year}", "{d:%d/%m/%Y}",
                                        "{d:%Y-%m-%d}"]))
def test_text_round_trip(d, template):
    text = "Published " + template.format(d=d, m=d.strftime("%B")) + " by the Bank."
    assert date_from_text(text) == d


@given(dates_in_range)
def test_parse_iso_round_trip(d):
    assert parse_iso(d.isoformat()) == d
