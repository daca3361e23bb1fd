"""Reading one member of a zip with a byte cap that holds whatever its header says.

`zipfile` trusts a member's header: it trims the output to the declared size only after
inflating, and hands a bzip2 or LZMA decompressor each block of compressed bytes whole, so a
577-byte member that declares 100 bytes can inflate 512 MiB before anything is refused. Here
the compressed bytes are read in blocks and each decompressor is asked for no more than the
room left under the cap; a member that inflates past its declared size is refused as soon as it
does, and a member whose bytes do not match its CRC is damaged.
"""
from __future__ import annotations

import bz2
import lzma
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import Any

from trag_tui.errors import IngestError
from trag_tui.ingest.base import _size, check_time, size_refusal

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # the local file header before a member's data
_LOCAL_MAGIC = b"PK\x03\x04"
_BLOCK = 1 << 16  # compressed bytes handed to a decompressor at a time


def read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, max_bytes: int) -> bytes:
    """A member's bytes, never more than min(its declared size, max_bytes) of them inflated."""
    if info.flag_bits & 0x1:
        raise IngestError("cannot read: the member is encrypted")
    if too_large := size_refusal(info.file_size, max_bytes):
        raise IngestError(too_large)
    inflater = _Inflater(info.compress_type)
    cap = info.file_size
    out = bytearray()

    def take(pieces: Iterator[bytes]) -> None:
        for piece in pieces:
            out.extend(piece)
            if len(out) > cap:
                raise IngestError(f"inflates past the {_size(cap)} its header declares "
                                  "(a zip bomb?)")

    for block in _compressed(zf, info):
        take(inflater.feed(block, lambda: cap + 1 - len(out)))
        if inflater.eof:
            break
    take(inflater.feed(b"", lambda: cap + 1 - len(out)))  # what a decompressor still holds
    if len(out) != cap or zlib.crc32(out) != info.CRC:
        raise IngestError("damaged member: its bytes do not match its header (size or CRC)")
    return bytes(out)


def _compressed(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The member's compressed bytes in blocks, located through its local header."""
    fp = zf.fp
    if fp is None:
        raise IngestError("cannot read: the zip is closed")
    fp.seek(info.header_offset)
    header = fp.read(_LOCAL_HEADER.size)
    if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_MAGIC:
        raise IngestError("damaged member: no local header where the directory says")
    fields = _LOCAL_HEADER.unpack(header)
    fp.seek(info.header_offset + _LOCAL_HEADER.size + fields[10] + fields[11])
    left = info.compress_size
    while left > 0:
        check_time()
        block = fp.read(min(left, _BLOCK))
        if not block:
            raise IngestError("damaged member: its data ends early")
        left -= len(block)
        yield block


class _Inflater:
    """One member's decompressor, drained in asks of at most the room left under the cap, so
    a bomb is refused after one over-long piece, never after inflating it whole."""

    def __init__(self, method: int):
        self.method = method
        self.eof = False
        self._head = b""  # LZMA: zip's 4-byte header and filter properties, until complete
        self._d: Any = None
        if method == zipfile.ZIP_STORED:
            pass
        elif method == zipfile.ZIP_DEFLATED:
            self._d = zlib.decompressobj(-15)
        elif method == zipfile.ZIP_BZIP2:
            self._d = bz2.BZ2Decompressor()
        elif method == zipfile.ZIP_LZMA:
            pass  # made once its header is read (_lzma_start)
        else:
            raise IngestError(f"cannot read: compression method {method} is not supported")

    def feed(self, block: bytes, room: Callable[[], int]) -> Iterator[bytes]:
        """The output of one block of compressed bytes (b"": what is still held), piece by piece."""
        if self.method == zipfile.ZIP_STORED:
            yield block
            return
        if self.method == zipfile.ZIP_LZMA and self._d is None:
            block = self._lzma_start(block)
            if self._d is None:
                return
        data, idle = block, 0
        while not self.eof:
            try:
                piece = self._d.decompress(data, max(room(), 1))
            except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError) as e:
                raise IngestError(f"damaged member: {e}") from e
            self.eof = self._d.eof
            data = getattr(self._d, "unconsumed_tail", b"")  # zlib keeps unread input here
            yield piece
            idle = 0 if piece else idle + 1
            if idle > 1 or (not data and getattr(self._d, "needs_input", not piece)):
                return

    def _lzma_start(self, block: bytes) -> bytes:
        """Read zip's LZMA header once it is all there; the stream bytes after it."""
        self._head += block
        if len(self._head) < 4:
            return b""
        (size,) = struct.unpack("<H", self._head[2:4])
        if len(self._head) < 4 + size:
            return b""
        try:
            # zipfile reads the properties the same way: lzma has no public call for them
            props = lzma._decode_filter_properties(  # type: ignore[attr-defined]
                lzma.FILTER_LZMA1, self._head[4:4 + size])
            self._d = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[props])
        except (lzma.LZMAError, ValueError) as e:
            raise IngestError(f"damaged member: {e}") from e
        return self._head[4 + size:]
