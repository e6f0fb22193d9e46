"""YAML front matter read with PyYAML's safe loader, each fault placed on its line.

Imported by the first front matter parsed (``frontmatter.parse``), so a session that runs no
skill never loads PyYAML.

What is read differs from ``yaml.safe_load`` in four ways, each on purpose:

- Plain values are typed as YAML 1.2 types them, the way Claude Code reads the same files:
  ``true``/``false``, whole and decimal numbers and ``null`` are typed; ``yes``, ``no``,
  ``on``, ``off`` and dates stay words (``choices: [yes, no]`` is two words, not two booleans).
- An alias (``*name``) is refused: a few fields never need one, and refusing it rules out the
  alias bombs that make a small file expand into gigabytes.
- Lists and fields nest at most 32 deep.
- A tag other than YAML's plain ones (``!!python/object``, ``!!binary``, ``!custom``) is refused
  with its line, before anything is built from it.

A field repeated in one mapping is an error too (PyYAML would keep the last one silently).
"""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

from actors.errors import ConfigError

if TYPE_CHECKING:
    from yaml.nodes import Node

_CORE = "tag:yaml.org,2002:"
_PLAIN_TAGS = frozenset(f"{_CORE}{kind}" for kind in ("str", "int", "float", "bool", "null"))
_ALLOWED_TAGS = _PLAIN_TAGS | {f"{_CORE}seq", f"{_CORE}map"}
MAX_DEPTH = 32
REMEDY = "Fix the front matter (see docs/skills-and-patterns.md for its format)"
_TOP_KEY = re.compile(r"^([^\s#:][^:#]*?)\s*:(?:\s|$)")


class Refused(Exception):
    """Something the safe loader would read, but front matter does not allow."""

    def __init__(self, problem: str, line: int, field: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line  # counted from 0, in the front matter
        self.field = field


class FrontMatterLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` with YAML 1.2's plain types, without aliases, and of bounded depth
    (PyYAML composes recursively: a file of 5000 ``[`` would end in a RecursionError)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        # types-PyYAML leaves peek_event untyped; every event has a start mark.
        event: yaml.Event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line if event.start_mark is not None else 0
        if isinstance(event, yaml.AliasEvent):
            raise Refused(
                f"*{event.anchor} repeats another value (an alias); write the value out in full",
                line,
            )
        if self.depth == MAX_DEPTH:
            raise Refused(f"nests lists or fields more than {MAX_DEPTH} deep", line)
        self.depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


# YAML 1.2's core schema: the plain values that are not text, and the characters they start
# with ("" for an empty value).
_TYPED: dict[str, tuple[str, tuple[str, ...]]] = {
    "bool": (r"^(?:true|True|TRUE|false|False|FALSE)$", tuple("tTfF")),
    "int": (r"^[-+]?(?:0|[1-9][0-9]*)$", tuple("-+0123456789")),
    "float": (
        r"^[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][-+]?[0-9]+)?$",
        tuple("-+.0123456789"),
    ),
    "null": (r"^(?:~|null|Null|NULL|)$", ("~", "n", "N", "")),
}
# A table of its own, so the resolvers added below leave PyYAML's SafeLoader as it was.
FrontMatterLoader.yaml_implicit_resolvers = {}
for _kind, (_pattern, _first) in _TYPED.items():
    FrontMatterLoader.add_implicit_resolver(f"{_CORE}{_kind}", re.compile(_pattern), list(_first))


def load_fields(text: str, path: str, first_line: int) -> tuple[object, dict[str, int]]:
    """The front matter's value, and the line of each field and list item in the file.

    ``text`` is the YAML between the fences; its first line is line ``first_line`` of the
    file. Line keys read ``args[0].name``. Raises ``ConfigError`` naming the file and the line.
    """
    lines: dict[str, int] = {}
    try:
        # The reader refuses a control character (ESC, NUL) as it is made, before any node.
        loader = FrontMatterLoader(text)
    except yaml.YAMLError as error:
        raise _unreadable(error, text, path, first_line) from None
    try:
        node = loader.get_single_node()
        if node is None:
            return None, lines
        _check(node, "", lines, first_line)
        return loader.construct_document(node), lines
    except Refused as refused:
        raise ConfigError(
            refused.problem,
            path=path,
            line=first_line + refused.line,
            field=refused.field or _field_at(text, refused.line),
            remedy=REMEDY,
        ) from None
    except yaml.MarkedYAMLError as error:
        raise _fault(error, text, path, first_line) from None
    except yaml.YAMLError as error:  # the reader's: a character YAML does not allow
        raise _unreadable(error, text, path, first_line) from None
    finally:
        loader.dispose()


def _unreadable(error: yaml.YAMLError, text: str, path: str, first_line: int) -> ConfigError:
    """A character YAML does not allow, at its line."""
    position = getattr(error, "position", 0)
    line = first_line + text[:position].count("\n")
    return ConfigError(
        f"the front matter cannot be read: {error}", path=path, line=line, remedy=REMEDY
    )


def _check(node: Node, where: str, lines: dict[str, int], first_line: int) -> None:
    """Refuse tags and repeated fields; note where every field and item is."""
    if node.tag not in _ALLOWED_TAGS:
        shown = node.tag.replace(_CORE, "!!", 1)
        raise Refused(
            f"the tag {shown} is not allowed: front matter holds text, numbers, true/false, "
            "lists and fields only",
            node.start_mark.line,
            where or None,
        )
    if node.tag == f"{_CORE}int" and len(node.value.lstrip("+-")) > sys.get_int_max_str_digits():
        # Python reads no longer integer from text: building it would raise a bare ValueError.
        raise Refused(
            f"holds a whole number of {len(node.value.lstrip('+-'))} digits; no field takes one",
            node.start_mark.line,
            where or None,
        )
    if isinstance(node, MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            if not isinstance(key, ScalarNode):
                raise Refused(
                    "a field's name must be a plain word", key.start_mark.line, where or None
                )
            name = f"{where}.{key.value}" if where else str(key.value)
            if key.value in seen:
                raise Refused(f"repeats the field '{key.value}'", key.start_mark.line, name)
            seen.add(key.value)
            lines[name] = key.start_mark.line + first_line
            _check(key, name, lines, first_line)
            _check(value, name, lines, first_line)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            name = f"{where}[{index}]"
            lines[name] = item.start_mark.line + first_line
            _check(item, name, lines, first_line)


def _fault(error: yaml.MarkedYAMLError, text: str, path: str, first_line: int) -> ConfigError:
    mark = error.problem_mark or error.context_mark
    line = first_line + (mark.line if mark is not None else 0)
    problem = error.problem or ""
    message = f"is not valid YAML: {problem}" if problem else "is not valid YAML"
    remedy = REMEDY
    context = error.context or ""
    opened = error.context_mark
    if context.startswith("while parsing a flow sequence") and opened is not None:
        line, message = first_line + opened.line, "the list [...] is not closed with ']'"
    elif context.startswith("while parsing a flow mapping") and opened is not None:
        line, message = first_line + opened.line, "the mapping {...} is not closed with '}'"
    elif context.startswith("while scanning a quoted scalar") and opened is not None:
        line, message = first_line + opened.line, "the quoted value is not closed"
    elif problem == "mapping values are not allowed here":
        message = "a value holds ': ', which YAML reads as a new field"
        remedy = 'Put the value in quotes, as in description: "Deploy: staging first"'
    elif "'\\t'" in problem:
        remedy = "Indent with spaces; YAML does not allow tabs there"
    return ConfigError(
        message, path=path, line=line, field=_field_at(text, line - first_line), remedy=remedy
    )


def _field_at(text: str, index: int) -> str | None:
    """The top-level field a line of the front matter belongs to, if any."""
    for line in reversed(text.splitlines()[: index + 1]):
        match = _TOP_KEY.match(line)
        if match:
            return match.group(1).strip("\"'")
    return None
