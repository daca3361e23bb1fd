"""The US Congressional Record as GovInfo publishes it: CREC granules, the day's MODS, and zips.

A granule (`CREC-1997-01-28-pt1-PgS696.htm`) is typewriter text in a <pre>: a bracketed header
with the date, chamber and page, a centred title, then the proceedings, where a speech turn
starts on a two-space indent with a label ("Mr. DORGAN.", "The PRESIDING OFFICER."). Only
speech turns become documents: the printed label is kept as metadata and, where the day's
`mods.xml` names the member, the Document's speaker is their full name, so "what did Senator
Lott say" can be scoped by who said it. Recorder and clerk lines end a turn and are not
anybody's speech. GovInfo ships a day (or many) as one zip; it is read member by member in
memory and indexed as one file, so an unchanged zip costs nothing on the next run.
"""
from __future__ import annotations

import datetime as dt
import functools
import html
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from lxml import etree

from trag_tui.documents import Document
from trag_tui.errors import IngestError
from trag_tui.ingest.archive import read_member
from trag_tui.ingest.base import FileRead, _size, check_time, read_bytes, size_refusal

_MODS_NS = "{http://www.loc.gov/mods/v3}"
_GRANULE_NAME = re.compile(r"(?P<package>CREC-\d{4}-\d{2}-\d{2})-pt\d+-Pg[A-Z]+\d+[\w-]*", re.I)
# The <pre> text is cut out with two searches and tags are removed only up to the last ">":
# `<pre>(.*?)</pre>` and `<[^>]*>` scan to the end from every "<pre>" or "<" that is never
# closed (quadratic in a file of them).
_PRE_OPEN = re.compile(r"<pre>", re.I)
_PRE_CLOSE = re.compile(r"</pre>", re.I)
_TAG = re.compile(r"<[^>]*>")
# <bullet> marks a statement not spoken aloud; at a line start it opens the paragraph.
_BULLET = re.compile(r"^[ ]*<bullet>[ ]*", re.M)
_VOLUME = re.compile(
    r"^\[Congressional Record Volume (?P<vol>\d+), Number (?P<num>\d+) "
    r"\((?:\w+, )?(?P<date>\w+ \d{1,2}, \d{4})\)\]\s*$", re.M)
#: Whose Members speak in each part of the record (MODS marks them "H" or "S").
_MEMBERS_OF = {"House": "H", "Senate": "S", "Extensions of Remarks": "H"}
_CHAMBER = re.compile(r"^\[(House|Senate|Extensions of Remarks|Daily Digest)\]\s*$", re.M)
_PAGES = re.compile(r"^\[Pages? ([A-Z]+\d+)(?:-[A-Z]*\d+)?\]\s*$", re.M)
_PAGE_MARK = re.compile(r"^\s*\[\[Pages? ([A-Z]+\d+)(?:-[A-Z]*\d+)?\]\]\s*$")
_TIME = re.compile(r"^\s*\{time\}\s+\d{3,4}\s*$")
_RULE = re.compile(r"^\s*(?:_{3,}|-{5,})\s*$")
_SPACE = re.compile(r"\s+")

# A speaker's label opens a two-space paragraph and ends with a full stop: a Member ("Mr.
# SMITH of New Jersey.", "Ms. LINDA T. SANCHEZ of California.") or an office ("The SPEAKER pro
# tempore (Mr. Mica).", "The Acting CHAIRMAN."). Names are in capitals, which is what tells
# "Mr. DORGAN." from "Mr. President, ...".
_NAME_PART = r"(?:Mc|Mac|De|Di|Da|La|Le|Van|Von)?[A-Z][A-Z']+"
_NAME_WORD = rf"(?:[A-Z]\.|{_NAME_PART}(?:-{_NAME_PART})*)"
_LABEL = re.compile(
    r"(?P<label>"
    rf"(?:(?:Mr\.|Mrs\.|Ms\.|Miss|Dr\.) {_NAME_WORD}(?: {_NAME_WORD})*(?: of [A-Z][a-z]+(?: [A-Z][a-z]+)*)?"
    r"|The (?:Acting )?[A-Z]{2,}(?: [A-Z]{2,})*(?: pro tempore)?)"
    r"(?: \([^()]{1,60}\))?"
    r")\.(?: |$)"
)

# A misprinted label ("Mr. CONYERS, Mr. Speaker," or "Mr. McCain. Mr. President,") counts only
# when it addresses the chair and the day's MODS names that Member.
_LOOSE_LABEL = re.compile(
    r"(?P<label>(?:Mr\.|Mrs\.|Ms\.|Miss) [A-Z][A-Za-z'\-]+(?: of [A-Z][a-z]+(?: [A-Z][a-z]+)*)?)"
    r"[.,] (?=(?:Mr\.|Madam) (?:Speaker|President|Chairman|Chairwoman)\b)")

#: Paragraphs the record's reporters write, not a Member: votes, clerk readings, consent
#: notes, bill introductions. Each ends the turn before it. (pattern, what it is)
_PROCEDURE: list[tuple[re.Pattern[str], str]] = [(re.compile(p), why) for p, why in [
    (r"^There (?:being|was) no objection", "consent"),
    (r"^The (?:assistant |senior assistant )?(?:legislative|bill|journal|reading) clerk ", "clerk"),
    (r"^The Clerk (?:read|called|will|designated|reported)", "clerk"),
    (r"^The (?:question|vote|yeas and nays|result) (?:was|were|is) ", "vote"),
    (r"^The result was announced", "vote"),
    (r"^A (?:recorded vote|quorum|motion to reconsider|record vote)\b", "vote"),
    (r"^\[(?:Roll|Rollcall)", "vote"),
    (r"^So (?:the|two-thirds)\b", "vote"),
    (r"^The (?:text|amendments?|bill|preamble|title|resolution|concurrent resolution|joint "
     r"resolution|motion|committee amendments?|material|following)\b.{0,60}? "
     r"(?:(?:is|are) as follows|(?:was|were) (?:agreed|rejected|ordered|read|passed|withdrawn|"
     r"considered|laid|engrossed|deemed|printed|referred|reported|adopted|not agreed))", "action"),
    (r"^Accordingly\b", "action"),
    (r"^By (?:Mr|Mrs|Ms|Miss|Dr)\. ", "introduction"),
    (r"^\((?:Mr|Mrs|Ms|Miss|Dr)\. [^)]* asked and was given permission", "permission"),
    (r"^(?:The )?(?:Chaplain|Reverend|Rev\.) .*(?:offered|prayer)", "prayer"),
    (r"^At \d{1,2}:\d{2} [ap]\.m\.,", "message"),
]]


@dataclass(frozen=True)
class Member:
    """A Member of Congress as a granule's MODS names them."""

    printed: str  # normalised label as printed in the record ("mr. smith of new jersey")
    name: str
    party: str = ""
    state: str = ""
    bioguide: str = ""
    chamber: str = ""  # "H" or "S"


@dataclass
class DayMeta:
    """What the day's mods.xml says about each granule: its title and the Members named."""

    titles: dict[str, str] = field(default_factory=dict)
    members: dict[str, list[Member]] = field(default_factory=dict)
    # Members named anywhere in a day, by (day, chamber, printed label); None when two differ.
    by_label: dict[tuple[str, str, str], Member | None] = field(default_factory=dict)

    def update(self, other: DayMeta) -> None:
        """Add another day's metadata (a zip may hold many days; their keys never meet)."""
        self.titles.update(other.titles)
        self.members.update(other.members)
        self.by_label.update(other.by_label)

    def member(self, granule: str, label: str, chamber: str) -> Member | None:
        """The Member a printed label names: in this granule's MODS, else uniquely that day."""
        key = normalise_label(label)
        for m in self.members.get(granule, []):
            if m.printed == key:
                return m
        return self.by_label.get((_day(granule), _MEMBERS_OF.get(chamber, ""), key))


# --------------------------------------------------------------------------------------------
# Readers (registered in trag_tui.ingest)
# --------------------------------------------------------------------------------------------

def read_granule(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """Speech turns of one granule file, with the Members named in the day's mods.xml beside it."""
    return parse_granule(read_bytes(path, max_bytes), path.stem, _day_meta_near(path))


def read_package_xml(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """A GovInfo package's own XML (mods, dip, premis) is metadata, not documents."""
    root = _root_tag(path)
    if root == f"{_MODS_NS}mods":
        read_bytes(path, max_bytes)  # the limit holds for metadata too
        st = path.stat()
        _cached_mods(str(path.resolve()), st.st_size, st.st_mtime_ns)  # malformed: one line
        return FileRead([], skipped="GovInfo MODS: the day's metadata, read with its granules")
    if root in ("{http://www.loc.gov/METS/}mets", "{info:lc/xmlns/premis-v2}premis"):
        return FileRead([], skipped="GovInfo package metadata (no text)")
    from trag_tui.ingest import (
        parlparse,  # the name is a coincidence: read it as any XML
    )

    return parlparse.read(path, default_date=default_date, max_bytes=max_bytes)


def read_zip(path: Path, *, default_date: dt.date | None = None, max_bytes: int) -> FileRead:
    """Every granule inside a GovInfo zip (one day or many), read in memory, nothing unpacked.

    Each member is held to the per-file limit and the zip as a whole to eight times it, so a
    zip bomb is refused before it is inflated; a damaged member is a note, the rest is read.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            return _read_zip(zf, max_bytes)
    except zipfile.BadZipFile as e:
        raise IngestError(f"not a readable zip (truncated or damaged): {e}") from e


# --------------------------------------------------------------------------------------------
# One granule
# --------------------------------------------------------------------------------------------

@dataclass
class _Turn:
    label: str
    page: str
    lines: list[str] = field(default_factory=list)


def parse_granule(data: bytes, granule: str, meta: DayMeta | None = None) -> FileRead:
    """Documents from one granule's bytes; IngestError when it is not a CREC granule."""
    text = _decode(data)
    pre = _pre_text(text)
    if pre is None:
        raise IngestError("HTML but not a Congressional Record granule (no <pre> text)")
    body = html.unescape(_strip_tags(_BULLET.sub("  ", pre)))
    vol, chamber, pages = _VOLUME.search(body), _CHAMBER.search(body), _PAGES.search(body)
    if vol is None:
        raise IngestError("no Congressional Record header ([Congressional Record Volume ...])")
    if chamber is None:
        raise IngestError("the header names no chamber ([House], [Senate], [Extensions of "
                          "Remarks] or [Daily Digest])")
    try:
        day = dt.datetime.strptime(vol["date"], "%B %d, %Y").date()
    except ValueError as e:
        raise IngestError(f"unreadable date in the header: {vol['date']!r}") from e
    meta = meta or DayMeta()
    chamber_name, page = chamber.group(1), pages.group(1) if pages else ""
    lines = body[max(vol.end(), chamber.end(), pages.end() if pages else 0):].split("\n")
    heading, turns, unspoken = _turns(
        lines, page, lambda label: meta.member(granule, label, chamber_name) is not None)
    title = meta.titles.get(granule) or heading or chamber_name

    docs: list[Document] = []
    for n, turn in enumerate(turns, 1):
        said = "\n".join(turn.lines).strip()
        if not said:
            continue
        member = meta.member(granule, turn.label, chamber_name)
        doc_meta = {"speaker_printed": turn.label, "chamber": chamber_name, "page": turn.page,
                    "granule": granule, "kind": "speech"}
        if member is not None:
            doc_meta.update(party=member.party, state=member.state, bioguide=member.bioguide)
        docs.append(Document(
            text=said,
            title=_full_title(chamber_name, title),
            speaker=member.name if member else turn.label,
            date=day,
            date_source="metadata",
            source_id=f"{granule}.{n}",
            meta={k: v for k, v in doc_meta.items() if v},
        ))
    if docs:
        return FileRead(docs)
    if chamber_name == "Daily Digest":
        digest = _digest_text(lines)
        if digest:
            return FileRead([Document(
                text=digest, title=_full_title(chamber_name, title), date=day,
                date_source="metadata",
                source_id=granule,
                meta={"chamber": chamber_name, "page": page, "granule": granule, "kind": "digest"},
            )])
    short = title if len(title) <= 60 else title[:59].rstrip() + "…"
    if unspoken < _HEADER_WORDS:
        return FileRead([], skipped=f"header only ({short})")
    return FileRead([], skipped=f"no speech turns ({short}: {unspoken} words of procedure "
                                "and printed material)")


def _pre_text(text: str) -> str | None:
    """The text of the first <pre> element that is closed, in one pass."""
    start = _PRE_OPEN.search(text)
    end = _PRE_CLOSE.search(text, start.end()) if start else None
    return text[start.end():end.start()] if start and end else None


def _strip_tags(text: str) -> str:
    """The text without its tags; a "<" after the last ">" opens none and is kept."""
    end = text.rfind(">") + 1
    return _TAG.sub("", text[:end]) + text[end:]


_HEADER_WORDS = 40  # a cover page or a bare heading says less than this outside its title


def _turns(lines: list[str], page: str, known: Callable[[str], bool]) -> tuple[str, list[_Turn], int]:
    """(title as printed, speech turns, words nobody speaks) of a granule's body lines."""
    heading: list[str] = []
    heading_done = False  # the title is the first block of centred lines
    turns: list[_Turn] = []
    current: _Turn | None = None
    unspoken = 0
    quote_indent = 0  # indent of the quoted paragraph being read, 0 outside quotes
    # A turn under a sub-heading it printed ("immediate challenges" in a long speech) goes on
    # when the next paragraph is at a speech's indent, not at printed matter's (a bill's text)
    held: _Turn | None = None
    heads: list[str] = []
    for line in lines:
        check_time()
        if line.startswith("From the Congressional Record Online"):
            continue
        if m := _PAGE_MARK.match(line):
            page = m.group(1)
            continue
        if not line.strip():
            heading_done = heading_done or bool(heading)
            continue
        if _TIME.match(line):
            continue
        if _RULE.match(line):
            heading_done, current = heading_done or bool(heading), None
            continue
        indent = len(line) - len(line.lstrip(" "))
        stripped = _SPACE.sub(" ", line).strip()
        if indent >= 8:  # centred: a title, a sub-heading, a bill's number, a Member's name
            if not heading_done:
                heading.append(stripped)
            elif current is not None or held is not None:
                held = held or current
                heads.append(stripped)
            current = None  # until the next paragraph shows whose it is
            continue
        heading_done = True
        resume, under, held, heads = held, heads, None, []
        if indent == 2:  # a paragraph starts
            quote_indent = 0
            m = _LABEL.match(stripped) or _LOOSE_LABEL.match(stripped)
            if m and (m.re is _LABEL or known(m["label"])):
                current = _Turn(m["label"], page)
                turns.append(current)
                stripped = stripped[m.end():].strip()
                current.lines.append(stripped)
                continue
            if _is_procedure(stripped):
                current = None
            elif resume is not None:
                current = resume
                current.lines.extend(under)
        if current is None:  # text nobody is speaking: procedure, clerk readings, printed material
            unspoken += len(stripped.split())
            continue
        # Quoted material starts its paragraphs deeper than it wraps (7 spaces, then 5).
        wraps = indent == 0 or (quote_indent and 0 < indent < quote_indent)
        if indent and not wraps:
            quote_indent = indent
        if wraps and current.lines:
            current.lines[-1] = f"{current.lines[-1]} {stripped}".strip()
        else:
            current.lines.append(stripped)
    return " ".join(heading), turns, unspoken


def _is_procedure(paragraph: str) -> bool:
    return any(p.match(paragraph) for p, _ in _PROCEDURE)


def _full_title(chamber: str, title: str) -> str:
    # MODS titles of the Digest already name it ("Daily Digest/Senate").
    return title if title.lower().startswith(chamber.lower() + "/") else f"{chamber}: {title}"


def _digest_text(lines: list[str]) -> str:
    """The Digest's text, one line per block: its summaries wrap but never span a blank line."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("From the Congressional Record Online") or _PAGE_MARK.match(line):
            continue
        if not line.strip() or _RULE.match(line):
            blocks.append([])
        else:
            blocks[-1].append(_SPACE.sub(" ", line).strip())
    text = "\n".join(" ".join(b) for b in blocks if b)
    # "The House was not in session today." is news; a bare heading is not.
    return text if len(text.split()) >= 10 else ""


def _decode(data: bytes) -> str:
    data = data.replace(b"\x00", b"")  # the Daily Digest carries stray NULs
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def normalise_label(label: str) -> str:
    """A printed speaker label for comparison: spaces collapsed, case folded, no final stop."""
    return _SPACE.sub(" ", label).strip().rstrip(".").casefold()


# --------------------------------------------------------------------------------------------
# The day's MODS
# --------------------------------------------------------------------------------------------

def parse_mods(data: bytes) -> DayMeta:
    """Titles and named Members of every granule in a day's mods.xml."""
    from trag_tui.ingest.parlparse import _safe_parser

    try:
        root = etree.fromstring(data, parser=_safe_parser())
    except etree.XMLSyntaxError as e:
        raise IngestError(f"mods.xml is malformed: {e.msg}") from e
    if root.tag != f"{_MODS_NS}mods":
        raise IngestError(f"not GovInfo MODS (root <{root.tag}>)")
    meta = DayMeta()
    for item in root.iterfind(f"{_MODS_NS}relatedItem"):
        granule = item.findtext(f"{_MODS_NS}extension/{_MODS_NS}accessId") or ""
        if not granule:
            continue
        title = item.findtext(f"{_MODS_NS}titleInfo/{_MODS_NS}title")
        if title:
            meta.titles[granule] = _SPACE.sub(" ", title).strip()
        members = []
        for cm in item.iterfind(f"{_MODS_NS}extension/{_MODS_NS}congMember"):
            names = {n.get("type"): _SPACE.sub(" ", n.text or "").strip()
                     for n in cm.iterfind(f"{_MODS_NS}name")}
            if not names.get("parsed") or not names.get("authority-fnf"):
                continue
            member = Member(printed=normalise_label(names["parsed"]), name=names["authority-fnf"],
                            party=cm.get("party", ""), state=cm.get("state", ""),
                            bioguide=cm.get("bioGuideId", ""), chamber=cm.get("chamber", ""))
            members.append(member)
            key = (_day(granule), member.chamber, member.printed)
            if key in meta.by_label and meta.by_label[key] != member:
                meta.by_label[key] = None  # two Members print alike that day: ask the granule
            else:
                meta.by_label[key] = member
        meta.members[granule] = members
    return meta


def _day(granule: str) -> str:
    """The package (day) a granule belongs to: `CREC-1997-01-28` of `CREC-1997-01-28-pt1-PgS696`."""
    m = _GRANULE_NAME.match(granule)
    return m["package"] if m else ""


def _day_meta_near(path: Path) -> DayMeta | None:
    """The mods.xml of a granule's package: beside it, or one folder up (`html/` sits inside)."""
    for folder in (path.parent, path.parent.parent):
        mods = folder / "mods.xml"
        try:
            st = mods.stat()
        except OSError:
            continue
        try:
            return _cached_mods(str(mods.resolve()), st.st_size, st.st_mtime_ns)
        except (OSError, IngestError):
            return None  # the mods.xml itself reports why; speakers stay as printed
    return None


@functools.lru_cache(maxsize=4)
def _cached_mods(path: str, size: int, mtime_ns: int) -> DayMeta:
    # A day's 100-odd granules share one mods.xml; size and mtime key out a changed file.
    return parse_mods(Path(path).read_bytes())


def _root_tag(path: Path) -> str:
    try:
        for _, el in etree.iterparse(str(path), events=("start",), resolve_entities=False,
                                     no_network=True, load_dtd=False):
            return el.tag
    except etree.XMLSyntaxError:
        return ""
    return ""


# --------------------------------------------------------------------------------------------
# Zips
# --------------------------------------------------------------------------------------------

_ZIP_BUDGET = 8  # times the per-file limit that all members read from one zip may add up to
_BOMB_RATIO = 200  # deflated text and XML stay far below this; a zip bomb far above


def _read_zip(zf: zipfile.ZipFile, max_bytes: int) -> FileRead:
    granules: list[zipfile.ZipInfo] = []
    mods: list[zipfile.ZipInfo] = []
    other = 0
    for info in sorted(zf.infolist(), key=lambda i: i.filename):
        if info.is_dir():
            continue
        name = PurePosixPath(info.filename).name
        if name.lower() == "mods.xml":
            mods.append(info)
        elif name.lower().endswith((".htm", ".html")) and _GRANULE_NAME.match(name):
            granules.append(info)
        else:
            other += 1
    if not granules:
        raise IngestError("zip holds no Congressional Record granules (CREC-...htm)")
    declared = sum(i.file_size for i in granules + mods)
    if declared > _ZIP_BUDGET * max_bytes:
        raise IngestError(f"zip expands to {_size(declared)}, past the "
                          f"{_size(_ZIP_BUDGET * max_bytes, whole=True)} limit for one zip")

    notes: list[str] = []
    meta = DayMeta()
    for info in mods:
        try:
            meta.update(parse_mods(_member(zf, info, max_bytes)))
        except IngestError as e:
            notes.append(f"{info.filename}: {e} (its granules keep their printed speakers)")
    docs: list[Document] = []
    skipped = 0
    for info in granules:
        try:
            read = parse_granule(_member(zf, info, max_bytes), PurePosixPath(info.filename).stem, meta)
        except IngestError as e:
            notes.append(f"{info.filename}: {e}")
            continue
        docs.extend(read.documents)
        skipped += read.skipped is not None
    if skipped:
        notes.append(f"{skipped} of {len(granules)} granules have no speech turns")
    if other:
        notes.append(f"{other} other files in the zip not read (PDF, package metadata)")
    if not docs:
        notes.append("no speech turns in any granule")
    return FileRead(docs, notes=notes)


def _member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, max_bytes: int) -> bytes:
    """One member's bytes, refused before inflating when it is too large or a zip bomb, and
    while inflating when it holds more than its header says (archive.read_member)."""
    if too_large := size_refusal(info.file_size, max_bytes):
        raise IngestError(too_large)
    if info.file_size > 2**20 and info.file_size > _BOMB_RATIO * max(1, info.compress_size):
        raise IngestError(f"expands {info.file_size // max(1, info.compress_size)} times "
                          "(a zip bomb?)")
    try:
        return read_member(zf, info, max_bytes)
    except (zipfile.BadZipFile, OSError) as e:
        raise IngestError(f"damaged member: {e}") from e
