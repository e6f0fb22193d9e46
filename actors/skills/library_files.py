"""``/patterns``: where the project's pattern library lives, and ``/patterns init``, which puts
the library's README and changelog there, in ``.legato/patterns/``, as the specification places
them (beside the pattern files, kept in version control with them).

The copies start from the bundled README and changelog; an existing file is left as it is, so
running it twice, or after editing them, loses nothing.
"""

from __future__ import annotations

import os
import shutil

from actors.errors import ConfigError, UsageError
from actors.path_entries import within
from actors.skills.changelog import CHANGELOG_FILE
from actors.skills.patterns import BUNDLED_PATTERNS, PROJECT_PATTERNS, project_patterns_dir

README_FILE = "README.md"
LIBRARY_FILES = (README_FILE, CHANGELOG_FILE)


def patterns_text(project_root: str, args: tuple[str, ...], *, in_session: bool) -> str:
    """What ``/patterns [init]`` shows, after ``init`` has written what was missing."""
    command = "Type /patterns init" if in_session else "Run 'legato /patterns init'"
    if args not in ((), ("init",)):
        raise UsageError(
            f"/patterns takes no argument but 'init', not {' '.join(args)!r}",
            remedy=f"{command} to create the library's README and changelog",
        )
    folder = project_patterns_dir(project_root)
    lines: list[str] = []
    if args == ("init",):
        lines += _init(folder, project_root)
    lines.append(f"Pattern library: {PROJECT_PATTERNS}{os.sep}")
    missing = False
    for name in LIBRARY_FILES:
        there = os.path.isfile(os.path.join(folder, name))
        missing = missing or not there
        lines.append(f"  {name}: {'present' if there else 'missing'}")
    if missing:
        lines.append(f"  → {command} to write the missing ones from Legato's own")
    return "\n".join(lines)


def _init(folder: str, project_root: str) -> list[str]:
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as error:
        raise ConfigError(
            f"cannot be created: {error.strerror}",
            path=folder,
            remedy="Check the permissions of the project's .legato folder",
        ) from None
    done: list[str] = []
    for name in LIBRARY_FILES:
        target = os.path.join(folder, name)
        if os.path.lexists(target):  # a link too, even to nothing: never written through
            done.append(f"Kept {os.path.join(PROJECT_PATTERNS, name)} as it is")
            continue
        try:
            _copy_new(os.path.join(BUNDLED_PATTERNS, name), target, project_root)
        except OSError as error:
            raise ConfigError(
                f"cannot be written: {error.strerror}",
                path=target,
                remedy="Check the permissions of the project's .legato/patterns folder",
            ) from None
        done.append(f"Created {os.path.join(PROJECT_PATTERNS, name)}")
    return [*done, ""]


def _copy_new(source: str, target: str, project_root: str) -> None:
    """Copy ``source`` to a ``target`` that does not exist yet, in the project: a repository's
    ``.legato/patterns`` that is a link out of it, or a name that appears meanwhile, is not
    written through (``x``: O_CREAT|O_EXCL, which fails on any existing name, a link too)."""
    real = os.path.realpath(os.path.dirname(target))
    if not within(real, os.path.realpath(project_root)):
        raise ConfigError(
            f"is not written: its folder leads to {real}, outside the project",
            path=target,
            remedy=f"Make {PROJECT_PATTERNS} a folder of the project, not a link",
        )
    with open(source, "rb") as bundled, open(target, "xb") as copy:
        shutil.copyfileobj(bundled, copy)
