"""A reader for Seatbelt profiles (SBPL, a Scheme), enough of one to check what Legato writes.

Lists come back as Python lists, symbols as ``Symbol``, strings as ``Text``, ``#"..."`` regexes
as ``Pattern`` and numbers as ``int``; comments (``;`` to the end of the line) are skipped. An
unbalanced parenthesis or an unterminated string is a ``ValueError``, as it would be a profile
that sandbox-exec refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Iterator


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str


@dataclass(frozen=True, slots=True)
class Text:
    value: str


@dataclass(frozen=True, slots=True)
class Pattern:
    value: str


Form: TypeAlias = "Symbol | Text | Pattern | int | list[Form]"

_DELIMITERS = set(' \t\r\n();"')


def read(source: str) -> list[Form]:
    """Every top-level form of ``source``, in order."""
    top: list[Form] = []
    open_lists: list[list[Form]] = []
    at = 0
    while at < len(source):
        char = source[at]
        into = open_lists[-1] if open_lists else top
        if char in " \t\r\n":
            at += 1
        elif char == ";":
            end = source.find("\n", at)
            at = len(source) if end < 0 else end
        elif char == "(":
            new: list[Form] = []
            into.append(new)
            open_lists.append(new)
            at += 1
        elif char == ")":
            if not open_lists:
                raise ValueError(f"')' at {at} closes nothing")
            open_lists.pop()
            at += 1
        elif char == '"':
            value, at = _string(source, at + 1)
            into.append(Text(value))
        elif source.startswith('#"', at):
            value, at = _string(source, at + 2)
            into.append(Pattern(value))
        else:
            end = at
            while end < len(source) and source[end] not in _DELIMITERS:
                end += 1
            atom = source[at:end]
            into.append(int(atom) if atom.isdigit() else Symbol(atom))
            at = end
    if open_lists:
        raise ValueError(f"{len(open_lists)} '(' left open")
    return top


def _string(source: str, at: int) -> tuple[str, int]:
    """The string starting at ``at`` (after its opening quote), and where reading goes on."""
    value: list[str] = []
    while at < len(source):
        char = source[at]
        if char == "\\" and at + 1 < len(source):
            value.append(source[at + 1])
            at += 2
        elif char == '"':
            return "".join(value), at + 1
        else:
            value.append(char)
            at += 1
    raise ValueError("a string is not closed")


def head(form: Form) -> str | None:
    """The name a list starts with (``deny`` for ``(deny file-read* ...)``), else None."""
    if isinstance(form, list) and form and isinstance(form[0], Symbol):
        return form[0].name
    return None


def walk(form: Form) -> Iterator[Form]:
    """The form and every form inside it, depth first."""
    yield form
    if isinstance(form, list):
        for inner in form:
            yield from walk(inner)
