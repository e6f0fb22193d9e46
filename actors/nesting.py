"""How deep a JSON text nests, found without parsing it.

msgspec, the standard library's ``json`` and the code that walks what they return all recurse:
a text of some thousands of ``[`` ends in a RecursionError, not a message. So every JSON text a
repository or a driving program supplies (settings, ``.mcp.json``, ``--mcp-config``, a
pattern's JSON argument) is measured here first, and refused past ``MAX_DEPTH``.
"""

from __future__ import annotations

import re

# No setting, server entry or schema goes past a handful of levels; 64 leaves room to spare
# and stays far below where any parser's recursion gives out.
MAX_DEPTH = 64

# What changes the depth: brackets outside strings (a string is skipped whole, escapes and all,
# and one left open runs to the end of the text).
_NESTING = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[{]|[\]}]', re.DOTALL)


def too_deep(text: str | bytes, limit: int = MAX_DEPTH) -> int | None:
    """The offset where a JSON text opens its ``limit + 1``-th nested object or array; None
    when it nests no deeper than ``limit``. Bytes are taken as UTF-8, and the offset is then
    one in the decoded text."""
    # Counted in C first: a text with no more opening brackets than ``limit`` (every event of a
    # model's stream) cannot nest deeper, whatever its strings hold. Bytes are decoded only
    # past that, not once per event.
    if isinstance(text, bytes):
        if text.count(b"[") + text.count(b"{") <= limit:
            return None
        text = text.decode("utf-8", "replace")
    elif text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for token in _NESTING.finditer(text):
        mark = token.group()
        if mark in ("[", "{"):
            depth += 1
            if depth > limit:
                return token.start()
        elif mark in ("]", "}"):
            depth = max(0, depth - 1)
    return None
