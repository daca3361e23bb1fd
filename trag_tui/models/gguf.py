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


def read_metadata(path: Path, keys: Iterable[str] = ("general.file_type",
                                                           "general.architecture"),
                       *, budget: int = HEADER_BUDGET) -> dict | None:
    """The wanted key/values of a GGUF file's header; None when it is not a readable GGUF.

    Reading stops as soon as every wanted key is found, or after `budget` bytes, so a
    multi-gigabyte model costs a few kilobytes of reading.
    """
    wanted = set(keys)
    found: dict = {}
    try:
        fh = open(path, "rb")
    except OSError:
        return None
    with fh:
        try:
            if fh.read(4) != GGUF_MAGIC:
                return None
        except OSError:
            return None
        try:
            version, = _unpack(fh, "<I")
            if version < 2:  # version 1 used 32-bit counts; no such file is in use today
                return found
            _tensors, kv_count = _unpack(fh, "<QQ")
            for _ in range(kv_count):
                if not wanted - found.keys() or fh.tell() > budget:
                    break
                key = _string(fh)
                vtype, = _unpack(fh, "<I")
                if key in wanted and vtype != _ARRAY:
                    found[key] = _value(fh, vtype)
                else:
                    _skip(fh, vtype)
        except (OSError, struct.error, UnicodeDecodeError, ValueError):
            pass  # a damaged or unusual header: what was read so far still counts
    return found


def _unpack(fh: BinaryIO, fmt: str) -> tuple:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise ValueError("truncated GGUF header")
    return struct.unpack(fmt, data)


def _string(fh: BinaryIO) -> str:
    length, = _unpack(fh, "<Q")
    if length > HEADER_BUDGET:
        raise ValueError("implausible string length")
    return fh.read(length).decode("utf-8")


def _value(fh: BinaryIO, vtype: int):
    if vtype == _STRING:
        return _string(fh)
    if vtype in _SCALARS:
        return _unpack(fh, _SCALARS[vtype])[0]
    raise ValueError(f"unknown GGUF value type {vtype}")


def _skip(fh: BinaryIO, vtype: int) -> None:
    if vtype == _STRING:
        length, = _unpack(fh, "<Q")
        fh.seek(length, os.SEEK_CUR)
    elif vtype in _SCALARS:
        fh.seek(struct.calcsize(_SCALARS[vtype]), os.SEEK_CUR)
    elif vtype == _ARRAY:
        item_type, count = _unpack(fh, "<IQ")
        if item_type in _SCALARS:
            fh.seek(count * struct.calcsize(_SCALARS[item_type]), os.SEEK_CUR)
        else:
            for _ in range(count):
                _skip(fh, item_type)
    else:
        raise ValueError(f"unknown GGUF value type {vtype}")


def quantization_from_name(name: str) -> str | None:
    """The quantisation written in a file name (`…-Q4_K_M.gguf` -> `Q4_K_M`), if any."""
    matches = _QUANT_IN_NAME.findall(name)
    if not matches:
        return None
    quant = matches[-1].upper()
    return {"FP16": "F16", "FP32": "F32"}.get(quant, quant)


def check_model_file(path: Path | str) -> Path:
    """The path of a readable GGUF file, or a GenerationError saying what is wrong with it.

    The magic bytes are checked here because llama.cpp, handed a wrong file, fails with a
    generic message (or worse) instead of saying the file is not a model.
    """
    p = Path(path).expanduser()
    if not p.exists():
        raise GenerationError(f"model file not found: {p}")
    if p.is_dir():
        raise GenerationError(f"the model path is a folder, not a GGUF file: {p}")
    try:
        with p.open("rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise GenerationError(f"cannot read the model file {p}: {exc.strerror or exc}")
    if magic != GGUF_MAGIC:
        raise GenerationError(f"{p} is not a GGUF model file (llama.cpp needs GGUF)")
    return p
