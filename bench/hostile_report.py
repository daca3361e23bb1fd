"""Hostile input against the real CLI: every case in a subprocess with a timeout, one JSON report.

    python bench/hostile_report.py [--timeout 120]

Each case builds its files in a temporary folder, runs `trag-tui` (hash embedder) and is
classed by what the user would see: refused clearly (exit code 1 or 2, one `Error:` line, no
traceback) or survived (exit 0, every good file indexed). Counted apart: tracebacks, hangs
(the timeout expired) and data lost (documents gone from an index, a good file not indexed,
or an index file that a refusal changed). The last three must be 0.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOOD = "---\ndate: 2020-02-02\ntitle: Survivor\n---\nThe last report on wages and the bank rate."


def docs(folder: Path, n: int = 6, words: int = 40) -> Path:
    """n dated reports, one a year from 2015."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"r{2015 + i}.md").write_text(
            f"---\ndate: {2015 + i}-03-01\ntitle: Report {i}\n---\n"
            + f"Inflation was {i} per cent and the bank rate held in year {2015 + i}. " * words)
    return folder


def tamper(db: Path, *statements: str) -> None:
    """Change a file the way anyone with the sqlite3 shell could."""
    import sqlite_vec
    from sqlite_utils.utils import sqlite3 as vec_sqlite3

    conn = vec_sqlite3.connect(str(db))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


# Each case: (name, setup(work, db) -> argv after `-d db`, expected "refuse" | "survive").
# setup may return (argv, extra) where extra is {"fsize": bytes} for a file-size limit.

def _index_into(folder_setup):
    def setup(work: Path, db: Path):
        folder = work / "in"
        folder.mkdir()
        folder_setup(folder)
        (folder / "zz_survivor.md").write_text(GOOD)
        return ["index", str(folder)]
    return setup


def _bad_file(name: str, data: bytes):
    return _index_into(lambda f: (f / name).write_bytes(data))


def _deep_folder(f: Path) -> None:
    deep = f
    for _ in range(1200):
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom.md").write_text(GOOD)


def _odd_name(f: Path) -> None:
    Path(os.fsdecode(os.fsencode(f) + b"/caf\xe9.md")).write_text(GOOD)


def _on_index(statements: list[str], command: list[str]):
    def setup(work: Path, db: Path):
        tamper(db, *statements)
        return command
    return setup


TRIGGER = ["CREATE TABLE pwned(x)",
           "CREATE TRIGGER t AFTER INSERT ON documents BEGIN INSERT INTO pwned VALUES(NEW.source_id); "
           "UPDATE documents SET title='TAMPERED' WHERE id=NEW.id; END"]
#: Tampered shared files: the SQL anyone with the sqlite3 shell could run, and what the
#: refusal must name (tests/test_hostile.py checks the same table in-process).
TAMPERED = {
    "planted trigger": (TRIGGER, "extra table 'pwned'"),
    "renamed column": (["ALTER TABLE documents RENAME COLUMN title TO heading"],
                       "table 'documents' differs"),
    "dropped chunk_fts": (["DROP TABLE chunk_fts"], "missing table 'chunk_fts'"),
    "embedder hash-0": (["UPDATE meta SET value='hash-0' WHERE key='embedder'"], "meta embedder"),
    "embedder hash-100000000000": (
        ["UPDATE meta SET value='hash-100000000000' WHERE key='embedder'"], "meta embedder"),
    "embedding_dim abc": (["UPDATE meta SET value='abc' WHERE key='embedding_dim'"],
                          "embedding_dim 'abc'"),
    "vectors of another dimension": ([
        "DROP TABLE chunk_vectors",
        "CREATE VIRTUAL TABLE chunk_vectors USING vec0(chunk_id INTEGER PRIMARY KEY, "
        "embedding float[8] distance_metric=cosine, day INTEGER)"], "chunk_vectors"),
    "documents replaced by a view": ([
        "PRAGMA foreign_keys=OFF", "ALTER TABLE documents RENAME TO documents_old",
        "CREATE VIEW documents AS SELECT * FROM documents_old"],
        "'documents' is a view, expected a table"),
}


def _corrupt(work: Path, db: Path):
    data = bytearray(db.read_bytes())
    pages = len(data) // 4096
    for page in (pages // 3, pages // 2, 2 * pages // 3):
        data[page * 4096:(page + 1) * 4096] = os.urandom(4096)
    db.write_bytes(bytes(data))
    (work / "new").mkdir()
    (work / "new" / "n.md").write_text(GOOD)
    return ["index", str(work / "new")]


def _readonly(command):
    def setup(work: Path, db: Path):
        db.chmod(0o444)
        return command
    return setup


def big_jsonl(folder: Path, n: int = 400) -> Path:
    """n long dated records in one JSONL file: enough writes to fill a small disk."""
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "big.jsonl").open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": str(i), "date": "2021-01-01",
                                 "text": f"Report {i} on wages and prices. " * 60}) + "\n")
    return folder


def _disk_full(work: Path, db: Path):
    folder = big_jsonl(work / "in")
    return ["index", str(folder)], {"fsize": db.stat().st_size + (1 << 20), "resume": True}


def _simple(argv):
    return lambda work, db: argv


def _batch(content: bytes, command: str):
    def setup(work: Path, db: Path):
        (work / "q.jsonl").write_bytes(content)
        return [command, "--batch", str(work / "q.jsonl")]
    return setup


# --- round two: indexing input (readers, zero vectors, size limits, archives, prune) helpers ---

#: Inputs on which a reader's pattern once tried every split of a long run (quadratic): a file
#: of a few hundred KB kept `index` busy for minutes. (file name, bytes of about n characters)
SLOW_PATTERNS = {
    "spaces inside a Markdown heading": ("h.md", lambda n: b"# a" + b" " * n + b"b\n"),
    "spaces inside a front-matter value": ("k.md", lambda n: b"---\nk: a" + b" " * n + b"b\n---\ntext\n"),
    "spaces after a front-matter date": ("d.md", lambda n: b"---\ndate: 2020-01-01T" + b" " * n + b"x\n---\ntext\n"),
    "spaces after a JSONL date": ("d.jsonl", lambda n: json.dumps(
        {"date": "2020-01-01T" + " " * n + "x", "text": "wages"}).encode() + b"\n"),
    "unclosed <pre> in a CREC granule": ("CREC-1997-01-28-pt1-PgS696.htm", lambda n: b"<pre>" * (n // 5)),
    "unclosed < inside a CREC granule": ("CREC-1997-01-28-pt1-PgS697.htm", lambda n: (
        b"<pre>\n[Congressional Record Volume 143, Number 5 (Tuesday, January 28, 1997)]\n"
        b"[Senate]\n[Pages S696-S697]\n\n  Mr. DORGAN. " + b"<" * n + b"</pre>")),
}


def bzip2_bomb_zip(mib: int = 512, declared: int = 100,
                   name: str = "CREC-2020-01-01-pt1-PgS1.htm") -> bytes:
    """A zip whose one bzip2 member declares `declared` bytes and inflates `mib` MiB of zeros
    (512 MiB fits in under 600 bytes): the header lies, and only a cap on what is inflated
    holds."""
    import bz2
    import struct

    c = bz2.BZ2Compressor(9)
    zero = bytes(1 << 20)
    data = b"".join(c.compress(zero) for _ in range(mib)) + c.flush()
    fn = name.encode()
    local = struct.pack("<4s2B4HL2L2H", b"PK\x03\x04", 46, 0, 0, 12, 0, 0, 0, len(data),
                        declared, len(fn), 0) + fn
    central = struct.pack("<4s4B4HL2L5H2L", b"PK\x01\x02", 46, 3, 46, 0, 0, 12, 0, 0, 0,
                          len(data), declared, len(fn), 0, 0, 0, 0, 0, 0) + fn
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 1, 1, len(central),
                      len(local) + len(data), 0)
    return local + data + central + end


def _then_search(record: bytes, question: str):
    """Index a JSONL file holding `record` beside a good one, then search: the search is the case."""
    def setup(work: Path, db: Path):
        folder = work / "in"
        folder.mkdir()
        (folder / "a.jsonl").write_bytes(record + b'{"id": "w", "date": "2020-01-01", "text": "wages rose"}\n')
        code, _, err = trag(["-d", str(db), "index", str(folder)], 120)
        if code != 0:
            raise RuntimeError(f"setup index failed: {err}")
        return ["search", question], {"baseline_after_setup": True}
    return setup


def _slow(name: str):
    fname, make = SLOW_PATTERNS[name]
    inner = _index_into(lambda f: (f / fname).write_bytes(make(500_000)))
    return lambda work, db: (inner(work, db), {"max_seconds": 15})


def _sparse(work: Path, db: Path):
    folder = work / "in"
    folder.mkdir()
    with (folder / "huge.txt").open("wb") as fh:
        fh.truncate(24 * 2**30)  # 24 GB that take no disk
    (folder / "zz_survivor.md").write_text(GOOD)
    return ["index", str(folder)], {"max_seconds": 15}


def _bomb(work: Path, db: Path):
    folder = work / "in"
    folder.mkdir()
    (folder / "bomb.zip").write_bytes(bzip2_bomb_zip())
    (folder / "zz_survivor.md").write_text(GOOD)
    return ["index", str(folder)], {"max_rss_mb": 400}


def _prune_unreadable(work: Path, db: Path):
    """A folder indexed before, unreadable now: `--prune` must keep its documents. Root reads
    any folder, so for root a symlink loop takes the folder's place (nothing under it can be
    told gone either)."""
    folder = work / "in"
    (folder / "locked").mkdir(parents=True)
    for i in range(2):
        (folder / "locked" / f"l{i}.md").write_text(GOOD.replace("Survivor", f"Locked {i}"))
    (folder / "zz_survivor.md").write_text(GOOD)
    code, _, err = trag(["-d", str(db), "index", str(folder)], 120)
    if code != 0:
        raise RuntimeError(f"setup index failed: {err}")
    lock_out(folder / "locked")
    return ["index", "--prune", str(folder)], {"baseline_after_setup": True}


def lock_out(folder: Path) -> None:
    """Make a folder unreadable to this user: no permissions, or for root a symlink loop."""
    if os.geteuid() != 0:
        folder.chmod(0)
        return
    folder.rename(folder.parent.parent / (folder.name + ".moved"))  # out of the indexed folder
    folder.symlink_to(folder.name)


CASES = [
    # bad files: the run survives and the survivor is indexed
    ("lone surrogate in JSONL", _bad_file("a.jsonl", b'{"date": "2020-01-01", "text": "x \\ud800 y"}\n'), "survive"),
    ("JSON nested 100,000 deep", _bad_file("a.jsonl", b'{"text": ' + b"[" * 100000 + b"]" * 100000 + b"}\n"), "survive"),
    ("folder nested 1,200 deep", _index_into(_deep_folder), "survive"),
    ("file symlink loop", _index_into(lambda f: (f / "x.txt").symlink_to("x.txt")), "survive"),
    ("non-UTF-8 byte in a file name", _index_into(_odd_name), "survive"),
    ("named pipe", _index_into(lambda f: os.mkfifo(f / "p.txt")), "survive"),
    ("symlink to /dev/zero", _index_into(lambda f: (f / "z.txt").symlink_to("/dev/zero")), "survive"),
    ("binary file", _bad_file("b.txt", bytes(range(256)) * 100), "survive"),
    ("empty file", _bad_file("e.md", b""), "survive"),
    ("XML entity bomb", _bad_file("debates2020-01-01a.xml", b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;"><!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">]><publicwhip><speech id="uk.org.publicwhip/debate/2020-01-01a.1.0">&f;&f;&f;</speech></publicwhip>'), "survive"),
    ("XXE", _bad_file("debates2020-01-02a.xml", b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><publicwhip><speech id="uk.org.publicwhip/debate/2020-01-02a.1.0">&e;</speech></publicwhip>'), "survive"),
    ("escape sequences in a title", _bad_file("t.md", b"---\ndate: 2020-01-01\ntitle: A\x1b[2J\x9b31m\n---\nText \x1b]0;x\x07 here."), "survive"),
    ("newline in a file name", _bad_file("bad\n1 files: 1 indexed.jsonl", b""), "survive"),
    ("duplicate JSONL ids", _bad_file("d.jsonl", b'{"id": "a", "text": "one"}\n{"id": "a", "text": "two"}\n'), "survive"),
    ("50 MB line with no spaces", _bad_file("long.txt", b"2020-01-01 " + b"x" * (50 << 20)), "survive"),
    # a shared file that is not what trag-tui makes: refused by index, stats and search
    *[(f"{name} ({cmd[0]})", _on_index(sql, cmd), "refuse")
      for name, (sql, _) in TAMPERED.items()
      for cmd in (["index", "{docs}"], ["stats"], ["search", "bank rate"])],
    ("random bytes over three pages (index)", _corrupt, "refuse"),
    ("two writers", None, "refuse"),
    ("read-only file: stats", _readonly(["stats"]), "survive"),
    ("read-only file: search", _readonly(["search", "bank rate"]), "survive"),
    ("read-only file: index", _readonly(["index", "{docs}"]), "refuse"),
    ("disk full during index", _disk_full, "refuse"),
    # values at the edge
    ("-k -1", _simple(["search", "bank rate", "-k", "-1"]), "refuse"),
    ("--alpha nan", _simple(["search", "bank rate", "--alpha", "nan"]), "refuse"),
    ("--lambda inf", _simple(["search", "bank rate", "--lambda", "inf"]), "refuse"),
    ("--tau -5", _simple(["search", "bank rate", "--tau", "-5"]), "refuse"),
    ("empty question (search)", _simple(["search", ""]), "refuse"),
    ("empty question (parse)", _simple(["parse", " "]), "refuse"),
    ("undecodable byte in a question", _simple(["search", os.fsdecode(b"bank \xff rate")]), "survive"),
    ("lone surrogate in parse --batch", _batch(b'{"query": "rate \\ud800 in 2019"}\n', "parse"), "survive"),
    ("invalid UTF-8 in search --batch", _batch(b'{"question": "rate \xff in 2019"}\n', "search"), "survive"),
    # --- round two: indexing input (readers, zero vectors, size limits, archives, prune) ---
    ("JSONL record of punctuation only, then search",
     _then_search(b'{"id": "p", "date": "2020-01-01", "text": "!!! ... ???"}\n', "wages"), "survive"),
    ("question of punctuation only (hash index)",
     _then_search(b'{"id": "p", "date": "2020-01-01", "text": "!!! ... ???"}\n', "?!?"), "survive"),
    *[(f"500 KB of {name}", _slow(name), "survive") for name in SLOW_PATTERNS],
    ("sparse 24 GB file", _sparse, "survive"),
    ("577-byte zip whose bzip2 member inflates 512 MiB", _bomb, "survive"),
    ("index --prune with a folder it cannot read", _prune_unreadable, "survive"),
]


def documents(db: Path) -> set[str]:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return {r[0] for r in conn.execute("SELECT source_id FROM documents")}
        finally:
            conn.close()
    except sqlite3.Error:
        return set()


#: Run as the CLI, and print the process's peak resident memory as the last line of stderr.
_MEASURED = ("import atexit, resource, runpy, sys; atexit.register(lambda: sys.stderr.write("
             "'\\npeak-rss-kb %d\\n' % resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)); "
             "sys.argv = ['trag-tui', *sys.argv[1:]]; runpy.run_module('trag_tui', run_name='__main__')")


def trag(argv: list[str], timeout: float, fsize: int | None = None) -> tuple[int | None, str, str]:
    out = run_measured(argv, timeout, fsize)
    return out[0], out[1], out[2]


def run_measured(argv: list[str], timeout: float, fsize: int | None = None
                 ) -> tuple[int | None, str, str, float | None]:
    """(exit code or None on timeout, stdout, stderr, peak resident MB) of one CLI run."""
    def limit():
        if fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    env = {**os.environ, "TRAG_TUI_EMBEDDER": "hash", "TRAG_TUI_WRITE_BATCH_CHUNKS": "32"}
    try:
        p = subprocess.run([sys.executable, "-c", _MEASURED, *argv], capture_output=True,
                           timeout=timeout, env=env, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return None, "", "", None
    stderr = p.stderr.decode("utf-8", "replace").rstrip("\n")
    peak = None
    head, _, last = stderr.rpartition("\n")
    if last.startswith("peak-rss-kb "):
        peak, stderr = int(last.split()[1]) / 1024, head
    return p.returncode, p.stdout.decode("utf-8", "replace"), stderr, peak


def remove(folder: Path) -> None:
    """Remove a tree of any depth (shutil.rmtree recurses)."""
    order, stack = [], [str(folder)]
    while stack:
        d = stack.pop()
        order.append(d)
        os.chmod(d, 0o700)  # a case may have locked a folder
        for e in os.scandir(d):
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            else:
                os.unlink(e.path)
    for d in reversed(order):
        os.rmdir(d)


def run_case(name, setup, expected, template: Path, timeout: float) -> dict:
    work = Path(tempfile.mkdtemp(prefix="hostile-"))
    try:
        db = work / "shared.db"
        shutil.copy(template, db)
        docs(work / "docs")
        before_docs = documents(db)
        extra: dict = {}
        holder = None
        if setup is None:  # two writers: a real second process holds the lock while indexing
            big = work / "big"
            big.mkdir()
            for j in range(300):
                (big / f"p{j}.md").write_text(f"---\ndate: 2020-01-0{1 + j % 9}\n---\n" + "word " * 3000)
            holder = subprocess.Popen([sys.executable, "-m", "trag_tui", "-d", str(db), "index", str(big)],
                                      env={**os.environ, "TRAG_TUI_EMBEDDER": "hash"},
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            lock, deadline = Path(str(db) + "-lock"), time.monotonic() + timeout
            while time.monotonic() < deadline and holder.poll() is None and not (
                    lock.exists() and lock.read_text()):
                time.sleep(0.05)
            argv = ["index", str(work / "docs")]
        else:
            out = setup(work, db)
            argv, extra = out if isinstance(out, tuple) else (out, {})
        argv = [a.replace("{docs}", str(work / "docs")) for a in argv]
        digest = hashlib.sha256(db.read_bytes()).hexdigest()
        if extra.get("baseline_after_setup"):  # the case's setup indexed what must survive
            before_docs = documents(db)
        started = time.monotonic()
        code, stdout, stderr, peak = run_measured(["-d", str(db), *argv], timeout, extra.get("fsize"))
        seconds = time.monotonic() - started
        if holder is not None:
            holder.wait(timeout=600)
        result = {"case": name, "expected": expected, "exit": code,
                  "said": (stderr.strip().splitlines() or stdout.strip().splitlines() or [""])[-1][:200]}
        result["seconds"] = round(seconds, 2)
        result["peak_rss_mb"] = None if peak is None else round(peak, 1)
        # A case may bound its time and memory: past them counts as a hang (as a timeout does).
        result["hang"] = code is None or seconds > extra.get("max_seconds", timeout) or (
            peak is not None and peak > extra.get("max_rss_mb", float("inf")))
        result["traceback"] = "Traceback" in stderr or "Traceback" in stdout
        errors = [line for line in stderr.splitlines() if line.startswith("Error:")]
        clear = code in (1, 2) and len(errors) == 1 and not result["traceback"]
        after = documents(db)
        lost = not before_docs <= after
        if expected == "refuse" and setup is not None and extra.get("resume") is None:
            lost = lost or hashlib.sha256(db.read_bytes()).hexdigest() != digest
        if extra.get("resume"):  # what a full disk left is consistent and a resumed run is exact
            code2, _, _ = trag(["-d", str(db), *argv], timeout)
            lost = lost or code2 != 0 or len(documents(db)) != len(before_docs) + 400
        if expected == "survive" and argv[0] == "index":
            lost = lost or "Survivor" not in _titles(db)
        result["data_lost"] = lost
        result["refused_clearly"] = expected == "refuse" and clear
        result["survived"] = expected == "survive" and code == 0 and not result["traceback"]
        return result
    finally:
        os.chmod(work / "shared.db", 0o644) if (work / "shared.db").exists() else None
        remove(work)


def _titles(db: Path) -> list[str]:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return [r[0] for r in conn.execute("SELECT title FROM documents")]
        finally:
            conn.close()
    except sqlite3.Error:
        return []


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    ap.add_argument("--only", help="run the cases whose name contains this")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="hostile-template-"))
    try:
        template = base / "template.db"
        code, _, err = trag(["-d", str(template), "index", str(docs(base / "docs"))], args.timeout)
        if code != 0:
            sys.exit(f"cannot build the template index: {err}")
        results = [run_case(n, s, e, template, args.timeout) for n, s, e in CASES
                   if not args.only or args.only in n]
    finally:
        shutil.rmtree(base)
    report = {
        "cases_tried": len(results),
        "refused_clearly": sum(r["refused_clearly"] for r in results),
        "expected_refusals": sum(r["expected"] == "refuse" for r in results),
        "survived": sum(r["survived"] for r in results),
        "expected_survivals": sum(r["expected"] == "survive" for r in results),
        "tracebacks": sum(r["traceback"] for r in results),
        "hangs": sum(r["hang"] for r in results),
        "data_lost": sum(r["data_lost"] for r in results),
        "cases": results,
    }
    print(json.dumps(report, indent=2, ensure_ascii=True))


if __name__ == "__main__":
    main()
