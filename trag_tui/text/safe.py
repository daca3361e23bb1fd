"""Text from documents, file names and questions made safe to print on a terminal.

Everything trag-tui prints comes from someone else's files: a title or a file name holding
`ESC[2J` would clear the user's screen, a newline in a file name would forge a summary line,
a right-to-left override would reorder what follows, and a lone surrogate (an undecodable byte
in a file name) would stop the printing itself. Such characters are shown escaped (`\\x1b`,
`\\n`, `\\u202e`), so the user sees that they are there and nothing acts on them.
"""
from __future__ import annotations

import re

# C0 controls but tab and newline, DEL, C1 controls, bidirectional overrides and isolates,
# line and paragraph separators, and lone surrogates.
_UNSAFE = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_IN_TEXT = re.compile(f"[{_UNSAFE}]")
_IN_LINE = re.compile(f"[{_UNSAFE}\t\n]")
_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    c = ord(m.group())
    if c == 0x09:
        return "\\t"
    if c == 0x0A:
        return "\\n"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def safe(text: str) -> str:
    """Text for the terminal: newlines and tabs kept, every other control character escaped."""
    return _IN_TEXT.sub(_escape, text)


def safe_line(text: str) -> str:
    """One line for the terminal (a file name, a reason): newlines and tabs escaped too."""
    return _IN_LINE.sub(_escape, text)


def safe_json(text: str) -> str:
    """JSON text for the terminal: what json.dumps leaves raw is escaped as \\uXXXX (still JSON).

    json.dumps escapes C0 controls itself; DEL, C1 controls, bidirectional controls and lone
    surrogates it passes through when ensure_ascii is off.
    """
    return _IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def clean_question(text: str) -> str:
    """A question as typed, with undecodable bytes (lone surrogates) replaced, not fatal."""
    return re.sub("[\ud800-\udfff]", "\ufffd", text)
