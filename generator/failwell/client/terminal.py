"""Outside text as a terminal shows it: a server's name, version, tool names, descriptions, answers, errors and
stderr lines (and a spec's or a document's words) with every character a terminal acts on made visible, so a
hostile server cannot write the clipboard (OSC 52), set the title (OSC 0), plant a link (OSC 8), clear the
screen to hide a finding (`ESC[2J`), or reorder what is read (bidi controls). Every line the CLI prints goes
through `visible`, and so do the server's stderr and, once the CLI has called `escape_logs`, the mcp SDK's log
lines."""

from __future__ import annotations

import re
import sys

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""C0 controls but newline and tab (ESC among them, and CR, which rewrites a line), DEL, C1 (U+0080-U+009F, CSI
U+009B among them), and the bidi controls: embeddings and overrides (U+202A-U+202E), isolates (U+2066-U+2069),
the marks (U+200E, U+200F, U+061C)."""
_BREAKS = re.compile("[\n\t\u2028\u2029]")
"""What `one_line` escapes too: newline, tab, and the line and paragraph separators."""


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x20 else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """`text` with each control shown as its escape: `\\x1b` for a C0 control, `\\u009b`, `\\u007f` or `\\u202e`
    for DEL, C1 and bidi (escapes JSON reads as the same character, so printed JSON stays JSON); `one_line`:
    line breaks and tabs too (for one line of a file, such as a YAML comment)."""
    text = _CONTROLS.sub(_escaped, text)
    return _BREAKS.sub(_escaped, text) if one_line else text


def escape_logs(name: str = "mcp") -> None:
    """The `name` logger's records (the mcp SDK's: an unknown notification's method, a stray stdout line) printed
    escaped, on the stderr of the moment, WARNING and above, as Python's last resort would print them otherwise.
    For the CLI's process (it stops their propagation), never a library's caller."""
    import logging

    class Visible(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                sys.stderr.write(visible(self.format(record)) + "\n")
            except Exception:
                self.handleError(record)

    logger = logging.getLogger(name)
    if not any(handler.get_name() == _HANDLER for handler in logger.handlers):
        handler = Visible(logging.WARNING)
        handler.set_name(_HANDLER)
        logger.addHandler(handler)
        logger.propagate = False


_HANDLER = "failwell-visible"
