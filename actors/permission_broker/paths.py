"""Path rules: ``allowedPaths`` / ``blockedPaths`` globs (spec 2.4) against real paths.

A pattern is relative to the project root and anchored there (``*.md`` is a Markdown file in
the root; ``**/*.md`` is one anywhere). ``*`` and ``?`` stay within one path segment, ``**``
spans any number of segments, ``[abc]`` is a character class. A pattern that names a
directory covers everything under it (``secrets/``, ``secrets`` and ``src/*`` all do).
A pattern starting with ``/`` or ``~`` names an absolute place, for blocking things such as
``~/.ssh`` outside the project.

Paths are compared after ``os.path.realpath``: ``..`` and symlinks cannot lead out of the
project or around a block. A path outside the project root never matches an allowed pattern.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class PathPattern:
    text: str  # as the user wrote it, for messages
    regex: re.Pattern[str]
    absolute: bool

    @classmethod
    def parse(cls, text: str) -> PathPattern:
        pattern = text.strip()
        absolute = pattern.startswith(("/", "~"))
        if absolute:
            pattern = _resolve_literal_prefix(os.path.expanduser(pattern))
        if absolute and not pattern:
            return cls(text, re.compile(".*"), absolute)  # "/": everywhere
        return cls(text, re.compile(_translate(pattern)), absolute)

    def covers(self, path: str) -> bool:
        """Whether this pattern names ``path`` or a directory above it.

        ``path`` is relative to the root (``src/a.py``, ``.`` for the root itself) for a
        relative pattern, absolute for an absolute one.
        """
        return any(self.regex.fullmatch(prefix) for prefix in _prefixes(path))


class PathRules:
    """The project's path patterns, and the questions the broker asks of a path."""

    def __init__(self, root: str, allowed: Sequence[str], blocked: Sequence[str]) -> None:
        self.root = root  # a real absolute path
        self.allowed = tuple(PathPattern.parse(text) for text in allowed)
        self.blocked = tuple(PathPattern.parse(text) for text in blocked)

    def resolve(self, path: str) -> str:
        """The real absolute path an operation touches; relative paths start at the root."""
        return os.path.realpath(os.path.join(self.root, os.path.expanduser(path)))

    def inside(self, resolved: str) -> bool:
        return resolved == self.root or resolved.startswith(self.root.rstrip(os.sep) + os.sep)

    def relative(self, resolved: str) -> str:
        """How to show a path: relative to the root when inside it, else absolute."""
        if self.inside(resolved):
            return os.path.relpath(resolved, self.root).replace(os.sep, "/")
        return resolved

    def blocked_by(self, path: str) -> PathPattern | None:
        """The blocked pattern that covers ``path``, checked both as written and as resolved.

        As written too, so that a symlink placed inside a blocked folder is still blocked.
        """
        written = os.path.normpath(os.path.join(self.root, os.path.expanduser(path)))
        for candidate in dict.fromkeys((self.resolve(path), written)):
            for pattern in self.blocked:
                if self._matches(pattern, candidate):
                    return pattern
        return None

    def allowed_by(self, path: str) -> PathPattern | None:
        resolved = self.resolve(path)
        if not self.inside(resolved):
            return None
        return next((p for p in self.allowed if self._matches(p, resolved)), None)

    def _matches(self, pattern: PathPattern, absolute: str) -> bool:
        if pattern.absolute:
            return pattern.covers(absolute.lstrip("/"))
        if not self.inside(absolute):
            return False
        return pattern.covers(self.relative(absolute))


def _prefixes(path: str) -> Iterator[str]:
    """``a/b/c`` -> ``a``, ``a/b``, ``a/b/c``: the path and every directory above it."""
    parts = path.split("/")
    for end in range(1, len(parts) + 1):
        yield "/".join(parts[:end])


def _resolve_literal_prefix(pattern: str) -> str:
    """``/tmp/x/*.log`` -> ``private/tmp/x/*.log`` where /tmp is a symlink (macOS).

    Only the part before the first wildcard can be resolved; the result has no leading slash,
    to be matched against resolved paths stripped the same way.
    """
    parts = pattern.rstrip("/").split("/")
    literal = 0
    while literal < len(parts) and not _GLOB_CHARS.search(parts[literal]):
        literal += 1
    head = os.path.realpath("/".join(parts[:literal]) or "/")
    return "/".join([head.rstrip("/"), *parts[literal:]]).lstrip("/")


def _translate(pattern: str) -> str:
    """A glob -> a regex over ``/``-separated relative paths."""
    parts = [part for part in pattern.strip("/").split("/") if part not in ("", ".")]
    out = ""
    for i, part in enumerate(parts):
        first, last = i == 0, i == len(parts) - 1
        if part == "**":
            if last:
                out += ".*" if first else "(?:/.*)?"
            else:
                out += "(?:.*/)?" if first else "/(?:.*/)?"
            continue
        if not first and parts[i - 1] != "**":
            out += "/"
        out += _translate_segment(part)
    return out or r"\."  # an empty pattern ("", "/", ".") names the root itself


def _translate_segment(segment: str) -> str:
    out = ""
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out += "[^/]*"
        elif char == "?":
            out += "[^/]"
        elif char == "[" and (end := segment.find("]", i + 2)) != -1:
            body = segment[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out += "[" + ("^" if negate else "") + _class_body(body) + "]"
            i = end
        else:
            out += re.escape(char)
        i += 1
    return out


def _class_body(body: str) -> str:
    """A glob character class's inside, escaped for ``re`` except for ranges (``0-9``)."""
    out = ""
    for i, char in enumerate(body):
        is_range = char == "-" and 0 < i < len(body) - 1 and "-" not in (body[i - 1], body[i + 1])
        out += char if is_range else re.escape(char)
    return out
