"""``/add-dir <path>``: the folder a person names, checked before the broker and the conductor
learn it (``AddDirectory``).

The same folder ``--add-dir`` would take, by the same reading: ``~`` expanded, a relative path
from the project root (where the session works, whatever folder legato was started in), and
symlinks followed, so that the real folder is what the rules cover and what is shown. The
whole file system, the home folder and any folder holding it are refused as too broad for a
command typed in passing: the home folder holds the credentials of every other program. So is
a folder that holds or lies in Legato's own (``~/.legato``, ``~/.config/legato``): its key,
approvals and sessions are not for the tools to read as project files.
"""

from __future__ import annotations

import os

from actors.errors import UsageError
from actors.places import opens_legato_folder, within
from actors.visible import escape_controls

_USAGE = "Type /add-dir <path>: an existing folder, relative to the project root or from ~"


def folder_to_add(argument: str, root: str, home: str) -> str:
    """The real absolute folder ``argument`` names (``~``: the session's ``home``); UsageError
    saying what is wrong with it."""
    given = argument.strip()
    if not given:
        raise UsageError("/add-dir needs a folder", remedy=_USAGE)
    shown = escape_controls(given, newlines=True)
    expanded = home + given[1:] if given == "~" or given.startswith("~/") else given
    path = os.path.realpath(os.path.join(root, expanded))
    real = escape_controls(path, newlines=True)
    if not os.path.exists(path):
        raise UsageError(f"/add-dir {shown}: no such folder ({real})", remedy=_USAGE)
    if not os.path.isdir(path):
        raise UsageError(
            f"/add-dir {shown}: {real} is a file, not a folder",
            remedy="Give the folder that holds it",
        )
    if path == os.sep:
        raise UsageError(
            f"/add-dir {shown}: that is the whole file system, too broad to work in as in the "
            "project",
            remedy="Add the folder you mean to work in; to work everywhere, start legato with "
            "--add-dir /",
        )
    if within(os.path.realpath(home), path):
        what = (
            "your home folder"
            if path == os.path.realpath(home)
            else "a folder that holds your home folder"
        )
        raise UsageError(
            f"/add-dir {shown}: that is {what}, too broad to work in as in the "
            "project (it holds every program's credentials)",
            remedy="Add the folder inside it you mean to work in; to work in all of it, start "
            "legato with --add-dir ~",
        )
    own = opens_legato_folder(path, root, home)
    if own is not None:
        # Its key, hooks, approvals and sessions: what decides what the model may do.
        raise UsageError(
            f"/add-dir {shown}: that would open Legato's own folder "
            f"{escape_controls(own, newlines=True)} (your API key, "
            "approvals and sessions) to the tools",
            remedy="Add a folder that neither holds it nor lies inside it; 'legato config' "
            "shows Legato's settings",
        )
    return path
