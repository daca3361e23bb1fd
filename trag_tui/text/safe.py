"""Text from documents, file names and questions made safe to print on a terminal.

Everything trag-tui prints comes from someone else's files: a title or a file name holding
`ESC[2J` would clear the user's screen, a newline in a title would forge a search hit or a
summary line, a right-to-left override would reorder what follows, a zero-width space would
make "pay\\u200bpal" look like "paypal", and a lone surrogate (an undecodable byte in a file
name) would stop the printing itself. Such characters are shown escaped (`\\x1b`, `\\n`,
`\\u202e`, `\\u200b`), so the user sees that they are there and nothing acts on them.

Which characters: every control (Unicode Cc), every format character (Cf: zero-width spaces
and joiners, bidirectional marks, overrides and isolates, the byte-order mark, invisible tags),
the line and paragraph separators and lone surrogates, read from the Unicode database of the
running Python, so a format character added in a later Unicode version is escaped as well.
"""
from __future__ import annotations

import json
import re
import unicodedata

# Candidates only: everything outside printable ASCII. Which of them are shown escaped is
# decided by their Unicode category, one character at a time (see `_hidden`).
_CANDIDATES = re.compile("[^\x20-\x7e\t\n]+")
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def _hidden(c: str) -> bool:
    """A character that acts on the terminal or is invisible on it, rather than a letter."""
    return unicodedata.category(c) in _HIDDEN


def _escape(c: str) -> str:
    n = ord(c)
    if n == 0x09:
        return "\\t"
    if n == 0x0A:
        return "\\n"
    if n < 0x100:
        return f"\\x{n:02x}"
    return f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def _shown(run: str) -> str:
    return "".join(_escape(c) if _hidden(c) else c for c in run)


def safe(text: str) -> str:
    """Text for the terminal: newlines and tabs kept, every other hidden character escaped."""
    return _CANDIDATES.sub(lambda m: _shown(m.group()), text)


def safe_line(text: object) -> str:
    """One line for the terminal (a title, a speaker, an id, a file name, a reason): newlines
    and tabs escaped too, so nothing in it can begin a line of its own."""
    text = str(text)
    return safe(text).replace("\t", "\\t").replace("\n", "\\n")


def safe_json(text: str) -> str:
    """JSON text for the terminal: what json.dumps leaves raw is escaped as \\uXXXX (still JSON,
    and it decodes to the raw text).

    json.dumps escapes C0 controls itself; DEL, C1 controls, format characters and lone
    surrogates it passes through when ensure_ascii is off.
    """
    def shown(m: re.Match) -> str:
        return "".join(json.dumps(c)[1:-1] if _hidden(c) else c for c in m.group())

    return re.sub("[^\x00-\x7e]+", shown, text)


def json_object(line: str | bytes) -> dict:
    """One line of a JSONL file from outside (documents, a batch, questions) as a JSON object;
    ValueError, in words for a message naming the line, when it is none."""
    try:
        row = json.loads(line)
    except UnicodeDecodeError:
        raise ValueError("not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(row, dict):
        raise ValueError(f"{json_text(row)} is not a JSON object")
    return row


def json_text(value: object) -> str:
    """A value read from JSON (a batch or eval row) as it was written, short, for a message
    that names it: `20200101`, `[2020]`, `"yesterday"`."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def clean_question(text: str) -> str:
    """A question as typed, with undecodable bytes (lone surrogates) replaced, not fatal."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)
