"""Only a regular file is opened: one helper for every reader of a path it did not make."""
from __future__ import annotations

import errno
import os

import pytest

from trag_tui.errors import IndexFileError, IngestError, QdrantError
from trag_tui.indexer import file_digest
from trag_tui.models.gguf import open_regular as gguf_open
from trag_tui.regular import NotRegularFile, open_regular
from trag_tui.retrieval.backends import seal
from trag_tui.storage.file import read_header


@pytest.fixture
def planted(tmp_path):
    """A regular file, a named pipe, a folder and a link to the file."""
    (tmp_path / "file").write_bytes(b"SQLite format 3\x00 and more")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "file")
    return tmp_path


def test_only_a_regular_file_is_opened_and_a_pipe_is_never_waited_on(planted):
    with open_regular(planted / "file") as fh:
        assert fh.read(6) == b"SQLite"
    for name, kind in (("pipe", "a named pipe"), ("folder", "a folder")):
        with pytest.raises(NotRegularFile, match=f"not a regular file \\({kind}\\)"):
            open_regular(planted / name)
    with open_regular(planted / "link") as fh:  # followed where links may be
        assert fh.read(6) == b"SQLite"
    with pytest.raises(OSError) as refused:
        open_regular(planted / "link", follow=False)
    assert refused.value.errno == errno.ELOOP
    with pytest.raises(NotRegularFile):
        open_regular("/dev/null")
    with pytest.raises(FileNotFoundError):
        open_regular(planted / "missing")


def test_every_reader_opens_through_the_one_helper_and_says_it_in_its_own_words(planted):
    assert gguf_open is open_regular
    with pytest.raises(IngestError, match=r"^not a regular file \(a named pipe\)$"):
        file_digest(planted / "pipe")
    with pytest.raises(IndexFileError, match="is not a regular file"):
        read_header(planted / "pipe")
    assert read_header(planted / "file") == b"SQLite format 3\x00"
    with pytest.raises(QdrantError, match="its seal is not a regular file"):
        os.mkfifo(planted / "folder" / seal.MARKER)
        (planted / "folder" / "meta.json").write_text("{}")
        seal.verify(planted / "folder")
