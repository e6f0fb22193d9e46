"""Writing one permission rule into a settings file, for ``legato permissions allow|ask|deny``
and ``remove``: the person's own act, so it goes into Legato's own files only.

    local    .legato/settings.local.json    personal: git-ignored through .git/info/exclude
    project  .legato/settings.json          shared with the repository
    user     ~/.config/legato/config.json   every project

The file keeps its other keys; it is written atomically (actors/atomic.py). A rule goes into
one list of a file: written as ``deny`` it leaves that file's ``allow`` and ``ask``. The first
time Legato writes a ``settings.local.json`` it adds it to the repository's ``.git/info/exclude``
(the repository's own list of ignored files, never committed), once, and only through a real
file inside the repository's git folder.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from actors.atomic import write_atomically
from actors.errors import ConfigError, UsageError
from actors.memory_store.settings_files import LOCAL_FILE, config_path, local_path, read_text
from actors.memory_store.settings_files import settings_path as project_path
from actors.own_files import SETTINGS_CAP, Refused, read_own, user_folders
from actors.places import within
from actors.settings.jsonpos import decode

if TYPE_CHECKING:
    from actors.protocol import RuleScope
    from actors.settings import RuleBehavior

BEHAVIORS: tuple[RuleBehavior, ...] = ("allow", "ask", "deny")


def target(scope: RuleScope, root: str, home: str) -> str:
    """The file a scope's rules go into."""
    if scope == "user":
        return config_path(home)
    return local_path(root) if scope == "local" else project_path(root)


def rule_problem(text: str) -> str | None:
    """Why ``text`` cannot be a rule as written; None when its shape is one (``Tool`` or
    ``Tool(specifier)``). What a specifier means is the permission broker's to check, at load."""
    if not text.strip():
        return "a rule cannot be empty"
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        return "a rule cannot hold a control character or a line break"
    name, paren, rest = text.partition("(")
    if not name or not (name.replace("_", "").replace("-", "").isalnum() and name.isascii()):
        return f"{text!r} does not begin with a tool's name"
    if paren and not rest.endswith(")"):
        return f"{text!r} opens a '(' it does not close at its end"
    return None


def write_rule(
    path: str, behavior: RuleBehavior | None, text: str, *, inside: tuple[str, ...]
) -> bool:
    """Put ``text`` into ``permissions.<behavior>`` of the file at ``path`` (None: take it out
    of every list); whether the file changed. ``inside``: the folders the file, and the folder
    it is written in, must really be in. Raises ConfigError or UsageError."""
    problem = rule_problem(text)
    if problem:
        raise UsageError(
            problem, remedy='Write a rule such as Bash(npm run test:*) or "Read(./.env)"'
        )
    if behavior is not None:
        from actors.settings.rule_syntax import RuleError, parse

        # A rule the session would refuse at load must not reach the file: it would stop
        # every later start ('WebSearch(x)', 'WebFetch(domain:a b)').
        try:
            parse(text, behavior)
        except RuleError as error:
            raise UsageError(
                f"the rule {text!r} cannot be honoured: {error.reason}",
                remedy=error.remedy[:1].upper() + error.remedy[1:],
            ) from None
    folder = os.path.realpath(os.path.dirname(path))
    if os.path.lexists(os.path.dirname(path)) and not any(within(folder, f) for f in inside):
        raise ConfigError(
            f"its folder leads to {folder}, outside {inside[0]}",
            path=path,
            remedy="Replace the link with a folder of its own, or edit the file by hand",
        )
    existing = read_text(path, inside)
    settings: dict[str, Any] = {}
    if existing is not None:
        found = decode(
            path,
            existing,
            deep_remedy="Fix the file, or move it aside",
            syntax_remedy="Fix the JSON at that line, then run the command again",
        )
        if not isinstance(found, dict):
            raise ConfigError("does not hold one JSON object", path=path, line=1)
        settings = found
    permissions = settings.setdefault("permissions", {})
    if not isinstance(permissions, dict):
        raise ConfigError(
            "'permissions' is not an object",
            path=path,
            field="permissions",
            remedy='Make it an object such as {"allow": []}, or remove it',
        )
    changed = False
    for each in BEHAVIORS:
        rules = permissions.get(each, [])
        if not isinstance(rules, list):
            raise ConfigError(
                f"'permissions.{each}' is not a list",
                path=path,
                field=f"permissions.{each}",
                remedy="Make it a list of rules, or remove it",
            )
        if each == behavior and text not in rules:
            permissions[each] = [*rules, text]
            changed = True
        elif each != behavior and text in rules:
            permissions[each] = [rule for rule in rules if rule != text]
            changed = True
    if not changed:
        return False
    data = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    # A file Legato creates that may end up holding the user's key is the user's alone.
    write_atomically(path, data.encode(), mode=0o600 if existing is None else None)
    return True


def write(
    scope: RuleScope, root: str, home: str, behavior: RuleBehavior | None, text: str
) -> tuple[str, bool, str | None]:
    """``write_rule`` into the scope's file: its path, whether it changed, and the exclude file
    that now lists it when this wrote a ``settings.local.json`` for the first time."""
    path = target(scope, root, home)
    existed = os.path.lexists(path)
    inside = user_folders(home) if scope == "user" else (root,)
    changed = write_rule(path, behavior, text, inside=inside)
    excluded = None
    if changed and scope == "local" and not existed:
        excluded = exclude_local_file(root)
    return path, changed, excluded


# ── .git/info/exclude ────────────────────────────────────────────────────────────────────────


def exclude_local_file(root: str, name: str = LOCAL_FILE) -> str | None:
    """Add ``name`` (``.legato/settings.local.json``, or the personal guide ``CLAUDE.local.md``)
    to the repository's ``info/exclude`` when the project is in a git work tree; the exclude
    file's path when a line was added, else None (not a work tree, already listed, or an
    exclude file that is not a plain file of its own)."""
    top, common = _repository(root)
    if top is None or common is None:
        return None
    pattern = "/" + os.path.relpath(os.path.join(root, name), top).replace(os.sep, "/")
    info = os.path.join(common, "info")
    exclude = os.path.join(info, "exclude")
    # Only into a git folder as git made it (its HEAD and objects): a ``.git`` file of a
    # cloned repository may name any folder. Its info folder a folder of its own, not a link.
    if not (
        os.path.isfile(os.path.join(common, "HEAD"))
        and os.path.isdir(os.path.join(common, "objects"))
    ):
        return None
    if os.path.islink(info) or (os.path.lexists(info) and not os.path.isdir(info)):
        return None
    try:
        found = read_own(exclude, inside=(common,), cap=SETTINGS_CAP)
    except Refused:
        return None  # a link, a FIFO, a file with a second name: never written through
    text = "" if found is None else found.data.decode("utf-8", errors="replace")
    listed = {line.strip() for line in text.splitlines()}
    if pattern in listed or pattern.lstrip("/") in listed:
        return None
    if text and not text.endswith("\n"):
        text += "\n"
    what = "settings" if name == LOCAL_FILE else "guide"
    text += f"# Legato: personal {what}, never committed\n{pattern}\n"
    write_atomically(exclude, text.encode())
    return exclude


def _repository(root: str) -> tuple[str | None, str | None]:
    """The work tree's top folder and the repository's common git folder (where
    ``info/exclude`` lives, shared by its worktrees), or (None, None)."""
    folder = root
    while True:
        dot_git = os.path.join(folder, ".git")
        if os.path.islink(dot_git):
            return None, None  # git's folder elsewhere, by a link: not written through
        if os.path.isdir(dot_git):
            return folder, os.path.realpath(dot_git)
        if os.path.isfile(dot_git):
            return folder, _common_of(folder, dot_git)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None, None
        folder = parent


def _common_of(top: str, dot_git: str) -> str | None:
    """A worktree's ``.git`` file says ``gitdir: <its git folder>``; that folder's
    ``commondir`` names the repository's own."""
    try:
        with open(dot_git, encoding="utf-8") as file:
            first = file.readline(4096).strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = os.path.join(top, first.removeprefix("gitdir:").strip())
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as file:
            common = file.readline(4096).strip()
    except FileNotFoundError:
        return os.path.realpath(gitdir)  # a submodule's git folder is its own
    except OSError:
        return None
    return os.path.realpath(os.path.join(gitdir, common))
