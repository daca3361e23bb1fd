"""Opening only a regular file, for every reader of a path it did not make.

A named pipe opened for reading waits for a writer that never comes, a device reads for ever, and
a link planted where a file is kept points anywhere. So every reader (an index file's header, a
document before it is hashed, a GGUF model, a sealed Qdrant folder's files and its key) opens
through `open_regular`: the type is checked before opening, and again on the descriptor,
opened without blocking, in case the path was swapped in between. Imports nothing of ours, so
any layer may use it.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """A path that is a pipe, a device, a socket or a folder where a file was expected."""

    def __init__(self, mode: int):
        super().__init__(not_regular(mode))
        self.mode = mode


def not_regular(mode: int) -> str:
    """Why a file of this mode is not read, in the words every reader uses."""
    for test, kind in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a folder")):
        if test(mode):
            return f"not a regular file ({kind})"
    return "not a regular file"


def open_regular(path: Path | str, *, follow: bool = True) -> BinaryIO:
    """`path` opened for reading, only if it is a regular file (else NotRegularFile, an
    OSError; a missing file is FileNotFoundError as from open()).

    `follow=False` opens no link at all (O_NOFOLLOW: a link is refused by the system as ELOOP),
    for folders whose every file must be the one written there.
    """
    mode = os.stat(path, follow_symlinks=follow).st_mode
    if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):  # a link: O_NOFOLLOW refuses it
        raise NotRegularFile(mode)
    fd = os.open(path, _FLAGS | (0 if follow else os.O_NOFOLLOW))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(mode)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
