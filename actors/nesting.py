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


def too_deep(text: str, limit: int = MAX_DEPTH) -> int | None:
    """The offset where a JSON text opens its ``limit + 1``-th nested object or array; None
    when it nests no deeper than ``limit``."""
    # Counted in C first: a text with no more opening brackets than ``limit`` (every event of a
    # model's stream) cannot nest deeper, whatever its strings hold.
    if text.count("[") + text.count("{") <= limit:
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
