"""The one definition of "this pattern matches this path": gitignore's, for rules and walks.

A pattern means what it means in a ``.gitignore`` (git's gitignore documentation):

- without a slash (``*.pem``, ``secrets``) it matches a name at any depth;
- with a slash at the start or in the middle (``/build``, ``src/*.py``) it is anchored at the
  base folder (the project root for rules, the ``.gitignore``'s own folder in a walk);
- a trailing slash (``secrets/``) matches directories only;
- ``*`` and ``?`` stay within one name, ``**`` spans folders, ``[...]`` and ``[!...]`` are
  character classes; a leading ``!`` re-includes what an earlier pattern matched;
- the last pattern that matches decides, and nothing under a matched directory can be
  re-included (git does not look inside an ignored directory).

Brace alternatives (``*.{pem,key}``) are expanded in permission rules, and only there: git does
not expand them in ``.gitignore`` files. The glob syntax itself is wcmatch's (``GLOBSTAR``,
``DOTGLOB``), compiled once per pattern; this module adds gitignore's anchoring, negation and
directory rules on top, and refuses patterns that cannot mean what they say.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

_TRAILING_SPACES = re.compile(r"(?<!\\)( +)$")


class PatternError(ValueError):
    """A pattern that cannot mean what it says; the message says why and what to write."""


class GitPattern:
    """One pattern line. ``text`` is the line as written, for messages.

    Its regexes are made on its first match, not as it is read: the memory store reads every
    rule as the session starts, and a session that then matches no path (a one-turn answer)
    never imports wcmatch (~17 ms).
    """

    __slots__ = ("_braces", "_glob", "_regexes", "by_name", "dir_only", "negated", "text")

    def __init__(
        self,
        text: str,
        glob: str,  # the pattern as wcmatch reads it; empty: it matches nothing
        negated: bool,
        dir_only: bool,
        *,
        braces: bool,
        by_name: bool = False,  # no slash: matched against the last name alone
    ) -> None:
        self.text = text
        self.negated = negated
        self.dir_only = dir_only
        self.by_name = by_name
        self._glob = glob
        self._braces = braces
        self._regexes: tuple[re.Pattern[str], ...] | None = None if glob else ()

    @property
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        """One per brace alternative, each matched whole."""
        if self._regexes is None:
            self._regexes = _translate(self._glob, braces=self._braces)
        return self._regexes

    def _key(self) -> tuple[str, str, bool, bool, bool, bool]:
        return (self.text, self._glob, self._braces, self.negated, self.dir_only, self.by_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GitPattern) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"GitPattern({self.text!r})"

    def matches_entry(self, rel: str, is_dir: bool) -> bool:
        """Whether this pattern names ``rel`` itself (a ``/``-separated path from the base)."""
        if self.dir_only and not is_dir:
            return False
        if self.by_name:
            rel = rel[rel.rfind("/") + 1 :]
        return any(regex.fullmatch(rel) for regex in self.regexes)


def parse_rule(text: str, *, negation: bool) -> GitPattern:
    """A permission rule's pattern (allowedPaths, blockedPaths), strictly checked.

    Raises PatternError for what git would read differently from how it looks (a comment, an
    unclosed class), for what this project does not support, and for ``!`` where ``negation``
    is False (a block never gets an exception by accident).
    """
    check_rule(text, negation=negation)
    return _compile(text.strip(), braces=True)


def parse_gitignore(lines: Iterable[str]) -> list[GitPattern]:
    """A ``.gitignore`` file's patterns, read as git reads them: blank lines and comments are
    skipped, and a line git would never match is dropped rather than refused."""
    patterns: list[GitPattern] = []
    for line in lines:
        line = line.rstrip("\r\n")
        lone_backslash = line.endswith("\\") and not line.endswith("\\\\")
        if not line.strip() or line.startswith("#") or lone_backslash:
            continue
        if _unclosed_class(line):
            continue  # git's wildmatch fails such a pattern on every path
        compiled = _compile(line, braces=False)
        if compiled.regexes:
            patterns.append(compiled)
    return patterns


class PatternList:
    """Patterns in order, read the way git reads one ``.gitignore``: the last match decides."""

    def __init__(self, patterns: Sequence[GitPattern]) -> None:
        self.patterns = tuple(patterns)
        self._reversed = self.patterns[::-1]

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def last_match(self, rel: str, is_dir: bool) -> GitPattern | None:
        """The last pattern naming ``rel`` itself, ignoring the folders above it (a walk that
        does not enter matched folders needs no more)."""
        for pattern in self._reversed:
            if pattern.matches_entry(rel, is_dir):
                return pattern
        return None

    def decide(self, rel: str, is_dir: bool) -> GitPattern | None:
        """The pattern that decides ``rel``, folders above it included: the first folder on the
        way down that is matched decides for everything under it. ``None``, or a negated
        pattern, means ``rel`` is not matched."""
        rel = normalise(rel)
        if not rel:
            return None  # the base folder itself is never matched, as in git
        start = 0
        while (slash := rel.find("/", start)) != -1:
            found = self.last_match(rel[:slash], True)
            if found is not None and not found.negated:
                return found
            start = slash + 1
        return self.last_match(rel, is_dir)

    def matches(self, rel: str, is_dir: bool) -> bool:
        found = self.decide(rel, is_dir)
        return found is not None and not found.negated


def normalise(rel: str) -> str:
    """A path as patterns see it: ``/``-separated, no ``./`` or trailing slash, in Unicode NFC
    (so a name typed on one system matches the same name stored decomposed on another)."""
    rel = unicodedata.normalize("NFC", rel)
    parts = [part for part in rel.split("/") if part not in ("", ".")]
    return "/".join(parts)


def literal_prefix(glob: str) -> str:
    """The folders of an anchored glob before its first wildcard: ``src/a/*.py`` -> ``src/a``."""
    parts = glob.strip("/").split("/")
    literal: list[str] = []
    for part in parts[:-1] if not glob.endswith("/") else parts:
        if _has_magic(part):
            break
        literal.append(part)
    return "/".join(literal)


# ── compiling ───────────────────────────────────────────────────────────────────────────────


def _compile(line: str, *, braces: bool) -> GitPattern:
    text = line
    negated = line.startswith("!")
    if negated:
        line = line[1:]
    line = _TRAILING_SPACES.sub("", line)
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
    line = unicodedata.normalize("NFC", line)
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    anchored = "/" in line
    line = line.lstrip("/")
    # Without a slash a pattern matches a name at any depth ("**/" + line). Nothing in such a
    # line can match a "/", so matching the last name alone means the same, and a walk or the
    # broker, which match every file met, pay for a short regex instead of one that scans the
    # whole path.
    return GitPattern(text, line, negated, dir_only, braces=braces, by_name=not anchored)


def _translate(glob: str, *, braces: bool) -> tuple[re.Pattern[str], ...]:
    # Imported here: wcmatch costs every start ~17 ms, and a session compiles its first
    # pattern only when a tool or a walk needs the rules.
    from wcmatch import glob as wcglob

    flags = wcglob.GLOBSTAR | wcglob.DOTGLOB | wcglob.NOUNIQUE | wcglob.FORCEUNIX
    flags |= wcglob.BRACE if braces else 0
    regexes, _ = wcglob.translate(glob, flags=flags)
    return tuple(re.compile(r) for r in regexes)


def check_rule(text: str, *, negation: bool) -> None:
    """Raise PatternError for an entry that cannot mean what it says (see ``parse_rule``)."""
    stripped = text.strip()
    if not stripped:
        raise PatternError("the pattern is empty; remove the entry")
    if any(char in text for char in "\0\n\r"):
        raise PatternError("the pattern holds a NUL byte or a line break; remove them")
    if stripped.startswith("!"):
        if not negation:
            raise PatternError(
                "'!' (an exception) is not accepted in blockedPaths: a block never gets an "
                "exception by accident. Narrow the blocked pattern instead"
            )
        stripped = stripped[1:]
        if not stripped:
            raise PatternError("'!' needs a pattern after it")
    if stripped.startswith("#"):
        raise PatternError(
            "a pattern starting with '#' is a comment in gitignore syntax and matches nothing; "
            "write '\\#' for a name that starts with '#'"
        )
    if stripped.endswith("\\") and not stripped.endswith("\\\\"):
        raise PatternError("the pattern ends with a lone backslash; remove it")
    if _unclosed_class(stripped):
        raise PatternError(
            "the pattern has a '[' with no closing ']'; write '\\[' for a literal bracket"
        )
    depth = 0
    escaped = False
    for char in stripped:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                break
    if depth != 0:
        raise PatternError(
            "the pattern's braces do not pair up; write {a,b} for alternatives, or '\\{' for a "
            "literal brace"
        )
    body = stripped.removeprefix("~/").lstrip("/")
    if any(part in (".", "..") for part in body.rstrip("/").split("/")[1:]) or body.startswith(
        "../"
    ):
        raise PatternError(
            "'.' and '..' inside a pattern are not supported (patterns match paths, not "
            "routes); write the path without them, '//...' for an absolute place or '~/...' "
            "for one in your home folder"
        )


def _unclosed_class(text: str) -> bool:
    """Whether a ``[`` opens a character class that never closes (``]`` right after ``[`` or
    ``[!`` is a member, as in git)."""
    i = 0
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            j = i + 1
            if j < len(text) and text[j] in "!^":
                j += 1
            if j < len(text) and text[j] == "]":
                j += 1
            while j < len(text) and text[j] != "]":
                if text[j] == "[" and text[j + 1 : j + 2] == ":":
                    end = text.find(":]", j + 2)
                    j = end + 2 if end != -1 else j + 1
                    continue
                j += 1
            if j >= len(text):
                return True
            i = j + 1
            continue
        i += 1
    return False


def _has_magic(part: str) -> bool:
    return any(char in part for char in "*?[{\\")
