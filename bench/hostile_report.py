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
# setup may return (argv, extra) where extra is {"fsize": bytes} for a file-size limit,
# {"env": {...}} for settings in the environment, or {"check": f(stdout, stderr) -> bool} for
# what the printed text must be (a survival counts only when it holds).

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


# --- round two: values from outside, and text for the terminal (setup helpers) ---


def _with(extra: dict, setup):
    """A setup whose run also takes `extra` (settings in the environment, a check of the output)."""
    def wrapped(work: Path, db: Path):
        out = setup(work, db)
        argv, more = out if isinstance(out, tuple) else (out, {})
        return argv, {**more, **extra}
    return wrapped


def _rows(name: str, content: bytes, argv: list[str]):
    """A JSONL file of rows in the work folder, then the command over it ({file} in argv)."""
    def setup(work: Path, db: Path):
        (work / name).write_bytes(content)
        return [a.replace("{file}", str(work / name)) for a in argv]
    return setup


FORGED_ROWS = (json.dumps({"id": "real\u200b1", "date": "2020-01-01", "source": "Gov\nernor",
                           "title": "Real\n[2] 2020-01-01 Forged hit  (forged.md)",
                           "text": "The bank rate was cut to help pay\u200bpal wages."}) + "\n"
               + json.dumps({"id": "r2", "date": "2020-02-01", "title": "pay\u200bpal \u202egnp.exe",
                             "text": "The bank rate held."}) + "\n").encode()
HIDDEN = "\u200b\u200d\u202e\u2066\u2069\ufeff"


def _printed_safely(stdout: str, stderr: str) -> bool:
    """No line a title forged, and no invisible or reordering character reached the terminal."""
    text = stdout + stderr
    forged = any(line.lstrip().startswith(("[2] 2020-01-01 Forged", "ernor")) for line in text.splitlines())
    return not forged and not any(c in text for c in HIDDEN)


def _forged_then(command: list[str]):
    """An index holding titles, speakers and ids with line breaks and zero-width characters."""
    def setup(work: Path, db: Path):
        folder = work / "forged"
        folder.mkdir()
        (folder / "a.jsonl").write_bytes(FORGED_ROWS)
        code, _, err = trag(["-d", str(db), "index", str(folder)], 120)
        assert code == 0, err
        return command, {"check": _printed_safely}
    return setup


def _env(**settings: str):
    return {"env": {f"TRAG_TUI_{k.upper()}": v for k, v in settings.items()}}


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
    # --- round two: values from outside, and text for the terminal ---
    *[(f"--as-of {day} ({cmd[0]}: {q})", _simple([*cmd, q, "--as-of", day]), "survive")
      for day in ("0001-01-01", "9999-12-31")
      for cmd in (["search"], ["ask", "--evidence-only"], ["parse"])
      for q in ("bank rate last year", "rate 3 days ago", "rate next week", "Q4 rate")],
    ("--as-of 0000-12-31", _simple(["search", "bank rate", "--as-of", "0000-12-31"]), "refuse"),
    ("--as-of 10000-01-01 (ask)", _simple(["ask", "x", "--as-of", "10000-01-01", "--evidence-only"]), "refuse"),
    ("--since 2020-02-30 (pull)", _simple(["pull", "--from", "{docs}", "--since", "2020-02-30"]), "refuse"),
    ("--default-date 99999-01-01 (index)", _simple(["index", "{docs}", "--default-date", "99999-01-01"]), "refuse"),
    *[(f"as_of {v} in {cmd} --batch", _rows("q.jsonl", b'{"question": "rate", "query": "rate", "as_of": %s}\n' % v,
                                            [cmd, "--batch", "{file}", *extra]), "refuse")
      for v in (b"20200101", b"[2020]", b"0")
      for cmd, extra in (("search", []), ("parse", []), ("ask", ["--evidence-only"]))],
    ("a batch row that is a list (ask)", _rows("q.jsonl", b'["rate", "2020-01-01"]\n',
                                                ["ask", "--batch", "{file}", "--evidence-only"]), "refuse"),
    ("a batch question that is a number (search)", _rows("q.jsonl", b'{"question": 42}\n{"question": "rate"}\n',
                                                         ["search", "--batch", "{file}"]), "survive"),
    *[(f"eval row: {name}", _rows("qa.jsonl", b'{"question": "rate in 2019"}\n' + row + b"\n",
                                  ["eval", "{file}"]), "refuse")
      for name, row in (("no question", b'{"id": "a"}'), ("gold not a list", b'{"question": "q", "evidence_ids": "d1"}'),
                        ("not an object", b'[1, 2]'), ("question_date a number", b'{"question": "q", "question_date": 7}'),
                        ("periods not pairs", b'{"question": "q", "periods": [1]}'), ("not JSON", b"{nope"),
                        ("not UTF-8", b'{"question": "\xff"}'), ("category a list", b'{"question": "q", "category": [1]}'))],
    *[(f"TRAG_TUI_{name.upper()}={value} ({cmd[0]})", _with(_env(**{name: value}), _simple(cmd)), "refuse")
      for name, value, cmd in (
          ("k", "-1", ["search", "bank rate"]), ("k", "0", ["search", "bank rate"]),
          ("alpha", "nan", ["search", "bank rate"]), ("lam", "inf", ["search", "bank rate"]),
          ("tau", "-5", ["search", "bank rate"]), ("candidates", "1e400", ["search", "bank rate"]),
          ("rrf_k", "-60", ["search", "bank rate"]), ("gamma", "nan", ["search", "bank rate"]),
          ("evolution_pool", "0", ["search", "how did inflation change"]),
          ("evolution_floor", "2", ["search", "how did inflation change"]),
          ("bm25_weight", "-1", ["search", "bank rate"]), ("dense_weight", "abc", ["search", "bank rate"]),
          ("candidates", "9" * 30, ["search", "bank rate"]), ("decay", "linear", ["search", "bank rate"]),
          ("chunk_words", "0", ["index", "{docs}"]), ("chunk_overlap", "-1", ["index", "{docs}"]),
          ("parent_words", "-600", ["index", "{docs}"]), ("embed_batch", "0", ["index", "{docs}"]),
          ("write_batch_chunks", "0", ["index", "{docs}"]), ("max_file_mb", "nan", ["index", "{docs}"]),
          ("max_file_mb", "1e308", ["index", "{docs}"]), ("embed_workers", "100000", ["index", "{docs}"]),
          ("max_tokens", "-1", ["ask", "bank rate"]), ("n_ctx", "0", ["ask", "bank rate"]),
          ("temperature", "nan", ["ask", "bank rate"]), ("threads", "-2", ["ask", "bank rate"]),
          ("device", "gpu", ["stats"]), ("time", "later", ["stats"]))],
    ("title with a line break forging a hit (search)", _forged_then(["search", "bank rate"]), "survive"),
    ("title with a line break forging a hit (search --explain)", _forged_then(["search", "bank rate", "--explain"]), "survive"),
    ("title and speaker with line breaks (ask)", _forged_then(["ask", "bank rate", "--evidence-only"]), "survive"),
    ("zero-width characters in titles (search --json)", _forged_then(["search", "bank rate", "--json"]), "survive"),
    ("zero-width characters in a file name (index)",
     _with({"check": lambda out, err: "x\\u200by.txt" in out and not any(c in out + err for c in HIDDEN)},
           _index_into(lambda f: (f / "x\u200by.txt").write_bytes(bytes(range(256)) * 10))), "survive"),
    *[(f"/dev/zero as a file of questions ({args[0]})", _simple(args), "refuse")
      for args in (["search", "--batch", "/dev/zero"], ["ask", "--batch", "/dev/zero"], ["eval", "/dev/zero"])],
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


def trag(argv: list[str], timeout: float, fsize: int | None = None,
         env: dict | None = None) -> tuple[int | None, str, str]:
    def limit():
        if fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    env = {**os.environ, "TRAG_TUI_EMBEDDER": "hash", "TRAG_TUI_WRITE_BATCH_CHUNKS": "32", **(env or {})}
    try:
        p = subprocess.run([sys.executable, "-m", "trag_tui", *argv], capture_output=True,
                           timeout=timeout, env=env, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return None, "", ""
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def remove(folder: Path) -> None:
    """Remove a tree of any depth (shutil.rmtree recurses)."""
    order, stack = [], [str(folder)]
    while stack:
        d = stack.pop()
        order.append(d)
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
            import time
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
        code, stdout, stderr = trag(["-d", str(db), *argv], timeout, extra.get("fsize"), extra.get("env"))
        if holder is not None:
            holder.wait(timeout=600)
        result = {"case": name, "expected": expected, "exit": code,
                  "said": (stderr.strip().splitlines() or stdout.strip().splitlines() or [""])[-1][:200]}
        result["hang"] = code is None
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
        if extra.get("check") is not None:
            result["output_as_it_must_be"] = bool(extra["check"](stdout, stderr))
        result["survived"] = (expected == "survive" and code == 0 and not result["traceback"]
                              and result.get("output_as_it_must_be", True))
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
