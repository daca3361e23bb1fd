"""What a GGUF file says about itself, read from its header without loading llama.cpp.

Listing the models on a machine must not load gigabytes of weights or llama.cpp's library; the
header's key/values say what the file is (architecture, quantisation) in its first kilobytes.
The layout is the GGUF spec's: magic, version, tensor count, key/value count, then typed
key/value pairs.
"""
from __future__ import annotations

import os
import re
import struct
from collections.abc import Iterable
from pathlib import Path
from typing import BinaryIO

from ..errors import GenerationError
from ..regular import NotRegularFile, open_regular

GGUF_MAGIC = b"GGUF"

# Enough to pass the tokenizer's vocabulary in any file that puts it before the file type;
# past this the quantisation is taken from the file name instead.
HEADER_BUDGET = 64 * 1024 * 1024

# llama.cpp's `llama_ftype` (general.file_type); gaps are types llama.cpp has since removed.
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 4: "Q4_1_SOME_F16", 7: "Q8_0", 8: "Q5_0",
    9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S",
    15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS",
    21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S",
    27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16",
    33: "Q4_0_4_4", 34: "Q4_0_4_8", 35: "Q4_0_8_8", 36: "TQ1_0", 37: "TQ2_0", 38: "MXFP4_MOE",
    39: "NVFP4", 40: "Q1_0", 41: "Q2_0",
}
# The quantisation as people write it in file names: "…-Q4_K_M.gguf", "….q8_0.gguf".
_QUANT_IN_NAME = re.compile(
    r"(?<![A-Za-z0-9])(IQ[1-4]_(?:XXS|XS|NL|S|M)|Q[2-8]_K(?:_(?:XL|S|M|L))?|Q[1-8]_[01]"
    r"|TQ[12]_0|MXFP4(?:_MOE)?|NVFP4|BF16|FP?16|FP?32)(?![A-Za-z0-9])", re.IGNORECASE)

# GGUF value types: struct format of the fixed-size ones; 8 is a string, 9 an array.
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
            10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
# Arrays of arrays are in the spec, but no model's header uses them; one nesting deeper than
# this was made to exhaust a reader, not to describe a model.
MAX_ARRAY_DEPTH = 8
# The spec's own limit on a key's length.
MAX_KEY_BYTES = 65535
# A header holds tens of key/values and a vocabulary of up to some 10^5 strings (and as many
# merges), never nested arrays; past these counts it is read no further (what was found still
# counts), so a made-up count costs a second at most.
MAX_KEYS = 1 << 16
MAX_STRINGS = 1 << 20
MAX_ARRAYS = 1 << 16


def expanded(path: Path | str) -> Path:
    """`path` with a leading `~` or `~user` expanded, or as it is when there is no such home
    (as a shell leaves `~nosuchuser/m.gguf`): the paths come from settings and other files."""
    try:
        return Path(path).expanduser()
    except RuntimeError:
        return Path(path)


def why_unreadable(exc: OSError) -> str:
    """An OSError as the short reason a listing shows: `not a regular file (a named pipe)`."""
    return exc.strerror or str(exc)


def read_metadata(path: Path, keys: Iterable[str] = ("general.file_type",
                                                           "general.architecture"),
                       *, budget: int = HEADER_BUDGET) -> dict | None:
    """The wanted key/values of a GGUF file's header; None when it is not a readable GGUF.

    Reading stops as soon as every wanted key is found, or after `budget` bytes, so a
    multi-gigabyte model costs a few kilobytes of reading. A pipe or a device is not read
    (None); a header built to exhaust the reader is a GenerationError (see read_header).
    """
    try:
        fh = open_regular(path)
    except OSError:
        return None
    with fh:
        return read_header(fh, keys, budget=budget)


def read_header(fh: BinaryIO, keys: Iterable[str] = ("general.file_type",
                                                      "general.architecture"),
                *, budget: int = HEADER_BUDGET) -> dict | None:
    """read_metadata on an open file: None when it is not GGUF, else what the header says.

    A header that stops short (a damaged or unfinished download) gives what was read before
    the cut. Every count and length is checked against the bytes the file has before it is
    used, so a string of 2^63 bytes allocates nothing and an array of 2^63 items ends at the
    file's end or the budget; arrays nested deeper than MAX_ARRAY_DEPTH are a GenerationError.
    """
    header = _Header(fh, budget)
    try:
        if fh.read(4) != GGUF_MAGIC:
            return None
    except OSError:
        return None
    wanted = set(keys)
    found: dict = {}
    try:
        version, = header.unpack("<I")
        if version < 2:  # version 1 used 32-bit counts; no such file is in use today
            return found
        _tensors, kv_count = header.unpack("<QQ")
        for _ in range(min(kv_count, MAX_KEYS)):
            if not wanted - found.keys() or header.spent():
                break
            key = header.string(MAX_KEY_BYTES)
            vtype, = header.unpack("<I")
            if key in wanted and vtype != _ARRAY:
                found[key] = header.value(vtype)
            else:
                header.skip(vtype)
    except (OSError, struct.error, UnicodeDecodeError, _Cut):
        pass  # a damaged or unusual header: what was read so far still counts
    return found


class _Cut(Exception):
    """The header ends here for reading: cut short, past the budget, or of an unknown type."""


class _Header:
    """A GGUF header being read: every count checked against the bytes the file holds."""

    def __init__(self, fh: BinaryIO, budget: int):
        self.fh = fh
        self.budget = budget
        self.size = os.fstat(fh.fileno()).st_size
        self.strings, self.arrays = MAX_STRINGS, MAX_ARRAYS  # left to skip one by one

    def check_counts(self) -> None:
        if self.strings < 0 or self.arrays < 0:
            raise _Cut("more values than any model's header holds")

    def spent(self) -> bool:
        return self.fh.tell() > self.budget

    def left(self) -> int:
        return self.size - self.fh.tell()

    def unpack(self, fmt: str) -> tuple:
        size = struct.calcsize(fmt)
        data = self.fh.read(size)
        if len(data) != size:
            raise _Cut("truncated GGUF header")
        return struct.unpack(fmt, data)

    def string(self, limit: int = HEADER_BUDGET) -> str:
        length, = self.unpack("<Q")
        if length > min(limit, self.left()):
            raise _Cut("implausible string length")
        return self.fh.read(length).decode("utf-8")

    def value(self, vtype: int):
        if vtype == _STRING:
            return self.string()
        if vtype in _SCALARS:
            return self.unpack(_SCALARS[vtype])[0]
        raise _Cut(f"unknown GGUF value type {vtype}")

    def seek(self, n: int) -> None:
        if n > self.left():
            raise _Cut("truncated GGUF header")
        self.fh.seek(n, os.SEEK_CUR)

    def skip(self, vtype: int) -> None:
        """Past one value of `vtype`, arrays of arrays included, without recursion.

        The stack holds, for each array being skipped, its item type and how many items are
        left; its height is the nesting depth.
        """
        stack = [(vtype, 1)]
        while stack:
            if self.spent():
                raise _Cut("past the header budget")
            vtype, left = stack.pop()
            if left == 0:
                continue
            if vtype in _SCALARS:
                self.seek(left * struct.calcsize(_SCALARS[vtype]))
            elif vtype == _STRING:
                self.skip_strings(left)
            elif vtype == _ARRAY:
                stack.append((vtype, left - 1))
                self.arrays -= 1
                self.check_counts()
                item_type, count = self.unpack("<IQ")
                if len(stack) > MAX_ARRAY_DEPTH:
                    raise GenerationError(
                        f"its GGUF header nests arrays more than {MAX_ARRAY_DEPTH} deep")
                stack.append((item_type, count))
            else:
                raise _Cut(f"unknown GGUF value type {vtype}")

    def skip_strings(self, count: int) -> None:
        """Past `count` strings, parsed from 1 MiB chunks: a vocabulary of 10^5 strings is
        common, and one read and one seek per string would cost seconds."""
        base, data, at = self.fh.tell(), b"", 0
        while count:
            if at + 8 > len(data):  # the next length is not in this chunk: read on from it
                self.check_counts()
                base += at
                if base > min(self.size, self.budget):
                    raise _Cut("truncated GGUF header, or past the header budget")
                self.fh.seek(base)
                data, at = self.fh.read(1 << 20), 0
                if len(data) < 8:
                    raise _Cut("truncated GGUF header")
            at += 8 + int.from_bytes(data[at:at + 8], "little")
            count -= 1
            self.strings -= 1
        self.check_counts()
        if base + at > self.size:
            raise _Cut("truncated GGUF header")
        self.fh.seek(base + at)


def quantization_from_name(name: str) -> str | None:
    """The quantisation written in a file name (`…-Q4_K_M.gguf` -> `Q4_K_M`), if any."""
    matches = _QUANT_IN_NAME.findall(name)
    if not matches:
        return None
    quant = matches[-1].upper()
    return {"FP16": "F16", "FP32": "F32"}.get(quant, quant)


def check_model_file(path: Path | str) -> Path:
    """The path of a readable GGUF file, or a GenerationError saying what is wrong with it.

    The magic bytes and the header are checked here because llama.cpp, handed a wrong file,
    fails with a generic message (or worse) instead of saying the file is not a model; a pipe
    or a device is refused by its type before it is opened, as opening it would wait for ever.
    """
    p = expanded(path)
    if not p.exists():
        raise GenerationError(f"model file not found: {p}")
    if p.is_dir():
        raise GenerationError(f"the model path is a folder, not a GGUF file: {p}")
    try:
        with open_regular(p) as fh:
            found = read_header(fh)
    except NotRegularFile as exc:
        raise GenerationError(f"the model path is {exc}: {p}")
    except OSError as exc:
        raise GenerationError(f"cannot read the model file {p}: {why_unreadable(exc)}")
    except GenerationError as exc:
        raise GenerationError(f"{p} is not a usable GGUF model file: {exc}")
    if found is None:
        raise GenerationError(f"{p} is not a GGUF model file (llama.cpp needs GGUF)")
    return p
