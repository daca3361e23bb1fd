"""Hostile input against the real CLI: every case in a subprocess with a timeout, one JSON report.

    python bench/hostile_report.py [--timeout 120]

Each case builds its files in a temporary folder, runs `trag-tui` (hash embedder) and is
classed by what the user would see: refused clearly (exit code 1 or 2, one `Error:` line, no
traceback) or survived (exit 0, every good file indexed). Counted apart: tracebacks, hangs
(the timeout expired), data lost (documents gone from an index, a good file not indexed,
or an index file that a refusal changed) and planted code run (a file a planted payload
would make, or one a refusal should not leave, exists afterwards). The last four must be 0.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import sqlite3
import struct
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


# -- the index file, opening it, and doctor: helpers shared with tests/test_hostile.py --------

#: Objects named like SQLite's own, which only what they are may let through.
SQLITE_NAMED = {
    "trigger named sqlite_stat9": [
        "PRAGMA writable_schema=ON",
        "CREATE TRIGGER sqlite_stat9 AFTER INSERT ON documents BEGIN "
        "DELETE FROM documents WHERE id <> NEW.id; "
        "UPDATE documents SET title='TAMPERED' WHERE id=NEW.id; END"],
    "view named sqlite_stat4": [
        "PRAGMA writable_schema=ON", "CREATE VIEW sqlite_stat4 AS SELECT * FROM documents"],
    "sqlite_stat1 with a column of its own": [
        "PRAGMA writable_schema=ON", "CREATE TABLE sqlite_stat1(tbl,idx,stat,extra)"],
}


def flip_validity(db: Path, present: bool = True) -> None:
    """Flip one bit of the vector table's validity bitmap: an empty slot marked present
    (`present`), or a stored vector marked absent."""
    import sqlite_vec
    from sqlite_utils.utils import sqlite3 as vec_sqlite3

    conn = vec_sqlite3.connect(str(db))
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    block, validity, rowids = conn.execute(
        "SELECT chunk_id, validity, rowids FROM chunk_vectors_chunks LIMIT 1").fetchone()
    bits = bytearray(validity)
    slots = [i for i in range(len(bits) * 8)
             if bool(bits[i // 8] >> (i % 8) & 1) != present]
    slot = slots[0]
    bits[slot // 8] ^= 1 << (slot % 8)
    conn.execute("UPDATE chunk_vectors_chunks SET validity = ? WHERE chunk_id = ?",
                 (bytes(bits), block))
    conn.commit()
    conn.close()


def wal_snapshot(db: Path, folder: Path, new_docs: Path) -> Path:
    """A copy of `db` in `folder` whose last `index` of `new_docs` is committed in its -wal
    only (not yet copied into the file), as a folder shared mid-session holds it."""
    hold = sqlite3.connect(str(db))  # an open reader keeps the WAL from being checkpointed
    hold.execute("SELECT count(*) FROM documents").fetchone()
    code, _, err = trag(["-d", str(db), "index", str(new_docs)], 120)
    assert code == 0, err
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal"):
        shutil.copyfile(str(db) + suffix, str(folder / db.name) + suffix)
    hold.close()
    return folder / db.name


def hot_journal_snapshot(db: Path, folder: Path) -> Path:
    """A copy of `db` in `folder` caught mid-transaction in rollback-journal mode: the file
    holds half-written pages ('ROLLED BACK' titles, documents deleted) and a hot -journal
    holds what undoes them."""
    conn = sqlite3.connect(str(db), isolation_level=None)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA cache_size=1")  # spill changed pages into the file before commit
    conn.execute("BEGIN")
    conn.execute("DELETE FROM documents WHERE id IN (SELECT id FROM documents LIMIT 2)")
    conn.execute("UPDATE documents SET title = 'ROLLED BACK'")
    conn.execute("UPDATE chunks SET text = 'ROLLED BACK ' || text")  # evicts the pages above
    folder.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-journal"):
        shutil.copyfile(str(db) + suffix, str(folder / db.name) + suffix)
    conn.execute("ROLLBACK")
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    return folder / db.name


HOLD = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
        "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('BEGIN EXCLUSIVE'); "
        "c.execute('SELECT count(*) FROM documents').fetchone(); print('held', flush=True); "
        "sys.stdin.read()")


def hold_exclusive(db: Path):
    """Another process holding a sound file's lock, as a writer in exclusive locking mode does
    (a process of its own: closing any descriptor of the file would drop this one's locks).
    Returns what releases it."""
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(db)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "held"

    def release():
        p.stdin.close()
        p.wait(timeout=60)
        p.stdout.close()
    return release


def _busy_reader(command):
    def setup(work: Path, db: Path):
        release = hold_exclusive(db)
        return command, {"says": "busy: another trag-tui is writing", "never": ["damaged", "doctor"],
                         "release": release}
    return setup


def _read_only_snapshot(kind: str, command):
    """The shared file replaced by a snapshot holding a -wal or a hot -journal, its folder
    made read-only for the run (and writable again after, when SQLite may settle it)."""
    def setup(work: Path, db: Path):
        if kind == "wal":
            new = work / "new"
            new.mkdir()
            (new / "n.md").write_text(GOOD)
            snap = wal_snapshot(db, work / "snap", new)
            says, never = ("Survivor" if command[0] == "search" else "documents   7"), []
        else:
            snap = hot_journal_snapshot(db, work / "snap")
            says, never = ("documents   6" if command[0] == "stats" else "Report"), ["ROLLED BACK"]
        for suffix in ("", "-wal", "-journal"):
            Path(str(db) + suffix).unlink(missing_ok=True)
            if Path(str(snap) + suffix).exists():
                shutil.copyfile(str(snap) + suffix, str(db) + suffix)
        work.chmod(0o555)

        def release():
            work.chmod(0o755)
            sqlite3.connect(str(db)).execute("SELECT count(*) FROM documents").fetchone()
        return command, {"says": says, "never": never, "release": release}
    return setup


def _doctor(prepare_file, says: str, never: tuple[str, ...] = ()):
    """`doctor` on a prepared copy of the file: it must list the problem (exit 1)."""
    def setup(work: Path, db: Path):
        target = prepare_file(work, db)
        return ["doctor", str(target)], {"says": says, "never": list(never), "listing": True}
    return setup


def _on_index_fn(change, command: list[str]):
    """A file changed by `change(db)` (what a hex editor could do), then `command` run on it."""
    def setup(work: Path, db: Path):
        change(db)
        return command
    return setup


def _fifo_file(work: Path, db: Path) -> Path:
    os.mkfifo(work / "pipe.db")
    return work / "pipe.db"


def _planted_lock_fifo(work: Path, db: Path):
    os.mkfifo(str(db) + "-lock")
    return ["index", "{docs}"], {"says": "not a regular file", "release": lambda: os.unlink(str(db) + "-lock")}


def _damaged_schema_copy(work: Path, db: Path):
    data = bytearray(db.read_bytes())
    data[200:4096] = bytes((i * 37 + 11) % 256 for i in range(3896))
    (work / "x.db").write_bytes(bytes(data))
    return ["doctor", str(work / "x.db"), "--clean-copy", str(work / "new.db")], {
        "says": str(work / "x.db"), "never": [str(db), "trag.db"]}


class Planted:
    """A pickle that creates a file when it is loaded: what a point planted in a Qdrant
    local-mode folder (which stores points as pickles) could do."""

    def __init__(self, made: Path):
        self.made = str(made)

    def __reduce__(self):
        return (open, (self.made, "w"))


def plant_pickle(folder: Path, made: Path) -> None:
    """Add a planted point to every collection of a local-mode folder, as anyone could."""
    import pickle

    for store in folder.glob("collection/*/storage.sqlite"):
        conn = sqlite3.connect(store)
        conn.execute("INSERT INTO points (id, point) VALUES (?, ?)",
                     ("planted", pickle.dumps(Planted(made))))
        conn.commit()
        conn.close()


def push_folder(db: Path, folder: Path, user: Path | None = None) -> None:
    """Push an index to a local-mode folder (optionally as another user, with their own key)."""
    env = {**os.environ, "TRAG_TUI_EMBEDDER": "hash", **({"TRAG_TUI_USER_DIR": str(user)} if user else {})}
    subprocess.run([sys.executable, "-m", "trag_tui", "-d", str(db), "push", "--to", str(folder)],
                   check=True, capture_output=True, env=env)


def spoil_collection(folder: Path, user: Path, **payload) -> None:
    """Give every point of a folder's collection values push never writes, through the client
    (as another program writing to a server could), and seal the folder as its user's."""
    os.environ["TRAG_TUI_USER_DIR"], before = str(user), os.environ.get("TRAG_TUI_USER_DIR")
    try:
        from trag_tui.retrieval.backends import seal
        from trag_tui.retrieval.backends.qdrant import parse_target

        client = parse_target(str(folder)).connect(create=False)
        try:
            every = [p.id for p in client.scroll("trag", limit=100_000)[0]]
            client.set_payload("trag", payload=payload, points=every)
        finally:
            client.close()
        seal.seal(folder)
    finally:
        os.environ.pop("TRAG_TUI_USER_DIR") if before is None else os.environ.update(TRAG_TUI_USER_DIR=before)


def _qdrant_folder(how: str, command: str, **payload):
    """A local Qdrant folder pushed from the shared index: by this user ("ours"), by someone
    else ("theirs"), altered after the push ("altered"), or with hostile payload values
    ("spoiled"); read with `pull --from` into a new file, `--backend`, or pushed to by
    another index ("second index")."""
    def setup(work: Path, db: Path):
        me, folder, made, new = work / "me", work / "q", work / "made-by-a-pickle", work / "pulled.db"
        source = db
        if how == "second index":  # the collection holds another index first
            source = work / "other.db"
            subprocess.run([sys.executable, "-m", "trag_tui", "-d", str(source), "index",
                            str(docs(work / "other-docs", 3))], check=True, capture_output=True,
                           env={**os.environ, "TRAG_TUI_EMBEDDER": "hash"})
        push_folder(source, folder, user=work / "someone" if how == "theirs" else me)
        if how in ("theirs", "altered"):
            plant_pickle(folder, made)
        if how == "spoiled":
            spoil_collection(folder, me, **payload)
        argv = {"pull": ["pull", "-d", str(new), "--from", str(folder)],
                "backend": ["--backend", str(folder), "search", "bank rate"],
                "push": ["push", "--to", str(folder)]}[command]
        never = [made] + ([new] if how != "ours" else [])
        return argv, {"env": {"TRAG_TUI_USER_DIR": str(me)}, "never_made": never}
    return setup
# -- model discovery: other tools' folders holding pipes, hostile headers and deep trees -------

#: What each tool's folders are found from; unset for a case, but for what it sets itself.
MODEL_VARIABLES = ("OLLAMA_MODELS", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME",
                   "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "LLM_USER_PATH", "TRAG_TUI_MODEL_DIR",
                   "TRAG_TUI_MODEL")
#: A listing takes a second or two; a case that waits on a pipe is a hang, not a slow case.
MODEL_TIMEOUT = 30.0
SURVIVOR_MODEL = "survivor-Q4_K_M.gguf"


def gguf(arch: str = "llama", file_type: int = 15, *, before: bytes = b"", count: int = 0) -> bytes:
    """A small GGUF v3 header: `count` key/values given raw in `before`, then the architecture
    and the file type."""
    kvs = (_gguf_text(b"general.architecture") + struct.pack("<I", 8) + _gguf_text(arch.encode())
           + _gguf_text(b"general.file_type") + struct.pack("<II", 4, file_type))
    return b"GGUF" + struct.pack("<IQQ", 3, 0, count + 2) + before + kvs


def _gguf_text(data: bytes) -> bytes:
    return struct.pack("<Q", len(data)) + data


def nested_arrays(depth: int) -> bytes:
    """A GGUF whose first key holds an array of an array of … `depth` deep."""
    value = struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * depth + struct.pack("<IQ", 0, 0)
    return gguf(before=_gguf_text(b"x") + value, count=1)


def model_env(home: Path, **settings: str) -> dict:
    """The environment of a user whose home is `home`, with no tool's variable set but these."""
    return {**{name: "" for name in MODEL_VARIABLES}, "HOME": str(home), **settings}


def ollama_manifest(home: Path, name: str, digest: str, text: str | None = None) -> tuple[Path, Path]:
    """An Ollama manifest naming the model blob `sha256-<digest>`: (manifest, blob) paths."""
    model, tag = name.split(":")
    store = home / ".ollama" / "models"
    manifest = store / "manifests" / "registry.ollama.ai" / "library" / model / tag
    manifest.parent.mkdir(parents=True)
    (store / "blobs").mkdir(parents=True, exist_ok=True)
    manifest.write_text(text if text is not None else json.dumps({"layers": [
        {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}"}]}))
    return manifest, store / "blobs" / f"sha256-{digest}"


def hf_repo(home: Path, repo: str = "models--org--repo") -> Path:
    """A Hugging Face cache repo folder with one snapshot holding a good model."""
    repo_dir = home / ".cache" / "huggingface" / "hub" / repo
    snapshot = repo_dir / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (repo_dir / "refs").mkdir()
    (snapshot / "good-Q8_0.gguf").write_bytes(gguf(file_type=7))
    return repo_dir


# Each builds one hostile thing in a home folder; it returns the path `models` must report as
# skipped (and the reason), or None when nothing is to be named.

def pipe_as_ollama_blob(home: Path, work: Path):
    _manifest, blob = ollama_manifest(home, "pipe:latest", "a" * 64)
    os.mkfifo(blob)
    return blob, "not a regular file (a named pipe)"


def pipe_as_lmstudio_pointer(home: Path, work: Path):
    os.mkfifo(home / ".lmstudio-home-pointer")
    return home / ".lmstudio-home-pointer", "not a regular file (a named pipe)"


def pipe_as_hf_refs_main(home: Path, work: Path):
    refs = hf_repo(home) / "refs" / "main"
    os.mkfifo(refs)
    return refs, "not a regular file (a named pipe)"


def pipe_as_hf_snapshot_file(home: Path, work: Path):
    repo = hf_repo(home)
    (repo / "blobs").mkdir()
    os.mkfifo(repo / "blobs" / ("b" * 64))
    link = repo / "snapshots" / ("0" * 40) / "pipe-Q4_K_M.gguf"
    link.symlink_to(repo / "blobs" / ("b" * 64))
    return link, "not a regular file (a named pipe)"


def pipe_as_llm_gguf_model(home: Path, work: Path):
    gguf_dir = home / ".config" / "io.datasette.llm" / "gguf"
    gguf_dir.mkdir(parents=True)
    os.mkfifo(work / "registered.gguf")
    (gguf_dir / "models.json").write_text(json.dumps(
        {"registered": {"path": str(work / "registered.gguf"), "aliases": []}}))
    return work / "registered.gguf", "not a regular file (a named pipe)"


def pipe_as_llm_gguf_registry(home: Path, work: Path):
    gguf_dir = home / ".config" / "io.datasette.llm" / "gguf"
    gguf_dir.mkdir(parents=True)
    os.mkfifo(gguf_dir / "models.json")
    return gguf_dir / "models.json", "not a regular file (a named pipe)"


def gguf_of_nested_arrays(home: Path, work: Path):
    path = work / "own" / "nested-Q4_K_M.gguf"
    path.write_bytes(nested_arrays(100_000))
    return path, "its GGUF header nests arrays more than 8 deep"


def gguf_claiming_2_63_strings(home: Path, work: Path):
    """2^63 strings claimed over a sparse 10 GB file: the zeros read as empty strings."""
    path = work / "own" / "claims-Q5_0.gguf"
    with path.open("wb") as fh:
        fh.write(b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + _gguf_text(b"tokenizer.ggml.tokens")
                 + struct.pack("<I", 9) + struct.pack("<IQ", 8, 1 << 63))
        fh.truncate(10 << 30)
    return None


def hf_cache_1100_deep(home: Path, work: Path):
    snapshot = hf_repo(home) / "snapshots" / ("0" * 40)
    (snapshot / "loop").symlink_to(snapshot, target_is_directory=True)
    deep = snapshot
    for _ in range(1100):  # os.makedirs itself recurses too deep for this
        deep = deep / "d"
        deep.mkdir()
    (deep / "bottom-Q4_K_M.gguf").write_bytes(gguf())
    return snapshot.joinpath(*["d"] * 33), "folders nested more than 32 deep are not searched"


def ollama_manifest_nested_deep(home: Path, work: Path):
    manifest, _blob = ollama_manifest(home, "deep:latest", "c" * 64, "[" * 100_000 + "]" * 100_000)
    return manifest, "JSON nested too deeply"


def pointer_to_no_such_home(home: Path, work: Path):
    """A `~user` no one is: Path.expanduser() raises instead of leaving it, as a shell does."""
    (home / ".lmstudio-home-pointer").write_text("~nosuchuser-trag/lmstudio")
    return None


#: Printed raw, these would clear the screen, ring, reorder the line or forge a row.
ESCAPED_MODEL_NAME = "esc\x1b[2J\x07\u202e\nforged  1 B  Q4_K_M  folder  x-Q4_K_M.gguf"
RAW_ON_A_TERMINAL = ("\x1b", "\x07", "\x9b", "\u202e", "\nforged")


def escapes_in_model_names(home: Path, work: Path):
    (work / "own" / ESCAPED_MODEL_NAME).write_bytes(gguf(arch="ll\x9bama\u202e"))
    return None


def models_case(build, *args: str):
    """`models ARGS` run as a user whose tools' folders hold what `build` made, and one good
    model of their own: it must be listed, whatever else is there."""
    def setup(work: Path, db: Path):
        home, own = work / "home", work / "own"
        home.mkdir()
        own.mkdir()
        (own / SURVIVOR_MODEL).write_bytes(gguf())
        build(home, work)
        return ["models", *args], {"env": model_env(home, TRAG_TUI_MODEL_DIR=str(own)),
                                   "timeout": MODEL_TIMEOUT, "says": [SURVIVOR_MODEL],
                                   "never": RAW_ON_A_TERMINAL}
    return setup


def ask_model_case(make):
    """`ask --model PATH` where `make(work)` builds the file at PATH: one clear line."""
    def setup(work: Path, db: Path):
        (work / "home").mkdir()
        return (["ask", "bank rate", "--model", str(make(work))],
                {"env": model_env(work / "home"), "timeout": MODEL_TIMEOUT})
    return setup


def _pipe_model(work: Path) -> Path:
    os.mkfifo(work / "PIPE.gguf")
    return work / "PIPE.gguf"


def _nested_model(work: Path) -> Path:
    (work / "nested.gguf").write_bytes(nested_arrays(100_000))
    return work / "nested.gguf"
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
    # --- round two: the index file, opening it, and doctor ---
    *[(f"{name} ({cmd[0]})", _on_index(sql, cmd), "refuse")
      for name, sql in SQLITE_NAMED.items() for cmd in (["index", "{docs}"], ["stats"])],
    *[(f"doctor: {name}", _doctor(lambda w, d, sql=sql: (tamper(d, *sql), d)[1], "extra "), "refuse")
      for name, sql in SQLITE_NAMED.items()],
    ("empty vector slot marked valid (search)",
     _on_index_fn(lambda d: flip_validity(d, True), ["search", "bank rate"]), "refuse"),
    ("stored vector marked absent (stats)",
     _on_index_fn(lambda d: flip_validity(d, False), ["stats"]), "refuse"),
    ("doctor: empty vector slot marked valid",
     _doctor(lambda w, d: (flip_validity(d, True), d)[1], "vector table"), "refuse"),
    ("read-only folder, rows committed in the WAL (stats)", _read_only_snapshot("wal", ["stats"]), "survive"),
    ("read-only folder, rows committed in the WAL (search)",
     _read_only_snapshot("wal", ["search", "last report wages"]), "survive"),
    ("read-only folder, hot journal (stats)", _read_only_snapshot("journal", ["stats"]), "survive"),
    ("read-only folder, hot journal (search)",
     _read_only_snapshot("journal", ["search", "bank rate"]), "survive"),
    ("search while another process holds the file", _busy_reader(["search", "bank rate"]), "refuse"),
    ("stats while another process holds the file", _busy_reader(["stats"]), "refuse"),
    ("doctor on a FIFO", _doctor(_fifo_file, "not a regular file"), "refuse"),
    ("planted -lock FIFO (index)", _planted_lock_fifo, "refuse"),
    ("doctor --clean-copy of a damaged file names it", _damaged_schema_copy, "refuse"),
    # Qdrant collections and local-mode folders
    ("a folder this user pushed (pull --from)", _qdrant_folder("ours", "pull"), "survive"),
    ("a folder this user pushed (--backend)", _qdrant_folder("ours", "backend"), "survive"),
    ("planted pickle, another user's folder (pull --from)", _qdrant_folder("theirs", "pull"), "refuse"),
    ("planted pickle, another user's folder (--backend)", _qdrant_folder("theirs", "backend"), "refuse"),
    ("planted pickle, folder altered after the push (pull --from)", _qdrant_folder("altered", "pull"), "refuse"),
    ("planted pickle, folder altered after the push (--backend)", _qdrant_folder("altered", "backend"), "refuse"),
    ("planted pickle, folder altered after the push (push)", _qdrant_folder("altered", "push"), "refuse"),
    ("a second index pushed to the same collection", _qdrant_folder("second index", "push"), "refuse"),
    ("pulled point with a text document id", _qdrant_folder("spoiled", "pull", document_id="12"), "refuse"),
    ("pulled point with an impossible date", _qdrant_folder("spoiled", "pull", date="2023-02-30"), "refuse"),
    ("pulled point with a text offset", _qdrant_folder("spoiled", "pull", start_char="0"), "refuse"),
    ("pulled point with a null text", _qdrant_folder("spoiled", "pull", text=None), "refuse"),
    ("searched point with a text parent (--backend)",
     _qdrant_folder("spoiled", "backend", document_id="x", parent_id="p"), "refuse"),
    ("qdrant:// URL with an open bracket (pull)", _simple(["pull", "--from", "qdrant://[::1/debates"]), "refuse"),
    ("qdrant:// URL with a space in the host (--backend)",
     _simple(["--backend", "qdrant://ho st/debates", "search", "bank rate"]), "refuse"),
    ("qdrant:// URL naming the collection '..' (push)", _simple(["push", "--to", "qdrant://localhost/.."]), "refuse"),
    ("qdrant:// URL with port 0 (pull)", _simple(["pull", "--from", "qdrant://localhost:0/debates"]), "refuse"),
    # model discovery and GGUF files: listed or refused in one line, never a hang or a traceback
    ("pipe as an Ollama blob (models)", models_case(pipe_as_ollama_blob), "survive"),
    ("pipe as the LM Studio home pointer (models)", models_case(pipe_as_lmstudio_pointer), "survive"),
    ("pipe as a Hugging Face refs/main (models)", models_case(pipe_as_hf_refs_main), "survive"),
    ("pipe as a Hugging Face snapshot file (models)", models_case(pipe_as_hf_snapshot_file), "survive"),
    ("pipe as an llm-gguf model (models)", models_case(pipe_as_llm_gguf_model), "survive"),
    ("pipe as llm-gguf's models.json (models)", models_case(pipe_as_llm_gguf_registry), "survive"),
    ("--model PIPE.gguf (ask)", ask_model_case(_pipe_model), "refuse"),
    ("GGUF of arrays nested 100,000 deep (models)", models_case(gguf_of_nested_arrays), "survive"),
    ("GGUF of arrays nested 100,000 deep (ask --model)", ask_model_case(_nested_model), "refuse"),
    ("GGUF claiming 2^63 strings, sparse 10 GB (models)", models_case(gguf_claiming_2_63_strings), "survive"),
    ("Hugging Face cache 1,100 folders deep (models)", models_case(hf_cache_1100_deep), "survive"),
    ("Ollama manifest of JSON nested 100,000 deep (models)", models_case(ollama_manifest_nested_deep), "survive"),
    ("escapes and a newline in a model name and header (models)", models_case(escapes_in_model_names), "survive"),
    ("escapes in a model name and header (models --json)", models_case(escapes_in_model_names, "--json"), "survive"),
    ("LM Studio pointer to ~nosuchuser (models)", models_case(pointer_to_no_such_home), "survive"),
    ("--model ~nosuchuser/m.gguf (ask)", ask_model_case(lambda work: "~nosuchuser-trag/m.gguf"), "refuse"),
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


def trag(argv: list[str], timeout: float, fsize: int | None = None,
         env: dict | None = None) -> tuple[int | None, str, str]:
    out = run_measured(argv, timeout, fsize, env)
    return out[0], out[1], out[2]


def run_measured(argv: list[str], timeout: float, fsize: int | None = None,
                 env: dict | None = None) -> tuple[int | None, str, str, float | None]:
    """(exit code or None on timeout, stdout, stderr, peak resident MB) of one CLI run."""
    def limit():
        if fsize:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    env = {**os.environ, "TRAG_TUI_EMBEDDER": "hash", "TRAG_TUI_WRITE_BATCH_CHUNKS": "32",
           **(env or {})}
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
        # extra: "env" for the command, a shorter "timeout" (a case that may hang), what the
        # output "says" and what it must "never" hold (raw) for the case to count.
        if extra.get("baseline_after_setup"):  # the case's setup indexed what must survive
            before_docs = documents(db)
        started = time.monotonic()
        code, stdout, stderr, peak = run_measured(
            ["-d", str(db), *argv], min(timeout, extra.get("timeout", timeout)), extra.get("fsize"),
            extra.get("env"))
        seconds = time.monotonic() - started
        if holder is not None:
            holder.wait(timeout=600)
        if extra.get("release"):  # a lock or a read-only folder the case held for the run
            extra["release"]()
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
        if extra.get("listing"):  # `doctor` lists what it found and exits 1, without `Error:`
            clear = code == 1 and not result["traceback"]
        # what the user must be told, and what never, raw or at all (`busy`, never `damaged`)
        said, says = stdout + stderr, extra.get("says", ())
        told = (all(w in said for w in ([says] if isinstance(says, str) else says))
                and not any(w in said for w in extra.get("never", ())))
        if extra.get("check") is not None:  # a test of the printed output as a whole
            told = told and bool(extra["check"](stdout, stderr))
        result["told"] = told
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
        # files a case must never leave: what a planted payload would make, a file a refusal made
        result["planted_ran"] = any(Path(p).exists() for p in extra.get("never_made", []))
        result["refused_clearly"] = expected == "refuse" and clear and told
        result["survived"] = expected == "survive" and code == 0 and not result["traceback"] and told
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
        "planted_ran": sum(r.get("planted_ran", False) for r in results),
        "cases": results,
    }
    print(json.dumps(report, indent=2, ensure_ascii=True))


if __name__ == "__main__":
    main()
