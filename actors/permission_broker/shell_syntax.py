"""A shell line as tree-sitter-bash reads it, and where it fails to parse, in words.

The parser is built on first use, not at import: ``import actors.permission_broker`` must stay
cheap for ``legato --version``. A tree with errors is explained in words for the person
(``parse_problem``), as is text the grammar passed over without an error (``skipped_text``);
``shorten`` is how any part of a line is quoted in such a message.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_SHOWN_CHARS = 80


# The broker parses in worker threads; a parser must not be used by two threads at once.
_parser_lock = threading.Lock()


@functools.cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def syntax_tree(source: bytes) -> Node:
    """The root of the tree tree-sitter-bash reads from ``source``."""
    with _parser_lock:
        return _parser().parse(source).root_node


def shorten(text: str) -> str:
    """One line, at most 80 characters: how a command is quoted in a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[: _SHOWN_CHARS - 3] + "..."


def only_read_write_redirects(root: Node) -> bool:
    """Whether the only parse errors are '<>' (read and write), which the grammar lacks."""
    stack = [root]
    errors = 0
    while stack:
        node = stack.pop()
        if node.is_missing:
            return False
        if node.type == "ERROR":
            parent = node.parent
            lone = node.child_count == 1 and node.children[0].type == ">"
            previous = node.prev_sibling
            if not (
                lone
                and parent is not None
                and parent.type == "file_redirect"
                and previous is not None
                and previous.type == "<"
                and previous.end_byte == node.start_byte
            ):
                return False
            errors += 1
            continue
        stack.extend(node.children)
    return errors > 0


def skipped_text(root: Node, source: bytes) -> str | None:
    """Text of the line that no part of the parsed tree holds, in words; None when there is
    none. The grammar can pass over a word without an error ('make -f - <<EOF' reads as
    'make -f'), and a word the rules never see is a word they cannot judge."""
    covered = bytearray(len(source))
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count == 0 or node.type in ("heredoc_body", "comment"):
            covered[node.start_byte : node.end_byte] = b"\x01" * (node.end_byte - node.start_byte)
            continue
        stack.extend(node.children)
    text = bytes(byte for byte, held in zip(source, covered, strict=True) if not held).replace(
        b"\\\n", b""
    )
    if not text.strip():
        return None
    near = shorten(text.strip().decode("utf-8", errors="replace"))[:30]
    return f"the line does not parse as shell near '{near}'"


def parse_problem(root: Node, source: bytes) -> str:
    """Where the line stops parsing, in words."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            before = shorten(source[: node.start_byte].decode("utf-8", errors="replace"))
            return f"the line is incomplete after '{before}'"
        if node.type == "ERROR":
            near = shorten(source[node.start_byte :].decode("utf-8", errors="replace"))[:30]
            return f"the line does not parse as shell near '{near}'"
        stack.extend(reversed(node.children))
    return "the line does not parse as shell"
