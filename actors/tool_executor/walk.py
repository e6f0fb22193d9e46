"""Walking a project tree for Glob and Grep: glob patterns, skipped folders, simple .gitignore.

Blocking; runs in a worker thread. ``stop`` is checked between directories so that an abandoned
search ends soon instead of scanning on in the background.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import threading
    from collections.abc import Iterator

# Folders that are never the answer and can be huge. A pattern that names one still enters it.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over ``/``-separated relative paths.

    ``*`` and ``?`` stay within one path segment, ``**`` crosses any number of them (``a/**/b``
    also matches ``a/b``), ``[...]`` is a class and ``{x,y}`` an alternative, as in ripgrep.
    """
    out: list[str] = []
    i, n, depth = 0, len(pattern), 0
    while i < n:
        char = pattern[i]
        if pattern.startswith("**", i):
            i += 2
            if pattern.startswith("/", i):
                out.append("(?:.*/)?")
                i += 1
            else:
                out.append(".*")
            continue
        i += 1
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := pattern.find("]", i + 1)) != -1:
            body = pattern[i:end]
            negate = body.startswith(("!", "^"))
            body = (body[1:] if negate else body).replace("\\", "\\\\")
            out.append(f"[{'^' if negate else ''}{body}]")
            i = end + 1
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
    return re.compile("".join(out) + ")" * depth + r"\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    base: str  # the directory of the .gitignore, relative to the walk root ("" for the root)
    negate: bool
    dir_only: bool
    anchored: bool  # a slash inside: matched against the path from ``base``, not the name


def _load_ignore(directory: str, rel: str) -> list[_Rule]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line.removeprefix("!").removeprefix("\\")
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        anchored = "/" in line
        line = line.lstrip("/")
        if line:
            rules.append(_Rule(glob_regex(line), rel, negate, dir_only, anchored))
    return rules


def _ignored(rules: list[_Rule] | None, rel: str, name: str, is_dir: bool) -> bool:
    if rules is None:
        return False
    ignored = False
    for rule in rules:  # the last matching rule wins, as in git
        if rule.dir_only and not is_dir:
            continue
        if rule.anchored:
            prefix = rule.base + "/" if rule.base else ""
            if not rel.startswith(prefix) or not rule.regex.match(rel[len(prefix) :]):
                continue
        elif not rule.regex.match(name):
            continue
        ignored = not rule.negate
    return ignored


@dataclass(frozen=True, slots=True)
class Found:
    path: str  # absolute
    rel: str  # from the walk root, "/"-separated
    mtime: float
    size: int


def walk_files(
    root: str,
    stop: threading.Event,
    *,
    top: str | None = None,
    enter: frozenset[str] = frozenset(),
) -> Iterator[Found]:
    """Every file under ``root``, in name order, skipping SKIP_DIRS (except those in ``enter``)
    and what .gitignore files exclude: those met on the way, and those in the folders from
    ``top`` (the project root) down to ``root``. Symlinked folders are not followed.

    A search asked to look inside an ignored folder (``.venv/lib``, ``build``) looks: there the
    .gitignore files are not applied at all.
    """
    key, rules = _ancestor_rules(root, top)
    # A stack of files to yield and folders to open, so the order is a depth-first name order.
    pending: list[Found | _Folder] = [_Folder(root, "", key, rules)]
    while pending and not stop.is_set():
        item = pending.pop()
        if isinstance(item, Found):
            yield item
        else:
            pending.extend(reversed(list(_open(item, enter))))


@dataclass(frozen=True, slots=True)
class _Folder:
    path: str
    rel: str  # from the walk root, for glob patterns
    key: str  # from the project root, for .gitignore rules
    rules: list[_Rule] | None  # None: the walk is inside an ignored folder, rules are off


def _open(folder: _Folder, enter: frozenset[str]) -> Iterator[Found | _Folder]:
    """A folder's files and subfolders, by name, less the skipped and the ignored."""
    rules = folder.rules
    if rules is not None:
        rules = rules + _load_ignore(folder.path, folder.key)
    try:
        with os.scandir(folder.path) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return  # unreadable or vanished: nothing to report from it
    for entry in entries:
        rel = f"{folder.rel}/{entry.name}" if folder.rel else entry.name
        key = f"{folder.key}/{entry.name}" if folder.key else entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                skipped = entry.name in SKIP_DIRS and entry.name not in enter
                if not skipped and not _ignored(rules, key, entry.name, True):
                    yield _Folder(entry.path, rel, key, rules)
            elif entry.is_file() and not _ignored(rules, key, entry.name, False):
                st = entry.stat()
                yield Found(entry.path, rel, st.st_mtime, st.st_size)
        except OSError:
            continue


def _ancestor_rules(root: str, top: str | None) -> tuple[str, list[_Rule] | None]:
    """``root``'s path from ``top`` and the .gitignore rules of the folders above it, or
    ``None`` when ``root`` is in an ignored folder.

    Rules match paths from ``top``, so a search in a subfolder ignores what the project does.
    A folder whose own .gitignore ignores itself (``*``, as uv and virtualenv write) counts as
    ignored too.
    """
    inside = top is not None and (root == top or root.startswith(top.rstrip(os.sep) + os.sep))
    if top is None or not inside:
        top, key = root, ""
    else:
        key = os.path.relpath(root, top).replace(os.sep, "/") if root != top else ""
    parts = key.split("/") if key else []
    rules: list[_Rule] = []
    for depth in range(len(parts) + 1):
        folder = "/".join(parts[:depth])
        own = _load_ignore(os.path.join(top, *parts[:depth]), folder)
        if _ignored(own, f"{folder}/.gitignore" if folder else ".gitignore", ".gitignore", False):
            return key, None
        if depth == len(parts):
            break  # the root's own rules are read as the walk opens it
        rules += own
        child = parts[depth]
        if _ignored(rules, f"{folder}/{child}" if folder else child, child, True):
            return key, None
    return key, rules


def named_dirs(pattern: str) -> frozenset[str]:
    """The skipped folders a pattern names outright (``node_modules/**``): those are entered."""
    return frozenset(part for part in re.split(r"[/{},]", pattern) if part in SKIP_DIRS)
