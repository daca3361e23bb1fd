"""The same candidate queries answered by a Qdrant collection, on a server or in a local folder.

Past one machine the linear parts of retrieval (a vector scan, an OR over postings) belong in
an engine that shards and replicates them. Qdrant answers each candidate query of the seam
with one Query API call: a dense query or a sparse one (the index's own stems, BM25 term
weights, IDF applied by the server) under a payload filter on the day (and the scope's
facets). Time partitions (a decade or a year) are custom shard keys on a server, so a
question about one period touches one shard; local mode has no sharding and applies the same
partition as a payload filter. `qdrant-client` is an optional extra, imported only here.
"""
from __future__ import annotations

import hashlib
import ipaddress
import math
import os
import re
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import numpy as np

from ...errors import QdrantError
from ...facets import Scope, Stemmer
from ...storage.store import UNKNOWN_DAY, from_day
from ..candidates import ChunkInfo, DayRange
from ..scoring import Ranked
from . import seal
from .points import Point, checked_meta

DENSE = "dense"
LEXICAL = "lexical"
LOCAL_COLLECTION = "trag"
UNDATED = "undated"
# The collection's metadata key for the pushed file's facet table (names, kinds, aliases).
FACETS_KEY = "trag_tui_facets"
# BM25 as FTS5 computes it for the index (text weighted 1.0, title 0.5); the server multiplies
# each term's weight by its IDF over the collection (Modifier.IDF).
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 0.5
# Above this many chunks in its fullest decade a corpus is sharded by year: a shard stays
# a few GB of vectors (5M x 384 float32 = 7.7 GB) that one node holds in memory.
YEAR_SHARDS_ABOVE = 5_000_000
PAYLOAD_FIELDS = ["document_id", "doc_id", "date", "day", "title", "speaker", "text", "parent_id",
                  "start_char", "end_char", "centrality", "cluster_id", "told_day"]




def client_module():
    """qdrant_client, or a one-line error naming the extra that installs it."""
    try:
        import qdrant_client
        from qdrant_client import models
    except ImportError:
        raise QdrantError("the Qdrant backend needs qdrant-client: pip install 'trag-tui[qdrant]'") from None
    return qdrant_client, models


@dataclass(frozen=True)
class Target:
    """Where a collection lives: a server (url) or a local folder (path), and its name."""

    collection: str
    url: str | None = None
    path: Path | None = None

    @property
    def local(self) -> bool:
        return self.url is None

    def key(self) -> str:
        """How the index file's push state names this target."""
        if self.url is not None:
            return f"{self.url.replace('http://', 'qdrant://', 1)}/{self.collection}"
        return str(self.path.resolve()) if self.path is not None else ":memory:"

    def connect(self, create: bool = True):
        """A client for the target; the API key comes from QDRANT_API_KEY. A local folder is
        made only when `create` (a push), so a mistyped --backend is refused, not filled, and
        an existing one is opened only if its seal holds (see `seal`): its points are pickles."""
        return self.connect_checked(create)[0]

    def connect_checked(self, create: bool = True, checked: seal.Checked | None = None):
        """`connect`, with what the seal's check read of a local folder (None for a server,
        memory, or a folder with nothing in it), so a push signs it without reading it again.
        `checked`: the caller verified the folder just now and read this."""
        qdrant_client, _ = client_module()
        if self.url is not None:
            return qdrant_client.QdrantClient(url=self.url, api_key=os.environ.get("QDRANT_API_KEY") or None,
                                              timeout=60), None
        if self.path is None:
            return qdrant_client.QdrantClient(":memory:"), None
        if not create and not self.path.is_dir():
            raise QdrantError(f"no Qdrant collection at {self.path}: `trag-tui push --to {self.path}` first")
        if checked is None and self.path.is_dir():
            checked = seal.verify(self.path)  # before the client unpickles anything
        self.path.mkdir(parents=True, exist_ok=True)
        try:
            return qdrant_client.QdrantClient(path=str(self.path)), checked
        except RuntimeError as exc:  # another process holds the folder
            raise QdrantError(f"{self.path}: {exc}") from None


_HOST = re.compile(r"^(?=.{1,253}$)[A-Za-z0-9_]([A-Za-z0-9_-]*)(\.[A-Za-z0-9_-]+)*\.?$")
_COLLECTION = re.compile(r"^[\w.-]{1,255}$")
_URL_FORM = "expected qdrant://HOST:PORT/COLLECTION or a folder"


def _shown(spec: str) -> str:
    return repr(spec if len(spec) <= 120 else spec[:120] + "…")


def _server(spec: str) -> Target:
    """A server target from a URL, every part checked: one line for whatever does not parse."""
    shown = _shown(spec)
    try:
        url = urlparse(spec)
        port = url.port
    except ValueError as exc:  # a bracket left open, a port that is no number or out of range
        raise QdrantError(f"{shown}: {exc} ({_URL_FORM})") from None
    if url.scheme not in ("qdrant", "http", "https") or not url.hostname:
        raise QdrantError(f"{shown}: {_URL_FORM}")
    if "@" in url.netloc:
        raise QdrantError(f"{shown}: no user or key in the URL; the API key is read from QDRANT_API_KEY")
    if url.query or url.fragment or url.params:
        raise QdrantError(f"{shown}: unexpected text after the collection ({_URL_FORM})")
    host = url.hostname
    if "[" in url.netloc:
        try:
            host = f"[{ipaddress.IPv6Address(host)}]"
        except ValueError:
            raise QdrantError(f"{shown}: {host!r} is not an IPv6 address") from None
    elif not _HOST.match(host):
        raise QdrantError(f"{shown}: {host!r} is not a host name or address")
    if port == 0:
        raise QdrantError(f"{shown}: the port must be from 1 to 65535")
    name = url.path.strip("/")
    if not name or "/" in name:
        raise QdrantError(f"{shown}: name one collection after the host, as in qdrant://HOST:6333/debates")
    if not _COLLECTION.match(name) or name in (".", ".."):
        raise QdrantError(f"{shown}: a collection name is letters, digits, '_', '-' and '.' (at most 255)")
    scheme = "https" if url.scheme == "https" else "http"
    return Target(collection=name, url=f"{scheme}://{host}:{port or 6333}")


def parse_target(spec: str) -> Target:
    """`qdrant://HOST:PORT/COLLECTION` (also http(s)://), or a local folder (collection 'trag')."""
    spec = spec.strip()
    if "://" in spec:
        return _server(spec)
    if not spec:
        raise QdrantError("an empty Qdrant target: expected qdrant://HOST:PORT/COLLECTION or a folder")
    if spec == ":memory:":
        return Target(collection=LOCAL_COLLECTION)
    path = Path(spec)
    try:
        if path.exists() and not path.is_dir():
            raise QdrantError(f"{spec}: not a folder (a local Qdrant collection is kept in a folder)")
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        raise QdrantError(f"{_shown(spec)}: not a usable folder name ({exc})") from None
    return Target(collection=LOCAL_COLLECTION, path=path)


def is_target(spec: str | None) -> bool:
    """Whether a --backend value names Qdrant (anything but the index file itself)."""
    return bool(spec) and spec not in ("sqlite", "file")


# -- the lexical side: the index's own stems as a sparse vector ------------------------------


def term_id(stem: str) -> int:
    """A stem's sparse index: 32 bits of its hash, the same in every process and machine."""
    return int.from_bytes(hashlib.blake2b(stem.encode(), digest_size=4).digest(), "little")


def _saturate(tf: int, length: int, average: float) -> float:
    return tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(average, 1e-9)))


def document_terms(stemmer: Stemmer, text: str, title: str, averages: tuple[float, float]) -> dict[int, float]:
    """BM25 term weights of a chunk (without IDF): saturated term counts of text and title."""
    weights: dict[int, float] = {}
    for words, weight, average in ((stemmer.stems(text), 1.0, averages[0]),
                                   (stemmer.stems(title), TITLE_WEIGHT, averages[1])):
        for stem, tf in Counter(words).items():
            key = term_id(stem)
            weights[key] = weights.get(key, 0.0) + weight * _saturate(tf, len(words), average)
    return weights


def query_terms(stemmer: Stemmer, text: str) -> dict[int, float]:
    """A question's stems, each once: the server's IDF weighs them as BM25 does."""
    return {term_id(s): 1.0 for s in dict.fromkeys(stemmer.stems(text))}


# -- time partitions ---------------------------------------------------------------------------


def year_of(day: int) -> int:
    """The calendar year of an integer day."""
    date = from_day(day)
    assert date is not None
    return date.year


def period_of(day: int | None, shard_by: str) -> str:
    """The partition of a day: '1990s' per decade, '1997' per year, or 'undated'."""
    if day is None or day == UNKNOWN_DAY:
        return UNDATED
    year = year_of(day)
    return f"{year - year % 10}s" if shard_by == "decade" else str(year)


def choose_shard_by(years: Counter[int]) -> str:
    """Decades, unless the fullest decade would outgrow one node's shard: then years."""
    decades: Counter[int] = Counter()
    for year, n in years.items():
        decades[year - year % 10] += n
    return "year" if decades and max(decades.values()) > YEAR_SHARDS_ABOVE else "decade"


def periods_in(days: DayRange, known: list[str], shard_by: str) -> list[str] | None:
    """The known partitions a day range can touch; None when it touches all of them."""
    if days.lo is None and days.hi is None and days.include_undated:
        return None
    lo = -math.inf if days.lo is None else year_of(days.lo)
    hi = math.inf if days.hi is None else year_of(days.hi)
    out = []
    for p in known:
        if p == UNDATED:
            if days.include_undated and days.lo is None:
                out.append(p)
            continue
        first = int(p.rstrip("s"))
        last = first + 9 if p.endswith("s") else first
        if first <= hi and last >= lo:
            out.append(p)
    return out


# -- the backend --------------------------------------------------------------------------------


class QdrantBackend:
    """Candidates and chunk look-ups from a collection `trag-tui push` filled."""

    name = "qdrant"

    def __init__(self, target: Target, client=None, embedder: str | None = None, sharded: bool | None = None,
                 vocabulary: Callable[[str], list[str]] | None = None):
        _, self.models = client_module()
        self.target = target
        self.client = client if client is not None else target.connect(create=False)
        self.collection = target.collection
        if not self.client.collection_exists(self.collection):
            raise QdrantError(f"{target.key()}: no such collection; `trag-tui push --to` it first")
        meta = (self.client.get_collection(self.collection).config.metadata or {}).get("trag_tui") or {}
        if not meta:
            raise QdrantError(f"{target.key()}: this collection was not pushed by trag-tui")
        meta = checked_meta(meta, target.key())
        if embedder is not None and meta.get("embedder") != embedder:
            raise QdrantError(f"{target.key()} holds vectors of the embedder {meta.get('embedder')!r}, "
                              f"this index uses {embedder!r}")
        self.shard_by = meta.get("shard_by", "decade")
        self.periods = list(meta.get("periods", []))
        self.sharded = bool(meta.get("sharded")) if sharded is None else sharded
        self.stemmer = Stemmer()
        self.vocabulary = vocabulary
        self._scopes: dict[tuple[int, ...], np.ndarray] = {}

    def close(self) -> None:
        self.client.close()

    def _where(self, days: DayRange, scope: Scope | None,
               within: np.ndarray | None = None) -> tuple[Any, list[str] | None]:
        """The payload filter of a candidate query, and the shard keys it needs (None: all)."""
        m = self.models
        lo, hi = days.bounds()
        must = [m.FieldCondition(key="day", range=m.Range(gte=lo, lte=hi))]
        if scope is not None:
            must.append(m.FieldCondition(key="facets", match=m.MatchAny(any=list(scope.facet_ids))))
        if within is not None:
            must.append(m.HasIdCondition(has_id=[int(i) for i in within]))
        periods = periods_in(days, self.periods, self.shard_by)
        if periods is not None and not self.sharded:  # local mode: the partition as a filter
            must.append(m.FieldCondition(key="period", match=m.MatchAny(any=periods)))
        return m.Filter(must=must), periods

    def _query(self, query, using: str, limit: int, days: DayRange, scope: Scope | None,
               within: np.ndarray | None = None) -> Ranked:
        where, periods = self._where(days, scope, within)
        if limit <= 0 or periods == [] or (within is not None and not len(within)):
            return []
        extra = {"shard_key_selector": periods} if self.sharded and periods is not None else {}
        found = self.client.query_points(self.collection, query=query, using=using, limit=limit,
                                         query_filter=where, with_payload=False, **extra)
        return [(int(p.id), float(p.score)) for p in found.points]

    def lexical(self, text: str, limit: int, days: DayRange, scope: Scope | None = None,
                session: bool = False, within: np.ndarray | None = None) -> Ranked:
        if self.vocabulary is not None:  # the words FTS5 would be asked for: rarest first, within a budget
            text = " ".join(w[1:-1].replace('""', '"') for w in self.vocabulary(text))
        terms = query_terms(self.stemmer, text)
        if not terms:
            return []
        sparse = self.models.SparseVector(indices=list(terms), values=list(terms.values()))
        return self._query(sparse, LEXICAL, limit, days, scope, within)

    def dense(self, vector: np.ndarray, limit: int, days: DayRange, scope: Scope | None = None,
              session: bool = False, within: np.ndarray | None = None) -> Ranked:
        return self._query(np.asarray(vector, dtype=np.float32).tolist(), DENSE, limit, days, scope,
                           within)

    def _records(self, ids: list[int]) -> dict[int, Point]:
        out: dict[int, Point] = {}
        for i in range(0, len(ids), 500):
            for r in self.client.retrieve(self.collection, ids[i:i + 500], with_payload=PAYLOAD_FIELDS):
                p = Point(self.target.key(), r)
                out[p.id] = p
        return out

    def chunk_info(self, ids: list[int]) -> dict[int, ChunkInfo]:
        """The chunks' fields, each checked: a collection is outside input."""
        out = {}
        for uid, p in self._records(list(dict.fromkeys(ids))).items():
            date = p.date("date")
            out[uid] = ChunkInfo(
                uid, p.whole("document_id"), p.text("doc_id"), None if date is None else date.isoformat(),
                p.day("day"), p.text("title", ""), p.text("speaker", ""), p.text("text", ""),
                p.optional_whole("parent_id"), p.whole("start_char", 0), p.whole("end_char", 0),
                p.number("centrality") or 0.0, p.optional_whole("cluster_id"), p.day("told_day"))
        return out

    def passage(self, chunk_id: int) -> str:
        own = self._records([chunk_id]).get(chunk_id)
        if own is None:
            return ""
        parent = own.optional_whole("parent_id")
        if parent is not None:
            found = self._records([parent]).get(parent)
            if found is not None:
                return found.text("text", "")
        return own.text("text", "")

    def scope_chunks(self, scope: Scope, narrow: bool = False) -> np.ndarray:
        key = scope.narrow if narrow else scope.facet_ids
        if key not in self._scopes:
            m = self.models
            where = m.Filter(must=[m.FieldCondition(key="facets", match=m.MatchAny(any=list(key))),
                                   m.FieldCondition(key="searchable", match=m.MatchValue(value=True))])
            ids: list[int] = []
            offset = None
            while True:
                points, offset = self.client.scroll(self.collection, scroll_filter=where, limit=1000,
                                                    offset=offset, with_payload=False)
                ids.extend(int(p.id) for p in points)
                if offset is None:
                    break
            self._scopes[key] = np.asarray(sorted(ids), dtype=np.int64)
        return self._scopes[key]


def quiet_payload_index(client, collection: str, field: str, schema) -> None:
    """Create a payload index; local mode ignores them (and says so with a warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        client.create_payload_index(collection, field, schema)


__all__ = [
    "QdrantBackend",
    "QdrantError",
    "Target",
    "choose_shard_by",
    "client_module",
    "document_terms",
    "is_target",
    "parse_target",
    "period_of",
    "periods_in",
    "query_terms",
    "term_id",
]


def failure(exc: BaseException) -> str | None:
    """The one line to show for an error from a Qdrant target, or None if it is not one."""
    module = type(exc).__module__ or ""
    if module.startswith(("qdrant_client", "httpx", "httpcore", "grpc")):
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        return f"Qdrant: {detail}"
    return None
