"""The corroboration graph: which passages repeat or corroborate each other, and which are copies.

Retrieval boosts passages that many others agree with (`scoring.centrality_boost`), shows one
hit per near-duplicate cluster (`modes._collapse`), and inside a period ranks a passage told
before it below the period's own news (`scoring.retold`). All need chunk-to-chunk overlap for a
whole collection, which exact comparison cannot give at 100K chunks (5·10⁹ pairs). MinHash signatures
make overlap estimable from 64 numbers per chunk, and LSH banding proposes only the pairs likely
to overlap, so the cost grows with the number of chunks, not its square.

Our own vectorised (a·x + b) mod p hashing is used instead of datasketch: on the same shingles
it measured about three times faster in CPU time (`bench/corroboration_bench.py --compare` repeats
the measurement), because it hashes the shingles of thousands of chunks in one numpy pass
instead of building one MinHash object per chunk. The permutation parameters derive from a fixed
digest, never from a random generator whose stream may change between numpy versions: stored
signatures must stay comparable with the ones computed by any later version.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from .storage.db import get_meta, set_meta, sqlite3, transaction

PRIME = 4294967291  # 2**32 - 5: a·x + b stays below 2**64 for 32-bit a, b, x, so uint64 never wraps
# Every slot of a text without words. No real slot can hold it (hashes are < PRIME), so
# such chunks are told apart and join no pair.
EMPTY = np.uint32(0xFFFFFFFF)
NEAR_DUPLICATE = 0.8
MAX_BUCKET = 100  # an LSH bucket larger than this pairs each member with its next 100 only
_WORD = re.compile(r"[^\W_]+")
_M1, _M2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)
_MIX = [np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x165667B19E3779F9)]

# (stage, done, total): "signatures" per block of chunks hashed, then "graph" at 0 and at the end.
ProgressFn = Callable[[str, int, int], None]


@functools.lru_cache(maxsize=8)
def _perm_params(num_perm: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = [], []
    for i in range(num_perm):
        d = hashlib.blake2b(f"trag-tui minhash {i}".encode(), digest_size=16).digest()
        a.append(1 + int.from_bytes(d[:8], "little") % (PRIME - 1))
        b.append(int.from_bytes(d[8:], "little") % PRIME)
    return np.array(a, dtype=np.uint64), np.array(b, dtype=np.uint64)


def _fmix(x: np.ndarray) -> np.ndarray:
    # MurmurHash3's finaliser: every input bit reaches every output bit, so the top 32 bits of a
    # sum of word hashes are a usable shingle hash.
    s = np.uint64(33)
    x = (x ^ (x >> s)) * _M1
    x = (x ^ (x >> s)) * _M2
    return x ^ (x >> s)


def words(text: str) -> list[str]:
    """The normalised words of a text: lowercased, punctuation and underscores dropped."""
    return _WORD.findall(text.lower())


def text_key(text: str) -> int:
    """A 64-bit digest of the normalised text: equal for texts differing only in case or punctuation."""
    joined = " ".join(words(text)).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(joined, digest_size=8).digest(), "little")


_WORD_HASHES: dict[str, int] = {}  # shared across calls: most words recur in every block


def _word_cache() -> dict[str, int]:
    if len(_WORD_HASHES) > 1 << 20:  # a bound on memory for very varied collections
        _WORD_HASHES.clear()
    return _WORD_HASHES


def _word_ids(ws: list[str], cache: dict[str, int]) -> list[int]:
    ids: list[int | None] = list(map(cache.get, ws))  # C-speed; unseen words take the slow path
    if None in ids:
        for k, w in enumerate(ws):
            if ids[k] is None:
                if w not in cache:
                    d = hashlib.blake2b(w.encode("utf-8", "surrogatepass"), digest_size=8).digest()
                    cache[w] = int.from_bytes(d, "little")
                ids[k] = cache[w]
    return ids  # type: ignore[return-value]  # every None was just filled in


def _block_shingles(texts: Sequence[str], n: int, cache: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """Shingle hashes (uint64 < 2**32) of many texts back to back, and the count per text.

    A text shorter than n words is one shingle of all its words, so it still has a signature.
    """
    flat: list[int] = []
    lens = []
    for t in texts:
        ids = _word_ids(words(t), cache)
        flat.extend(ids)
        lens.append(len(ids))
    w = np.array(flat, dtype=np.uint64)
    lens_a = np.array(lens, dtype=np.int64)
    ends = np.cumsum(lens_a)
    counts = np.where(lens_a >= n, lens_a - n + 1, np.minimum(lens_a, 1))
    text_of = np.repeat(np.arange(len(lens_a)), counts)
    pos = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    pos = pos + (ends - lens_a)[text_of]  # first word of each shingle, in w
    end = ends[text_of]
    acc = np.zeros(len(pos), dtype=np.uint64)
    for j in range(n):
        inside = pos + j < end
        term = w[np.minimum(pos + j, max(len(w) - 1, 0))] * _MIX[j % len(_MIX)] + np.uint64(j)
        acc += np.where(inside, term, np.uint64(0))
    return _fmix(acc) >> np.uint64(32), counts


def shingles(text: str, n: int = 3) -> set[int]:
    """Word n-gram shingles of the normalised text, each hashed to a 32-bit int."""
    return set(_block_shingles([text], n, _word_cache())[0].tolist())


def minhash(shingle_hashes: Iterable[int], num_perm: int = 64) -> np.ndarray:
    """MinHash signature (uint32[num_perm]) of a set of 32-bit shingle hashes; EMPTY if none."""
    x = np.fromiter((int(h) & 0xFFFFFFFF for h in shingle_hashes), dtype=np.uint64)
    return _minhash_flat(x, np.array([x.size]), num_perm)[0]


def _minhash_flat(flat: np.ndarray, counts: np.ndarray, num_perm: int) -> np.ndarray:
    """Signatures of sets stored back to back in flat (counts[i] hashes for set i)."""
    a, b = _perm_params(num_perm)
    p = np.uint64(PRIME)
    out = np.full((len(counts), num_perm), EMPTY, dtype=np.uint32)
    rows = np.nonzero(counts)[0]
    if rows.size:
        starts = (np.cumsum(counts) - counts)[rows]  # empty sets hold no slot in flat
        for k in range(num_perm):  # one pass per permutation keeps temporaries block-sized
            out[rows, k] = np.minimum.reduceat((a[k] * flat + b[k]) % p, starts)
    return out


def minhash_many(texts: Sequence[str], num_perm: int = 64, n: int = 3, block: int = 4000,
                 progress: ProgressFn | None = None) -> np.ndarray:
    """Signatures of many texts, shape (len(texts), num_perm); row i equals minhash(shingles(texts[i]))."""
    out = np.empty((len(texts), num_perm), dtype=np.uint32)
    for lo in range(0, len(texts), block):
        flat, counts = _block_shingles(texts[lo : lo + block], n, _word_cache())
        out[lo : lo + len(counts)] = _minhash_flat(flat, counts, num_perm)
        if progress:
            progress("signatures", lo + len(counts), len(texts))
    return out


def jaccard(a: set, b: set) -> float:
    """Exact Jaccard similarity of two sets (0 when both are empty)."""
    return len(a & b) / len(a | b) if a or b else 0.0


def jaccard_estimate(sig_a: np.ndarray, sig_b: np.ndarray) -> float:
    """Share of equal MinHash slots, an unbiased estimate of the Jaccard similarity."""
    if np.all(sig_a == EMPTY) or np.all(sig_b == EMPTY):
        return 0.0
    return float(np.mean(np.asarray(sig_a) == np.asarray(sig_b)))


def lsh_params(threshold: float, num_perm: int = 64, recall: float = 0.95) -> tuple[int, int]:
    """(bands, rows) with the most rows per band that still proposes a pair at `threshold` with
    probability >= recall: more rows mean fewer false candidates to verify."""
    best = (num_perm, 1)
    for rows in range(1, num_perm + 1):
        bands = num_perm // rows
        if 1 - (1 - threshold**rows) ** bands >= recall:
            best = (bands, rows)
    return best


def _band_keys(sigs: np.ndarray, band: int, rows: int) -> np.ndarray:
    cols = sigs[:, band * rows : (band + 1) * rows].astype(np.uint64)
    if rows <= 2:  # exact: two 32-bit slots fit one 64-bit key
        return cols[:, 0] << np.uint64(32) | cols[:, 1] if rows == 2 else cols[:, 0]
    key = cols[:, 0]
    for j in range(1, rows):
        key = _fmix(key * _MIX[0] + cols[:, j])
    return key


def _band_pairs(sigs: np.ndarray, bands: int, rows: int, new: np.ndarray | None = None,
                max_bucket: int = MAX_BUCKET) -> tuple[np.ndarray, np.ndarray]:
    """Row-index pairs (i < j) sharing a band; with `new`, only pairs touching a new row."""
    n = len(sigs)
    rows_in = np.nonzero(~np.all(sigs == EMPTY, axis=1))[0]
    codes: list[np.ndarray] = []
    for band in range(bands):
        key = _band_keys(sigs, band, rows)
        order = rows_in[np.argsort(key[rows_in], kind="stable")]  # stable: members stay in id order
        ks = key[order]
        first = np.r_[True, ks[1:] != ks[:-1]]
        starts = np.nonzero(first)[0]
        end = np.r_[starts[1:], len(ks)][np.cumsum(first) - 1]
        pos = np.nonzero(end - np.arange(len(ks)) > 1)[0]
        d = 1
        # Offset d pairs each member with the d-th one after it in the bucket; huge buckets
        # (boilerplate) stop at max_bucket, keeping the pair count linear in the bucket size.
        while pos.size and d <= max_bucket:
            i, j = order[pos], order[pos + d]
            if new is not None:
                keep = new[i] | new[j]
                i, j = i[keep], j[keep]
            codes.append(i.astype(np.uint64) * np.uint64(n) + j.astype(np.uint64))  # i < j: stable
            d += 1
            pos = pos[end[pos] - pos > d]
        if len(codes) > 64:
            codes = [np.unique(np.concatenate(codes))]
    if not codes:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    u = np.unique(np.concatenate(codes))
    return (u // np.uint64(n)).astype(np.int64), (u % np.uint64(n)).astype(np.int64)


def _estimates(sigs: np.ndarray, i: np.ndarray, j: np.ndarray, step: int = 100_000) -> np.ndarray:
    out = np.empty(len(i), dtype=np.float64)
    for lo in range(0, len(i), step):
        out[lo : lo + step] = (sigs[i[lo : lo + step]] == sigs[j[lo : lo + step]]).mean(axis=1)
    return out


def lsh_candidates(signatures: Mapping[int, np.ndarray], bands: int, rows: int) -> set[tuple[int, int]]:
    """Candidate pairs (a < b): ids whose signatures agree on all rows of at least one band."""
    ids = sorted(signatures)
    sigs = np.array([signatures[k] for k in ids], dtype=np.uint32).reshape(len(ids), -1)
    i, j = _band_pairs(sigs, bands, rows)
    return {(ids[x], ids[y]) for x, y in zip(i.tolist(), j.tolist())}


def edges(signatures: Mapping[int, np.ndarray], threshold: float = 0.3, *,
          bands: int | None = None, rows: int | None = None,
          shingle_sets: Mapping[int, set] | None = None) -> list[tuple[int, int, float]]:
    """LSH candidates kept when their Jaccard is >= threshold: exact when both shingle sets are
    given, else estimated from the signatures. Returns sorted (a, b, weight) with a < b."""
    if bands is None or rows is None:
        bands, rows = lsh_params(threshold, len(next(iter(signatures.values()), [])) or 64)
    out = []
    for a, b in sorted(lsh_candidates(signatures, bands, rows)):
        if shingle_sets is not None and a in shingle_sets and b in shingle_sets:
            w = jaccard(shingle_sets[a], shingle_sets[b])
        else:
            w = jaccard_estimate(signatures[a], signatures[b])
        if w >= threshold:
            out.append((a, b, w))
    return out


def _positions(ids: Iterable[int], edges: Iterable[tuple]
               ) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    listed = list(ids)
    pos = {k: x for x, k in enumerate(listed)}
    e = np.array([(pos[t[0]], pos[t[1]], t[2] if len(t) > 2 else 1.0) for t in edges],
                 dtype=np.float64).reshape(-1, 3)
    return listed, e[:, 0].astype(np.int64), e[:, 1].astype(np.int64), e[:, 2]


def _degrees(n: int, i: np.ndarray, j: np.ndarray, scale: str = "log") -> np.ndarray:
    deg = (np.bincount(i, minlength=n) + np.bincount(j, minlength=n)).astype(np.float64)
    top = deg.max(initial=0.0)
    if top == 0:
        return deg
    # log: a boilerplate hub with thousands of copies would flatten a linear scale to ~0 for
    # everyone else, and the centrality boost would then favour boilerplate alone.
    return np.log1p(deg) / np.log1p(top) if scale == "log" else deg / top


def degree_centrality(ids: Iterable[int], edges: Iterable[tuple], scale: str = "log") -> dict[int, float]:
    """Neighbour count per id scaled to 0..1 (1 = most connected; log1p(d)/log1p(max) by default,
    d/max with scale='linear'); ids without edges get 0."""
    listed, i, j, _ = _positions(ids, edges)
    return dict(zip(listed, _degrees(len(listed), i, j, scale).tolist()))


def _pagerank(n: int, i: np.ndarray, j: np.ndarray, w: np.ndarray, damping: float = 0.85,
              iters: int = 100, tol: float = 1e-6) -> np.ndarray:
    if n == 0:
        return np.zeros(0)
    src, dst, wt = np.r_[i, j], np.r_[j, i], np.r_[w, w]  # undirected: each edge both ways
    strength = np.bincount(src, weights=wt, minlength=n)
    dangling = strength == 0
    share = wt / np.where(dangling, 1.0, strength)[src]
    x = np.full(n, 1.0 / n)
    for _ in range(iters):
        # Isolated chunks spread their rank evenly, as networkx does with no personalisation.
        new = damping * (np.bincount(dst, weights=x[src] * share, minlength=n)
                         + x[dangling].sum() / n) + (1.0 - damping) / n
        done = np.abs(new - x).sum() < n * tol
        x = new
        if done:
            break
    return x


def pagerank(ids: Iterable[int], edges: Iterable[tuple], damping: float = 0.85, iters: int = 100,
             tol: float = 1e-6) -> dict[int, float]:
    """PageRank of the undirected graph (edge weight = third item, else 1), summing to 1."""
    listed, i, j, w = _positions(ids, edges)
    return dict(zip(listed, _pagerank(len(listed), i, j, w, damping, iters, tol).tolist()))


def told_days(days: Sequence[int | None], documents: Sequence[int], i: np.ndarray, j: np.ndarray
               ) -> list[int | None]:
    """The earliest day each chunk's text was told: its own day, or the earlier day of another
    document's chunk it shares an edge with. Edges inside one document say nothing of when its
    text first appeared; undated chunks stay None and date no neighbour."""
    never = np.iinfo(np.int64).max
    day = np.array([never if d is None else d for d in days], dtype=np.int64)
    doc = np.asarray(documents, dtype=np.int64)
    told = day.copy()
    across = doc[i] != doc[j]
    np.minimum.at(told, i[across], day[j[across]])
    np.minimum.at(told, j[across], day[i[across]])
    return [None if d == never else int(t) for d, t in zip(day.tolist(), told.tolist())]


def near_duplicate_clusters(items: Iterable[tuple[int, int | None, object]], pairs: Iterable[tuple],
                            near: float = NEAR_DUPLICATE, max_gap: int = 1) -> dict[int, int]:
    """chunk id -> cluster representative, for items (id, day, key) and scored pairs (a, b, jaccard).

    Exact duplicates (equal key, e.g. `text_key`) on the same day join first; then pairs with
    Jaccard >= near whose days are at most max_gap apart, strongest first. A merge that would
    stretch a cluster over more than max_gap days is refused, so chains of daily copies cannot
    drift across a month. Undated items cluster only with undated ones. The representative is the
    smallest id: stable while centrality changes from run to run. A lone item maps to itself.
    """
    day: dict[int, int | None] = {}
    parent: dict[int, int] = {}
    span: dict[int, tuple] = {}
    groups: dict[tuple, int] = {}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra == rb:
            return
        (lo_a, hi_a), (lo_b, hi_b) = span[ra], span[rb]
        if (lo_a is None) != (lo_b is None):
            return
        if lo_a is not None and max(hi_a, hi_b) - min(lo_a, lo_b) > max_gap:
            return
        keep, gone = min(ra, rb), max(ra, rb)
        parent[gone] = keep
        span[keep] = (None, None) if lo_a is None else (min(lo_a, lo_b), max(hi_a, hi_b))

    for cid, d, key in items:
        day[cid], parent[cid], span[cid] = d, cid, (d, d)
        if key is not None:
            union(groups.setdefault((d, key), cid), cid)  # same day: the span check always passes
    strong = sorted((p for p in pairs if p[2] >= near and p[0] in day and p[1] in day),
                    key=lambda p: (-p[2], p[0], p[1]))
    for a, b, _ in strong:
        union(a, b)
    return {cid: find(cid) for cid in day}


def update_corroboration(conn: sqlite3.Connection, *, num_perm: int = 64, threshold: float = 0.3,
                    progress: ProgressFn | None = None) -> dict:
    """Bring the corroboration graph up to date with the searchable chunks; returns counts and timings.

    Only chunks without a signature (or one of another length) are shingled; LSH runs over all
    signatures but only pairs touching a new chunk are verified and stored, since pairs of two
    old chunks are already in chunk_edges. Centrality, PageRank, clusters and told days are then
    recomputed for every chunk (a new or deleted chunk changes its neighbours' values) and only changed rows
    are written. Signatures and edges commit together, so a signature always implies that its
    edges are stored, and an interrupted run simply starts over. Call it outside any open
    transaction: it opens its own. progress(stage, done, total) is called as work proceeds.
    """
    t0 = time.perf_counter()
    params = json.dumps({"num_perm": num_perm, "threshold": threshold}, sort_keys=True)
    rebuild = get_meta(conn, "evidence_params") not in (None, params)
    where = "searchable = 1 AND (signature IS NULL OR length(signature) != ?)"
    total = conn.execute(f"SELECT count(*) FROM chunks WHERE {where}", (4 * num_perm,)).fetchone()[0]
    cur = conn.execute(f"SELECT id, text FROM chunks WHERE {where} ORDER BY id", (4 * num_perm,))
    new_ids: list[int] = []
    blobs: list[bytes] = []
    while batch := cur.fetchmany(4000):  # only ids and signatures stay in memory, not texts
        sigs = minhash_many([t for _, t in batch], num_perm)
        new_ids.extend(cid for cid, _ in batch)
        blobs.extend(s.astype("<u4").tobytes() for s in sigs)
        if progress:
            progress("signatures", len(new_ids), total)
    t1 = time.perf_counter()
    stats: dict = {"new_signatures": len(new_ids)}
    with transaction(conn):
        # Edges to a chunk that is gone, or no longer searchable, would skew its old neighbours.
        stats["stale_edges_removed"] = conn.execute(
            "DELETE FROM chunk_edges WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE "
            "c.id = chunk_edges.a AND c.searchable = 1) OR NOT EXISTS (SELECT 1 FROM chunks c "
            "WHERE c.id = chunk_edges.b AND c.searchable = 1)").rowcount
        if rebuild:  # edges kept under another threshold or permutation count would be wrong
            conn.execute("DELETE FROM chunk_edges")
        conn.executemany("UPDATE chunks SET signature = ? WHERE id = ?", zip(blobs, new_ids))
        # Without new chunks, chunks and edges can only disappear, so equal counts mean nothing
        # changed since the last run and every stored value is still right.
        state = conn.execute(
            "SELECT (SELECT count(*) FROM chunks WHERE searchable = 1 AND length(signature) = ?), "
            "(SELECT count(*) FROM chunk_edges)", (4 * num_perm,)).fetchone()
        last = json.loads(get_meta(conn, "evidence_state") or "{}")
        # A file indexed before told days were kept has its graph's scores computed once more.
        if (not new_ids and not rebuild and [last.get("chunks"), last.get("edges")] == list(state)
                and "retold" in last):
            stats.update(last, candidates=0, new_edges=0, rows_updated=0)
        else:
            stats.update(_recompute(conn, num_perm, threshold, set(new_ids), rebuild, progress))
            set_meta(conn, "evidence_state", json.dumps(
                {k: stats[k] for k in ("chunks", "edges", "clusters", "clustered_chunks", "retold")}))
        set_meta(conn, "evidence_params", params)
    t3 = time.perf_counter()
    graph = stats.setdefault("seconds_graph", 0.0)
    stats.update(seconds_signatures=round(t1 - t0, 3), seconds_total=round(t3 - t0, 3),
                 seconds_lsh=round(t3 - t1 - graph, 3))  # with the writes of signatures and edges
    return stats


def _recompute(conn: sqlite3.Connection, num_perm: int, threshold: float, new_ids: set[int],
               rebuild: bool, progress: ProgressFn | None) -> dict:
    """New edges, then centrality, PageRank, clusters and told days for all chunks (caller's
    transaction)."""
    rows = conn.execute(
        "SELECT id, day, signature, centrality, pagerank, cluster_id, document_id, told_day "
        "FROM chunks WHERE searchable = 1 AND length(signature) = ? ORDER BY id",
        (4 * num_perm,)).fetchall()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    sigs = np.frombuffer(b"".join(r[2] for r in rows), dtype="<u4").reshape(len(rows), num_perm)
    new = np.ones(len(ids), bool) if rebuild else np.isin(ids, list(new_ids))
    bands, rws = lsh_params(threshold, num_perm)
    i, j = _band_pairs(sigs, bands, rws, new) if new.any() else (ids[:0], ids[:0])
    w = _estimates(sigs, i, j)
    keep = w >= threshold
    conn.executemany("INSERT OR REPLACE INTO chunk_edges (a, b, weight) VALUES (?, ?, ?)",
                     zip(ids[i[keep]].tolist(), ids[j[keep]].tolist(), w[keep].tolist()))
    t2 = time.perf_counter()
    if progress:
        progress("graph", 0, len(ids))
    e = np.array(conn.execute("SELECT a, b, weight FROM chunk_edges ORDER BY a, b").fetchall(),
                 dtype=np.float64).reshape(-1, 3)
    e = e[np.isin(e[:, 0], ids) & np.isin(e[:, 1], ids)]  # defensive: the sweep leaves none
    ea, eb = np.searchsorted(ids, e[:, 0]), np.searchsorted(ids, e[:, 1])
    cent = _degrees(len(ids), ea, eb)
    rank = _pagerank(len(ids), ea, eb, e[:, 2])
    told = told_days([r[1] for r in rows], [r[6] for r in rows], ea, eb)
    # Equal signatures stand in for equal normalised text: equal text gives equal signatures,
    # and unequal texts with equal signatures have Jaccard ~1, so they would join anyway.
    strong = e[e[:, 2] >= NEAR_DUPLICATE]
    clusters = near_duplicate_clusters(
        ((r[0], r[1], r[2]) for r in rows),
        zip(strong[:, 0].astype(np.int64).tolist(), strong[:, 1].astype(np.int64).tolist(),
            strong[:, 2].tolist()))
    changed = [
        (c, p, clusters[cid], t, cid)
        for (cid, _, _, c0, p0, k0, _, t0), c, p, t in zip(rows, cent.tolist(), rank.tolist(), told)
        if c0 is None or p0 is None or k0 != clusters[cid] or abs(c0 - c) > 1e-12
        or abs(p0 - p) > 1e-12 or t0 != t
    ]
    conn.executemany(
        "UPDATE chunks SET centrality = ?, pagerank = ?, cluster_id = ?, told_day = ? WHERE id = ?",
        changed)
    sizes = np.bincount(np.searchsorted(ids, list(clusters.values())), minlength=len(ids))
    if progress:
        progress("graph", len(ids), len(ids))
    return dict(
        chunks=len(ids), candidates=int(len(i)), new_edges=int(keep.sum()), edges=len(e),
        clusters=int((sizes > 1).sum()), clustered_chunks=int(sizes[sizes > 1].sum()),
        retold=sum(t is not None and t < r[1] for r, t in zip(rows, told)),
        rows_updated=len(changed), seconds_graph=round(time.perf_counter() - t2, 3),
    )
