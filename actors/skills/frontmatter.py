"""The front matter of skill and pattern files: YAML between two ``---`` lines, then the body.

    ---
    name: crud-gen                      # a comment
    description: |                      # a block: the lines below, newlines kept
      Generate CRUD code: routes,
      a model and its tests.
    tags: [api, web]
    args:
      - name: entity
        required: true
        choices: [a, b]
    ---
    The body...

Plain YAML, as Claude Code reads it, parsed by PyYAML's safe loader (``safe_yaml.py``: what it
refuses and why). Every fault names the file, the line and, where it can, the field. A loader
gathers a file's faults in ``Faults`` and raises them together (``FileFaults``, a
``ConfigError``), so one ``--test`` shows all there is to fix; only YAML that does not parse
stops at its first fault, since nothing after it can be read.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import msgspec

from actors.errors import ConfigError
from actors.skills.plain_fields import plain_fields

if TYPE_CHECKING:
    from collections.abc import Sequence

_FENCE = "---"
# 'argument-hint: [file] [format]', unquoted, as the reference's docs write hints: YAML reads a
# leading '[' as a list, or cannot read the line at all, yet the hint is only text to show.
_BRACKET_HINT = re.compile(r"^(argument-hint:[ \t]*)(\[.*?)[ \t]*$")
# A top-level 'field: value' on one line whose value YAML would read as a plain scalar.
_PLAIN_FIELD = re.compile(r"^([A-Za-z0-9_-]+:[ \t]+)([^\s\"'\[{|>&*!#%@`].*?)[ \t]*$")


class Document(msgspec.Struct):
    path: str
    fields: dict[str, object]
    lines: dict[str, int]  # "args[0].name" -> line number, for messages
    body: str
    body_line: int  # the body's first line number

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)


def parse(text: str, path: str) -> Document:
    """Split ``text`` into front matter and body; raise ``ConfigError`` naming the line."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != _FENCE:
        raise ConfigError(
            "has no front matter",
            path=path,
            line=1,
            remedy="Start the file with a '---' line, the fields (name: ..., description: ...) "
            "and another '---' line",
        )
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == _FENCE)
    except StopIteration:
        raise ConfigError(
            "the front matter is not closed",
            path=path,
            line=1,
            remedy="End the front matter with a line holding only '---'",
        ) from None
    simple = plain_fields(lines[1:end], first_line=2)
    if simple is not None:
        plain, places = simple
        fields: dict[str, object] = dict(plain)
        return _document(path, fields, places, lines, end)
    # Imported here: PyYAML costs a session's start time (~10 ms), and most front matter is
    # plain fields that do without it.
    from actors.skills.safe_yaml import REMEDY, load_fields

    value, places = load_fields("\n".join(lines[1:end]), path, first_line=2)
    if value is None:
        value = {}
    if not isinstance(value, dict):
        found = f"{value!r}" if isinstance(value, str) else f"a {type(value).__name__}"
        raise ConfigError(
            f"expected 'field: value' lines, found {found}", path=path, line=2, remedy=REMEDY
        )
    return _document(path, value, places, lines, end)


def _document(
    path: str, fields: dict[str, object], places: dict[str, int], lines: list[str], end: int
) -> Document:
    rest = lines[end + 1 :]
    skip = next((i for i, line in enumerate(rest) if line.strip()), len(rest))
    body = "\n".join(rest[skip:]).rstrip()
    return Document(path, fields, places, body, end + 2 + skip)


def parse_as_the_reference(text: str, path: str) -> Document:
    """``parse``, reading what the reference assistant reads although YAML alone would not: an
    unquoted ``argument-hint: [file] [format]`` is the text written, and, when the front
    matter does not parse as it is, a one-line value holding ': ' (the reference's own agent
    generator writes descriptions with 'Examples: ... Context: ...' unquoted) is read as the
    text it is. Anything else YAML refuses is the first parse's fault, unchanged."""
    text = _quote_values(text, _BRACKET_HINT)
    try:
        return parse(text, path)
    except ConfigError as first:
        retried = _quote_values(text, _PLAIN_FIELD, holding=": ")
        if retried != text:
            try:
                return parse(retried, path)
            except ConfigError:
                pass
        raise first


def _quote_values(text: str, pattern: re.Pattern[str], holding: str = "") -> str:
    """``text`` with the value (group 2) of each front matter line ``pattern`` matches, and
    that holds ``holding``, double-quoted; every line keeps its number."""
    lines = text.split("\n")
    if lines[0].lstrip("\ufeff").strip() != _FENCE:
        return text
    for index in range(1, len(lines)):
        if lines[index].strip() == _FENCE:
            break  # the front matter ends here: the body is not YAML
        found = pattern.match(lines[index])
        if found and holding in found[2]:
            # A JSON string is a YAML double-quoted one, escapes included.
            lines[index] = found[1] + json.dumps(found[2], ensure_ascii=False)
    return "\n".join(lines)


class FileFaults(ConfigError):
    """Every fault of one file at once: fixing them one run at a time is slow going."""

    def __init__(self, path: str, faults: Sequence[ConfigError]) -> None:
        listed = "\n".join(f"  {fault.describe()}".replace("\n", "\n  ") for fault in faults)
        super().__init__(f"{len(faults)} faults:\n{listed}", path=path)
        self.faults = tuple(faults)


class Faults(msgspec.Struct):
    """The faults found in one file so far; ``check`` raises them together."""

    path: str
    found: list[ConfigError] = msgspec.field(default_factory=list)

    def add(self, fault: ConfigError) -> None:
        self.found.append(fault)

    def field(self, document: Document, key: str, why: str, remedy: str | None) -> None:
        """A fault of the field ``key``: the file, the field's line and name, why, the remedy."""
        line = document.line_of(key)
        self.add(ConfigError(why, path=document.path, line=line, field=key, remedy=remedy))

    def check(self) -> None:
        if len(self.found) == 1:
            raise self.found[0]
        if self.found:
            raise FileFaults(self.path, self.found)
