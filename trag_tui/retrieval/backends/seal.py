"""A local Qdrant folder is opened only when this program wrote it, as it is now.

Qdrant's local mode keeps each point as a Python pickle, and unpickling runs whatever the
pickle names: a folder is code, not data. So `push` seals the folder it wrote: a marker in the
folder holding the digest of every file the client reads, signed with HMAC-SHA256 under a key
kept in the user folder (made on first use, readable by its owner only). Every open verifies
the marker against the files as they are before the client reads any of them, so a folder
copied from someone else, or changed since, is refused; a collection to share is read through
a Qdrant server, which stores no pickles. The walk reads nothing but regular files (no links,
no pipes) and is bounded, so a hostile folder can neither hang nor exhaust it.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from ...errors import QdrantError
from ...regular import NotRegularFile, open_regular
from ...settings import user_dir

MARKER = "trag-tui.seal"
KEY_FILE = "qdrant-folders.key"
LOCK = ".lock"  # the client's lock file: created and locked, never read as data
# What the client keeps in a folder: a `--replace` may remove these, and nothing else.
LAYOUT = {"meta.json", "meta.json.tmp", "collection", LOCK, MARKER, f"{MARKER}.tmp"}
MAX_FILES = 10_000
MAX_DEPTH = 8
_FORMAT = 1
_READ = 1 << 20
SERVER_HINT = "read a shared collection through a Qdrant server (qdrant://HOST:PORT/COLLECTION)"


def _refuse(folder: Path, why: str) -> QdrantError:
    return QdrantError(f"{folder}: {why}; a local Qdrant folder holds Python pickles, which run code "
                       f"when read, so only a folder this program wrote is opened: {SERVER_HINT}")


# -- the key ------------------------------------------------------------------------------------


def _key_path() -> Path:
    return user_dir() / KEY_FILE


def _read_key(path: Path) -> bytes | None:
    """The key, or None when there is none; refused when it is not a private regular file."""
    private = QdrantError(f"{path}: the key that seals local Qdrant folders must be a file only its owner "
                          "can read; remove it and push the folders again")
    try:
        f = open_regular(path, follow=False)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise private from None
    except OSError as exc:
        raise QdrantError(f"{path}: the key that seals local Qdrant folders cannot be read ({exc.strerror})") from None
    with f:
        info = os.fstat(f.fileno())
        if info.st_mode & 0o077 or info.st_uid != os.geteuid():
            raise private
        key = f.read(64)
    if len(key) != 32:
        raise QdrantError(f"{path}: the key that seals local Qdrant folders is damaged; remove it and push "
                          "the folders again")
    return key


def _key(create: bool) -> bytes | None:
    """The user's sealing key; made (0600, atomically: a racing process reads the same one)
    only when `create`, since only a push seals."""
    path = _key_path()
    key = _read_key(path)
    if key is not None or not create:
        return key
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{KEY_FILE}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(32))
        try:
            os.link(tmp, path)  # fails if another process made it first: theirs is kept
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)
    return _read_key(path)


# -- the folder's files -------------------------------------------------------------------------


def _digest(path: Path) -> str:
    try:
        f = open_regular(path, follow=False)
    except NotRegularFile:
        raise OSError(f"{path.name} is not a regular file") from None
    with f:
        h = hashlib.sha256()
        while block := f.read(_READ):
            h.update(block)
    return h.hexdigest()


@dataclass(frozen=True)
class Checked:
    """What `verify` read of a folder: each file's SHA-256, and each one's size, change time
    and inode as it was then, so a push can sign the same files without hashing them again."""

    files: dict[str, str]
    stamp: dict[str, tuple[int, int, int]]


def contents(folder: Path) -> dict[str, str]:
    """Every file the client may read, by path inside the folder, with its SHA-256. Anything
    but folders and regular files (a link, a pipe, a device), or a tree too deep or too big,
    is refused: the client would follow or block on it."""
    return {rel: _digest(path) for rel, path in _files(folder).items()}


def _stamp(folder: Path) -> dict[str, tuple[int, int, int]]:
    """Each file's size, change time (ns) and inode: what a write to it would change."""
    out = {}
    for rel, path in _files(folder).items():
        info = os.stat(path, follow_symlinks=False)
        out[rel] = (info.st_size, info.st_mtime_ns, info.st_ino)
    return out


def _files(folder: Path) -> dict[str, Path]:
    """Every file the client may read, by path inside the folder, walked as `contents` says."""
    out: dict[str, Path] = {}
    todo: list[tuple[Path, int]] = [(folder, 0)]
    while todo:
        here, depth = todo.pop()
        with os.scandir(here) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                path = Path(entry.path)
                rel = path.relative_to(folder).as_posix()
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 > MAX_DEPTH:
                        raise _refuse(folder, f"{rel} is nested too deep")
                    todo.append((path, depth + 1))
                    continue
                if not entry.is_file(follow_symlinks=False):
                    raise _refuse(folder, f"{rel} is not a regular file")
                if rel in (MARKER, LOCK):
                    continue
                if len(out) >= MAX_FILES:
                    raise _refuse(folder, f"more than {MAX_FILES} files")
                out[rel] = path
    return out


def _mac(key: bytes, body: dict) -> str:
    return hmac.new(key, json.dumps(body, sort_keys=True).encode(), hashlib.sha256).hexdigest()


def seal(folder: Path, writing: bool = False, checked: Checked | None = None) -> None:
    """Sign the folder as it is now. `writing` marks a push under way: if it never finishes,
    the next open says so instead of blaming someone else. `checked`, what `verify` read of
    it just before: its digests are signed again without reading the files, where every file
    is as it was then (same names, sizes, change times and inodes); else all are read."""
    key = _key(create=True)
    assert key is not None
    if checked is not None and _stamp(folder) == checked.stamp:
        files = checked.files
    else:
        files = contents(folder)
    body = {"format": _FORMAT, "files": files, "writing": writing}
    tmp = folder / f"{MARKER}.tmp"
    tmp.unlink(missing_ok=True)
    with open(tmp, "x", encoding="utf-8") as f:
        json.dump({**body, "mac": _mac(key, body)}, f)
    os.replace(tmp, folder / MARKER)


def is_empty(folder: Path) -> bool:
    """Whether a folder holds nothing the client would read (a fresh push target)."""
    with os.scandir(folder) as entries:
        return all(e.name in (LOCK, MARKER) and e.is_file(follow_symlinks=False) for e in entries)


def _marker(folder: Path) -> dict | None:
    try:
        f = open_regular(folder / MARKER, follow=False)
    except FileNotFoundError:
        return None
    except NotRegularFile:
        raise _refuse(folder, "its seal is not a regular file") from None
    except OSError:
        raise _refuse(folder, "its seal cannot be read") from None
    with f:
        raw = f.read(8 << 20)
    try:
        found = json.loads(raw)
    except ValueError:
        raise _refuse(folder, "its seal is damaged") from None
    return found if isinstance(found, dict) else {}


def verify(folder: Path) -> Checked | None:
    """Refuse, before anything in it is unpickled, a folder this program did not write as it
    is now; what was read of it, for `seal`. An empty folder holds nothing to run and passes
    (a push fills it): None."""
    try:
        if is_empty(folder):
            return None
        found = _marker(folder)
        if found is None:
            raise _refuse(folder, "this program did not write it (it has no seal)")
        key = _key(create=False)
        body = {k: found.get(k) for k in ("format", "files", "writing")}
        if key is None or not hmac.compare_digest(str(found.get("mac", "")), _mac(key, body)):
            raise _refuse(folder, "this program did not write it (its seal is not this user's)")
        stamp = _stamp(folder)  # before the reading: a file written during it is read again
        if contents(folder) == body["files"]:
            return Checked(body["files"], stamp)
    except OSError as exc:
        raise _refuse(folder, f"it cannot be checked ({exc.strerror or exc})") from None
    if body["writing"]:
        raise QdrantError(f"{folder}: a push into it stopped half-way, so its files cannot be checked "
                          "(they hold Python pickles, which run code when read); `trag-tui push --to "
                          f"{folder} --replace` writes it again")
    raise _refuse(folder, "it changed after this program wrote it")


def clear(folder: Path) -> None:
    """Remove the client's files from a folder without reading them (`push --replace` on a
    folder that cannot be verified); refused if the folder holds anything else."""
    names = sorted(os.listdir(folder))
    other = [n for n in names if n not in LAYOUT]
    if other:
        raise QdrantError(f"{folder}: holds files a Qdrant folder does not ({other[0]!r}): push to a new folder")
    for name in names:
        path = folder / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif name != LOCK or not path.is_file() or path.is_symlink():  # a sound lock stays: it may be held
            path.unlink()


__all__ = ["MARKER", "Checked", "clear", "contents", "is_empty", "seal", "verify"]
