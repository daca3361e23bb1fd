"""Who said it: the index's speakers, sources and named title parts, and the names people use.

"What is the Richmond district reporting?" names its source as plainly as its month, and the
documents that merely mention Richmond (a national summary, a reply) outnumber Richmond's own.
Facets are read from the data itself (the speaker field, short name-like metadata values, the
named segments of titles), never from per-corpus lists, so a new collection brings its own.
Aliases are the parts of a name that tell it apart from the other names in the index ("the
Philadelphia Fed" from "Federal Reserve Bank of Philadelphia"), kept only where the corpus
writes them as names; a question is matched against them with the index's own tokenizer.
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .storage.db import get_meta, is_readonly, read_again_if_changed, sqlite3, transaction

# A facet that covers more than this share of the documents tells nothing apart ("Beige Book").
MAX_SHARE = 0.5
# A word shared by more than this many names (or this share of them) is generic ("Bank", "District").
MAX_NAME_SHARE = 0.01
MIN_NAME_COUNT = 2
# A one-word alias the text uses at least MIN_SEEN times must be written there as a name:
# capitalised inside a sentence.
MIN_CAPITALISED = 0.7
MIN_SEEN = 3
SAMPLE_CHUNKS = 8000
MAX_NAME_WORDS = 8
MAX_ALIAS_WORDS = 6

# A separator with its spaces, tried only where a run of spaces starts or where the last one
# ended: tried from inside a long run as well, the leading `\s*` made a title of spaces
# quadratic. The splits are the same.
_SPLIT_TITLE = re.compile(r"(?<!\s)\s*(?::|\||,|\s[—–-]\s)\s*|(?<=\s)[:|,]\s*")
_PAREN = re.compile(r"\(([^()]*)\)")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DIGIT = re.compile(r"\d")
_TITLE = re.compile(r"(?:^|\s)[A-Z][a-z]{0,2}\.$")  # "Mr.", "Dr.", "St." before a name
# "What did X say", "according to X", "X's view", "what did X publish": the question is about
# what the source itself said.
_REPORTING = re.compile(
    r"\b(?:say|says|said|saying|report|reports|reported|reporting|according|describe|describes|"
    r"publish|publishes|published|announce|announces|announced|"
    r"described|view|views|stance|position|told|tell|claim|claimed|argue|argued|mention|mentioned|"
    r"statement|speech|testimony|wrote|write|writes|contacts|assessment|outlook)\b",
    re.IGNORECASE)
# Kinds whose names are someone's: one word cut from them may stand for them.
_WHO = ("speaker", "title")
# An organisation is named by its initials as often as by its name ("the ONS" for the "Office
# for National Statistics"): the capitals of a name of at least this many capitalised words,
# kept where the text writes them, in capitals, at least MIN_SEEN times.
MIN_INITIALS = 3
# Bumped when the reading of names changes, so an index's facets are read again.
RULES = "6"
# A word more speakers' names than this share, after "in" or the like, names a place
MAX_PLACE_NAMES = 3
_LOCATIVE = frozenset("in across throughout around within outside".split())
# Number words are names' parts ("Third District") but never names on their own.
_NUMBER_WORDS = set(
    "one two three four five six seven eight nine ten eleven twelve first second third fourth "
    "fifth sixth seventh eighth ninth tenth eleventh twelfth".split())


def _name_like(text: str) -> bool:
    """A segment that reads as a name: no digits, a few words, every long word capitalised."""
    words = _WORD.findall(text)
    if not words or len(words) > MAX_NAME_WORDS or _DIGIT.search(text):
        return False
    return all(w[0].isupper() for w in words if len(w) > 3) and any(w[0].isupper() for w in words)


def _category_like(text: str) -> bool:
    """A metadata value that reads as a category's name, capitalised as one but not every word
    ("Lords written answers", "Scottish Parliament written answers": the record a question may
    name, "according to a Lords written answer"): no digits, a few words, the first
    capitalised, and not a sentence."""
    words = _WORD.findall(text)
    return bool(words) and len(words) <= MAX_NAME_WORDS and not _DIGIT.search(text) \
        and words[0][0].isupper() and not text.rstrip().endswith((".", "?", "!"))


def document_names(title: str, speaker: str, meta: dict) -> list[tuple[str, str]]:
    """(kind, name) facets of one document: its speaker, metadata that reads as a name or a
    category, and the segments of its title that name its speaker ("... : Federal Reserve Bank
    of Atlanta (Sixth District)", a conversation "Joanna and Nate"); a title's topic ("NHS
    Funding") says what, not who."""
    out: list[tuple[str, str]] = []
    speaker = " ".join(speaker.split())
    if speaker:
        out.append(("speaker", speaker))
    for key, value in sorted(meta.items()):
        if isinstance(value, str) and len(value) >= 3 and _category_like(value):
            out.append((key, " ".join(value.split())))
    who = [set(_WORD.findall(p.lower())) for p in name_parts(speaker)] if speaker else []
    for segment in _SPLIT_TITLE.split(title or ""):
        segment = " ".join(segment.split())
        if not segment or segment == title.strip() or not _name_like(segment):
            continue
        words = [set(_WORD.findall(p.lower())) for p in name_parts(segment)]
        if any(a and b and (a <= b or b <= a) for a in who for b in words):
            out.append(("title", segment))
    unique: dict[str, tuple[str, str]] = {}
    for kind, name in out:
        unique.setdefault(name, (kind, name))
    return list(unique.values())


def _folded(word: str) -> str:
    """A word lower-cased and without its accents, as the index's tokenizer reads it."""
    return "".join(c for c in unicodedata.normalize("NFKD", word.lower())
                   if not unicodedata.combining(c))


def name_parts(name: str) -> list[str]:
    """A name and its parenthesised parts as separate names: 'Bank of X (Third District)'."""
    inner = [p.strip() for p in _PAREN.findall(name) if p.strip()]
    base = " ".join(_PAREN.sub(" ", name).split())
    return [p for p in [base, *inner] if p]


class Stemmer:
    """The index's tokenizer (porter over unicode61), run in a private in-memory database."""

    TOKENIZE = "porter unicode61 remove_diacritics 2"

    def __init__(self) -> None:
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '{self.TOKENIZE}')")
        self._db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance')")

    def positions(self, tokens: list[str]) -> dict[int, str]:
        """Token position -> stem, for the tokens the tokenizer keeps."""
        self._db.execute("DELETE FROM t")
        self._db.execute("INSERT INTO t (x) VALUES (?)", (" ".join(tokens),))
        return {offset: term for term, offset in self._db.execute("SELECT term, offset FROM v")}

    def stems(self, text: str) -> list[str]:
        """The stems of a text in order."""
        words = [w.lower() for w in _WORD.findall(text)]
        found = self.positions(words) if words else {}
        return [found[i] for i in range(len(words)) if i in found]


def _sample_texts(conn: sqlite3.Connection) -> Iterator[str]:
    """The text of an even sample of the searchable chunks (at most about SAMPLE_CHUNKS)."""
    total = conn.execute("SELECT max(id) FROM chunks").fetchone()[0] or 0
    step = max(1, total // SAMPLE_CHUNKS)
    for (text,) in conn.execute("SELECT text FROM chunks WHERE searchable = 1 AND id % ? = 0", (step,)):
        yield text


def initials(name: str) -> str | None:
    """'ONS' for 'Office for National Statistics': the capitals of a name's capitalised words,
    when it has MIN_INITIALS of them and no other word longer than a joining word ('for')."""
    words = _WORD.findall(name)
    capitals = [w for w in words if w[0].isupper()]
    if len(capitals) < MIN_INITIALS or any(not w[0].isupper() and len(w) > 3 for w in words):
        return None
    return "".join(w[0] for w in capitals)


def _written(conn: sqlite3.Connection, tokens: set[str]) -> Counter[str]:
    """How often each token is written, exactly so, in a sample of chunk text."""
    seen: Counter[str] = Counter()
    if tokens:
        for text in _sample_texts(conn):
            seen.update(w for w in _WORD.findall(text) if w in tokens)
    return seen


def _capitalisation(conn: sqlite3.Connection, words: set[str]) -> dict[str, tuple[int, int]]:
    """For each word, (times capitalised, times seen) inside sentences of a sample of chunk text."""
    counts = {w: [0, 0] for w in words}
    if not words:
        return {}
    for text in _sample_texts(conn):
        for m in _WORD.finditer(text):
            low = m.group().lower()
            c = counts.get(low)
            if c is None:
                continue
            before = text[max(0, m.start() - 6): m.start()].rstrip()
            if not before or (before[-1] in "!?:\"“\n" or before[-1] == "." and not _TITLE.search(before)):
                continue  # sentence-initial: capitalised whatever it is ("Mr." starts no sentence)
            c[1] += 1
            c[0] += m.group()[0].isupper()
    return {w: (c[0], c[1]) for w, c in counts.items()}


def aliases(names: dict[int, tuple[str, str]], conn: sqlite3.Connection, stemmer: Stemmer
            ) -> set[tuple[str, int]]:
    """(alias stems, facet id) pairs from {facet id: (name, kind)}: each name part whole, and its
    runs of distinctive words.

    A word is distinctive when few names hold it. One word cut from a longer name ("Sunak",
    "Philadelphia") stands for a speaker or source only, and must be written as a name in the
    text (so "System" of "Federal Reserve System" or "Third" are not aliases). A speaker's or
    source's initials ("ONS") are an alias where the text writes them.
    """
    parts = {fid: name_parts(n) for fid, (n, _) in names.items()}
    holders: Counter[str] = Counter()
    for part in {p for ps in parts.values() for p in ps}:
        for w in {w.lower() for w in _WORD.findall(part)}:
            holders[w] += 1
    limit = max(MIN_NAME_COUNT, int(MAX_NAME_SHARE * len({p for ps in parts.values() for p in ps})))
    candidates: dict[int, list[list[str]]] = {}
    singles: set[str] = set()
    for fid, ps in parts.items():
        found: list[list[str]] = []
        for part in ps:
            words = _WORD.findall(part)
            if not words:
                continue
            if len(words) > 1 or names[fid][1] in _WHO:  # a lone "FOREIGN" of metadata is no name
                found.append(words)
            run: list[str] = []
            for w in [*words, ""]:
                if w and holders[w.lower()] <= limit and w.lower() not in _NUMBER_WORDS:
                    run.append(w)
                    continue
                if run and (len(run) > 1 or names[fid][1] in _WHO):
                    found.append(run)
                    if len(run) == len(words) > 1 and names[fid][1] in _WHO:  # a surname: "Mr Sunak"
                        found.append([run[-1]])
                run = []
        candidates[fid] = found
        singles.update(ws[0].lower() for ws in found if len(ws) == 1)
    caps = _capitalisation(conn, singles)
    out: set[tuple[str, int]] = set()
    for fid, found in candidates.items():
        for words in found:
            if len(words) > MAX_ALIAS_WORDS:
                continue
            if len(words) == 1:
                w = words[0]
                cap, seen = caps.get(w.lower(), (0, 0))
                # A word the text rarely writes at all is no common word ("Dorgan" appears only
                # as a speaker label); one it writes often must be written as a name.
                if (len(w) < 3 or w.lower() in _NUMBER_WORDS or not w[0].isupper()
                        or seen >= MIN_SEEN and cap < MIN_CAPITALISED * seen):
                    continue
            stems = stemmer.stems(" ".join(words))
            if stems:
                out.add((" ".join(stems), fid))
    # Initials are kept as written, in capitals (no stem is), and matched so: "ONS", not "ons".
    short = {fid: {i for p in ps if (i := initials(p))} for fid, ps in parts.items()
             if names[fid][1] in _WHO}
    written = _written(conn, {i for found in short.values() for i in found})
    out.update((i, fid) for fid, found in short.items() for i in found if written[i] >= MIN_SEEN)
    return out


def update_facets(conn: sqlite3.Connection, stemmer: Stemmer | None = None) -> dict:
    """Read the facets of documents not read yet and, when any were, rebuild the aliases."""
    read_again_if_changed(conn, "facet_rules", RULES, ("facet_seen", "facets"))
    rows = conn.execute(
        "SELECT d.id, d.title, d.speaker, d.meta FROM documents d "
        "LEFT JOIN facet_seen s ON s.document_id = d.id WHERE s.document_id IS NULL").fetchall()
    if not rows:
        return {"documents": 0, "facets": None}
    with transaction(conn):
        ids = {n: i for i, n in conn.execute("SELECT id, name FROM facets")}
        for doc_id, title, speaker, meta_text in rows:
            try:
                meta = json.loads(meta_text or "{}")
            except ValueError:
                meta = {}
            for kind, name in document_names(title or "", speaker or "", meta if isinstance(meta, dict) else {}):
                if name not in ids:
                    ids[name] = conn.execute(
                        "INSERT INTO facets (name, kind) VALUES (?, ?)", (name, kind)).lastrowid
                conn.execute("INSERT OR IGNORE INTO document_facets (facet_id, document_id) VALUES (?, ?)",
                             (ids[name], doc_id))
            conn.execute("INSERT INTO facet_seen (document_id) VALUES (?)", (doc_id,))
        conn.execute("DELETE FROM facets WHERE id NOT IN (SELECT facet_id FROM document_facets)")
        names = {i: (n, k) for i, n, k in conn.execute("SELECT id, name, kind FROM facets")}
        conn.execute("DELETE FROM facet_aliases")
        conn.executemany("INSERT INTO facet_aliases (alias, facet_id) VALUES (?, ?)",
                         sorted(aliases(names, conn, stemmer or Stemmer())))
    return {"documents": len(rows), "facets": len(names)}


@dataclass(frozen=True)
class Scope:
    """Who a question names: the facets, their display names, and whether to filter or prefer."""

    facet_ids: tuple[int, ...]
    names: tuple[str, ...]
    mentions: tuple[str, ...]
    filter: bool
    # Per mention, the facet(s) covering the fewest documents: the speaker's own turns inside
    # the conversation a first name also names. Preferred within the scope.
    narrow: tuple[int, ...] = ()

    def label(self) -> str:
        """'source: Federal Reserve Bank of Philadelphia (filter)'."""
        how = "only" if self.filter else "preferred"
        return f"source: {'; '.join(self.names)} ({how})"

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"sources": list(self.names), "mentions": list(self.mentions),
                "how": "filter" if self.filter else "prior"}


class FacetIndex:
    """Aliases in memory for matching, and each scope's chunk ids, for one index generation."""

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn
        self.stemmer = Stemmer()
        documents = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        seen = conn.execute("SELECT count(*) FROM facet_seen").fetchone()[0]
        stale = seen != documents or get_meta(conn, "facet_rules") != RULES
        if stale and not is_readonly(conn):  # built before facets (or these rules), or a crash left it
            update_facets(conn, self.stemmer)
        counts = dict(conn.execute("SELECT facet_id, count(*) FROM document_facets GROUP BY facet_id"))
        kinds = {i: (n, k) for i, n, k in conn.execute("SELECT id, name, kind FROM facets")}
        ceiling = MAX_SHARE * max(documents, 1)
        self.names = {i: n for i, (n, _) in kinds.items()}
        self.titled = {i for i, (_, k) in kinds.items() if k == "title"}
        self.counts = counts
        self.aliases: dict[tuple[str, ...], list[int]] = {}
        self.initials: dict[str, list[int]] = {}
        for alias, fid in conn.execute("SELECT alias, facet_id FROM facet_aliases"):
            n = counts.get(fid, 0)
            if n == 0 or n > ceiling or (kinds[fid][1] != "speaker" and n < 2):
                continue
            if alias.isupper():
                self.initials.setdefault(alias, []).append(fid)
            else:
                self.aliases.setdefault(tuple(alias.split()), []).append(fid)
        self.longest = max((len(a) for a in self.aliases), default=0)
        self._chunks: dict[tuple[int, ...], np.ndarray] = {}

    def scope(self, question: str) -> Scope | None:
        """The facets a question names (longest alias first), or None."""
        if not self.aliases and not self.initials:
            return None
        raw = _WORD.findall(question)
        words = [w.lower() for w in raw]
        stems = self.stemmer.positions(words)
        seq = [stems.get(i) for i in range(len(words))]
        matched: list[tuple[str, list[int]]] = []
        i = 0
        while i < len(seq):
            if raw[i] in self.initials:
                matched.append((raw[i], self.initials[raw[i]]))
                i += 1
                continue
            for n in range(min(self.longest, len(seq) - i), 0, -1):
                part = seq[i:i + n]
                key = tuple(w for w in part if w is not None)
                if len(key) < len(part) or key not in self.aliases:
                    continue
                fids = self.aliases[key]
                if n == 1:
                    # one word stands for a name only as the name writes it (or with an "s":
                    # "Johns's"): "How" shares the stem of "Earl Howe", and "How many…" names
                    # no one
                    word = _folded(words[i])
                    fids = [f for f in fids if {word, word[:-1] if word.endswith("s") else word}
                            & self._name_words(f)]
                    if not fids or _a_place(words, i, fids):
                        continue
                matched.append((" ".join(words[i:i + n]), fids))
                i += n
                break
            else:
                i += 1
        # A name that is someone's (a speaker, a source) says who; a title's name alone ("Rwanda"
        # as a debate's heading) only counts when the question names no one.
        who = [(m, f) for m, f in matched if any(x not in self.titled for x in f)]
        matched = who or matched
        if not matched:
            return None
        found: list[int] = []
        narrow: list[int] = []
        for _, fids in matched:
            found.extend(f for f in fids if f not in found)
            least = min(self.counts[f] for f in fids)
            narrow.extend(f for f in fids if self.counts[f] == least and f not in narrow)
        mentions = [m for m, _ in matched]
        # Facets covering the same documents under several names show once, by the shortest name.
        names: list[str] = []
        for fid in sorted(found, key=lambda f: (len(self.names[f]), self.names[f])):
            name = self.names[fid]
            if not any(name.startswith(n) or n.startswith(name) for n in names):
                names.append(name)
        narrow_ids = tuple(sorted(narrow))
        wider = max(self.counts[f] for f in found) > max(self.counts[f] for f in narrow)
        return Scope(tuple(sorted(found)), tuple(names), tuple(mentions),
                     bool(_REPORTING.search(question)), narrow_ids if wider else ())

    def _name_words(self, fid: int) -> set[str]:
        return {_folded(w) for w in _WORD.findall(self.names[fid])}

    def names_of(self, document_id: int) -> list[str]:
        """The names of one document's facets: its speaker, its source, what it belongs to."""
        return [self.names[f] for (f,) in self.conn.execute(
            "SELECT facet_id FROM document_facets WHERE document_id = ?", (document_id,))
            if f in self.names]

    # Read from the index of searchable chunks by document (migration 0009), not the chunk rows.
    CHUNKS_SQL = ("SELECT DISTINCT c.id FROM document_facets f JOIN chunks c ON c.document_id = "
                  "f.document_id WHERE f.facet_id IN ({marks}) AND c.searchable = 1")

    def chunk_ids(self, scope: Scope, narrow: bool = False) -> np.ndarray:
        """Sorted ids of the searchable chunks of the scope's documents (or its narrow part's)."""
        key = scope.narrow if narrow else scope.facet_ids
        if key not in self._chunks:
            ids = [r[0] for r in self.conn.execute(
                self.CHUNKS_SQL.format(marks=",".join("?" * len(key))), key)]
            self._chunks[key] = np.asarray(sorted(ids), dtype=np.int64)
        return self._chunks[key]


def _a_place(words: list[str], i: int, fids: list[int]) -> bool:
    """Is the word at `i`, one word many speakers' names share, a place the question names
    after "in" ("…in Scotland": members for the West of Scotland, Central Scotland…, and
    Baroness Scotland), not someone? One source named so ("in Chicago": the Chicago Fed's
    reports) stays who. English only."""
    return len(fids) > MAX_PLACE_NAMES and i > 0 and words[i - 1] in _LOCATIVE \
        and (i + 1 >= len(words) or words[i + 1] != "s")


def facet_index(index) -> FacetIndex:
    """The open index's facets, built on first need and kept until the file changes."""
    return index.derived("facets", lambda: FacetIndex(index.conn))


__all__ = ["document_names", "name_parts", "initials", "aliases", "update_facets", "Scope", "FacetIndex",
           "facet_index", "Stemmer"]
