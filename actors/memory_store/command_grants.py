"""The project's commands and skills that grant themselves tools: trust items.

A command or skill file may name tools in ``allowed-tools`` that its prompt then uses without
a question (frontends/skills/command_run.py). A project's file is a cloned repository's
words, so what it grants is widening like an allow rule of its settings: each such field is a
trust item, and the fingerprint the user trusts covers it. A command added or changed by a
later pull makes the project untrusted again until the user looks, as a new allow rule does.

The files are found as the skill library finds them, a little more widely (a file it would
refuse still counts here: one item too many only asks once more), and only the front matter's
``allowed-tools`` lines are read, without parsing YAML.
"""

from __future__ import annotations

import os

from actors.own_files import LIBRARY_CAP, Refused, read_own
from actors.settings import TrustItem

# Where a project's commands and skills are, and how the files lie there.
_TREES = (os.path.join(".claude", "commands"),)  # *.md at any depth (namespaced by folder)
_FOLDERS = (os.path.join(".claude", "skills"), os.path.join(".legato", "skills"))  # */SKILL.md
# The skill library's own bounds on a command tree (actors/skills/reference.py): a file it
# would never run is not worth a trust item, and one it runs is never left out.
MAX_FILES = 500
MAX_DEPTH = 6
KEY = "allowed-tools"
FRONT_MATTER_CAP = 8 * 1024


def granting_items(root: str) -> list[TrustItem]:
    """One item for each project file whose front matter has ``allowed-tools``."""
    items: list[TrustItem] = []
    for path in _candidates(root):
        granted = _allowed_tools(path, root)
        if granted:
            items.append(TrustItem(KEY, granted, source=path))
    return items


def _candidates(root: str) -> list[str]:
    found: list[str] = []
    for tree in _TREES:
        top = os.path.join(root, tree)
        if not os.path.isdir(top):
            continue  # a link to a folder is walked, as the skill library walks it
        for folder, dirs, files in os.walk(top):
            if folder[len(top) :].count(os.sep) >= MAX_DEPTH:
                dirs[:] = []
            dirs[:] = sorted(d for d in dirs if not os.path.islink(os.path.join(folder, d)))
            found += (os.path.join(folder, name) for name in sorted(files) if name.endswith(".md"))
            if len(found) >= MAX_FILES:
                # The skill library runs no more commands than these, found in this order.
                del found[MAX_FILES:]
                break
    for place in _FOLDERS:
        top = os.path.join(root, place)
        try:
            names = sorted(os.listdir(top))
        except OSError:
            continue
        # Every skill folder, as the skill library loads every one.
        found += (os.path.join(top, name, "SKILL.md") for name in names)
    return found


def _allowed_tools(path: str, root: str) -> str:
    """The ``allowed-tools`` field as written (its line and any lines continuing it), or ""."""
    # The front matter is at the top: its first few KiB are read, the whole file (up to the
    # library's cap) only when it does not end there, so a repository of big command files
    # costs no more than one of small ones.
    for cap in (FRONT_MATTER_CAP, LIBRARY_CAP):
        try:
            read = read_own(path, inside=(root,), cap=cap, cut=True)
        except Refused:
            return ""  # not read by the skill library either
        if read is None:
            return ""
        lines = read.data.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()
        if not lines or lines[0].strip() != "---":
            return ""
        if not read.cut or any(line.strip() == "---" for line in lines[1:]):
            break
    taken: list[str] = []
    for line in lines[1:]:
        if line.strip() == "---":
            break
        if taken and line[:1] in (" ", "\t", "-"):
            # A list or a folded value continues the field.
            taken.append(line.strip().removeprefix("-").strip())
        elif taken:
            break
        elif line.split(":", 1)[0].strip() == KEY:
            taken.append(line.split(":", 1)[1].strip())
    return ", ".join(part for part in taken if part)
