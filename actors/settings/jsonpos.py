"""Where things are in a JSON text: line and column of each key, and of syntax errors.

msgspec validates fast but reports a failure as a path (``$.allowedPaths[1]``) or a byte
offset; a person fixing a file wants the line. This module maps both back to the text.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import msgspec

from actors.errors import ConfigError
from actors.nesting import MAX_DEPTH, too_deep

JsonPath = tuple[str | int, ...]

# One token of a JSON text that is already known to be valid: a string, a punctuation mark,
# or a bare literal (number, true, false, null).
_TOKEN = re.compile(r'\s*(?:("(?:[^"\\]+|\\.)*")|([{}\[\]:,])|([^\s{}\[\]:,"]+))', re.DOTALL)
_PATH_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


class Position(msgspec.Struct, frozen=True):
    line: int  # 1-based
    column: int  # 1-based, in characters


def position_of(text: str, offset: int) -> Position:
    """The line and column of a character offset."""
    offset = max(0, min(offset, len(text)))
    line_start = text.rfind("\n", 0, offset) + 1
    return Position(text.count("\n", 0, offset) + 1, offset - line_start + 1)


def key_positions(text: str) -> dict[JsonPath, Position]:
    """The position of every object key and every array element in a valid JSON text.

    An object member's position is its key's (that is the line a person looks for); an array
    element's is the element's own. Iterative, so that deep nesting cannot exhaust the stack.
    """
    offsets: dict[JsonPath, int] = {}
    # One frame per open container: (its path, is_object, the current key or index).
    frames: list[tuple[JsonPath, bool, list[str | int]]] = []
    expect_key = False
    for token in _TOKEN.finditer(text):
        string, punct, bare = token.groups()
        if string is None and punct is None and bare is None:
            break  # only whitespace was left
        start = token.start(token.lastindex or 0)
        if expect_key and string is not None:
            path, _, current = frames[-1]
            current[0] = msgspec.json.decode(string)
            offsets[(*path, current[0])] = start
            expect_key = False
            continue
        if punct == ":":
            continue
        if punct == ",":
            _, is_object, current = frames[-1]
            if is_object:
                expect_key = True
            else:
                current[0] = int(current[0]) + 1
            continue
        if punct in ("}", "]"):
            frames.pop()
            expect_key = False
            continue
        # A value starts here.
        if not frames:
            here: JsonPath = ()
        else:
            path, is_object, current = frames[-1]
            here = (*path, current[0])
            if not is_object:
                offsets[here] = start
        if punct == "{":
            frames.append((here, True, [""]))
            expect_key = True
        elif punct == "[":
            frames.append((here, False, [0]))
    return {path: position_of(text, offset) for path, offset in offsets.items()}


def depth_error(text: str) -> tuple[str, Position] | None:
    """What is wrong with a JSON text nested deeper than ``MAX_DEPTH``, and where."""
    offset = too_deep(text)
    if offset is None:
        return None
    return f"the JSON is nested more than {MAX_DEPTH} levels deep", position_of(text, offset)


def decode(path: str, text: str, *, deep_remedy: str, syntax_remedy: str) -> Any:
    """The JSON text of the file ``path``, decoded; a ConfigError naming the line and column
    where it nests too deep or is malformed. The depth is measured before any parser sees it."""
    deep = depth_error(text)
    if deep is not None:
        message, where = deep
        raise ConfigError(
            f"{message} at column {where.column}", path=path, line=where.line, remedy=deep_remedy
        )
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        message, where = syntax_error(text)
        raise ConfigError(
            f"malformed JSON at column {where.column}: {message}",
            path=path,
            line=where.line,
            remedy=syntax_remedy,
        ) from None


def parse_error_path(path: str) -> JsonPath:
    """msgspec's ``$.allowedPaths[1]`` -> ``("allowedPaths", 1)``."""
    steps: list[str | int] = []
    for key, index in _PATH_STEP.findall(path.removeprefix("$")):
        steps.append(int(index) if index else key)
    return tuple(steps)


def format_path(path: JsonPath) -> str:
    """``("allowedPaths", 1)`` -> ``allowedPaths[1]``, the way a person names the field."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out


def syntax_error(text: str) -> tuple[str, Position]:
    """What is wrong with a malformed JSON text, and where.

    Called only after msgspec refused the text. The standard library's parser is asked for the
    words because it names what it expected ("Expecting ',' delimiter") and where, even when
    the text is merely cut short, where msgspec only says "Input data was truncated".
    """
    if not text.strip():
        return "the file is empty (a file with no settings holds {})", Position(1, 1)
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        return _with_hint(text, error.msg, error.pos), position_of(text, error.pos)
    except RecursionError:
        return "the JSON is nested too deeply", Position(1, 1)
    except ValueError:  # an integer past the interpreter's 4300 digits: msgspec places it below
        pass
    # The standard library accepts a few things JSON does not (NaN, Infinity): msgspec's byte
    # offset then locates the problem.
    try:
        msgspec.json.decode(text)
    except msgspec.DecodeError as error:
        found = re.search(r"\(byte (\d+)\)", str(error))
        message = re.sub(r"\s*\(byte \d+\)", "", str(error)).removeprefix("JSON is malformed: ")
        offset = len(text.encode()[: int(found.group(1))].decode(errors="ignore")) if found else 0
        if found is None and "out of range" in message:  # msgspec names no place for these
            number = _unreadable_number(text)
            if number is not None:
                shown = number[1] if len(number[1]) <= 40 else number[1][:37] + "..."
                message = f"the number {shown} is out of range (too large for a setting)"
                offset = number[0]
        return message, position_of(text, offset)
    return "the JSON is malformed", Position(1, 1)


def _unreadable_number(text: str) -> tuple[int, str] | None:
    """The offset and text of the first number a JSON text holds that no parser keeps as it is
    written (``1e999``, or an integer of thousands of digits)."""
    for token in _TOKEN.finditer(text):
        bare = token.group(3)
        if bare is None or bare in ("true", "false", "null"):
            continue
        try:
            huge = math.isinf(float(bare)) or (bare.lstrip("-").isdigit() and len(bare) > 4000)
        except ValueError:
            continue
        if huge:
            return token.start(3), bare
    return None


def _with_hint(text: str, message: str, offset: int) -> str:
    """The parser's message, plus the usual cause when it is a recognisable one."""
    before = text[:offset].rstrip()
    rest = text[offset:]
    if not rest.strip():
        return f"{message} (the file ends before every {{ and [ is closed)"
    if before.endswith(",") and rest[:1] in ("}", "]"):
        return f"{message} (JSON allows no comma after the last item)"
    if rest.startswith(("//", "/*", "#")):
        return f"{message} (JSON allows no comments)"
    if rest.startswith("'"):
        return f"{message} (JSON strings take double quotes)"
    return message
