"""The front matter of skill and pattern files: a small, strict subset of YAML.

Enough for spec 2.1 and 2.2 and nothing more, so that no YAML library is needed and every
fault can name its line::

    ---
    name: crud-gen                      # a scalar: bare, "double" or 'single' quoted
    description: Generate CRUD code
    tags: [api, web]                    # a flow list of scalars
    args:                               # a block list of scalars or of small mappings
      - name: entity
        required: true
        choices: [a, b]
    ---

Scalars: ``true``/``false`` are booleans, whole numbers are integers, the rest are strings
(quoting keeps ``"true"`` a string). A ``#`` after a space starts a comment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from actors.errors import ConfigError

Scalar = str | int | bool

_KEY = re.compile(r"^([A-Za-z_][\w-]*):(?:\s+(.*))?$")
_FENCE = "---"


@dataclass
class Document:
    path: str
    fields: dict[str, object]
    lines: dict[str, int]  # "args[0].name" -> line number, for messages
    body: str
    body_line: int  # the body's first line number

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)


@dataclass
class _Cursor:
    lines: list[str]
    path: str
    index: int = 0
    seen: dict[str, int] = field(default_factory=dict)


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
    cursor = _Cursor(lines[1:end], path)
    fields: dict[str, object] = {}
    while cursor.index < len(cursor.lines):
        raw = cursor.lines[cursor.index]
        line_no = cursor.index + 2
        text_line = _strip_comment(raw)
        if not text_line.strip():
            cursor.index += 1
            continue
        if raw[:1].isspace():
            raise _fault(path, line_no, "is indented but belongs to no field")
        key, value = _key_value(text_line, path, line_no)
        if key in fields:
            raise _fault(path, line_no, f"repeats the field '{key}'", field=key)
        cursor.seen[key] = line_no
        cursor.index += 1
        fields[key] = _block(cursor, key) if value is None else _inline(value, path, line_no)
    rest = lines[end + 1 :]
    skip = next((i for i, line in enumerate(rest) if line.strip()), len(rest))
    body = "\n".join(rest[skip:]).rstrip()
    return Document(path, fields, cursor.seen, body, end + 2 + skip)


def _block(cursor: _Cursor, key: str) -> object:
    """What follows ``key:`` on the next, indented lines: a list, or nothing (empty string)."""
    items: list[object] = []
    while cursor.index < len(cursor.lines):
        raw = cursor.lines[cursor.index]
        line_no = cursor.index + 2
        text_line = _strip_comment(raw)
        if not text_line.strip():
            cursor.index += 1
            continue
        if not raw[:1].isspace():
            break
        stripped = text_line.strip()
        if not stripped.startswith("- ") and stripped != "-":
            raise _fault(cursor.path, line_no, "expected a list item starting with '- '", key)
        indent = len(raw) - len(raw.lstrip())
        rest = stripped[1:].strip()
        cursor.index += 1
        where = f"{key}[{len(items)}]"
        cursor.seen[where] = line_no
        if _KEY.match(rest):
            items.append(_mapping(cursor, rest, indent + 2, where, line_no))
        else:
            items.append(_inline(rest, cursor.path, line_no))
    return items if items else ""


def _mapping(cursor: _Cursor, first: str, indent: int, where: str, line_no: int) -> object:
    mapping: dict[str, object] = {}
    key, value = _key_value(first, cursor.path, line_no)
    mapping[key] = _inline(value or "", cursor.path, line_no)
    cursor.seen[f"{where}.{key}"] = line_no
    while cursor.index < len(cursor.lines):
        raw = cursor.lines[cursor.index]
        number = cursor.index + 2
        text_line = _strip_comment(raw)
        if not text_line.strip():
            cursor.index += 1
            continue
        own = len(raw) - len(raw.lstrip())
        if own < indent or text_line.strip().startswith("- "):
            break
        key, value = _key_value(text_line.strip(), cursor.path, number)
        if key in mapping:
            raise _fault(cursor.path, number, f"repeats the field '{key}'", f"{where}.{key}")
        mapping[key] = _inline(value or "", cursor.path, number)
        cursor.seen[f"{where}.{key}"] = number
        cursor.index += 1
    return mapping


def _key_value(text: str, path: str, line_no: int) -> tuple[str, str | None]:
    match = _KEY.match(text.strip())
    if match is None:
        raise _fault(path, line_no, f"expected 'field: value', found {text.strip()!r}")
    value = match.group(2)
    return match.group(1), (value.strip() if value and value.strip() else None)


def _inline(text: str, path: str, line_no: int) -> object:
    if text.startswith("["):
        if not text.endswith("]"):
            raise _fault(path, line_no, f"the list {text!r} is not closed with ']'")
        inner = text[1:-1].strip()
        if not inner:
            return []
        return [_scalar(part.strip(), path, line_no) for part in _split_flow(inner)]
    return _scalar(text, path, line_no)


def _split_flow(inner: str) -> list[str]:
    """``a, "b, c", d`` -> three parts: commas inside quotes do not split."""
    parts, current, quote = [], "", ""
    for char in inner:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == ",":
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return parts


def _scalar(text: str, path: str, line_no: int) -> Scalar:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text[:1] in "\"'":
        raise _fault(path, line_no, f"the quoted value {text!r} is not closed")
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def _strip_comment(line: str) -> str:
    """Drop a ``#`` comment that follows a space and is not inside quotes."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def _fault(path: str, line: int, message: str, field: str | None = None) -> ConfigError:
    return ConfigError(
        message,
        path=path,
        line=line,
        field=field,
        remedy="Fix the front matter (see docs/skills-and-patterns.md for its format)",
    )
