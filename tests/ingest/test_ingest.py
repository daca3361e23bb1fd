"""Ingestion readers: real ParlParse files against an independent conversion, and hostile input."""
from __future__ import annotations

import datetime as dt
import functools
import json
import os
import re
import time
from pathlib import Path

import pytest

from trag_tui.errors import IngestError
from trag_tui.ingest import FileRead, discover, read_file

D = dt.date

# --------------------------------------------------------------------------------------------
# Real ParlParse files (third-party) against the reference conversion in docs.jsonl
# --------------------------------------------------------------------------------------------

SUPERSEDED = {
    "debates2009-10-27a.xml", "debates2009-10-27b.xml", "debates2009-10-27c.xml",
    "ministerial2009-10-26a.xml", "ministerial2009-10-26b.xml",
    "answers2009-10-27a.xml", "answers2009-10-27b.xml",
}
# File-name prefix -> GID namespace: how ParlParse names the GIDs a file holds. Lords written
# answers and statements share `wrans`/`wms` with the Commons, so ids are matched by chamber too.
GID_NAMESPACE = {
    "debates": "debate", "westminster": "westminhall", "daylord": "lords", "answers": "wrans",
    "ministerial": "wms", "lordswms": "wms", "lordswrans": "wrans", "ni": "ni", "sp": "spor",
    "spwa": "spwa", "standing": "standing",
}


def _gid_prefix(name: str) -> str:
    stem = name.removesuffix(".xml")
    m = re.match(r"(lordswms|lordswrans|spwa|sp|ni|debates|westminster|daylord|answers|ministerial|standing)"
                 r"(.*)", stem)
    kind, day = m.groups()
    # Committee GIDs keep the whole file stem: .../standing/standing2009-10-20_CHILDPOV_05-0_2009-10-27a.1.1
    return f"uk.org.publicwhip/{GID_NAMESPACE[kind]}/{stem if kind == 'standing' else day}."


def _repair_c1(s: str) -> str:
    # The reference keeps ParlParse's C1 control codes (&#146;); the reader maps them to cp1252.
    return re.sub("[\x80-\x9f]", lambda m: m.group(0).encode("latin-1").decode("cp1252", "ignore"), s)


def _is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(line == other for other in it) for line in small)


@pytest.fixture
def hansard(shared_dir):
    """(reference docs by id, FileRead by raw path), read once per session."""
    return _read_hansard(shared_dir / "corpora" / "uk_hansard")


@functools.lru_cache(maxsize=1)
def _read_hansard(root: Path):
    oracle = {}
    with open(root / "docs.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            oracle[rec["id"]] = rec
    reads = {}
    for path in discover([root / "raw"]):
        reads[path] = read_file(path)
    return oracle, reads


def test_hansard_every_raw_file_is_accounted_for(hansard):
    _, reads = hansard
    names = sorted(p.name for p in reads)
    assert len(names) == 23  # 20 XML files and three ParlParse version logs
    assert {p.name for p, r in reads.items() if r.skipped and "superseded" in r.skipped} == SUPERSEDED
    for path, r in reads.items():
        if path.name == "changedates.txt":
            assert r.skipped and not r.documents
        if path.name in SUPERSEDED:
            assert r.documents == []


def test_hansard_divisions_only_file_gives_no_documents(hansard):
    _, reads = hansard
    [(path, r)] = [(p, r) for p, r in reads.items() if p.name.startswith("divisions")]
    assert r.documents == [] and r.skipped is None
    assert any("division" in n for n in r.notes)
    # Its few speeches are copies of ones in the day's debates file, which is indexed.
    debates = {d.source_id for p, r in reads.items() if p.name == "debates2009-10-27d.xml" for d in r.documents}
    copies = re.findall(r'<speech[^>]* id="([^"]+)"', path.read_text(encoding="latin-1"))
    assert copies and set(copies) <= debates


def test_hansard_ids_match_reference_file_by_file(hansard):
    oracle, reads = hansard
    total = 0
    for path, r in reads.items():
        if not path.name.endswith(".xml") or path.name in SUPERSEDED or path.name.startswith("divisions"):
            continue
        assert r.documents, path.name
        chambers = {d.meta["chamber"] for d in r.documents}
        assert len(chambers) == 1, path.name
        prefix = _gid_prefix(path.name)
        expected = {i for i, rec in oracle.items() if i.startswith(prefix) and rec["chamber"] in chambers}
        got = [d.source_id for d in r.documents]
        assert len(got) == len(set(got)), f"duplicate ids in {path.name}"
        assert set(got) == expected, path.name
        total += len(got)
    assert total == 2171


def test_hansard_fields_agree_with_reference(hansard):
    oracle, reads = hansard
    with_tables = 0
    for _path, r in reads.items():
        for doc in r.documents:
            rec = oracle[doc.source_id]
            assert doc.date == D.fromisoformat(rec["date"]) and doc.date_source == "filename"
            assert doc.speaker == rec["source"], doc.source_id
            assert doc.title == _repair_c1(rec["title"]), doc.source_id
            assert doc.meta["kind"] == rec["kind"] and doc.meta["chamber"] == rec["chamber"]
            for key in ("speaker_id", "speaker_office", "url"):
                assert doc.meta.get(key) == rec.get(key), (doc.source_id, key)
            expected = _repair_c1(rec["text"])
            if doc.text != expected:
                # The reference keeps only <p>; the reader also keeps table rows as lines.
                with_tables += 1
                assert " | " in doc.text, doc.source_id
                assert _is_subsequence(expected.split("\n"), doc.text.split("\n")), doc.source_id
    assert 0 < with_tables <= 97  # the raw files hold 97 tables


def test_hansard_spot_checks(hansard):
    _, reads = hansard
    docs = {d.source_id: d for r in reads.values() for d in r.documents}
    # Nested <phrase> markup flattened; nospeaker="true" has no speaker.
    d = docs["uk.org.publicwhip/debate/2009-10-27d.141.2"]
    assert d.speaker == "" and "deferred until Thursday 5 November (Standing Order No. 20)" in d.text
    assert d.title == "House of Commons: BUSINESS BEFORE QUESTIONS / Leeds City Council Bill ( By Order)"
    # A Lords written answer with a table (ISO-8859-1 file, &pound; entity).
    d = docs["uk.org.publicwhip/wrans/2009-10-29a.173.2"]
    assert d.meta["chamber"] == "Lords written answers" and d.meta["kind"] == "reply"
    assert "2005 | £19.1 million" in d.text.split("\n")
    # Public Bill Committee: bill name in the title; &#146; read as an apostrophe.
    d = docs["uk.org.publicwhip/standing/standing2009-10-20_CHILDPOV_05-0_2009-10-27a.2.1"]
    assert d.title == "Public Bill Committee (Child Poverty Bill): Clause 1"
    assert d.date == D(2009, 10, 27)
    assert not any("\x80" <= ch <= "\x9f" for doc in docs.values() for ch in doc.text + doc.title)
    # UTF-8 file (Northern Ireland Assembly) with non-ASCII names.
    ni = [doc for doc in docs.values() if doc.meta["chamber"] == "Northern Ireland Assembly"]
    assert any("Ní" in doc.speaker for doc in ni)


# --------------------------------------------------------------------------------------------
# ParlParse XML written here
# --------------------------------------------------------------------------------------------

DTD = """<!DOCTYPE publicwhip [
<!ENTITY pound "&#163;">
<!ENTITY mdash "&#8212;">
]>"""


def _pw(body: str, *, encoding: str = "UTF-8", root_attrs: str = 'scrapeversion="a" latest="yes"',
        dtd: str = DTD) -> bytes:
    xml = (f'<?xml version="1.0" encoding="{encoding}"?>\n{dtd}\n'
           f'<publicwhip {root_attrs}>\n{body}\n</publicwhip>\n')
    return xml.encode(encoding)


SPEECH = """<major-heading id="uk.org.publicwhip/debate/2024-03-14a.1.0" nospeaker="true">TREASURY</major-heading>
<minor-heading id="uk.org.publicwhip/debate/2024-03-14a.1.1" nospeaker="true">Pensions</minor-heading>
<speech id="uk.org.publicwhip/debate/2024-03-14a.1.2" speakerid="uk.org.publicwhip/member/1"
  person_id="uk.org.publicwhip/person/10001" speakername="Jane Doe" url="https://example.org/1">
<p>It costs &pound;5 &mdash; <phrase class="date" code="2024-03-01">1 March</phrase> figures.</p>
<p><i>Hon. Members:</i> Hear, hear.</p>
</speech>
<speech id="uk.org.publicwhip/debate/2024-03-14a.1.3" nospeaker="true" speakername="ignored">
<p>Question put and agreed to.</p></speech>"""


def test_parlparse_iso_8859_1_with_internal_entities(tmp_path):
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw(SPEECH.replace("figures", "figures for caf\u00e9s"), encoding="ISO-8859-1"))
    r = read_file(path)
    first, second = r.documents
    assert first.text == "It costs £5 — 1 March figures for cafés.\nHon. Members: Hear, hear."
    assert first.title == "House of Commons: TREASURY / Pensions"
    assert first.speaker == "Jane Doe" and second.speaker == ""
    assert first.date == D(2024, 3, 14) and first.date_source == "filename"
    assert first.source_id == "uk.org.publicwhip/debate/2024-03-14a.1.2"
    assert first.meta == {
        "chamber": "House of Commons", "kind": "speech", "speaker_id": "uk.org.publicwhip/member/1",
        "person_id": "uk.org.publicwhip/person/10001", "url": "https://example.org/1",
    }


def test_parlparse_written_answers(tmp_path):
    body = """<minor-heading id="uk.org.publicwhip/wrans/2024-03-14a.1.0">Schools</minor-heading>
<ques id="uk.org.publicwhip/wrans/2024-03-14a.1.q0" speakername="A Member"><p>To ask how many?</p></ques>
<reply id="uk.org.publicwhip/wrans/2024-03-14a.1.r0" speakername="A Minister"><p>Some.</p>
<table><tbody><tr><td>2023</td><td>4</td></tr></tbody></table></reply>"""
    path = tmp_path / "lordswrans2024-03-14a.xml"
    path.write_bytes(_pw(body))
    q, a = read_file(path).documents
    assert (q.meta["kind"], a.meta["kind"]) == ("ques", "reply")
    assert q.title == "Lords written answers: Schools"
    assert a.text == "Some.\n2023 | 4"


def test_parlparse_superseded_version_is_skipped(tmp_path):
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw(SPEECH, root_attrs='scrapeversion="a" latest="no"'))
    r = read_file(path)
    assert r == FileRead(documents=[], notes=[], skipped='superseded version (latest="no")')


def test_parlparse_date_from_xml_when_file_renamed(tmp_path):
    path = tmp_path / "commons.xml"
    path.write_bytes(_pw(SPEECH))
    r = read_file(path)
    assert {d.date for d in r.documents} == {D(2024, 3, 14)}
    assert {d.date_source for d in r.documents} == {"xml"}
    assert r.documents[0].meta["chamber"] == "House of Commons"  # from the GID namespace


def test_parlparse_no_date_anywhere_uses_default(tmp_path):
    body = '<speech id="x1" speakername="A"><p>Text.</p></speech>'
    path = tmp_path / "commons.xml"
    path.write_bytes(_pw(body))
    r = read_file(path)
    assert r.documents[0].date is None and r.documents[0].date_source == "unknown"
    assert r.notes == ["1 document without a date"]
    r = read_file(path, default_date=D(2020, 1, 1))
    assert (r.documents[0].date, r.documents[0].date_source) == (D(2020, 1, 1), "default")
    assert r.notes == ["1 document without a date: default date used"]


def test_parlparse_without_speeches_gives_a_note(tmp_path):
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw('<major-heading id="g.1">Prayers</major-heading>'))
    r = read_file(path)
    assert r.documents == [] and r.skipped is None and r.notes


def test_malformed_xml_names_the_line(tmp_path):
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw("<speech id='a'><p>unclosed</speech>"))
    with pytest.raises(IngestError, match=r"malformed XML.*line \d+") as e:
        read_file(path)
    assert "\n" not in str(e.value)


def test_xml_that_is_not_parlparse(tmp_path):
    path = tmp_path / "feed.xml"
    path.write_bytes(b"<?xml version='1.0'?><rss><channel/></rss>")
    with pytest.raises(IngestError, match=r"XML but not ParlParse/TheyWorkForYou \(root <rss>\)"):
        read_file(path)


def test_external_entities_are_never_resolved(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    dtd = f"""<!DOCTYPE publicwhip [
<!ENTITY x SYSTEM "{secret.as_uri()}">
<!ENTITY passwd SYSTEM "file:///etc/passwd">
]>"""
    body = '<speech id="g.1" speakername="A"><p>before &x; &passwd; after</p></speech>'
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw(body, dtd=dtd))
    expected = r"line 7, column \d+: entity 'x' .*external entities are not loaded"
    with pytest.raises(IngestError, match=expected) as e:
        read_file(path)
    assert "TOP-SECRET" not in str(e.value)


def test_external_dtd_and_parameter_entities_are_not_loaded(tmp_path):
    secret = tmp_path / "evil.dtd"
    secret.write_text('<!ENTITY leak "LEAKED">')
    dtd = f"""<!DOCTYPE publicwhip SYSTEM "{secret.as_uri()}" [
<!ENTITY % ext SYSTEM "{secret.as_uri()}">
%ext;
]>"""
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw('<speech id="g.1" speakername="A"><p>x &leak; y</p></speech>', dtd=dtd))
    with pytest.raises(IngestError, match="external entities are not loaded"):
        read_file(path)
    # Without the parameter entity the external DTD is simply not read; the file still parses.
    dtd = f'<!DOCTYPE publicwhip SYSTEM "{secret.as_uri()}">'
    path.write_bytes(_pw('<speech id="g.1" speakername="A"><p>x y</p></speech>', dtd=dtd))
    assert [d.text for d in read_file(path).documents] == ["x y"]


def test_entity_expansion_bomb_is_refused_quickly(tmp_path):
    levels = ['<!ENTITY a0 "lol">'] + [
        f'<!ENTITY a{i} "{("&a%d;" % (i - 1)) * 10}">' for i in range(1, 10)
    ]
    dtd = "<!DOCTYPE publicwhip [\n" + "\n".join(levels) + "\n]>"
    path = tmp_path / "debates2024-03-14a.xml"
    path.write_bytes(_pw('<speech id="g.1" speakername="A"><p>&a9;</p></speech>', dtd=dtd))
    start = time.monotonic()
    with pytest.raises(IngestError, match="entity expansion too large"):
        read_file(path)
    assert time.monotonic() - start < 5


# --------------------------------------------------------------------------------------------
# JSONL
# --------------------------------------------------------------------------------------------


def _jsonl(path: Path, lines: list[str | dict]) -> Path:
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n",
                    encoding="utf-8")
    return path


def test_jsonl_good_lines(tmp_path):
    path = _jsonl(tmp_path / "docs.jsonl", [
        {"id": "bb:1", "date": "1970-05-20", "title": "Beige Book", "text": "Activity weakened.",
         "source": "Atlanta Fed", "district": "at", "page": 3, "final": True, "tags": ["x"], "none": None},
        {"id": 7, "date": "2022-01-21", "text": "Hello"},
    ])
    r = read_file(path)
    a, b = r.documents
    assert (a.source_id, a.title, a.speaker, a.date, a.date_source) == (
        "bb:1", "Beige Book", "Atlanta Fed", D(1970, 5, 20), "metadata")
    assert a.meta == {"district": "at", "page": "3", "final": "true"}
    assert b.source_id == "7" and b.title == "" and b.speaker == ""
    assert r.notes == []


@pytest.mark.parametrize("url, title", [
    ("https://www.cnn.com/2022/06/15/business/ford-recall/index.html", "ford-recall"),
    ("https://www.cnn.com/videos/us/2022/09/20/desantis-marthas-vineyard-investigation-nr-vpx.cnn",
     "desantis-marthas-vineyard-investigation-nr-vpx"),
    # an id after the slug is passed over; a date or an id at the slug's end is dropped
    ("https://news.example/story/news/2022/01/01/storm-hits-coast/123456789/", "storm-hits-coast"),
    ("https://www.cnn.com/europe/live-news/russia-ukraine-war-news-07-12-22/h_c164ac931cc8414108b8b",
     "russia-ukraine-war-news"),
    ("https://www.bbc.example/news/world-europe-60506682", "world-europe"),
    # a number that belongs to the name stays
    ("https://www.cnn.com/2022/08/24/politics/jill-biden-rebound-covid-19/index.html",
     "jill-biden-rebound-covid-19"),
    ("https://news.example/tony_awards_photos_2022", "tony-awards-photos-2022"),
    ("https://news.example/caf%C3%A9-prices-rise", "café-prices-rise"),
    # nothing that reads as a title: a section, a bare site, numbers, not a web address
    ("https://x.example/business/", ""),
    ("https://x.example/", ""),
    ("https://x.example/2022/12345", ""),
    ("ftp://x.example/storm-hits-coast", ""),
    ("storm-hits-coast", ""),
])
def test_title_from_url(url, title):
    from trag_tui.ingest.jsonl import title_from_url
    assert title_from_url(url) == title


def test_jsonl_untitled_record_is_titled_from_its_url(tmp_path):
    path = _jsonl(tmp_path / "docs.jsonl", [
        {"id": "1", "date": "2022-06-15", "text": "Ad feedback.",
         "url": "https://www.cnn.com/2022/06/15/business/ford-recall/index.html"},
        {"id": "2", "date": "2022-06-15", "title": "Its own title", "text": "Story.",
         "url": "https://www.cnn.com/2022/06/15/business/ford-recall/index.html"},
        {"id": "3", "date": "2022-06-15", "text": "No address."},
    ])
    a, b, c = read_file(path).documents
    assert (a.title, b.title, c.title) == ("ford-recall", "Its own title", "")
    assert a.meta["url"].endswith("ford-recall/index.html")  # the address itself is kept


def test_windows_punctuation_as_control_codes_is_read_as_meant(tmp_path):
    # text decoded as Latin-1 somewhere upstream: "\u0092" is an apostrophe, "\u0093" and
    # "\u0094" quotation marks; shown raw, the reader would see "Minister\x92s" in a quote
    path = _jsonl(tmp_path / "docs.jsonl", [
        {"id": "1", "date": "2009-11-03", "title": "Child Poverty Bill \u0096 Clause 19",
         "speaker": "Graham Stuart", "text": "the Minister\u0092s \u0093institutional "
         "architecture\u0094, caf\u00e9"}])
    doc, = read_file(path).documents
    assert doc.text == "the Minister’s “institutional architecture”, café"
    assert doc.title == "Child Poverty Bill – Clause 19"


def test_jsonl_bad_lines_are_counted_and_the_first_named(tmp_path):
    path = _jsonl(tmp_path / "docs.jsonl", [
        {"id": "1", "date": "2020-01-01", "text": "ok"},
        "{not json",
        {"id": "3", "date": "2020-01-01", "title": "no text"},
        "",
        "[1, 2]",
        {"id": "6", "date": "2020-01-01", "text": "   "},
        {"id": "7", "date": "2020-01-01", "text": "ok too"},
    ])
    r = read_file(path)
    assert [d.source_id for d in r.documents] == ["1", "7"]
    assert r.notes == ["4 bad lines skipped (first at line 2: not JSON (Expecting property name "
                       "enclosed in double quotes at column 2))"]


def test_jsonl_dates_missing_or_invalid(tmp_path):
    path = _jsonl(tmp_path / "docs.jsonl", [
        {"id": "1", "text": "a"},
        {"id": "2", "date": "soon", "text": "b"},
        {"id": "3", "date": "2021-02-30", "text": "c"},
    ])
    r = read_file(path)
    assert [(d.date, d.date_source) for d in r.documents] == [(None, "unknown")] * 3
    assert r.notes == ["1 document without a date", "2 documents with an unreadable date"]
    r = read_file(path, default_date=D(2000, 1, 2))
    assert [(d.date, d.date_source) for d in r.documents] == [(D(2000, 1, 2), "default")] * 3


def test_jsonl_with_no_valid_line_fails(tmp_path):
    path = _jsonl(tmp_path / "docs.jsonl", ["nope", '{"id": 1}'])
    with pytest.raises(IngestError, match=r"no valid JSONL records \(2 bad lines; first at line 1"):
        read_file(path)
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(IngestError, match="empty file"):
        read_file(tmp_path / "empty.jsonl")


def test_jsonl_byte_order_mark_and_bad_utf8_line(tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "1", "text": "a"}\n{"id": "2", "text": "caf\xe9"}\n')
    r = read_file(path)
    assert [d.source_id for d in r.documents] == ["1"]
    assert r.notes == ["1 bad line skipped (first at line 2: not UTF-8)", "1 document without a date"]


def test_jsonl_reference_corpus_reads_whole(shared_dir):
    start = time.monotonic()
    r = read_file(shared_dir / "corpora" / "uk_hansard" / "docs.jsonl")
    assert len(r.documents) == 7942 and r.notes == []
    assert time.monotonic() - start < 5
    doc = r.documents[1]
    assert doc.source_id == "uk.org.publicwhip/ni/2009-10-12.1.2" and doc.speaker == "Carál Ní Chuilín"
    assert doc.meta["chamber"] == "Northern Ireland Assembly"


# --------------------------------------------------------------------------------------------
# Text and Markdown
# --------------------------------------------------------------------------------------------


def test_markdown_front_matter(tmp_path):
    path = tmp_path / "2001-01-01-ignored.md"
    path.write_text('---\ntitle: "Net migration"\ndate: 2019-03-28\nid: ons-42\nsource: ONS\n'
                    "url: https://example.org\n---\n# Heading\n\nPublished 1 May 2018.\n", encoding="utf-8")
    r = read_file(path)
    [d] = r.documents
    assert (d.title, d.date, d.date_source, d.source_id, d.speaker) == (
        "Net migration", D(2019, 3, 28), "metadata", "ons-42", "ONS")
    assert d.meta == {"url": "https://example.org"}
    assert d.text == "# Heading\n\nPublished 1 May 2018."
    assert r.notes == []


def test_front_matter_date_in_words_and_speaker_key(tmp_path):
    path = tmp_path / "note.md"
    path.write_text("---\ndate: March 14, 2024\nspeaker: Governor\n---\nBody\n")
    [d] = read_file(path).documents
    assert (d.date, d.date_source, d.speaker, d.source_id) == (D(2024, 3, 14), "metadata", "Governor", None)


def test_unreadable_front_matter_date_falls_through_with_a_note(tmp_path):
    path = tmp_path / "report_20190328.md"
    path.write_text("---\ndate: sometime\n---\nBody\n")
    r = read_file(path)
    assert (r.documents[0].date, r.documents[0].date_source) == (D(2019, 3, 28), "filename")
    assert r.notes == ["front-matter date 'sometime' not understood"]


@pytest.mark.parametrize(
    "name", ["2019-03-28-net-migration.md", "report_20190328.txt", "debates2019-03-28a.txt"]
)
def test_date_from_file_name(tmp_path, name):
    (tmp_path / name).write_text("Published 1 May 2018.\n")
    [d] = read_file(tmp_path / name).documents
    assert (d.date, d.date_source) == (D(2019, 3, 28), "filename")


def test_date_from_text_and_title_from_heading(tmp_path):
    path = tmp_path / "migration.md"
    path.write_text("```\n# not a heading\n```\n\n## Net migration statistics ##\n\nPublished 14 March 2024.\n")
    [d] = read_file(path).documents
    assert (d.title, d.date, d.date_source) == ("Net migration statistics", D(2024, 3, 14), "text")


def test_setext_heading_and_stem_title(tmp_path):
    (tmp_path / "a.md").write_text("Quarterly review\n================\n\ntext\n")
    assert read_file(tmp_path / "a.md").documents[0].title == "Quarterly review"
    (tmp_path / "plain notes.txt").write_text("just text\n")
    assert read_file(tmp_path / "plain notes.txt").documents[0].title == "plain notes"


def test_no_date_found(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Nothing dated here.\n")
    r = read_file(path)
    assert (r.documents[0].date, r.documents[0].date_source) == (None, "unknown")
    assert r.notes == ["no date found"]
    r = read_file(path, default_date=D(2024, 1, 1))
    assert (r.documents[0].date, r.documents[0].date_source) == (D(2024, 1, 1), "default")
    assert r.notes == []


def test_non_utf8_text_is_decoded_as_cp1252(tmp_path):
    path = tmp_path / "old.txt"
    path.write_bytes("Caf\u00e9 \u201cquotes\u201d \u2013 14 March 2024\r\n".encode("cp1252"))
    r = read_file(path)
    assert r.documents[0].text == "Café “quotes” – 14 March 2024"
    assert r.notes == ["not UTF-8; decoded as cp1252"]
    path.write_bytes(b"\x81\x8d odd bytes")
    assert read_file(path).notes[0] == "not UTF-8; decoded as latin-1"


def test_utf8_bom_and_utf16(tmp_path):
    (tmp_path / "bom.txt").write_bytes("\ufeffHello".encode("utf-8"))
    assert read_file(tmp_path / "bom.txt").documents[0].text == "Hello"
    (tmp_path / "wide.txt").write_bytes("Hello wide".encode("utf-16"))
    assert read_file(tmp_path / "wide.txt").documents[0].text == "Hello wide"


def test_binary_and_empty_files_are_refused(tmp_path):
    (tmp_path / "bin.txt").write_bytes(b"PK\x03\x04\x00\x00 zip")
    with pytest.raises(IngestError, match="^binary file$"):
        read_file(tmp_path / "bin.txt")
    for content in ["", " \n\t\n"]:
        (tmp_path / "empty.md").write_text(content)
        with pytest.raises(IngestError, match="^empty file$"):
            read_file(tmp_path / "empty.md")


# --------------------------------------------------------------------------------------------
# Dispatch and discovery
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["notes.MD", "notes.markdown", "docs.ndjson", "docs.JSONL"])
def test_dispatch_is_by_case_insensitive_suffix(tmp_path, name):
    content = '{"id": "1", "text": "hello"}' if "json" in name.lower() else "hello"
    (tmp_path / name).write_text(content + "\n")
    assert read_file(tmp_path / name).documents[0].text.endswith("hello")


def test_unknown_extension(tmp_path):
    (tmp_path / "slides.pdf").write_bytes(b"%PDF-1.7")
    with pytest.raises(IngestError, match=r"^unsupported file type '\.pdf'$"):
        read_file(tmp_path / "slides.pdf")
    (tmp_path / "README").write_text("x")
    with pytest.raises(IngestError, match="unsupported file type"):
        read_file(tmp_path / "README")


def test_too_large_is_refused_without_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.txt"
    path.write_text("x" * 3000)
    monkeypatch.setattr("builtins.open", lambda *a, **k: pytest.fail("file was opened"))
    with pytest.raises(IngestError, match=r"^too large \(2\.9 KB > 1 KB limit\)$"):
        read_file(path, max_bytes=1024)


def test_too_large_message_in_megabytes(tmp_path):
    path = tmp_path / "big.jsonl"
    with open(path, "wb") as f:
        f.truncate(100 * 2**20)  # sparse: no 100 MB actually written
    with pytest.raises(IngestError, match=r"^too large \(100\.0 MB > 64 MB limit\)$"):
        read_file(path)


def test_unreadable_paths(tmp_path):
    with pytest.raises(IngestError, match="cannot read"):
        read_file(tmp_path / "missing.txt")
    (tmp_path / "dir.txt").mkdir()
    with pytest.raises(IngestError, match="folder"):
        read_file(tmp_path / "dir.txt")


def test_read_errors_become_ingest_errors(tmp_path, monkeypatch):
    path = tmp_path / "locked.md"
    path.write_text("secret")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("trag_tui.regular.os.open", refuse)  # how a document is opened
    with pytest.raises(IngestError, match="^cannot read: Permission denied$"):
        read_file(path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads anything")
def test_permission_denied(tmp_path):
    path = tmp_path / "locked.txt"
    path.write_text("secret")
    path.chmod(0)
    with pytest.raises(IngestError, match="cannot read"):
        read_file(path)


def test_discover_order_hidden_and_unsupported(tmp_path):
    for rel in ["b/z.md", "b/a.txt", "a.jsonl", "c.pdf", ".hidden.md", ".git/config", "b/.cache/x.txt"]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    found = [p.relative_to(tmp_path).as_posix() for p in discover([tmp_path])]
    assert found == ["a.jsonl", "b/a.txt", "b/z.md", "c.pdf"]
    # Explicit files are kept even when hidden; overlapping arguments give each file once.
    found = list(discover([tmp_path / ".hidden.md", tmp_path / "b", tmp_path / "b" / "a.txt"]))
    assert [p.name for p in found] == [".hidden.md", "a.txt", "z.md"]
    # A missing path is passed on for read_file to report, not dropped.
    assert list(discover([tmp_path / "nope"])) == [tmp_path / "nope"]


def test_discover_reports_broken_links_and_survives_loops(tmp_path):
    (tmp_path / "a.md").write_text("x")
    (tmp_path / "broken.md").symlink_to(tmp_path / "gone.md")
    (tmp_path / "loop").symlink_to(tmp_path)
    found = list(discover([tmp_path]))
    assert [p.name for p in found] == ["a.md", "broken.md"]
    with pytest.raises(IngestError, match="^cannot read: No such file or directory$"):
        read_file(found[1])


def test_parlparse_version_log_is_skipped_but_other_changedates_are_text(tmp_path):
    log = "1256631461,debates2009-10-26a.xml\n1256717977,debates2009-10-27a.xml\n"
    (tmp_path / "changedates.txt").write_text(log)
    r = read_file(tmp_path / "changedates.txt")
    assert r.documents == [] and "version log" in r.skipped
    (tmp_path / "changedates.txt").write_text("Changes agreed on 2 May 2020.\n")
    assert read_file(tmp_path / "changedates.txt").documents[0].date == D(2020, 5, 2)


def test_jsonl_without_text_fields_is_skipped_not_failed(tmp_path):
    from trag_tui.ingest import read_file

    path = tmp_path / "questions.jsonl"
    path.write_text('{"id": "q1", "question": "Who?"}\n{"id": "q2", "question": "When?"}\n')
    read = read_file(path)
    assert read.documents == [] and "not documents" in read.skipped


def test_a_folder_readme_is_skipped_with_a_reason(tmp_path):
    (tmp_path / "README.md").write_text("# About these debates\n\nCollected on 3 March 2021.\n")
    (tmp_path / "report.md").write_text("# Budget\n\nDebated on 3 March 2021.\n")
    read = read_file(tmp_path / "README.md")
    assert read.documents == [] and "README" in read.skipped
    assert read_file(tmp_path / "report.md").documents[0].date == D(2021, 3, 3)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_pipe_swapped_in_after_discovery_is_refused_not_waited_on(tmp_path):
    import threading

    from trag_tui.ingest.base import read_bytes

    os.mkfifo(tmp_path / "swapped.txt")  # a reader that opened it would wait for a writer
    raised: list[BaseException] = []

    def read() -> None:
        try:
            read_bytes(tmp_path / "swapped.txt", 1000)
        except BaseException as exc:  # noqa: BLE001 - what it raised is the test
            raised.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5)
    if reader.is_alive():  # let the stuck reader go, then fail
        with open(os.open(tmp_path / "swapped.txt", os.O_WRONLY | os.O_NONBLOCK), "wb"):
            pass
        pytest.fail("reading a named pipe waited for a writer")
    assert raised and isinstance(raised[0], OSError) and "not a regular file" in str(raised[0])
