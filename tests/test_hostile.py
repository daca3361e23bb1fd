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
    assert "Clear\\x1b[2J screen\\x9b31m\\u202e" in r.output


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
