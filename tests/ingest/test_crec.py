"""The Congressional Record reader: real granules, another parser's reading, zips, bad input."""
from __future__ import annotations

import datetime as dt
import importlib.util
import io
import os
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO, SAMPLE_CORPUS
from trag_tui.errors import IngestError
from trag_tui.indexer import Indexer
from trag_tui.ingest import DEFAULT_MAX_BYTES, FileRead, discover, read_file
from trag_tui.ingest.crec import _LABEL, parse_granule, read_zip
from trag_tui.models.embedding import HashEmbedder
from trag_tui.settings import Settings
from trag_tui.storage.file import connect

CREC = SAMPLE_CORPUS / "crec"
DAY_1997 = CREC / "CREC-1997-01-28"
DAY_2005 = CREC / "CREC-2005-07-20"


def _read(path: Path, **kw) -> FileRead:
    return read_file(path, max_bytes=kw.pop("max_bytes", DEFAULT_MAX_BYTES), **kw)


def _granule(body: str, chamber: str = "House", page: str = "H1") -> bytes:
    """A granule as GovInfo prints it, around a body written for the test."""
    return (
        "<html>\n<head>\n<title>Congressional Record</title>\n</head>\n<body><pre>\n"
        "[Congressional Record Volume 151, Number 99 (Wednesday, July 20, 2005)]\n"
        f"[{chamber}]\n[Page {page}]\n"
        "From the Congressional Record Online through the Government Publishing Office "
        '[<a href="https://www.gpo.gov">www.gpo.gov</a>]\n\n\n' + body + "\n</pre></body>\n</html>\n"
    ).encode()


def _index(db: Path, *paths: Path):
    conn = connect(db, create=True)
    try:
        return Indexer(conn, db, HashEmbedder(), Settings(db=db, embedder="hash")).run(list(paths))
    finally:
        conn.close()


def _zip(dest: Path, *days: Path) -> Path:
    """Days packed as GovInfo ships them: `CREC-YYYY-MM-DD/html/*.htm` and the day's XML."""
    with zipfile.ZipFile(dest, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for day in days:
            for f in sorted(day.rglob("*")):
                if f.is_file():
                    zf.write(f, f"{day.name}/{f.relative_to(day).as_posix()}")
    return dest


def _docs(read: FileRead) -> list[tuple]:
    return [(d.source_id, d.speaker, d.date, d.title, d.text, tuple(sorted(d.meta.items())))
            for d in read.documents]


# --------------------------------------------------------------------------------------------
# Real granules in the sample corpus
# --------------------------------------------------------------------------------------------

def test_a_senate_turn_carries_the_member_named_in_the_days_mods():
    read = _read(DAY_1997 / "html" / "CREC-1997-01-28-pt1-PgS700.htm")
    first = read.documents[0]
    assert first.source_id == "CREC-1997-01-28-pt1-PgS700.1"
    assert first.speaker == "Trent Lott"
    assert first.date == dt.date(1997, 1, 28) and first.date_source == "metadata"
    assert first.title == "Senate: SENATE SCHEDULE"
    assert first.text.startswith("Mr. President, I do want to announce at this point also")
    assert first.meta == {"speaker_printed": "Mr. LOTT", "party": "R", "state": "MS",
                          "bioguide": "L000447", "chamber": "Senate", "page": "S700",
                          "granule": "CREC-1997-01-28-pt1-PgS700", "kind": "speech"}
    # Eight turns, Lott and Warner in alternation, numbered in order.
    assert [d.speaker for d in read.documents] == ["Trent Lott", "John Warner"] * 4
    assert [d.source_id.rsplit(".", 1)[1] for d in read.documents] == [str(n) for n in range(1, 9)]


def test_presiding_officers_keep_the_office_as_printed_and_clerk_lines_are_not_speech():
    read = _read(DAY_1997 / "html" / "CREC-1997-01-28-pt1-PgS720.htm")
    speakers = [d.speaker for d in read.documents]
    assert speakers == ["Carl Levin", "The PRESIDING OFFICER", "Trent Lott", "The PRESIDING OFFICER"]
    officer = read.documents[1]
    assert officer.text == "The clerk will call the roll."  # not the clerk's roll call after it
    assert "party" not in officer.meta and officer.meta["speaker_printed"] == "The PRESIDING OFFICER"
    assert not any("[[Page" in d.text or "proceeded to call the roll" in d.text
                   for d in read.documents)


def test_a_house_turn_and_a_daily_digest():
    house = _read(DAY_2005 / "html" / "CREC-2005-07-20-pt1-PgH6110-2.htm").documents
    assert [(d.speaker, d.meta["chamber"], d.meta["state"]) for d in house] == [
        ("Tom DeLay", "House", "TX")]
    digest = _read(DAY_2005 / "html" / "CREC-2005-07-20-pt1-PgD783.htm").documents
    assert len(digest) == 1 and digest[0].speaker == "" and digest[0].meta["kind"] == "digest"
    assert digest[0].source_id == "CREC-2005-07-20-pt1-PgD783"
    assert "Senate passed H.R. 3057, Foreign Operations Appropriations." in digest[0].text


def test_granules_without_speech_and_the_package_xml_are_skipped_with_a_reason():
    cover = _read(DAY_1997 / "html" / "CREC-1997-01-28-pt1-PgS693.htm")
    assert cover.documents == [] and cover.skipped.startswith("no speech turns")
    assert "House of Representatives" in cover.skipped
    mods = _read(DAY_1997 / "mods.xml")
    assert mods.documents == [] and "MODS" in mods.skipped


def test_without_its_mods_a_granule_keeps_the_printed_speakers(tmp_path):
    lone = tmp_path / "CREC-1997-01-28-pt1-PgS700.htm"
    lone.write_bytes((DAY_1997 / "html" / lone.name).read_bytes())
    docs = _read(lone).documents
    assert docs[0].speaker == "Mr. LOTT" and "bioguide" not in docs[0].meta
    assert docs[0].title == "Senate: SENATE SCHEDULE"  # the printed title stands in for MODS


def test_the_sample_corpus_indexes_both_countries(tmp_path):
    summary = _index(tmp_path / "i.db", CREC)
    assert not summary.files_failed
    skipped = {Path(p).name for p, _ in summary.files_skipped}
    assert skipped == {"CREC-1997-01-28-pt1-PgS693.htm", "mods.xml"}
    assert summary.documents_added == 1 + 8 + 1 + 4 + 1 + 1 + 1 + 1


# --------------------------------------------------------------------------------------------
# How a granule is read: labels, procedure, page breaks
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, label", [
    ("Mr. DeFAZIO. Mr. Speaker, I rise", "Mr. DeFAZIO"),
    ("Ms. PELOSI. Mr. Speaker,", "Ms. PELOSI"),
    ("The PRESIDING OFFICER. Without objection, it is so ordered.", "The PRESIDING OFFICER"),
    ("The SPEAKER pro tempore. The gentleman is recognized.", "The SPEAKER pro tempore"),
    ("The SPEAKER pro tempore (Mr. Mica). Pursuant to", "The SPEAKER pro tempore (Mr. Mica)"),
    ("The Acting CHAIRMAN. The Clerk will designate", "The Acting CHAIRMAN"),
    ("Mr. SMITH of Texas. Mr. Speaker,", "Mr. SMITH of Texas"),
    ("Ms. LINDA T. SANCHEZ of California. Mr. Chairman,", "Ms. LINDA T. SANCHEZ of California"),
    ("Miss McMORRIS. Mr. Chairman,", "Miss McMORRIS"),
    ("Ms. MILLENDER-McDONALD. Mr. Speaker,", "Ms. MILLENDER-McDONALD"),
    ("Mr. D'AMATO. Mr. President,", "Mr. D'AMATO"),
    ("Mr. President, I rise today", None),
    ("Mr. Chairman. I yield", None),
    ("The Clerk read the title of the bill.", None),
    ("Ms. Carson, for 5 minutes, today.", None),
])
def test_speaker_labels(line, label):
    m = _LABEL.match(line)
    assert (m["label"] if m else None) == label


def test_turns_run_across_page_breaks_and_stop_at_procedure():
    body = "\n".join([
        "                    A BILL ABOUT THINGS",
        "",
        "  Mr. SMITH of Texas. Mr. Speaker, I yield myself such time as I may",
        "",
        "[[Page H2]]",
        "",
        "consume. This bill is good.",
        "  It is very good.",
        "                              {time}  1407",
        "  The SPEAKER pro tempore. The question is on the motion.",
        "  The question was taken; and the Speaker pro tempore announced that",
        "the ayes appeared to have it.",
        "  The Clerk read the title of the bill.",
        "  There was no objection.",
        "  Ms. PELOSI. Mr. Speaker, I thank the gentleman.",
        "  The text of the amendment is as follows:",
        "",
        "       Amendment offered by Ms. Pelosi:",
        "       Strike section 2.",
        "                                 ______",
    ])
    read = parse_granule(_granule(body), "CREC-2005-07-20-pt1-PgH1")
    assert [(d.meta["speaker_printed"], d.meta["page"], d.text) for d in read.documents] == [
        ("Mr. SMITH of Texas", "H1",
         "Mr. Speaker, I yield myself such time as I may consume. This bill is good.\n"
         "It is very good."),
        ("The SPEAKER pro tempore", "H2", "The question is on the motion."),
        ("Ms. PELOSI", "H2", "Mr. Speaker, I thank the gentleman."),
    ]
    assert read.documents[0].title == "House: A BILL ABOUT THINGS"


def test_quoted_material_stays_in_the_turn_that_reads_it():
    body = "\n".join([
        "  Mr. LEAHY. Mr. President, the letter says:",
        "       Dear Senator, we write to",
        "     support the bill.",
        "       Sincerely, the Farmers.",
        "  That is what they wrote.",
    ])
    doc = parse_granule(_granule(body, "Senate", "S1"), "g").documents[0]
    assert doc.text == ("Mr. President, the letter says:\nDear Senator, we write to support the bill.\n"
                        "Sincerely, the Farmers.\nThat is what they wrote.")


def test_a_speech_goes_on_under_its_own_sub_headings_but_printed_matter_is_not_its():
    body = "\n".join([
        "                    THE SITUATION IN BOSNIA",
        "",
        "  Mr. LEVIN. Mr. President, I recently returned from Bosnia.",
        "",
        "                          immediate challenges",
        "",
        "  The next year is going to see many significant challenges to peace.",
        "  Mr. President, I ask unanimous consent that the text of the bill be",
        "printed in the Record.",
        "  The PRESIDING OFFICER. Without objection, it is so ordered.",
        "",
        "                                 S. 210",
        "",
        "       Be it enacted by the Senate and the House of",
        "     Representatives of the United States of America.",
    ])
    read = parse_granule(_granule(body, "Senate", "S720"), "CREC-1997-01-28-pt1-PgS720")
    assert [(d.meta["speaker_printed"], d.text) for d in read.documents] == [
        ("Mr. LEVIN", "Mr. President, I recently returned from Bosnia.\nimmediate challenges\n"
                      "The next year is going to see many significant challenges to peace.\n"
                      "Mr. President, I ask unanimous consent that the text of the bill be "
                      "printed in the Record."),
        ("The PRESIDING OFFICER", "Without objection, it is so ordered."),
    ]
    # a sub-heading before another Member's turn is not carried into a later one
    body = "\n".join([
        "  Mr. LEVIN. Mr. President, first.",
        "                          part one",
        "  Mr. WARNER. Mr. President, second.",
        "                          part two",
        "  And more of it.",
    ])
    read = parse_granule(_granule(body, "Senate", "S720"), "CREC-1997-01-28-pt1-PgS720")
    assert [d.text for d in read.documents] == [
        "Mr. President, first.", "Mr. President, second.\npart two\nAnd more of it."]


# --------------------------------------------------------------------------------------------
# Against another parser's reading of every granule of two real days
# --------------------------------------------------------------------------------------------

def _oracle_bench():
    spec = importlib.util.spec_from_file_location(
        "crec_oracle", REPO / "bench" / "crec_oracle.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("day", ["CREC-1997-01-28", "CREC-2005-07-20"])
def test_the_reader_finds_the_oracles_speech_turns(shared_dir, day):
    corpus = shared_dir / "corpora" / "us_congress"
    if not (corpus / "raw" / day).is_dir():
        pytest.skip("the us_congress corpus is not present")
    result = _oracle_bench().compare_day(corpus / "raw" / day, corpus / "oracle" / day)
    assert result["oracle_speech_turns"] > 200
    assert result["share"] >= 0.95, result["misses_by_cause"]
    # Every miss is the oracle's turn running on past a procedural line where ours ends.
    assert result["share_counting_run_ons"] == 1.0, result["miss_examples"]


def test_a_granule_whose_header_names_no_chamber_is_one_line(shared_dir):
    odd = (shared_dir / "corpora" / "us_congress" / "raw" / "CREC-2005-07-20" / "html"
           / "CREC-2005-07-20-pt1-Pgnull-2.htm")
    if not odd.is_file():
        pytest.skip("the us_congress corpus is not present")
    with pytest.raises(IngestError, match=r"^the header names no chamber"):
        _read(odd)


# --------------------------------------------------------------------------------------------
# Zips, as GovInfo ships a day or many
# --------------------------------------------------------------------------------------------

def test_a_zip_gives_what_the_folder_gives_without_unpacking(tmp_path):
    archive = _zip(tmp_path / "CREC-1997-01-28.zip", DAY_1997)
    before = sorted(os.listdir(tmp_path))
    from_zip = _read(archive)
    assert sorted(os.listdir(tmp_path)) == before  # nothing written beside it
    from_folder = [d for f in discover([DAY_1997]) for d in _read(f).documents]
    assert _docs(from_zip) == _docs(FileRead(from_folder))
    assert "1 of 5 granules have no speech turns" in from_zip.notes


def test_a_zip_of_many_days_resolves_each_days_members(tmp_path):
    read = _read(_zip(tmp_path / "crec.zip", DAY_1997, DAY_2005))
    speakers = {d.speaker for d in read.documents}
    assert {"Trent Lott", "Byron L. Dorgan", "William H. Frist", "Harry Reid"} <= speakers
    assert {d.date for d in read.documents} == {dt.date(1997, 1, 28), dt.date(2005, 7, 20)}


def test_an_unchanged_zip_is_not_read_again_and_a_changed_one_is(tmp_path):
    archive = _zip(tmp_path / "day.zip", DAY_1997)
    first = _index(tmp_path / "i.db", archive)
    assert first.files_indexed == 1 and first.documents_added == 14
    again = _index(tmp_path / "i.db", archive)
    assert again.files_unchanged == 1 and again.documents_added == 0 and again.documents_kept == 14
    _zip(archive, DAY_2005)  # the same file now holds the other day
    changed = _index(tmp_path / "i.db", archive)
    assert changed.documents_removed == 14 and changed.documents_added == 4


def test_truncated_zip_bomb_and_bad_members_are_one_line_each(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    whole = _zip(tmp_path / "day.zip", DAY_2005).read_bytes()
    (folder / "truncated.zip").write_bytes(whole[: len(whole) // 2])
    with zipfile.ZipFile(folder / "bomb.zip", "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("CREC-2005-07-20/html/CREC-2005-07-20-pt1-PgH9.htm", b"\0" * (8 * 2**20))
        zf.writestr("CREC-2005-07-20/html/CREC-2005-07-20-pt1-PgS8545-2.htm",
                    (DAY_2005 / "html" / "CREC-2005-07-20-pt1-PgS8545-2.htm").read_bytes())
        zf.writestr("CREC-2005-07-20/html/CREC-2005-07-20-pt1-PgS9.htm", b"<html>no record</html>")
    (folder / "notes.zip").write_bytes(_zip_of({"a.txt": b"hello"}))
    (folder / "page.html").write_text("<html><body><p>Not the record</p></body></html>")
    (folder / "CREC-2005-07-20-pt1-PgH8.htm").write_bytes(b"<html><pre>\nno header\n</pre></html>")

    summary = _index(tmp_path / "i.db", folder, DAY_1997)
    failed = dict((Path(p).name, why) for p, why in summary.files_failed)
    assert failed["truncated.zip"].startswith("not a readable zip (truncated or damaged)")
    assert failed["notes.zip"] == "zip holds no Congressional Record granules (CREC-...htm)"
    assert failed["page.html"].startswith("HTML but not a Congressional Record granule")
    assert failed["CREC-2005-07-20-pt1-PgH8.htm"].startswith("no Congressional Record header")
    assert "bomb.zip" not in failed and all("\n" not in why for why in failed.values())
    notes = [why for p, why in summary.notes if Path(p).name == "bomb.zip"]
    assert any("PgH9.htm: expands" in n and "zip bomb" in n for n in notes)
    assert any("PgS9.htm: HTML but not a Congressional Record granule" in n for n in notes)
    # Reid's granule inside the bomb's zip and the whole 1997 folder are indexed all the same.
    assert summary.documents_added == 1 + 14


def test_a_zip_member_over_the_limit_is_refused_before_it_is_inflated(tmp_path):
    archive = _zip(tmp_path / "day.zip", DAY_1997)
    read = read_zip(archive, max_bytes=8000)  # the Bosnia granule and mods.xml are larger
    assert any("PgS720.htm: too large" in n for n in read.notes)
    assert any("mods.xml: too large" in n for n in read.notes)
    assert {d.speaker for d in read.documents} >= {"Mr. LOTT", "Mr. DORGAN"}  # printed names
    with pytest.raises(IngestError, match=r"^zip expands to 54.6 KB, past the 23.4 KB limit"):
        read_zip(archive, max_bytes=3000)  # eight times the limit for the whole zip


def test_a_file_named_mods_xml_that_is_not_mods_goes_to_the_xml_reader(tmp_path):
    odd = tmp_path / "mods.xml"
    odd.write_text("<notes><note>hello</note></notes>")
    with pytest.raises(IngestError, match="not ParlParse"):
        _read(odd)


def _zip_of(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_a_broken_mods_xml_is_one_line_and_its_granules_keep_printed_speakers(tmp_path):
    day = tmp_path / "CREC-1997-01-28"
    (day / "html").mkdir(parents=True)
    granule = day / "html" / "CREC-1997-01-28-pt1-PgS696.htm"
    granule.write_bytes((DAY_1997 / "html" / granule.name).read_bytes())
    (day / "mods.xml").write_bytes((DAY_1997 / "mods.xml").read_bytes()[:5000])
    summary = _index(tmp_path / "i.db", day)
    assert [(Path(p).name, why.split(":")[0]) for p, why in summary.files_failed] == [
        ("mods.xml", "mods.xml is malformed")]
    assert _read(granule).documents[0].speaker == "Mr. DORGAN"


def test_an_encrypted_member_is_a_note_and_the_rest_is_read(tmp_path):
    granule = (DAY_1997 / "html" / "CREC-1997-01-28-pt1-PgS696.htm").read_bytes()
    data = bytearray(_zip_of({"CREC-1997-01-28-pt1-PgS1.htm": granule,
                              "CREC-1997-01-28-pt1-PgS696.htm": granule}))
    central = data.index(b"PK\x01\x02")  # the first member's central directory entry
    data[central + 8] |= 0x01  # its "encrypted" flag, as a password-protected zip sets it
    archive = tmp_path / "locked.zip"
    archive.write_bytes(bytes(data))
    read = read_zip(archive, max_bytes=DEFAULT_MAX_BYTES)
    assert any(n.startswith("CREC-1997-01-28-pt1-PgS1.htm: cannot read:") and "encrypted" in n
               for n in read.notes), read.notes
    assert [d.source_id for d in read.documents] == ["CREC-1997-01-28-pt1-PgS696.1"]
