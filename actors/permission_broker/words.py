"""What one word of a shell line stands for: its value after quoting, and whether it expands.

``'git'``, ``"git"``, ``g\\it`` and ``$'\\x67it'`` are all ``git``; ``"$X"`` and ``$(cmd)`` have
no value until the line runs (``None``); ``*.py``, ``.en[v]`` and ``{a,b}`` expand to file
names then, unless quoted.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

# In an unquoted word these expand at run time (globs, brace expansion).
_EXPANDING = re.compile(r"(?<!\\)[*?\[{]")
_WORD_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
# Inside double quotes a backslash escapes only these (bash manual, "Double Quotes").
_DOUBLE_QUOTE_ESCAPE = re.compile(r'\\([$`"\\\n])')
# The escapes of $'...' (bash manual, "ANSI-C Quoting").
_ANSI_C_ESCAPE = re.compile(
    r"\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))",
    re.DOTALL,
)
_ANSI_C_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v",
}  # fmt: skip


def word_value(node: Node, source: bytes) -> str | None:
    """A word's value after unquoting, or None when it is only known at run time."""
    text = node_text(node, source)
    match node.type:
        case "word" | "command_name":
            return _WORD_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], text)
        case "number":
            return text
        case "raw_string":
            return text[1:-1]
        case "ansi_c_string":
            return _ansi_c(text[2:-1])
        case "string":
            if any(c.is_named and c.type != "string_content" for c in node.children):
                return None  # "$X", "$(cmd)" inside
            inner = text[1:-1]
            return _DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], inner)
        case "translated_string":
            strings = [c for c in node.named_children if c.type == "string"]
            return word_value(strings[0], source) if strings else None
        case "concatenation":
            parts = [
                word_value(part, source) if part.is_named else node_text(part, source)
                for part in node.children
            ]
            return None if None in parts else "".join(p for p in parts if p is not None)
    # Expansions, substitutions, brace ranges: their value is only known when they run.
    return None


def _ansi_c(body: str) -> str:
    """The value of ``$'...'``, given what is between the quotes."""

    def escape(match: re.Match[str]) -> str:
        hex2, hex4, hex8, octal, control, other = match.groups()
        for digits, base in ((hex2, 16), (hex4, 16), (hex8, 16), (octal, 8)):
            if digits:
                return chr(min(int(digits, base), 0x10FFFF))
        if control:
            return chr(ord(control) & 0x1F)
        return _ANSI_C_SIMPLE.get(other, other)

    return _ANSI_C_ESCAPE.sub(escape, body)


def expands(node: Node, source: bytes) -> bool:
    """Whether an unquoted part of the word is a glob or a brace expansion."""
    if node.type == "word":
        return bool(_EXPANDING.search(node_text(node, source)))
    if node.type == "brace_expression":
        return True
    if node.type == "concatenation":
        return any(expands(child, source) for child in node.children)
    return False


def word_pattern(node: Node, source: bytes) -> list[str]:
    """The word as a pattern of file names when it has no quoted part and expands."""
    if not expands(node, source):
        return []
    parts = node.children if node.type == "concatenation" else [node]
    if any(part.type not in ("word", "brace_expression") for part in parts):
        return []  # part quoted, part expanding: left alone, like any other expansion
    return [node_text(node, source)]


def node_text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")
