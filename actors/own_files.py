"""The door for what Legato reads for itself: guide, memory, skills, agents, settings, records.

Those files reach the system prompt, the permission rules or the list of approved servers, and
a repository (or a command that ran in it) writes many of them. So they are opened the way
the model's Read opens a file (``door.py``: resolved once, ``/proc``, ``/dev`` and ``/sys``
refused as named and as resolved, opened with ``O_NOFOLLOW | O_NONBLOCK``, checked to be what
was resolved), and more strictly:

- the real path stays inside the folder the file belongs to: the project for the project's
  files, the user's own Legato folders (``~/.legato``, ``~/.config/legato``) for the user's,
  so that ``LEGATO.md -> ~/.ssh/id_rsa`` is refused however the link was made;
- only a regular file with one name is read: a FIFO would block the start for ever, a device
  never ends, and a second name (a hard link) may be a file from anywhere on the same disk;
- a link to a file that ``blockedPaths`` blocks is not followed (``blocked``);
- at most ``cap`` bytes are read: a file over it is refused, or cut, as the caller says.

A refusal is ``Refused``, naming the file, why, and what to do; the caller decides whether it
stops the session (a settings file, whose absence would change the permissions) or is a
warning (a guide, a skill). Everything here blocks: callers run it in a worker thread.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import TYPE_CHECKING

import msgspec

from actors import door
from actors.errors import InvalidToolInput, LegatoError, ToolFailure

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

KIB = 1024
# The caps, per kind (docs/security.md lists them). A guide or memory file goes into every
# request's system prompt: 256 KiB is some 64,000 tokens, more than any guide needs.
GUIDE_CAP = 256 * KIB
# A skill, agent or pattern file, or a pattern library's changelog: a prompt the user runs.
LIBRARY_CAP = 256 * KIB
# A settings or config file, .mcp.json, or one of Legato's records under ~/.legato.
SETTINGS_CAP = 1024 * KIB


class Refused(LegatoError):
    """A file Legato would read for itself was not read; ``why`` says why ("is a FIFO...")."""

    def __init__(self, path: str, why: str, *, remedy: str) -> None:
        super().__init__(f"{path} was not read: it {why}", remedy=remedy)
        self.path = path
        self.why = why


class OwnFile(msgspec.Struct, frozen=True):
    data: bytes
    cut: bool = False  # the file was longer than the cap and only its start was read


def user_folders(home: str) -> tuple[str, str]:
    """The user's own Legato folders: the only places the user's files may lead to."""
    return os.path.join(home, ".legato"), os.path.join(home, ".config", "legato")


def read_own(
    path: str,
    *,
    inside: Sequence[str],
    cap: int,
    cut: bool = False,
    blocked: Callable[[str], str | None] | None = None,
) -> OwnFile | None:
    """The bytes of the file ``path`` names, or None when there is none.

    ``inside``: the folders its real path must be in. ``cap``: the most bytes read; a longer
    file is refused, or with ``cut`` its first ``cap`` bytes are returned. ``blocked``: the
    rule a real path matches, if any, named (``the blockedPaths entry 'secrets/'``): a link
    to such a file is refused.
    Raises Refused.
    """
    # Most of the files Legato looks for are absent (eight instruction and settings files for
    # one that exists): that is one lstat, not the door's walk of the path.
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pass  # a name no file can have, and the like: the door says why below
    try:
        target = door.locate(path, os.sep)
    except InvalidToolInput as error:  # a NUL byte, or longer than the system takes
        why = f"has no name a file can have: {error.message}"
        raise Refused(path, why, remedy=_REMEDY_NAME) from None
    except ToolFailure:  # /proc, /dev or /sys, as named or as resolved
        real = os.path.realpath(path)
        raise Refused(
            path,
            f"leads to {real}, and Legato reads no file in /proc, /dev or /sys for itself",
            remedy=_REMEDY_LINK,
        ) from None
    folders = [os.path.realpath(folder) for folder in inside]
    if not any(door.within(target.real, folder) for folder in folders):
        if not os.path.lexists(target.shown):
            return None
        how = "is" if target.real == target.shown else f"leads to {target.real},"
        remedy = _REMEDY_LINK
        folder_link = _folder_link(target.shown, inside)
        if folder_link is not None:  # the file is no link: the folder it is in leads out
            how = f"leads to {target.real} through the symlinked folder {folder_link},"
            remedy = "Replace the symlinked folder with the folder itself, or remove it"
        raise Refused(path, f"{how} outside {' and '.join(folders)}", remedy=remedy)
    if os.path.islink(target.real):  # realpath stops at a loop of links: it names a link
        raise Refused(path, "is a loop of symlinks that reaches no file", remedy=_REMEDY_LINK)
    if blocked is not None and target.real != target.shown:
        # Through a link only: a guide file itself is meant for the model, whatever the
        # entries say, but a link must not bring in a file the model may not read.
        entry = blocked(target.real)
        if entry is not None:
            raise Refused(
                path,
                f"leads to {target.real}, which {entry} blocks",
                remedy="Point it at a file the model may read, or remove it",
            )
    try:
        file = door.open_read(target)
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise Refused(path, "is a directory, not a file", remedy="Remove or rename it") from None
    except ToolFailure:  # door.Changed: swapped for a link between the check and the open
        raise Refused(
            path, "became a symlink while it was being opened", remedy=_REMEDY_LINK
        ) from None
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket, or a FIFO: nothing to read
            raise Refused(path, "is not a regular file", remedy=_REMEDY_KIND) from None
        raise Refused(
            path,
            f"cannot be opened: {error.strerror}",
            remedy="Check the file's permissions (ls -l), or remove it",
        ) from None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise Refused(path, f"is {_kind(st.st_mode)}, not a file", remedy=_REMEDY_KIND)
        if st.st_nlink > 1:
            raise Refused(
                path,
                f"has {st.st_nlink} names (hard links), and another may be a file "
                "outside the folder it belongs to",
                remedy="Make it a file of its own: copy it, then move the copy over it",
            )
        data = file.read(cap + 1)
    if len(data) <= cap:
        return OwnFile(data)
    if not cut:
        raise Refused(
            path,
            f"is larger than {cap // KIB} KiB, the most Legato reads of such a file",
            remedy="Make it smaller, or remove it",
        )
    return OwnFile(data[:cap], cut=True)


_REMEDY_LINK = "Replace the link with the file itself, or remove it"
_REMEDY_KIND = "Replace it with a regular file, or remove it"
_REMEDY_NAME = "Rename it, or the folder it is in, to something shorter"


def _folder_link(path: str, inside: Sequence[str]) -> str | None:
    """The first symlinked folder on ``path`` below the folder it belongs to, if any."""
    for folder in inside:
        if not door.within(path, folder):
            continue
        current = folder
        for part in os.path.relpath(path, folder).split(os.sep)[:-1]:
            current = os.path.join(current, part)
            if os.path.islink(current):
                return current
    return None


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "something other than a file"
