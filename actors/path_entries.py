"""Path rules: ``allowedPaths`` / ``blockedPaths`` entries, read as gitignore lines.

An entry means what it would mean in the project's ``.gitignore`` (``actors/path_patterns.py``
has the whole language): ``*.pem`` and ``secrets/`` match at any depth, ``/build`` or
``src/*.py`` are anchored at the project root (``./build`` too), and a matched folder covers
everything under it. Two spellings reach outside the project: ``~/...`` is under the home
folder and ``//...`` is an absolute path (``//etc/ssl``). ``!`` re-includes, in allowedPaths
only.

Paths are compared after ``os.path.realpath``, and blocked entries are checked against the path
as written too: neither ``..`` nor a symlink leads around a block. A path outside the project
is allowed only by a ``~/`` or ``//`` entry.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from actors.path_patterns import (
    GitPattern,
    PatternError,
    PatternList,
    check_rule,
    literal_prefix,
    normalise,
    parse_rule,
)
from actors.places import within as within  # importers of the rules find it here too

if TYPE_CHECKING:
    from collections.abc import Sequence

Scope = Literal["project", "home", "system"]
# A name no literal pattern names: an entry that matches it matches whatever a folder holds.
_ANY_CHILD = "\x00any"


@dataclass(frozen=True, slots=True)
class PathRule:
    """One entry: ``text`` as the user wrote it, the folder its pattern is relative to."""

    text: str
    scope: Scope
    base: str  # a real absolute folder
    pattern: GitPattern
    literal: str  # the real absolute folder its pattern names before any wildcard

    @property
    def negated(self) -> bool:
        return self.pattern.negated


def parse_entry(text: str, root: str, *, negation: bool, home: str | None = None) -> PathRule:
    """An entry of allowedPaths (``negation=True``) or blockedPaths; raises PatternError."""
    check_rule(text, negation=negation)
    body = text.strip()
    bang = "!" if body.startswith("!") else ""
    body = body[len(bang) :]
    if body == "~" or body.startswith("~/"):
        scope: Scope = "home"
        base = os.path.realpath(home or os.path.expanduser("~"))
        glob = "/" + body[2:] if body not in ("~", "~/") else "/**"  # "~/": all of home
    elif body.startswith("//"):
        scope, base, glob = "system", "/", "/" + body.lstrip("/")
        if glob == "/":
            glob = "/**"
    elif body.startswith("~"):
        raise PatternError("'~user' folders are not supported; write '~/...' or '//home/user/...'")
    else:
        scope, base = "project", root
        glob = "/" + body[2:] if body.startswith("./") else body
        if glob in ("", "/", ".", "./"):
            glob = "/**"  # the whole project
    if scope != "project":
        # Resolve the literal folders, so a rule for a symlinked folder (/tmp on macOS) still
        # names the real paths it is compared with.
        prefix = literal_prefix(glob)
        if prefix:
            base = os.path.realpath(os.path.join(base, prefix))
            rest = glob.strip("/")[len(prefix) :].lstrip("/")
            glob = "/" + rest + ("/" if glob.endswith("/") and rest else "")
            if glob in ("/", "//"):
                glob = "/**"
    pattern = parse_rule(bang + glob, negation=negation)
    anchored = "/" in glob.rstrip("/")
    named = literal_prefix(glob) if anchored else ""
    literal = os.path.join(base, named) if named else base
    return PathRule(text, scope, base, pattern, literal)


class PathRules:
    """The project's path entries, and the questions the broker asks of a path."""

    def __init__(
        self,
        root: str,
        allowed: Sequence[str],
        blocked: Sequence[str],
        *,
        home: str | None = None,
        more_roots: Sequence[str] = (),
    ) -> None:
        self.root = root  # a real absolute path
        # Other folders the tools work in as in the project (the Agent SDK's add_dirs): real
        # absolute paths. Rules and what is shown stay relative to ``root``.
        self.more_roots = tuple(more_roots)
        self.allowed = tuple(parse_entry(t, root, negation=True, home=home) for t in allowed)
        self.blocked = tuple(parse_entry(t, root, negation=False, home=home) for t in blocked)
        self._allowed_groups = _groups(self.allowed)
        self._blocked_groups = _groups(self.blocked)

    def resolve(self, path: str) -> str:
        """The real absolute path an operation touches; relative paths start at the root."""
        return os.path.realpath(os.path.join(self.root, os.path.expanduser(path)))

    def written(self, path: str) -> str:
        """The absolute path as written, ``..`` folded but symlinks not followed."""
        if _normal(path):
            return path  # as a walk gives them: thousands at a time, each as it is
        return os.path.normpath(os.path.join(self.root, os.path.expanduser(path)))

    def inside(self, resolved: str) -> bool:
        """In the project, or in one of the other folders the session works in."""
        return within(resolved, self.root) or any(within(resolved, r) for r in self.more_roots)

    def relative(self, resolved: str) -> str:
        """How to show a path: relative to the root when inside it, else absolute."""
        if within(resolved, self.root):
            return os.path.relpath(resolved, self.root).replace(os.sep, "/")
        return resolved

    def blocked_by(self, path: str) -> PathRule | None:
        """The blocked entry that matches ``path``, checked both as written and as resolved.

        As written too, so that a symlink placed inside a blocked folder is still blocked.
        """
        for candidate in dict.fromkeys((self.resolve(path), self.written(path))):
            found = _decide(self._blocked_groups, candidate)
            if found is not None:
                return found
        return None

    def blocked_in_walk(
        self, resolved: str, written: str, is_dir: bool, folders: dict[str, bool]
    ) -> bool:
        """Whether a blocked entry matches a path met on a walk, given resolved and as written.

        ``blocked_by``'s answer, found faster: a walk meets many files in one folder, and a path
        is decided by the first folder on its way down that is matched, else by its own name
        (``PatternList.decide``), so the verdict on its folder, kept in ``folders``, leaves
        only its name to match.
        """
        if not self.blocked:
            return False
        for candidate in dict.fromkeys((resolved, written)):
            parent = os.path.dirname(candidate)
            if parent not in folders:
                folders[parent] = _decide(self._blocked_groups, parent, True) is not None
            if folders[parent] or _decide_name(self._blocked_groups, candidate, is_dir):
                return True
        return False

    def allowed_by(self, path: str) -> PathRule | None:
        """The allowed entry that matches ``path`` as resolved (None, too, for a ``!`` entry).

        A folder is also allowed when an entry allows whatever it holds (``src/**`` allows the
        folder ``src``): asking to search it is asking to read what is in it.
        """
        resolved = self.resolve(path)
        if not self.inside(resolved) and not any(r.scope != "project" for r in self.allowed):
            return None
        found = _decide(self._allowed_groups, resolved)
        if found is None and os.path.isdir(resolved):
            found = _decide(self._allowed_groups, os.path.join(resolved, _ANY_CHILD), False)
        return found

    def names_file(self, path: str) -> bool:
        """An allowed entry names the file ``path`` itself, with no wildcard (``fmt.sh``,
        ``/scripts/fmt.sh``): what allows a file a hook runs to be edited unasked, as
        ``.legato/skills/**`` allows a folder of Legato's own."""
        if self.allowed_by(path) is None:
            return False
        for rule in self.allowed:
            body = rule.text.strip().removeprefix("./").strip("/")
            if rule.negated or rule.scope != "project" or glob.has_magic(body):
                continue
            if os.path.join(rule.base, body) == path:
                return True
        return False

    def names_explicitly(self, resolved: str, place: str) -> PathRule | None:
        """An allowed entry that names ``place`` by its literal folders and matches
        ``resolved``, which the entries allow as a whole (``.legato/skills/**`` names
        ``.legato/skills/x.md``; ``**`` and ``*.md`` name no place)."""
        if self.allowed_by(resolved) is None:
            return None
        for rule in self.allowed:
            if rule.negated or not within(rule.literal, place) or rule.literal == rule.base:
                continue
            if _decide((_Group(rule.base, (rule,), PatternList([rule.pattern])),), resolved):
                return rule
        return None


def rule_matches(rule: PathRule, absolute: str) -> bool:
    """Whether the one entry ``rule`` matches ``absolute`` (absolute, normalised)."""
    group = _Group(rule.base, (rule,), PatternList([rule.pattern]))
    return _decide((group,), absolute) is rule


@dataclass(frozen=True, slots=True)
class _Group:
    base: str
    rules: tuple[PathRule, ...]
    patterns: PatternList


def _groups(rules: Sequence[PathRule]) -> tuple[_Group, ...]:
    """Entries grouped by the folder they are relative to, in the order written."""
    by_base: dict[str, list[PathRule]] = {}
    for rule in rules:
        by_base.setdefault(rule.base, []).append(rule)
    return tuple(
        _Group(base, tuple(group), PatternList([rule.pattern for rule in group]))
        for base, group in by_base.items()
    )


def _decide(groups: Sequence[_Group], absolute: str, is_dir: bool | None = None) -> PathRule | None:
    if is_dir is None:
        is_dir = os.path.isdir(absolute)
    for group in groups:
        if not within(absolute, group.base):
            continue
        rel = normalise(os.path.relpath(absolute, group.base).replace(os.sep, "/"))
        pattern = group.patterns.decide(rel if rel != "." else "", is_dir)
        if pattern is not None and not pattern.negated:
            return next(rule for rule in group.rules if rule.pattern is pattern)
    return None


def _decide_name(groups: Sequence[_Group], absolute: str, is_dir: bool) -> bool:
    """Whether a pattern matches ``absolute`` itself, whose folders no pattern matches."""
    for group in groups:
        if absolute == group.base or not within(absolute, group.base):
            continue
        # Both are absolute and normalised: the path from the base is a slice (relpath is
        # slow, and this runs for every file of a walk).
        rel = normalise(absolute[len(group.base) :].replace(os.sep, "/"))
        found = group.patterns.last_match(rel, is_dir)
        if found is not None and not found.negated:
            return True
    return False


def _normal(path: str) -> bool:
    """Whether ``path`` is absolute and ``os.path.normpath`` would leave it as it is: no ``.``
    or ``..`` part (nor any name starting with a dot: a quick look), no empty part, no ``/``
    at its end."""
    return (
        path.startswith(os.sep)
        and f"{os.sep}." not in path
        and os.sep * 2 not in path
        and not path.endswith(os.sep)
    )
