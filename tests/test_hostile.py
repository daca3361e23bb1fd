"""Hostile input: a shared index file and whatever folder a user points at.

Every case of issue 13, built in tmp_path: each test asserts the clear refusal or the
survival, and that nothing else in the index file changed. Refusals are one line: a test
that sees a Python traceback, or an exception other than SystemExit escaping the CLI, fails.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from trag_tui.chunking import MAX_WORD_CHARS, chunk_text
from trag_tui.cli import cli
from trag_tui.errors import IndexFileError, IngestError
from trag_tui.indexer import Indexer
from trag_tui.models.embedding import HashEmbedder
from trag_tui.settings import Settings
from trag_tui.storage.db import sqlite3, writer_lock
from trag_tui.storage.file import connect

REPO = Path(__file__).resolve().parents[1]


def _bench():
    """bench/hostile_report.py: the tampering table and helpers the report and these tests share."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hostile_report", REPO / "bench" / "hostile_report.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOSTILE = _bench()


@pytest.fixture(autouse=True)
def _hash_embedder(monkeypatch):
    monkeypatch.setenv("TRAG_TUI_EMBEDDER", "hash")


def run(*args: str | Path):
    """The CLI in-process; no traceback and no stray exception, whatever happens."""
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "Traceback" not in result.output
    if result.exception is not None:
        assert isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _docs(folder: Path, n: int = 6, words: int = 40) -> Path:
    return HOSTILE.docs(folder, n, words)


@pytest.fixture
def index(tmp_path) -> Path:
    """An index of six dated reports, built by the CLI."""
    db = tmp_path / "shared.db"
    r = run("-d", db, "index", _docs(tmp_path / "docs"))
    assert r.exit_code == 0, r.output
    return db


_sql = HOSTILE.tamper


# -- 1. SQL planted in a shared file never runs ------------------------------------------------


def test_planted_trigger_is_refused_before_anything_runs(index, tmp_path):
    _sql(index, *HOSTILE.TRIGGER)
    before = digest(index)
    new = tmp_path / "new"
    new.mkdir()
    (new / "n.md").write_text("---\ndate: 2024-01-01\n---\nA new report on wages.")
    r = run("-d", index, "index", new)
    assert r.exit_code == 1
    assert "not as trag-tui makes it" in r.output and "doctor" in r.output
    assert "extra table 'pwned'" in r.output or "extra trigger 't' on documents" in r.output
    assert len(r.output.strip().splitlines()) == 1
    assert digest(index) == before
    for command in (["stats"], ["search", "bank rate"]):
        r = run("-d", index, *command)
        assert r.exit_code == 1 and "not as trag-tui makes it" in r.output
    conn = sqlite3.connect(str(index))
    assert conn.execute("SELECT count(*) FROM pwned").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM documents WHERE title='TAMPERED'").fetchone()[0] == 0
    conn.close()


def test_doctor_lists_every_difference_and_a_clean_copy_keeps_the_data(index, tmp_path):
    _sql(index, "CREATE TABLE pwned(x)",
         "CREATE TRIGGER t AFTER INSERT ON documents BEGIN INSERT INTO pwned VALUES(NEW.source_id); END",
         "CREATE VIEW v AS SELECT * FROM documents")
    before = digest(index)
    r = run("doctor", index)
    assert r.exit_code == 1
    for line in ("extra table 'pwned'", "extra trigger 't' on documents", "extra view 'v'"):
        assert line in r.output
    clean = tmp_path / "clean.db"
    r = run("doctor", index, "--clean-copy", clean)
    assert r.exit_code == 0, r.output
    assert digest(index) == before
    assert run("doctor", clean).exit_code == 0
    conn = connect(clean, write=False)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert not {"pwned", "t", "v"} & names
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == 6
    assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    conn.close()
    r = run("-d", clean, "search", "bank rate in 2017", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["hits"][0]["date"].startswith("2017")


def test_a_sound_file_passes_doctor(index):
    r = run("doctor", index)
    assert r.exit_code == 0 and "sound" in r.output


# -- 7. a tampered file is refused with one line ------------------------------------------------

TAMPERING = HOSTILE.TAMPERED


@pytest.mark.parametrize("case", sorted(TAMPERING))
def test_tampered_file_is_refused_clearly(index, tmp_path, case):
    statements, expected = TAMPERING[case]
    _sql(index, *statements)
    before = digest(index)
    for command in (["stats"], ["search", "bank rate"], ["index", tmp_path / "docs"]):
        r = run("-d", index, *command)
        assert r.exit_code == 1, r.output
        assert expected in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1, r.output
    assert digest(index) == before
    assert run("doctor", index).exit_code == 1


# -- 4. a read-only index can still be searched -------------------------------------------------


def test_reading_a_writable_file_writes_nothing(index):
    before = (digest(index), index.stat().st_mtime_ns)
    assert run("-d", index, "stats").exit_code == 0
    assert run("-d", index, "search", "bank rate").exit_code == 0
    assert (digest(index), index.stat().st_mtime_ns) == before


@pytest.mark.parametrize("what", ["file", "folder"])
def test_read_only_file_or_folder_is_searched_not_written(index, tmp_path, what):
    before = digest(index)
    target = index if what == "file" else index.parent
    mode = target.stat().st_mode
    target.chmod(0o444 if what == "file" else 0o555)
    try:
        r = run("-d", index, "stats")
        assert r.exit_code == 0, r.output
        assert "read-only: searching only" in r.output and "documents   6" in r.output
        r = run("-d", index, "search", "bank rate in 2019", "--json")
        assert r.exit_code == 0, r.output
        assert json.loads(r.output.split("\n", 1)[1])["hits"][0]["date"].startswith("2019")
        r = run("-d", index, "index", tmp_path / "docs")
        assert r.exit_code == 1
    finally:
        target.chmod(stat.S_IMODE(mode))
    assert digest(index) == before


def test_an_empty_file_is_not_turned_into_an_index_by_reading(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    r = run("-d", empty, "stats")
    assert r.exit_code == 1 and "is empty" in r.output
    assert empty.stat().st_size == 0


# -- 5. a damaged file is never written to --------------------------------------------------------


def test_corrupted_pages_are_refused_and_never_written(tmp_path):
    db = tmp_path / "c.db"
    assert run("-d", db, "index", _docs(tmp_path / "docs", n=12, words=200)).exit_code == 0
    data = bytearray(db.read_bytes())
    pages = len(data) // 4096
    assert pages > 12
    rnd = random.Random(13)
    for page in (pages // 3, pages // 2, 2 * pages // 3):
        data[page * 4096:(page + 1) * 4096] = rnd.randbytes(4096)
    db.write_bytes(bytes(data))
    before = digest(db)
    new = tmp_path / "new"
    new.mkdir()
    (new / "n.md").write_text("---\ndate: 2024-01-01\n---\nA new report on wages.")
    r = run("-d", db, "index", new)
    assert r.exit_code == 1 and "damaged" in r.output, r.output
    assert digest(db) == before
    r = run("-d", db, "search", "bank rate")
    assert r.exit_code == 0 or "damaged" in r.output
    r = run("doctor", db)
    assert r.exit_code == 1 and "damaged" in r.output


# -- 6. one writer at a time -------------------------------------------------------------------


def test_a_second_writer_is_refused_with_the_holders_pid(index, tmp_path):
    before = digest(index)
    with writer_lock(index):
        r = run("-d", index, "index", tmp_path / "docs")
        assert r.exit_code == 1
        assert f"another trag-tui is indexing {index} (pid {os.getpid()})" in r.output
        assert run("-d", index, "search", "bank rate").exit_code == 0  # readers are welcome
    assert digest(index) == before
    assert run("-d", index, "index", tmp_path / "docs").exit_code == 0


# -- 2, 3. one bad file never stops a run ------------------------------------------------------


def _survivors(folder: Path) -> None:
    """Good files sorted after the bad ones, so a run that stops early misses them."""
    (folder / "zz_after.md").write_text("---\ndate: 2020-02-02\n---\nThe last report on wages.")


_remove_deep = HOSTILE.remove


def test_bad_files_each_fail_alone_and_are_not_read_again(tmp_path, request):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a_surrogate.jsonl").write_text(
        '{"id": "s1", "date": "2020-01-01", "text": "bank \\ud800 rate"}\n')
    (folder / "b_deep.jsonl").write_text('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    (folder / "c_loop.txt").symlink_to("c_loop.txt")
    deep = folder
    for _ in range(1200):  # os.makedirs itself recurses too deep for this
        deep = deep / "d"
        deep.mkdir()
    request.addfinalizer(lambda: _remove_deep(folder / "d"))
    (deep / "bottom.md").write_text("---\ndate: 2021-01-01\n---\nDeep down, a report.")
    Path(os.fsdecode(os.fsencode(folder) + b"/e_caf\xe9.md")).write_text("---\ndate: 2022-01-01\n---\nCafe.")
    _survivors(folder)
    db = tmp_path / "b.db"
    r = run("-d", db, "index", folder, "--json")
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    failed = {Path(p).name: why for p, why in s["files_failed"]}
    assert failed == {"b_deep.jsonl": "no valid JSONL records (1 bad line; first at line 1: "
                                      "JSON nested too deeply)",
                      "c_loop.txt": "cannot read: Too many levels of symbolic links"}
    assert s["documents_added"] == 4 and s["files_indexed"] == 4
    conn = connect(db, write=False)
    texts = {r[0] for r in conn.execute("SELECT text FROM chunks")}
    assert "bank \ufffd rate" in texts and "Deep down, a report." in texts
    assert conn.execute("SELECT count(*) FROM files WHERE error IS NOT NULL").fetchone()[0] == 1
    conn.close()
    # the failure is remembered with its hash: not read again, still named
    r = run("-d", db, "index", folder, "--json")
    s = json.loads(r.output)
    assert s["files_indexed"] == 0 and s["documents_kept"] == 4
    assert any("(unchanged since it failed)" in why for _, why in s["files_failed"])
    # the non-UTF-8 name is printed escaped, on one line
    r = run("-d", db, "index", folder)
    assert "\\udce9" not in r.output or "e_caf" in r.output


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_pipes_and_devices_are_skipped_never_read(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    os.mkfifo(folder / "p.txt")
    (folder / "z.txt").symlink_to("/dev/zero")
    _survivors(folder)
    db = tmp_path / "p.db"
    # In a subprocess with a timeout: a run that opens the pipe would wait for ever.
    proc = subprocess.run(
        [sys.executable, "-m", "trag_tui", "-d", str(db), "index", str(folder), "--json"],
        capture_output=True, text=True, timeout=120, env={**os.environ, "TRAG_TUI_EMBEDDER": "hash"},
    )
    assert proc.returncode == 0, proc.stderr
    s = json.loads(proc.stdout)
    skipped = {Path(p).name: why for p, why in s["files_skipped"]}
    assert skipped == {"p.txt": "not a regular file (a named pipe)",
                       "z.txt": "not a regular file (a character device)"}
    assert s["documents_added"] == 1


def test_model_on_a_pipe_is_refused_by_its_type(tmp_path):
    """For the lead: `ask --model` should take params.MODEL_FILE."""
    from trag_tui import params

    os.mkfifo(tmp_path / "m.gguf")

    @click.command()
    @click.option("--model", type=params.MODEL_FILE)
    def probe(model):
        click.echo("ran")

    r = CliRunner().invoke(probe, ["--model", str(tmp_path / "m.gguf")])
    assert r.exit_code == 2 and "is not a regular file" in r.output and "ran" not in r.output


# -- 8, 10. values checked at the edge ------------------------------------------------------------


@pytest.mark.parametrize("args, expected", [
    (["-k", "-1"], "-1 is not in the range"),
    (["-k", "0"], "0 is not in the range"),
    (["--alpha", "nan"], "not a finite number"),
    (["--alpha", "2"], "2 is not in the range 0..1"),
    (["--lambda", "inf"], "not a finite number"),
    (["--tau", "-5"], "-5 is not in the range 0..1e+06"),
])
def test_numbers_out_of_range_are_refused(index, args, expected):
    r = run("-d", index, "search", "bank rate", *args)
    assert r.exit_code == 2 and expected in r.output, r.output


@pytest.mark.parametrize("command", [["search"], ["parse"]])
def test_empty_question_is_refused(index, command):
    for q in ("", "   "):
        r = run("-d", index, *command, q)
        assert r.exit_code == 2 and "the question is empty" in r.output


def test_undecodable_bytes_in_a_question_are_replaced_not_fatal(index, tmp_path):
    question = os.fsdecode(b"bank \xff rate in 2018")  # as argv gives it: a lone surrogate
    r = run("-d", index, "search", question, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["hits"]
    assert run("parse", question).exit_code == 0
    batch = tmp_path / "q.jsonl"
    batch.write_bytes(b'{"id": 1, "query": "rate \\ud800 in 2019"}\n{"id": 2, "query": "bad \xff byte"}\n'
                      b'{"id": 3, "query": ""}\n')
    r = run("parse", "--batch", batch)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert [row["id"] for row in rows] == [1, 2, 3] and rows[2]["error"] == "the question is empty"
    search_batch = tmp_path / "s.jsonl"
    search_batch.write_text('{"id": 1, "question": "rate \\ud800 in 2019"}\n')
    r = run("-d", index, "search", "--batch", search_batch)
    assert r.exit_code == 0 and json.loads(r.output)["hits"]


# -- 9. disk full ------------------------------------------------------------------------------


def test_disk_full_ends_the_run_with_a_count_and_a_resume_is_exact(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for j in range(3):
        with (folder / f"part{j}.jsonl").open("w") as fh:
            for i in range(150):
                fh.write(json.dumps({"id": f"{j}-{i}", "date": "2020-01-0%d" % (1 + i % 9),
                                     "text": f"Report {j} {i} on wages and prices. " * 30}) + "\n")
    db = tmp_path / "full.db"
    settings = Settings(db=db, embedder="hash", write_batch_chunks=16)
    conn = connect(db)
    pages = conn.execute("PRAGMA page_count").fetchone()[0]
    conn.execute(f"PRAGMA max_page_count = {pages + 700}")  # a disk with room for a little
    with pytest.raises(IndexFileError, match=r"^disk full: \d+ documents indexed and committed"):
        Indexer(conn, db, HashEmbedder(), settings).run([folder])
    committed = conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    conn.close()
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert 0 < committed == conn.execute("SELECT count(*) FROM documents").fetchone()[0] < 450
    Indexer(conn, db, HashEmbedder(), settings).run([folder])
    assert conn.execute("SELECT count(DISTINCT source_id), count(*) FROM documents").fetchone() == (450, 450)
    assert conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM chunks WHERE searchable = 1").fetchone()[0]
    conn.close()


def test_a_write_error_in_the_cli_is_one_line_and_exit_1(tmp_path):
    """A file-size limit makes every write past it fail, as a full disk does."""
    folder = HOSTILE.big_jsonl(tmp_path / "in")
    db = tmp_path / "f.db"
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20)); "
            "from trag_tui.cli import main; sys.argv = ['trag-tui'] + sys.argv[1:]; main()")
    proc = subprocess.run([sys.executable, "-c", code, "-d", str(db), "index", str(folder)],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "TRAG_TUI_EMBEDDER": "hash",
                               "TRAG_TUI_WRITE_BATCH_CHUNKS": "32"})
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "documents indexed and committed in this run" in proc.stderr, proc.stderr
    conn = connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


# -- 11. terminal escapes are shown, not obeyed ----------------------------------------------------


def test_escapes_in_titles_and_file_names_are_printed_escaped(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "t.md").write_text("---\ndate: 2020-01-01\ntitle: Clear\x1b[2J screen\x9b31m\u202e\n---\n"
                                 "A report on the bank rate \x1b]0;owned\x07 today.")
    (folder / "bad\n1 files: 1 indexed, 0 failed.jsonl").write_text("")
    db = tmp_path / "e.db"
    r = run("-d", db, "index", folder)
    assert "\x1b" not in r.output
    assert "failed  " in r.output and "bad\\n1 files" in r.output
    assert not any(line.startswith("1 files:") for line in r.output.splitlines())
    for args in (["search", "bank rate"], ["search", "bank rate", "--json"], ["stats"]):
        r = run("-d", db, *args)
        assert r.exit_code == 0
        assert not any(c in r.output for c in "\x1b\x07\x9b\u202e"), args
    r = run("-d", db, "search", "bank rate")
    # the 8-bit CSI (\x9b) is read at indexing as the Windows-1252 character it stands for in
    # text ("›"), as every C1 control code is; the 7-bit escapes are shown escaped
    assert "Clear\\x1b[2J screen›31m\\u202e" in r.output


def test_safe_text_escapes_controls_and_keeps_json_valid():
    from trag_tui.text.safe import safe, safe_json, safe_line

    assert safe("a\x1b[2Jb\nc\td") == "a\\x1b[2Jb\nc\td"
    assert safe_line("a\nb\tc\u2028") == "a\\nb\\tc\\u2028"
    assert safe(os.fsdecode(b"caf\xe9")) == "caf\\udce9"
    text = safe_json(json.dumps({"t": "x\x9by\u202e\ud800"}, ensure_ascii=False))
    assert json.loads(text) == {"t": "x\x9by\u202e\ud800"}
    assert not any(c in text for c in "\x9b\u202e")


# -- 12. the smaller ones -----------------------------------------------------------------------


def test_duplicate_jsonl_ids_are_kept_apart_with_a_note(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "d.jsonl").write_text(
        '{"id": "a", "date": "2020-01-01", "text": "first about wages"}\n'
        '{"id": "a", "date": "2020-01-02", "text": "second about prices"}\n')
    r = run("-d", tmp_path / "d.db", "index", folder, "--json")
    s = json.loads(r.output)
    assert s["documents_added"] == 2
    assert any("1 repeated id kept apart as ID#2" in note for _, note in s["notes"])
    conn = connect(tmp_path / "d.db", write=False)
    assert sorted(r[0] for r in conn.execute("SELECT source_id FROM documents")) == ["a", "a#2"]
    conn.close()


def test_a_line_with_no_spaces_is_cut_into_bounded_chunks():
    text = "x" * 2_000_000
    chunks = chunk_text(text, 200, 40, 600)
    assert max(len(c.text) for c in chunks) <= 600 * MAX_WORD_CHARS
    assert max(len(c.text) for c in chunks if c.searchable) <= 200 * MAX_WORD_CHARS
    assert "".join(c.text for c in chunks if c.parent is None) == text
    assert chunk_text("an ordinary sentence of words") == chunk_text("an ordinary sentence of words", 200)


def test_prune_works_with_paths_given_as_a_generator(tmp_path):
    folder = _docs(tmp_path / "docs", n=3)
    db = tmp_path / "g.db"
    settings = Settings(db=db, embedder="hash")
    conn = connect(db)
    Indexer(conn, db, HashEmbedder(), settings).run(p for p in [folder])
    (folder / "r2015.md").unlink()
    s = Indexer(conn, db, HashEmbedder(), settings).run((p for p in [folder]), prune=True)
    assert s.files_pruned == 1 and s.documents_removed == 1
    conn.close()


def test_a_misspelt_config_key_is_named(tmp_path, monkeypatch):
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("TRAG_TUI_USER_DIR", str(user))
    (user / "config.toml").write_text("chunk_word = 120\n")
    r = run("stats")
    assert r.exit_code == 1
    assert "unknown setting 'chunk_word' (did you mean 'chunk_words'?)" in r.output


def test_ci_fails_when_no_test_ran_and_runs_the_readme_command():
    ci = (REPO / ".ci" / "run").read_text()
    command = [line for line in ci.splitlines() if line and not line.startswith("#")][-1]
    assert "[ $? -eq 5 ]" not in command
    assert f"```bash\n{command}\n```" in (REPO / "README.md").read_text()
    empty = subprocess.run([sys.executable, "-m", "pytest", "-q", "-k", "no_test_has_this_name",
                            str(Path(__file__))], capture_output=True, text=True)
    assert empty.returncode != 0  # pytest's "no tests ran" (5) is a failure for CI


def test_verification_follows_the_shipped_migrations(tmp_path, monkeypatch):
    """A migration added later (a new table, say) is verified without listing it anywhere."""
    from trag_tui.storage import db as db_module

    shipped = db_module.migrations()
    extra = db_module.Migration("0999_later.sql", "CREATE TABLE later_step (doc_id INTEGER, who TEXT);\n"
                                "CREATE INDEX later_step_who ON later_step(who);")
    monkeypatch.setattr(db_module, "migrations", lambda: [*shipped, extra])
    path = tmp_path / "m.db"
    connect(path).close()
    connect(path, write=False).close()  # the new table and index are expected now
    _sql(path, "DROP INDEX later_step_who")
    with pytest.raises(IndexFileError, match="missing index 'later_step_who'"):
        connect(path, write=False)


# --- round two: the index file, opening it, and doctor ---


def _immutable_titles(db: Path) -> list[str]:
    """What a reader that ignores the -wal and -journal (SQLite's `immutable`) would show."""
    conn = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        return [r[0] for r in conn.execute("SELECT title FROM documents")]
    finally:
        conn.close()


@pytest.mark.parametrize("case", sorted(HOSTILE.SQLITE_NAMED))
def test_a_name_like_sqlites_own_passes_nothing_unchecked(index, tmp_path, case):
    _sql(index, *HOSTILE.SQLITE_NAMED[case])
    r = run("doctor", index)
    assert r.exit_code == 1 and "extra " in r.output and "sound" not in r.output, r.output
    before = digest(index)
    new = tmp_path / "new"
    new.mkdir()
    (new / "n.md").write_text("---\ndate: 2024-01-01\ntitle: New\n---\nA new report on wages.")
    for command in (["index", new], ["stats"], ["search", "bank rate"]):
        r = run("-d", index, *command)
        assert r.exit_code == 1 and "not as trag-tui makes it" in r.output, r.output
    assert digest(index) == before
    conn = sqlite3.connect(str(index))
    assert conn.execute("SELECT count(*) FROM documents WHERE title != 'TAMPERED'").fetchone()[0] == 6
    conn.close()


def test_planner_statistics_pass_only_as_sqlite_makes_them(index):
    _sql(index, "ANALYZE")
    names = {r[0] for r in sqlite3.connect(str(index)).execute("SELECT name FROM sqlite_master")}
    assert "sqlite_stat1" in names
    assert run("doctor", index).exit_code == 0
    assert run("-d", index, "stats").exit_code == 0
    _sql(index, "PRAGMA writable_schema=ON",
         "UPDATE sqlite_master SET sql = 'CREATE TABLE sqlite_stat1(tbl,idx,stat,extra)' "
         "WHERE name = 'sqlite_stat1'")
    r = run("doctor", index)
    assert r.exit_code == 1 and "extra table 'sqlite_stat1'" in r.output, r.output


def test_every_connection_is_defensive_and_trusts_no_schema(index):
    from trag_tui.doctor import _open_untrusted

    for conn in (connect(index), connect(index, write=False), _open_untrusted(index)):
        try:
            assert conn.execute("PRAGMA trusted_schema").fetchone()[0] == 0
            conn.execute("PRAGMA writable_schema = ON")
            assert conn.execute("PRAGMA writable_schema").fetchone()[0] == 0
            with pytest.raises(sqlite3.DatabaseError, match="may not be modified|readonly"):
                conn.execute("INSERT INTO chunk_vectors_info (key, value) VALUES ('x', 1)")
        finally:
            conn.close()
    conn = connect(index)
    with pytest.raises(sqlite3.DatabaseError, match="may not be modified"):
        conn.execute("INSERT INTO chunk_vectors_info (key, value) VALUES ('x', 1)")
    conn.close()


@pytest.mark.parametrize("present", [True, False], ids=["empty slot marked valid", "vector marked absent"])
def test_a_flipped_validity_bit_is_found_and_a_clean_copy_searches(index, tmp_path, present):
    HOSTILE.flip_validity(index, present)
    before = digest(index)
    r = run("doctor", index)
    assert r.exit_code == 1 and "vector table" in r.output, r.output
    for command in (["search", "bank rate"], ["stats"], ["index", tmp_path / "docs"]):
        r = run("-d", index, *command)
        assert r.exit_code == 1, r.output
        assert "vector table" in r.output and len(r.output.strip().splitlines()) == 1, r.output
    assert digest(index) == before
    clean = tmp_path / "clean.db"
    assert run("doctor", index, "--clean-copy", clean).exit_code == 0
    assert run("doctor", clean).exit_code == 0
    assert run("-d", clean, "index", tmp_path / "docs").exit_code == 0
    r = run("-d", clean, "search", "bank rate in 2017", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["hits"][0]["date"].startswith("2017"), r.output


def test_vectors_of_another_length_than_the_file_declares_are_found_by_the_vector_table_check(index):
    """A block of vectors one dimension short of what meta and the table declare: the vector
    table's own check says so, on every open and in doctor (the schema check keeps no second
    look at one vector's length)."""
    import sqlite_vec
    from sqlite_utils.utils import sqlite3 as vec_sqlite3

    conn = vec_sqlite3.connect(str(index))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    dim = int(conn.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()[0])
    block, size = conn.execute("SELECT chunk_id, size FROM chunk_vectors_chunks LIMIT 1").fetchone()
    conn.execute("UPDATE chunk_vectors_vector_chunks00 SET vectors = zeroblob(?) WHERE rowid = ?",
                 (size * (dim - 1) * 4, block))
    conn.commit()
    conn.close()
    r = run("doctor", index)
    assert r.exit_code == 1 and f"its vectors are not {size} of {dim} dimensions" in r.output, r.output
    r = run("-d", index, "search", "bank rate")
    assert r.exit_code == 1 and f"its vectors are not {size} of {dim} dimensions" in r.output, r.output


def test_a_sound_vector_table_passes_both_checks(index):
    """(What the check on open costs is measured, not asserted: 10 ms for 200,000 vectors.)"""
    from trag_tui.storage import vector_table

    conn = connect(index, write=False)
    try:
        assert vector_table.problems(conn, 384) == []
        assert vector_table.problems(conn, 384, thorough=True) == []
    finally:
        conn.close()


def _read_only_folder(folder: Path):
    folder.chmod(0o555)
    return folder


def test_a_read_only_folder_shows_the_rows_its_wal_committed(index, tmp_path):
    new = tmp_path / "new"
    new.mkdir()
    (new / "n.md").write_text(HOSTILE.GOOD)
    snap = HOSTILE.wal_snapshot(index, tmp_path / "shared", new)
    assert "Survivor" not in _immutable_titles(snap)  # the row is in the WAL only
    before = {p.name: digest(p) for p in snap.parent.iterdir()}
    _read_only_folder(snap.parent)
    try:
        r = run("-d", snap, "stats")
        assert r.exit_code == 0 and "documents   7" in r.output, r.output
        r = run("-d", snap, "search", "last report wages", "--json")
        assert r.exit_code == 0 and "Survivor" in r.output, r.output
        assert run("doctor", snap).exit_code == 0
        clean = tmp_path / "clean.db"
        assert run("doctor", snap, "--clean-copy", clean).exit_code == 0
        assert "Survivor" in _immutable_titles(clean)
    finally:
        snap.parent.chmod(0o755)
    assert {p.name: digest(p) for p in snap.parent.iterdir()} == before


def test_a_read_only_folder_never_shows_a_hot_journals_half_written_rows(index, tmp_path):
    snap = HOSTILE.hot_journal_snapshot(index, tmp_path / "shared")
    assert "ROLLED BACK" in _immutable_titles(snap)  # the file holds half-written pages
    before = {p.name: digest(p) for p in snap.parent.iterdir()}
    _read_only_folder(snap.parent)
    try:
        r = run("-d", snap, "stats")
        assert r.exit_code == 0 and "documents   6" in r.output, r.output
        r = run("-d", snap, "search", "bank rate", "--json", "-k", "20")
        assert r.exit_code == 0 and "ROLLED BACK" not in r.output, r.output
        clean = tmp_path / "clean.db"
        r = run("doctor", snap, "--clean-copy", clean)
        assert r.exit_code == 0, r.output
        titles = _immutable_titles(clean)
        assert len(titles) == 6 and "ROLLED BACK" not in titles
    finally:
        snap.parent.chmod(0o755)
    assert {p.name: digest(p) for p in snap.parent.iterdir()} == before


def test_a_file_another_process_holds_is_busy_not_damaged(index, monkeypatch):
    from trag_tui.storage import db as db_module

    monkeypatch.setattr(db_module, "BUSY_TIMEOUT_MS", 300)
    release = HOSTILE.hold_exclusive(index)
    try:
        for command in (["search", "bank rate"], ["stats"], ["doctor", index]):
            r = run("-d", index, *command)
            assert r.exit_code == 1, r.output
            assert r.output.strip() == f"Error: busy: another trag-tui is writing {index}, try again"
    finally:
        release()
    assert run("-d", index, "search", "bank rate").exit_code == 0


def test_doctor_of_a_fifo_and_fifos_beside_the_file_are_one_line(index, tmp_path):
    os.mkfifo(tmp_path / "pipe.db")
    os.mkfifo(str(index) + "-wal")
    # In subprocesses with a timeout: opening a FIFO to read it waits for ever.
    for argv in (["doctor", str(tmp_path / "pipe.db")], ["-d", str(index), "stats"]):
        proc = subprocess.run([sys.executable, "-m", "trag_tui", *argv], capture_output=True,
                              text=True, timeout=60, env={**os.environ, "TRAG_TUI_EMBEDDER": "hash"})
        assert proc.returncode == 1 and "not a regular file" in proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
    os.unlink(str(index) + "-wal")
    Path(str(index) + "-lock").unlink(missing_ok=True)
    os.mkfifo(str(index) + "-lock")
    before = digest(index)
    r = run("-d", index, "index", tmp_path / "docs")
    assert r.exit_code == 1 and "-lock: it is not a regular file" in r.output, r.output
    assert digest(index) == before


def test_doctor_names_the_damaged_file_it_copies(index, tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_DB", str(tmp_path / "other.db"))
    data = bytearray(index.read_bytes())
    data[200:4096] = bytes((i * 37 + 11) % 256 for i in range(3896))
    index.write_bytes(bytes(data))
    clean = tmp_path / "clean.db"
    r = run("doctor", index, "--clean-copy", clean)
    assert r.exit_code == 1 and f"Error: cannot open {index} for a clean copy" in r.output, r.output
    assert "other.db" not in r.output and "trag.db" not in r.output
    assert not clean.exists()
# --- round two: Qdrant folders ----------------------------------------------------------------


def _one_line_refusal(result, *words: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1, result.output
    for word in words:
        assert word in result.output, result.output


def _pushed(db: Path, folder: Path) -> Path:
    r = run("-d", db, "push", "--to", folder)
    assert r.exit_code == 0, r.output
    return folder


def test_a_planted_pickle_in_a_local_folder_never_runs(index, tmp_path):
    pytest.importorskip("qdrant_client")
    import shutil

    from trag_tui.settings import user_dir

    ours = _pushed(index, tmp_path / "ours")
    key = user_dir() / "qdrant-folders.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600  # made on the first push, for its owner only
    theirs = tmp_path / "theirs"
    HOSTILE.push_folder(index, theirs, user=tmp_path / "someone")  # sealed with someone else's key
    altered = tmp_path / "altered"
    shutil.copytree(ours, altered)
    unsealed = tmp_path / "unsealed"
    shutil.copytree(ours, unsealed)
    (unsealed / "trag-tui.seal").unlink()
    made = tmp_path / "made-by-the-pickle"
    for folder in (theirs, altered, unsealed):
        HOSTILE.plant_pickle(folder, made)
    for folder, why in ((theirs, "not this user's"), (altered, "changed after"), (unsealed, "no seal")):
        new = tmp_path / f"pulled-{folder.name}.db"
        _one_line_refusal(run("-d", new, "pull", "--from", folder), why, "pickles", "Qdrant server")
        assert not new.exists()
        _one_line_refusal(run("-d", index, "--backend", folder, "search", "bank rate"), why, "pickles")
        _one_line_refusal(run("-d", index, "push", "--to", folder), why)
    assert not made.exists()
    # --replace removes what cannot be checked, unread, and writes the folder again
    r = run("-d", index, "push", "--to", altered, "--replace")
    assert r.exit_code == 0 and " 24 chunks sent" in r.output, r.output
    assert not made.exists()
    r = run("-d", tmp_path / "replaced.db", "pull", "--from", altered)
    assert r.exit_code == 0 and "6 documents" in r.output, r.output
    # a folder this program wrote still pulls and searches, and a pull or search changes nothing in it
    before = {p: digest(p) for p in ours.rglob("*") if p.is_file() and p.name != ".lock"}
    r = run("-d", tmp_path / "mine.db", "pull", "--from", ours)
    assert r.exit_code == 0 and "6 documents" in r.output, r.output
    r = run("-d", index, "--backend", ours, "search", "bank rate", "--json")
    assert r.exit_code == 0 and json.loads(r.output)["hits"], r.output
    assert {p: digest(p) for p in ours.rglob("*") if p.is_file() and p.name != ".lock"} == before
    # a link or a pipe in a folder is refused before anything opens it
    os.mkfifo(ours / "collection" / "trag" / "storage.sqlite-journal")
    _one_line_refusal(run("-d", index, "--backend", ours, "search", "bank rate"), "not a regular file")


def test_a_second_index_pushed_to_a_collection_is_refused_unless_replaced(index, tmp_path):
    pytest.importorskip("qdrant_client")
    folder = _pushed(index, tmp_path / "q")
    other = tmp_path / "other.db"
    r = run("-d", other, "index", _docs(tmp_path / "other-docs", n=3))
    assert r.exit_code == 0, r.output
    before = digest(other)
    _one_line_refusal(run("-d", other, "push", "--to", folder), "holds another index", "--replace")
    assert digest(other) == before  # a refused push writes nothing into the file
    # the collection still holds the first index only
    r = run("-d", tmp_path / "a.db", "pull", "--from", folder)
    assert r.exit_code == 0 and "6 documents" in r.output, r.output
    # the same index again is an update
    r = run("-d", index, "push", "--to", folder)
    assert r.exit_code == 0 and " 0 chunks sent" in r.output, r.output
    r = run("-d", other, "push", "--to", folder, "--replace")
    assert r.exit_code == 0, r.output
    r = run("-d", tmp_path / "b.db", "pull", "--from", folder)
    assert r.exit_code == 0 and "3 documents" in r.output, r.output
    _one_line_refusal(run("-d", index, "push", "--to", folder), "holds another index")


def _bad_collection(db: Path, folder: Path, change) -> None:
    """A folder this program wrote, then changed through the client as another program
    writing to a server could (every value of a collection is outside input), and sealed."""
    from trag_tui.retrieval.backends import seal
    from trag_tui.retrieval.backends.qdrant import parse_target

    _pushed(db, folder)
    target = parse_target(str(folder))
    client = target.connect(create=False)
    try:
        change(client, "trag", client.scroll("trag", limit=1, with_payload=True, with_vectors=True)[0][0])
    finally:
        client.close()
    seal.seal(folder)


def _set(**values):
    return lambda c, name, p: c.set_payload(name, payload=values, points=[p.id])


def _drop(key):
    return lambda c, name, p: c.delete_payload(name, keys=[key], points=[p.id])


def _text_id(c, name, p):
    from qdrant_client import models

    c.upsert(name, points=[models.PointStruct(id="7f1c2d4e-0000-4000-8000-000000000000", vector=p.vector,
                                              payload=p.payload)])


def _metadata(**values):
    def change(c, name, p):
        meta = c.get_collection(name).config.metadata["trag_tui"]
        c.update_collection(name, metadata={"trag_tui": {**meta, **values}})
    return change


HOSTILE_PAYLOADS = {
    "missing document id": _drop("document_id"),
    "missing text": _drop("text"),
    "text point id": _text_id,
    "text document id": _set(document_id="12"),
    "impossible date": _set(date="2023-02-30"),
    "date in words": _set(date="yesterday"),
    "date as a number": _set(date=20230101),
    "told day past the calendar": _set(told_day=10**12),
    "offset as text": _set(start_char="0"),
    "searchable as text": _set(searchable="yes"),
    "text as a number": _set(text=5),
    "meta as text": _set(meta="x"),
    "centrality as text": _set(centrality="high"),
    "ordinal as a fraction": _set(ordinal=1.5),
    "cluster as text": _set(cluster_id="c"),
    "parent as text": _set(parent_id="p"),
    "periods of junk": _metadata(periods=["19x0s"]),
    "an embedder no file records": _metadata(embedder="hash-7", dim=8),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_PAYLOADS))
def test_hostile_pull_payloads_are_refused_blaming_the_collection(index, tmp_path, case):
    pytest.importorskip("qdrant_client")
    folder = tmp_path / "q"
    _bad_collection(index, folder, HOSTILE_PAYLOADS[case])
    new = tmp_path / "new.db"
    r = run("-d", new, "pull", "--from", folder)
    _one_line_refusal(r, str(folder), "collection")
    assert "damaged" not in r.output and "doctor" not in r.output  # not blamed on the index file
    assert not new.exists()  # a refused pull leaves no file it made


@pytest.mark.parametrize("url", ["qdrant://[::1/debates", "qdrant://[zz]/debates", "qdrant://ho st/debates",
                                 "qdrant://h%00/debates", "qdrant://localhost/..", "qdrant://localhost:0/d",
                                 "qdrant://u:secret@localhost/d", "qdrant://localhost/d?x=1",
                                 "qdrant://localhost/a b"])
def test_unparsable_qdrant_urls_are_one_line(index, tmp_path, url):
    pytest.importorskip("qdrant_client")
    for args in (["-d", tmp_path / "new.db", "pull", "--from", url],
                 ["-d", index, "--backend", url, "search", "bank rate"],
                 ["-d", index, "push", "--to", url]):
        _one_line_refusal(run(*args), url[:12])
    assert not (tmp_path / "new.db").exists()
# --- round two: model discovery and GGUF files ---


@pytest.fixture
def model_user(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """A user whose home is in tmp_path, no tool variable set, and one good model of their own
    in TRAG_TUI_MODEL_DIR (work/own); (home, work)."""
    from trag_tui.models import files as model_files

    home, own = tmp_path / "home", tmp_path / "own"
    home.mkdir()
    own.mkdir()
    (own / HOSTILE.SURVIVOR_MODEL).write_bytes(HOSTILE.gguf())
    for name, value in HOSTILE.model_env(home, TRAG_TUI_MODEL_DIR=str(own)).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(model_files, "OLLAMA_SERVICE_MODELS", tmp_path / "no-service")
    return home, tmp_path


def _trag(*args: str | Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """The CLI in a subprocess, in this environment: a command that waits on a pipe times out
    (and fails the test) instead of hanging the suite."""
    return subprocess.run([sys.executable, "-m", "trag_tui", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO, env=dict(os.environ))


@pytest.mark.parametrize("build", [
    HOSTILE.pipe_as_ollama_blob, HOSTILE.pipe_as_lmstudio_pointer, HOSTILE.pipe_as_hf_refs_main,
    HOSTILE.pipe_as_hf_snapshot_file, HOSTILE.pipe_as_llm_gguf_model,
    HOSTILE.pipe_as_llm_gguf_registry], ids=lambda build: build.__name__)
def test_a_pipe_in_a_tools_models_folder_is_skipped_with_its_reason(model_user, build):
    home, work = model_user
    path, reason = build(home, work)
    proc = _trag("models", "--json")
    assert proc.returncode == 0, proc.stderr
    assert HOSTILE.SURVIVOR_MODEL in {row["name"] for row in json.loads(proc.stdout)}
    assert f"skipped {path}: {reason}" in proc.stderr.splitlines()


def test_model_option_on_a_pipe_is_one_clear_line(model_user, index, monkeypatch):
    _home, work = model_user
    pipe = HOSTILE._pipe_model(work)
    proc = _trag("-d", index, "ask", "bank rate", "--model", pipe)
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert errors == [f"Error: the model path is not a regular file (a named pipe): {pipe}"]
    monkeypatch.setenv("TRAG_TUI_MODEL", str(pipe))  # the listing is still shown, none marked
    proc = _trag("models")
    assert proc.returncode == 0 and HOSTILE.SURVIVOR_MODEL in proc.stdout
    assert not any(line.startswith("*") for line in proc.stdout.splitlines())


def test_a_gguf_of_nested_arrays_is_skipped_and_refused_in_one_line(model_user, index):
    home, work = model_user
    path, reason = HOSTILE.gguf_of_nested_arrays(home, work)
    r = run("models")
    assert r.exit_code == 0 and HOSTILE.SURVIVOR_MODEL in r.stdout
    assert f"skipped {path}: {reason}" in r.stderr.splitlines()
    r = run("-d", index, "ask", "bank rate", "--model", path)
    assert r.exit_code == 1
    assert r.stderr.strip() == f"Error: {path} is not a usable GGUF model file: {reason}"


def test_gguf_counts_and_lengths_are_bounded_by_the_file(model_user, tmp_path):
    import struct

    from trag_tui.models.gguf import read_metadata

    def text(data: bytes) -> bytes:
        return struct.pack("<Q", len(data)) + data

    head = b"GGUF" + struct.pack("<IQQ", 3, 0, 2)
    huge_string = head + text(b"general.architecture") + struct.pack("<IQ", 8, 1 << 63) + b"llama"
    huge_array = head + text(b"x") + struct.pack("<IIQ", 9, 10, (1 << 64) - 1) + b"\0" * 64
    for i, data in enumerate((huge_string, huge_array)):
        (tmp_path / f"{i}.gguf").write_bytes(data)
        assert read_metadata(tmp_path / f"{i}.gguf") == {}
    # 2^63 strings over a sparse 10 GB file of zeros, each an empty string: read to a bound.
    home, work = model_user
    HOSTILE.gguf_claiming_2_63_strings(home, work)
    proc = _trag("models", "--json", timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = {row["name"]: row for row in json.loads(proc.stdout)}
    assert rows["claims-Q5_0.gguf"]["quantization"] == "Q5_0"  # from the name, as for a cut header


def test_a_hugging_face_cache_1100_folders_deep_is_walked_to_a_limit(model_user, request):
    home, work = model_user
    path, reason = HOSTILE.hf_cache_1100_deep(home, work)
    request.addfinalizer(lambda: _remove_deep(home / ".cache"))
    r = run("models")
    assert r.exit_code == 0 and HOSTILE.SURVIVOR_MODEL in r.stdout
    assert "org/repo/good-Q8_0.gguf" in r.stdout  # the snapshot's own file, once (no loop)
    assert r.stdout.count("good-Q8_0.gguf  ") == 1
    assert f"skipped {path}: {reason}" in r.stderr.splitlines()


def test_a_manifest_of_deeply_nested_json_is_skipped(model_user):
    home, work = model_user
    path, reason = HOSTILE.ollama_manifest_nested_deep(home, work)
    r = run("models")
    assert r.exit_code == 0 and HOSTILE.SURVIVOR_MODEL in r.stdout
    assert f"skipped {path}: {reason}" in r.stderr.splitlines()


def test_models_prints_names_and_header_text_escaped(model_user):
    home, work = model_user
    HOSTILE.escapes_in_model_names(home, work)
    r = run("models")
    assert r.exit_code == 0
    assert not any(raw in r.output for raw in HOSTILE.RAW_ON_A_TERMINAL)
    lines = r.stdout.splitlines()
    assert len(lines) == 4  # the heading, the bundled model, the survivor and the hostile one
    assert any("esc\\x1b[2J\\x07\\u202e\\nforged  1 B" in line for line in lines)
    r = run("models", "--json")
    assert not any(raw in r.stdout for raw in HOSTILE.RAW_ON_A_TERMINAL)
    rows = {row["name"]: row for row in json.loads(r.stdout)}
    assert rows[HOSTILE.ESCAPED_MODEL_NAME]["architecture"] == "ll\x9bama\u202e"


def test_a_home_no_one_has_is_a_path_not_a_traceback(model_user, index, monkeypatch):
    home, work = model_user
    HOSTILE.pointer_to_no_such_home(home, work)
    monkeypatch.setenv("TRAG_TUI_MODEL_DIR", f"~nosuchuser-trag/own{os.pathsep}{work / 'own'}")
    r = run("models")
    assert r.exit_code == 0 and HOSTILE.SURVIVOR_MODEL in r.stdout
    r = run("-d", index, "ask", "bank rate", "--model", "~nosuchuser-trag/m.gguf")
    assert r.exit_code == 1
    assert r.stderr.strip() == "Error: model file not found: ~nosuchuser-trag/m.gguf"
# --- round two: values from outside, and text for the terminal ---------------------------------


EDGE_PHRASINGS = ["bank rate last year", "bank rate next week", "rate yesterday", "rate 3 days ago",
                  "inflation this week", "Q4 rate", "the last 10 years of inflation",
                  "how did inflation change over the past decade", "rate last weekend"]


def test_as_of_at_the_ends_of_the_calendar_is_read_without_overflow(index):
    for command in (["search"], ["ask", "--evidence-only"], ["parse"]):
        for as_of in ("0001-01-01", "0001-01-03", "9999-12-31"):
            for question in EDGE_PHRASINGS:
                r = run("-d", index, *command, question, "--as-of", as_of)
                assert r.exit_code == 0, (command, as_of, question, r.output)


def test_a_period_before_the_first_day_is_no_period_and_one_partly_before_is_clipped(index):
    def read(question, as_of):
        r = run("parse", question, "--as-of", as_of, "--json")
        assert r.exit_code == 0, r.output
        return json.loads(r.output)

    assert read("last year", "0001-01-01")["start"] is None  # year 0 is not in the calendar
    assert read("yesterday", "0001-01-01")["start"] is None
    past = read("the last 10 years", "0001-06-01")
    assert (past["start"], past["end"]) == ("0001-01-01", "0001-06-01")
    assert read("next week", "9999-12-31")["intent"] == "current"  # after as_of: the latest
    assert read("last year", "9999-12-31")["start"] == "9998-01-01"


@pytest.mark.parametrize("as_of", ["0000-12-31", "10000-01-01", "2020-02-30", "yesterday"])
def test_as_of_outside_the_calendar_is_one_line_naming_the_option(index, as_of):
    for command in (["search", "x"], ["parse", "x"], ["ask", "x", "--evidence-only"]):
        r = run("-d", index, *command, "--as-of", as_of)
        assert r.exit_code == 2 and "--as-of" in r.output and "0001-01-01" in r.output, r.output


BAD_BATCH_ROWS = {
    "as_of a number": ('{"question": "rate", "query": "rate", "as_of": 20200101}', "as_of 20200101"),
    "as_of zero": ('{"question": "rate", "query": "rate", "as_of": 0}', "as_of 0"),
    "question_date a list": ('{"question": "rate", "question_date": [2020]}', "question_date [2020]"),
    "row a list": ('["rate", "2020-01-01"]', "not a JSON object"),
    "row a string": ('"rate"', "not a JSON object"),
}


@pytest.mark.parametrize("case", sorted(BAD_BATCH_ROWS))
@pytest.mark.parametrize("command", [["search"], ["parse"], ["ask", "--evidence-only"]])
def test_a_batch_row_of_the_wrong_type_stops_with_one_line_naming_it(index, tmp_path, command, case):
    row, said = BAD_BATCH_ROWS[case]
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "ok", "question": "bank rate", "query": "bank rate"}\n' + row + "\n")
    r = run("-d", index, *command, "--batch", batch)
    assert r.exit_code == 1, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "line 2" in errors[0] and said in errors[0], r.output
    assert r.output.splitlines()[0].startswith('{"id": "ok"')  # the rows before it were answered


@pytest.mark.parametrize("command", [["search"], ["parse"], ["ask", "--evidence-only"]])
def test_a_batch_question_that_is_not_text_is_answered_with_an_error_and_the_batch_goes_on(
        index, tmp_path, command):
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": 1, "question": 42, "query": 42}\n{"id": 2, "question": "bank rate", '
                     '"query": "bank rate", "as_of": "2020-06-01"}\n')
    r = run("-d", index, *command, "--batch", batch)
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert rows[0] == {"id": 1, "error": "the question is not text (int)"}
    assert rows[1]["id"] == 2 and "error" not in rows[1]


BAD_EVAL_ROWS = {
    "not JSON": (b"{nope", "not JSON"),
    "a list": (b'["q", "2020-01-01"]', "not a JSON object"),
    "no question": (b'{"id": "a"}', "no question"),
    "question a number": (b'{"question": 7}', "no question"),
    "gold a string": (b'{"question": "rate", "evidence_ids": "docs/r2019.md"}', "evidence_ids"),
    "gold of objects": (b'{"question": "rate", "gold_doc_ids": [{"id": 1}]}', "gold_doc_ids"),
    "question_date a number": (b'{"question": "rate", "question_date": 2020}', "question_date 2020"),
    "as_of a bad day": (b'{"question": "rate", "as_of": "2020-02-30"}', "as_of"),
    "periods not pairs": (b'{"question": "rate", "periods": [["2019-01-01"]]}', "periods"),
    "periods a string": (b'{"question": "rate", "periods": "2019"}', "periods"),
    "start a number": (b'{"question": "rate", "start": 2019}', "start 2019"),
    "period backwards": (b'{"question": "rate", "start": "2020-01-01", "end": "2019-01-01"}',
                         "ends before it starts"),
    "category an object": (b'{"question": "rate", "category": {"a": 1}}', "category"),
    "not UTF-8": (b'{"question": "rate \xff"}', "not UTF-8"),
    "nested too deep": (b'{"question": "rate", "x": ' + b"[" * 100000 + b"]" * 100000 + b"}",
                        "nested"),
}


def test_a_malformed_eval_row_is_one_line_naming_the_file_and_line(index, tmp_path):
    qa = tmp_path / "qa.jsonl"
    for case, (row, said) in BAD_EVAL_ROWS.items():
        qa.write_bytes(b'{"id": "ok", "question": "bank rate in 2019", "evidence_ids": ["x"]}\n'
                       b"\n" + row + b"\n")
        r = run("-d", index, "eval", qa)
        assert r.exit_code == 1, (case, r.output)
        errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
        assert len(errors) == 1 and "qa.jsonl line 3" in errors[0] and said in errors[0], (case, r.output)
    # the forms question sets are written in still load, as before
    qa.write_text(
        '{"id": 1, "question": "bank rate in 2019", "question_date": "2020-01-01", '
        '"evidence_ids": ["docs/r2019.md"], "category": "point", "start": "2019-01-01", '
        '"end": "2019-12-31", "periods": []}\n'
        '{"id": "b", "question": "rate 2016 vs 2018", "as_of": "2020-01-01", "gold_doc_ids": [7], '
        '"periods": [["2016-01-01", "2016-12-31"], ["2018-01-01", null]], "source": "x"}\n')
    r = run("-d", index, "eval", qa, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["questions"] == 2


def _numeric_fields():
    from dataclasses import fields
    from typing import get_type_hints

    hints = get_type_hints(Settings)
    return [f.name for f in fields(Settings) if hints[f.name] in (int, float)]


def _out_of_range(name: str) -> list[str]:
    from trag_tui.settings import RANGES

    low, high = RANGES[name]
    values = ["-1", "nan", "inf", "-inf", "1e999", "abc", "", " 3 x", str(int(high) * 10 + 7),
              "9" * 5000]
    if low > 0:
        values.append("0")
    return [v for v in values if v.strip()]  # an empty variable is as if unset


@pytest.mark.parametrize("name", _numeric_fields())
def test_an_out_of_range_setting_is_one_line_naming_the_variable_and_its_range(name):
    from trag_tui.settings import range_text

    variable = f"TRAG_TUI_{name.upper()}"
    for value in _out_of_range(name):
        result = CliRunner().invoke(cli, ["parse", "rates in 2019"], env={variable: value})
        assert result.exit_code == 1, (variable, value, result.output)
        assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit)
        lines = result.output.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error:"), (variable, value, result.output)
        assert variable in lines[0] and range_text(name) in lines[0], lines[0]
        assert len(lines[0]) < 200


@pytest.mark.parametrize("name", _numeric_fields())
def test_the_ends_of_a_settings_range_are_accepted(name, monkeypatch):
    from trag_tui.settings import RANGES

    for value in RANGES[name]:
        monkeypatch.setenv(f"TRAG_TUI_{name.upper()}", repr(value))
        if name == "chunk_overlap":
            monkeypatch.setenv("TRAG_TUI_CHUNK_WORDS", "100000")
        if name == "chunk_words":
            monkeypatch.setenv("TRAG_TUI_CHUNK_OVERLAP", "0")
        if name == "n_ctx":
            monkeypatch.setenv("TRAG_TUI_MAX_TOKENS", "1")
        if name == "max_tokens":
            monkeypatch.setenv("TRAG_TUI_N_CTX", str(RANGES["n_ctx"][1]))
        assert getattr(Settings.load(), name) == value


@pytest.mark.parametrize("env, said", [
    ({"TRAG_TUI_DECAY": "linear"}, "TRAG_TUI_DECAY is 'linear', an unknown decay; it must be one of rational, exp, rank"),
    ({"TRAG_TUI_DEVICE": "gpu"}, "TRAG_TUI_DEVICE"),
    ({"TRAG_TUI_TIME": "later"}, "TRAG_TUI_TIME"),
    ({"TRAG_TUI_CHUNK_OVERLAP": "50", "TRAG_TUI_CHUNK_WORDS": "50"}, "less than chunk_words"),
    ({"TRAG_TUI_MAX_TOKENS": "5000"}, "less than n_ctx"),
])
def test_word_settings_and_settings_that_depend_on_each_other_are_checked(env, said):
    result = CliRunner().invoke(cli, ["parse", "rates in 2019"], env=env)
    assert result.exit_code == 1 and said in result.output, result.output


def test_a_config_file_value_out_of_range_names_the_file_and_key(tmp_path, monkeypatch):
    monkeypatch.setenv("TRAG_TUI_USER_DIR", str(tmp_path))
    (tmp_path / "config.toml").write_text("k = -3\n")
    result = CliRunner().invoke(cli, ["parse", "rates in 2019"])
    assert result.exit_code == 1 and "config.toml: k is -3" in result.output, result.output


def test_a_flag_shares_the_range_of_its_setting(index):
    r = run("-d", index, "ask", "x", "--evidence-only", "--max-tokens", "10000000000")
    assert r.exit_code == 2 and "--max-tokens" in r.output
    r = run("-d", index, "index", "--workers", "100000000000000000000", index.parent / "docs")
    assert r.exit_code == 2 and "--workers" in r.output


FORGED = "Real report\n[2] 2020-01-01 Forged hit  (forged.md)"


@pytest.fixture
def forged(tmp_path) -> Path:
    """An index whose titles, speakers and ids hold line breaks and invisible characters."""
    folder = tmp_path / "in"
    folder.mkdir()
    rows = [{"id": "real\u200b1", "date": "2020-01-01", "title": FORGED, "source": "Gov\nernor",
             "text": "The bank rate was cut to help pay\u200bpal wages."},
            {"id": "r2", "date": "2020-02-01", "title": "pay\u200bpal \u202egnp.exe \U000e0041\ufeff",
             "text": "The bank rate held at \u2066five\u2069 per cent."}]
    (folder / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "x\u200by\u200d.txt").write_bytes(bytes(range(256)) * 10)  # fails: binary
    db = tmp_path / "f.db"
    r = run("-d", db, "index", folder)
    assert r.exit_code == 0
    assert "x\\u200by\\u200d.txt" in r.output  # the per-file note, escaped
    return db


HIDDEN = "\u200b\u200d\u202e\u2066\u2069\ufeff\U000e0041\n"


@pytest.mark.parametrize("command", [["search", "bank rate"], ["search", "bank rate", "--explain"],
                                     ["ask", "bank rate", "--evidence-only"]])
def test_a_title_with_line_breaks_cannot_forge_a_hit_and_invisible_characters_show(forged, command):
    r = run("-d", forged, *command)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert not any(line.lstrip().startswith("[2] 2020-01-01 Forged") for line in lines), r.output
    assert not any(line.startswith("ernor") for line in lines), r.output
    assert "Real report\\n[2] 2020-01-01 Forged hit" in r.output
    assert "pay\\u200bpal" in r.output and "\\u202egnp.exe" in r.output and "\\U000e0041" in r.output
    assert "real\\u200b1" in r.output
    assert not any(c in r.output for c in HIDDEN.replace("\n", "")), r.output


@pytest.mark.parametrize("command", [["search", "bank rate", "--json"],
                                     ["ask", "bank rate", "--evidence-only", "--json"]])
def test_json_output_keeps_the_raw_text_and_prints_nothing_invisible(forged, command):
    r = run("-d", forged, *command)
    assert r.exit_code == 0
    assert not any(c in r.output for c in HIDDEN.replace("\n", "")), r.output
    data = json.loads(r.output)
    titles = [h["title"] for h in data["hits"]] if "hits" in data else [s["title"] for s in data["sources"]]
    assert FORGED in titles and "pay\u200bpal \u202egnp.exe \U000e0041\ufeff" in titles


def test_safe_text_escapes_every_format_character_and_keeps_letters():
    import unicodedata

    from trag_tui.text.safe import safe, safe_json, safe_line

    hidden = [chr(c) for c in range(0x110000)
              if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp") and chr(c) not in "\t\n"]
    shown = safe("".join(hidden))
    assert not any(c in shown for c in hidden)
    assert safe_line("a\tb\nc") == "a\\tb\\nc"
    for text in ("café", "日本語", "Привет", "مرحبا", "👍", "a\u0301"):
        assert safe(text) == text and safe_line(text) == text
    raw = "pay\u200bpal \U000e0041 \x85"
    assert json.loads(safe_json(json.dumps(raw, ensure_ascii=False))) == raw
    assert not any(c in safe_json(json.dumps(raw, ensure_ascii=False)) for c in "\u200b\U000e0041\x85")


def test_stats_prints_a_shared_files_years_and_names_safely(index):
    _sql(index, "UPDATE documents SET date = 'ab\u200bc-01-01' WHERE id = (SELECT min(id) FROM documents)")
    r = run("-d", index, "stats")
    assert r.exit_code == 0, r.output
    assert "ab\\u200bc" in r.output and "\u200b" not in r.output


@pytest.mark.parametrize("command", ["/tau nan", "/tau inf", "/alpha 5", "/k 100000"])
def test_the_chat_apps_overrides_keep_to_the_settings_ranges(command):
    from trag_tui.tui.overrides import Overrides, apply_command

    with pytest.raises(ValueError, match="must be a number from"):
        apply_command(Overrides(), command)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("args", [["search", "--batch", "/dev/zero"], ["parse", "--batch", "/dev/zero"],
                                  ["ask", "--batch", "/dev/zero"], ["eval", "/dev/zero"]])
def test_a_device_given_as_a_file_of_questions_is_refused_before_it_is_read(index, args):
    # /dev/zero never ends a line: read, it would fill the memory; the process is timed out.
    p = subprocess.run([sys.executable, "-m", "trag_tui", "-d", str(index), *args], capture_output=True,
                       text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert p.returncode == 2 and "/dev/zero is not a regular file or a pipe" in p.stderr, p.stderr
    assert "Traceback" not in p.stderr
    # standard input (a pipe) still gives questions
    r = CliRunner().invoke(cli, ["-d", str(index), "parse", "--batch", "-"],
                           input='{"query": "rates in 2019"}\n')
    assert r.exit_code == 0 and json.loads(r.output)["start"] == "2019-01-01", r.output


# --- round two: indexing input (readers, zero vectors, size limits, archives, prune) ---

def _index(folder: Path, db: Path, **settings):
    conn = connect(db)
    try:
        return Indexer(conn, db, HashEmbedder(), Settings(**settings)).run([folder])
    finally:
        conn.close()


def _count(db: Path, sql: str) -> int:
    conn = connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


def test_a_document_without_words_is_indexed_without_a_vector_and_search_survives(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        '{"id": "p", "date": "2020-01-01", "text": "!!! ... ???"}\n'
        '{"id": "w", "date": "2020-01-01", "text": "wages rose"}\n')
    db = tmp_path / "t.db"
    r = run("-d", db, "index", folder)
    assert r.exit_code == 0, r.output
    assert "1 document has no words to embed: indexed without a vector" in r.output
    assert _count(db, "SELECT count(*) FROM documents") == 2
    assert _count(db, "SELECT count(*) FROM chunk_vectors") == 1  # only the one with words
    found = run("-d", db, "search", "wages")
    assert found.exit_code == 0 and "wages rose" in found.output
    for question in ("???", "!!!"):  # a question without words: lexical only, no traceback
        asked = run("-d", db, "search", question)
        assert asked.exit_code == 0, asked.output
        assert run("-d", db, "search", question, "--json").exit_code == 0


def test_a_clean_copy_keeps_a_document_without_words(tmp_path):
    """A document stored without a vector because it has no words is no damage: a clean copy
    keeps it, and the next index run has nothing to add back."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        '{"id": "p", "date": "2020-01-01", "text": "!!! ... ???"}\n'
        '{"id": "w", "date": "2020-01-01", "text": "wages rose"}\n')
    db, copy = tmp_path / "t.db", tmp_path / "copy.db"
    assert run("-d", db, "index", folder).exit_code == 0
    r = run("doctor", db, "--clean-copy", copy)
    assert r.exit_code == 0, r.output
    assert "0 documents to index again" in r.output and "left out" not in r.output
    assert _count(copy, "SELECT count(*) FROM documents") == 2
    again = run("-d", copy, "index", folder, "--json")
    assert json.loads(again.stdout)["documents_added"] == 0, again.output


@pytest.mark.parametrize("vector", ["zero", "nan"])
def test_an_unusable_vector_in_the_file_never_reaches_a_search(index, tmp_path, vector):
    import numpy as np

    values = {"zero": 0.0, "nan": float("nan")}[vector]
    blob = np.full(384, values, dtype="<f4").tobytes()
    import sqlite_vec
    from sqlite_utils.utils import sqlite3 as vec_sqlite3

    conn = vec_sqlite3.connect(str(index))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.execute("UPDATE chunk_vectors SET embedding = ? WHERE chunk_id = "
                 "(SELECT min(chunk_id) FROM chunk_vectors)", (blob,))
    conn.commit()
    conn.close()
    r = run("-d", index, "search", "bank rate")  # one question: the vec0 query
    assert r.exit_code == 0, r.output
    assert "Inflation" in r.output
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"question": "bank rate"}\n{"question": "inflation in 2016"}\n')
    r = run("-d", index, "search", "--batch", batch)  # a session: the in-memory matrix
    assert r.exit_code == 0, r.output
    assert "NaN" not in r.output


def test_unusable_vectors_are_told_apart():
    import numpy as np

    from trag_tui.models.embedding import usable
    from trag_tui.storage.store import usable_blob

    rows = np.array([[1, 0], [0, 0], [np.nan, 1], [np.inf, 0], [3e38, 3e38], [1e-9, 0]], dtype=np.float32)
    assert usable(rows).tolist() == [True, False, False, False, False, False]
    assert usable_blob(np.array([0.6, 0.8], dtype="<f4").tobytes())
    assert not usable_blob(bytes(8)) and not usable_blob(None) and not usable_blob(b"abc")


def _slow_inputs():
    return [pytest.param(name, id=name) for name in HOSTILE.SLOW_PATTERNS]


@pytest.mark.parametrize("name", _slow_inputs())
def test_a_reader_pattern_is_linear_on_hostile_input(tmp_path, name):
    """Each input once tried every split of a long run (quadratic): 120 KB took minutes."""
    import time

    from trag_tui.ingest import read_file

    fname, make = HOSTILE.SLOW_PATTERNS[name]
    path = tmp_path / fname
    path.write_bytes(make(120_000))
    started = time.monotonic()
    try:
        read_file(path)
    except IngestError:  # refused or read: either way, quickly
        pass
    assert time.monotonic() - started < 1.5


def test_titles_and_headings_are_read_in_linear_time():
    """A title of spaces (facets) and a text of many headings (periods) were quadratic."""
    import datetime as dt
    import re
    import time

    from trag_tui.facets import _SPLIT_TITLE
    from trag_tui.periods import ChunkRow, document_periods
    from trag_tui.storage.store import to_day

    started = time.monotonic()
    assert _SPLIT_TITLE.split("Ab" + " " * 200_000 + "x") == ["Ab" + " " * 200_000 + "x"]
    quadratic = re.compile(r"\s*(?::|\||,|\s[—–-]\s)\s*")  # the pattern it replaces
    for title in ("Bank: Report | May, 2020 - x: |y", "a :: b", "k: |  , x", " — a — b —"):
        assert _SPLIT_TITLE.split(title) == quadratic.split(title)
    names = ("".join(chr(97 + i // 26 ** k % 26) for k in range(3)) for i in range(12_000))
    text = "# May 2020\n" + "".join(f"## part {name}\n" for name in names)
    chunks = chunk_text(text)
    rows = [ChunkRow(i, c.parent, c.searchable, c.text, c.start_char, c.end_char)
            for i, c in enumerate(chunks)]
    periods = document_periods("t", to_day(dt.date(2020, 7, 1)), rows)
    assert {p.expression for p in periods} == {"May 2020"}
    assert time.monotonic() - started < 3


def _slow_reader(calls: list, cooperative: bool):
    import time

    from trag_tui.ingest.base import check_time

    def read(path, **kw):
        calls.append(path.name)
        while True:  # a reader stuck on one file
            if cooperative:
                check_time()
            time.sleep(0.01)
    return read


@pytest.mark.parametrize("thread", [False, True], ids=["main thread", "worker thread"])
def test_a_file_past_its_time_budget_fails_alone_and_is_not_read_again(tmp_path, monkeypatch, thread):
    import threading
    import time

    from trag_tui import ingest

    calls: list[str] = []
    monkeypatch.setitem(ingest.READERS, ".txt", _slow_reader(calls, cooperative=thread))
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "a_slow.txt").write_text("anything")
    (folder / "zz_survivor.md").write_text(HOSTILE.GOOD)
    db = tmp_path / "t.db"
    out: list = []

    def index():
        out.append(_index(folder, db, read_seconds=0.5))
    started = time.monotonic()
    if thread:
        worker = threading.Thread(target=index)
        worker.start()
        worker.join(30)
    else:
        index()
    assert time.monotonic() - started < 15
    summary = out[0]
    assert summary.files_indexed == 1
    assert [(Path(p).name, why) for p, why in summary.files_failed] == [
        ("a_slow.txt", "reading took longer than 0.5 s, the limit for one file (read_seconds); "
                       "it is tried again when it changes")]
    again = _index(folder, db, read_seconds=0.5)  # unchanged: named, not read again
    assert calls == ["a_slow.txt"]
    assert "(unchanged since it failed)" in again.files_failed[0][1]


def test_the_time_budget_leaves_no_alarm_behind():
    import signal
    import time

    from trag_tui.ingest.base import OutOfTime, ReadBudget

    fired = []
    previous = signal.signal(signal.SIGALRM, lambda *a: fired.append(1))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.6)  # someone else's timer
        with pytest.raises(OutOfTime), ReadBudget(0.1):
            time.sleep(5)
        assert signal.getsignal(signal.SIGALRM) is not None and not fired
        time.sleep(0.8)
        assert fired == [1]  # theirs still fires, once
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_size_is_checked_on_stat_before_any_byte_is_hashed(tmp_path, monkeypatch):
    import trag_tui.indexer as indexer

    hashed: list[str] = []
    real = indexer.file_digest
    monkeypatch.setattr(indexer, "file_digest", lambda p, *a: hashed.append(p.name) or real(p, *a))
    folder = tmp_path / "in"
    folder.mkdir()
    with (folder / "huge.txt").open("wb") as fh:
        fh.truncate(24 * 2**30)  # sparse: 24 GB that take no disk
    (folder / "zz_survivor.md").write_text(HOSTILE.GOOD)
    summary = _index(folder, tmp_path / "t.db")
    assert hashed == ["zz_survivor.md"]
    assert summary.files_indexed == 1
    assert [(Path(p).name, why) for p, why in summary.files_failed] == [
        ("huge.txt", "too large (24576.0 MB > 64 MB limit)")]


def test_a_file_that_grows_while_hashed_is_refused_at_the_limit(tmp_path):
    from trag_tui.errors import IngestError
    from trag_tui.indexer import file_digest

    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 3000)
    with pytest.raises(IngestError, match="too large"):
        file_digest(path, max_bytes=1000)
    assert file_digest(path, max_bytes=3000) == file_digest(path)


def test_a_zip_member_that_lies_about_its_size_is_inflated_no_further_than_the_cap(tmp_path):
    import tracemalloc

    from trag_tui.ingest import crec

    path = tmp_path / "bomb.zip"
    path.write_bytes(HOSTILE.bzip2_bomb_zip(mib=32, declared=100))
    tracemalloc.start()
    try:
        read = crec.read_zip(path, max_bytes=2**20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20  # the lie is seen after 101 bytes, not after 32 MiB
    assert read.documents == []
    assert any("inflates past the 100 bytes its header declares" in n for n in read.notes)


@pytest.mark.parametrize("method", ["stored", "deflated", "bzip2", "lzma"])
def test_zip_members_read_with_a_cap_are_the_bytes_zipfile_reads(tmp_path, method):
    import zipfile

    from trag_tui.ingest.archive import read_member

    kind = {"stored": zipfile.ZIP_STORED, "deflated": zipfile.ZIP_DEFLATED,
            "bzip2": zipfile.ZIP_BZIP2, "lzma": zipfile.ZIP_LZMA}[method]
    rnd = random.Random(7)
    data = bytes(rnd.getrandbits(8) for _ in range(5000)) * 80 + b"tail"
    path = tmp_path / "a.zip"
    with zipfile.ZipFile(path, "w", compression=kind) as zf:
        zf.writestr("a.htm", data)
        zf.writestr("empty.htm", b"")
    with zipfile.ZipFile(path) as zf:
        for info in zf.infolist():
            assert read_member(zf, info, 2**20) == zf.read(info)


def test_prune_keeps_the_documents_of_a_folder_it_cannot_read(tmp_path, monkeypatch):
    folder = tmp_path / "in"
    (folder / "locked").mkdir(parents=True)
    for i in range(2):
        (folder / "locked" / f"l{i}.md").write_text(HOSTILE.GOOD.replace("Survivor", f"Locked {i}"))
    (folder / "gone.md").write_text(HOSTILE.GOOD.replace("Survivor", "Gone"))
    (folder / "zz_survivor.md").write_text(HOSTILE.GOOD)
    db = tmp_path / "t.db"
    assert _index(folder, db).files_indexed == 4
    (folder / "gone.md").unlink()
    # The folder cannot be listed (root reads any folder, so listing is made to fail).
    real_scandir = os.scandir

    def scandir(path="."):
        if Path(path) == folder / "locked":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)
    monkeypatch.setattr(os, "scandir", scandir)
    conn = connect(db)
    try:
        summary = Indexer(conn, db, HashEmbedder(), Settings()).run([folder], prune=True)
    finally:
        conn.close()
    titles = {r[0] for r in _titles(db)}
    assert titles == {"Locked 0", "Locked 1", "Survivor"}  # only the file really gone went
    assert summary.files_pruned == 1
    assert any("2 indexed files not pruned" in note for _, note in summary.notes)


def _titles(db: Path) -> list[tuple]:
    conn = connect(db)
    try:
        return conn.execute("SELECT title FROM documents").fetchall()
    finally:
        conn.close()


def test_prune_keeps_files_it_cannot_tell_are_gone_and_drops_a_deleted_folder(tmp_path):
    folder = tmp_path / "in"
    for sub in ("loop", "deleted"):
        (folder / sub).mkdir(parents=True)
        (folder / sub / "a.md").write_text(HOSTILE.GOOD.replace("Survivor", sub))
    (folder / "zz_survivor.md").write_text(HOSTILE.GOOD)
    db = tmp_path / "t.db"
    _index(folder, db)
    HOSTILE.lock_out(folder / "loop")  # unreadable (as root: a symlink loop in its place)
    import shutil

    shutil.rmtree(folder / "deleted")
    conn = connect(db)
    try:
        summary = Indexer(conn, db, HashEmbedder(), Settings()).run([folder], prune=True)
    finally:
        conn.close()
        (folder / "loop").chmod(0o700) if not (folder / "loop").is_symlink() else None
    assert {r[0] for r in _titles(db)} == {"loop", "Survivor"}
    assert summary.files_pruned == 1
