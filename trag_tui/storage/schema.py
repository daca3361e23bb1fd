"""What a sound index file looks like, and every way a given file differs from it.

An index file is made to be shared, so a file from someone else is untrusted input.
`trusted_schema = OFF` stops native code, not plain SQL: a trigger or view planted in the file
would run on the user's next write. So a file is compared, object by object and with its SQL,
with the schema this version makes, before anything else reads or writes it; a name proves
nothing (a trigger may be called `sqlite_stat9`), only type, table and SQL do. The vector
table's own structures are checked too (`vector_table`), as SQLite cannot see into them. The expected
schema is never written by hand: it is what the migrations the file records produce on an
empty in-memory database, plus the vector table with the recorded dimension, so a migration
added tomorrow is verified the day it lands.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import IndexFileError
from ..models.embedding import BUNDLED_NAME, HASH_NAME
from . import db, quantised, vector_table
from .db import (
    MIGRATIONS_TABLE_SQL,
    apply_migrations,
    get_meta,
    prepare,
    sqlite3,
)

#: The largest vector a recorded embedder may claim (real sentence embedders stay far below).
MAX_DIM = 8192
BUNDLED_DIM = 384
_HASH = re.compile(rf"^{HASH_NAME}-([0-9]{{1,5}})$")
_FOLDER_MODEL = re.compile(r"^st:[^\x00-\x1f\x7f-\x9f]{1,200}$")
_DIM = re.compile(r"^[0-9]{1,5}$")


@dataclass(frozen=True)
class Entry:
    """One row of sqlite_master."""

    type: str
    name: str
    tbl_name: str
    sql: str | None


#: Vectors a block of the vec0 table holds. sqlite-vec keeps a block's vectors in one blob, and
#: reading one vector of a blob walks its pages from the start: at its default of 1,024 (1.5 MB
#: of MiniLM vectors) that is a few hundred microseconds a vector, too slow to rescore a few
#: hundred candidates (storage.quantised); 64 makes it tens, and scans no slower.
VECTOR_BLOCK = 64


def vector_table_sql(dim: int, block: int | None = VECTOR_BLOCK) -> str:
    """The vec0 table of an index whose embedder makes `dim`-dimensional vectors (`block`
    None: sqlite-vec's default block, as indexes made before VECTOR_BLOCK have it)."""
    size = "" if block is None else f", chunk_size={int(block)}"
    return (
        "CREATE VIRTUAL TABLE IF NOT EXISTS chunk_vectors USING vec0("
        f"chunk_id INTEGER PRIMARY KEY, embedding float[{int(dim)}] distance_metric=cosine, "
        f"day INTEGER{size})"
    )


#: The only objects SQLite itself may add to a file trag-tui made: ANALYZE's planner
#: statistics, as exactly the tables SQLite creates. Anything else, whatever its name, must be
#: what the migrations make.
SQLITE_OWN = {
    "sqlite_stat1": Entry("table", "sqlite_stat1", "sqlite_stat1",
                          "CREATE TABLE sqlite_stat1(tbl,idx,stat)"),
    "sqlite_stat4": Entry("table", "sqlite_stat4", "sqlite_stat4",
                          "CREATE TABLE sqlite_stat4(tbl,idx,neq,nlt,ndlt,sample)"),
}


def entries(conn: sqlite3.Connection) -> dict[str, Entry]:
    """The file's schema objects by name (triggers prefixed, as they have their own namespace).

    Every row of sqlite_master counts, whatever its name; `compare` lets only SQLITE_OWN's
    exact tables through besides the expected schema.
    """
    out: dict[str, Entry] = {}
    rows = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")
    for type_, name, tbl, sql in rows:
        out[_key(type_, name)] = Entry(type_, name, tbl, sql)
    return out


def duplicates(conn: sqlite3.Connection) -> list[str]:
    """Names sqlite_master holds twice (only a hand-edited schema can): each is a problem."""
    rows = conn.execute(
        "SELECT type, name FROM sqlite_master GROUP BY type = 'trigger', name HAVING count(*) > 1")
    return [f"{type_} {name!r} appears more than once in the schema" for type_, name in rows]


def _key(type_: str, name: str) -> str:
    return f"trigger:{name}" if type_ == "trigger" else name


def expected(applied: list[str], dim: int | None, block: int | None = VECTOR_BLOCK
             ) -> dict[str, Entry]:
    """The schema the named migrations (and a vector table of `dim` with blocks of `block`
    vectors, if any) produce."""
    ref = sqlite3.connect(":memory:", isolation_level=None)
    try:
        prepare(ref)
        ref.execute(MIGRATIONS_TABLE_SQL)
        apply_migrations(ref, [m for m in db.migrations() if m.name in set(applied)])
        if dim is not None:
            ref.execute(vector_table_sql(dim, block))
        return entries(ref)
    finally:
        ref.close()


def compare(have: dict[str, Entry], want: dict[str, Entry]) -> list[str]:
    """One line per difference between a file's schema and the expected one."""
    out = []
    for key, w in want.items():
        h = have.get(key)
        if h is None:
            out.append(f"missing {w.type} {w.name!r}")
        elif h.type != w.type:
            out.append(f"{w.name!r} is a {h.type}, expected a {w.type}")
        elif (h.sql or "") != (w.sql or "") or h.tbl_name != w.tbl_name:
            out.append(f"{w.type} {w.name!r} differs from the schema trag-tui makes")
    for key, h in have.items():
        if key in want or SQLITE_OWN.get(key) == h:
            continue
        on = f" on {h.tbl_name}" if h.type in ("trigger", "index") else ""
        out.append(f"extra {h.type} {h.name!r}{on}")
    return out


def meta_problems(conn: sqlite3.Connection) -> tuple[list[str], int | None]:
    """Problems with the recorded embedder and dimension, and the dimension when it is sound."""
    name, dim_text = get_meta(conn, "embedder"), get_meta(conn, "embedding_dim")
    if name is None and dim_text is None:
        return [], None
    if name is None or dim_text is None:
        return ["meta records an embedding dimension without an embedder, or the reverse"], None
    if not _DIM.match(dim_text) or not 1 <= int(dim_text) <= MAX_DIM:
        return [f"meta embedding_dim {dim_text[:40]!r} is not a whole number from 1 to {MAX_DIM}"], None
    dim = int(dim_text)
    if not recordable(name, dim):
        return [f"meta embedder {name[:60]!r} with dimension {dim} is not one trag-tui records"], None
    return [], dim


def recordable(name: str, dim: int) -> bool:
    """Whether an embedder name and dimension are ones trag-tui records in a file (a value
    from elsewhere, such as a collection's, is checked by the same rule before it is written)."""
    hashed = _HASH.match(name)
    if name == BUNDLED_NAME:
        return dim == BUNDLED_DIM
    if hashed:
        return int(hashed[1]) == dim
    return bool(_FOLDER_MODEL.match(name))


def problems(conn: sqlite3.Connection, *, first_only: bool = False,
             thorough: bool = False) -> list[str]:
    """Every way the file's schema, recorded embedder and vector table differ from what
    trag-tui makes (`thorough`: every vector and rowid too, as `doctor` asks)."""
    have = entries(conn)
    boot = expected([db.migrations()[0].name], None)
    found = duplicates(conn)
    if found and first_only:
        return found
    for name in ("_migrations", "meta"):
        if have.get(name) != boot[name]:
            what = "missing" if name not in have else "not as trag-tui makes it"
            return [f"the {name} table is {what}"]
    applied = [r[0] for r in conn.execute("SELECT name FROM _migrations ORDER BY name")]
    unknown = sorted(set(applied) - {m.name for m in db.migrations()})
    if unknown:
        return [f"newer:{', '.join(unknown)}"]
    meta, dim = meta_problems(conn)
    found += meta
    if found and first_only:
        return found
    if dim is None and get_meta(conn, "embedder") is not None:
        dim = _declared_dim(have)  # verify the rest against what the file itself declares
    found += compare(have, expected(applied, dim, _declared_block(have)))
    if found and first_only:
        return found
    if dim is not None and "chunk_vectors" in have and not found:
        # every block's vectors are checked to be `dim` long there: no second look at one here
        found += vector_table.problems(conn, dim, thorough=thorough)
    if thorough and dim is not None and not found:
        found += quantised.problems(conn, dim)
    return found


def _declared_block(have: dict[str, Entry]) -> int | None:
    """The vector table's block size as this version makes it, or None (sqlite-vec's default)
    for a table made before: either is sound, anything else differs from both."""
    e = have.get("chunk_vectors")
    return VECTOR_BLOCK if e is not None and (e.sql or "").endswith(
        f", chunk_size={VECTOR_BLOCK})") else None


def _declared_dim(have: dict[str, Entry]) -> int | None:
    e = have.get("chunk_vectors")
    m = re.search(r"float\[(\d{1,5})\]", (e.sql or "") if e else "")
    return int(m[1]) if m else None


def verify(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse, with one line naming the first difference, a file trag-tui did not make as it is."""
    found = problems(conn)
    if not found:
        return
    if found[0].startswith("newer:"):
        raise IndexFileError(
            f"{path} was written by a newer trag-tui (schema steps {found[0][6:]} "
            "are unknown to this version); upgrade trag-tui to open it"
        )
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    raise IndexFileError(
        f"{path} is not as trag-tui makes it: {found[0]}{more}; "
        f"`trag-tui doctor {path}` lists every difference and can write a clean copy"
    )
