"""Appending a line the person typed (``#text``) to an instruction or memory file.

    project  <root>/LEGATO.md                          the project's guide, shared
    local    <root>/CLAUDE.local.md                    the person's own guide for this project
    memory   ~/.legato/projects/<hash>/memory/MEMORY.md  the person's memory of this project
    user     ~/.legato/LEGATO.md                       the person's guide for every project

Only files the session loads are offered, so what is saved reaches the model. The repository
may be hostile: its ``LEGATO.md`` may be a link to ``~/.bashrc``, a folder, a FIFO, a second
name of a file elsewhere. The file is read through the door for Legato's own files
(``own_files.read_own``), which refuses all of those, and written whole or not at all through
the folder it really is in, opened once and checked to be inside the place the file belongs to
(the project, or the user's home): a link inside that place is written through, to the file it
names; nothing is ever written outside it. A file the person made read-only stays as it is.
"""

from __future__ import annotations

import os
import stat

from actors.atomic import write_in_directory
from actors.errors import LegatoError, UsageError
from actors.instructions.imports import secret_place
from actors.own_files import GUIDE_CAP, Refused, read_own
from actors.places import MEMORY_FILE, memory_dir, within
from actors.protocol import MemoryAdded, MemoryTarget

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def target_path(target: MemoryTarget, root: str, home: str) -> str:
    """The file ``target`` names."""
    if target == "project":
        return os.path.join(root, "LEGATO.md")
    if target == "local":
        return os.path.join(root, "CLAUDE.local.md")
    if target == "memory":
        return os.path.join(memory_dir(os.path.realpath(root), home), MEMORY_FILE)
    return os.path.join(home, ".legato", "LEGATO.md")


def bullet(text: str) -> str:
    """``text`` as one Markdown list item: later lines indented under it."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    # The person's own words, but no control character: the file reaches every request.
    cleaned = ["".join(c for c in line if c == "\t" or _printable(c)) for line in lines]
    head, *rest = cleaned
    return "\n".join([f"- {head}", *(f"  {line}" if line else "" for line in rest)]) + "\n"


def _printable(char: str) -> bool:
    return ord(char) >= 32 and not 0x7F <= ord(char) < 0xA0


def append(target: MemoryTarget, root: str, home: str, text: str) -> MemoryAdded:
    """Append ``text`` to ``target``'s file as a bullet. Blocks: run it in a worker thread.
    Raises LegatoError naming the file and the remedy; nothing is written then."""
    if not text.strip():
        raise UsageError(
            "there is nothing to remember after '#'",
            remedy="Type '#' followed by what to remember, e.g. '# run tests with make check'",
        )
    path = target_path(target, root, home)
    if target in ("project", "local"):
        places: tuple[str, ...] = (root,)
    elif target == "memory":
        places = (os.path.dirname(path),)
        _make_folder(places[0], home)
    else:
        places = (home,)
        _make_folder(os.path.dirname(path), home)
    try:
        found = read_own(path, inside=places, cap=GUIDE_CAP)
    except Refused as refused:
        raise LegatoError(
            f"{path} was not written: it {refused.why}", remedy=refused.remedy
        ) from None
    real = os.path.realpath(path)
    # As the loading judges the user's guide: a link may lead anywhere in the home folder
    # but where credentials live.
    secret = secret_place((real,), home) if target == "user" and real != path else None
    if secret is not None:
        raise LegatoError(
            f"{path} was not written: it leads to {real}, in {secret}, where credentials live",
            remedy="Replace the link with the file itself, or remove it",
        )
    current = b"" if found is None else found.data
    if current and not current.endswith(b"\n"):
        current += b"\n"
    data = current + bullet(text).encode()
    if len(data) > GUIDE_CAP:
        raise LegatoError(
            f"{path} was not written: it would pass {GUIDE_CAP // 1024} KiB, the most Legato "
            "reads of an instruction file",
            remedy="Shorten the file, or save this to another one",
        )
    _write(path, real, places, data, existed=found is not None)
    excluded = None
    if target == "local" and found is None:
        # Personal, as its name says: kept out of the repository's commits from the start.
        from actors.memory_store.rule_file import exclude_local_file

        excluded = exclude_local_file(root, os.path.basename(path))
    return MemoryAdded(path=path, created=found is None, excluded=excluded)


def _make_folder(folder: str, home: str) -> None:
    """Legato's own folders under the home folder, made private when they are new."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as error:
        raise LegatoError(
            f"{folder} could not be made: {error.strerror}",
            remedy=f"Check the permissions of {home} (ls -ld)",
        ) from None


def _write(path: str, real: str, places: tuple[str, ...], data: bytes, *, existed: bool) -> None:
    folder_path, name = os.path.split(real)
    # The owner's write bit too: root may write any file, but one made read-only stays so.
    if existed and not (os.access(real, os.W_OK) and os.stat(real).st_mode & stat.S_IWUSR):
        raise LegatoError(
            f"{path} was not written: it is read-only",
            remedy=f"Make it writable (chmod u+w {path}) if you mean it to change",
        )
    try:
        folder = os.open(folder_path, _DIRECTORY)
    except OSError as error:
        raise LegatoError(
            f"{path} was not written: its folder cannot be opened ({error.strerror})",
            remedy="Check the folder's permissions (ls -ld)",
        ) from None
    try:
        # The folder as opened, not as named: one swapped for a link since the check must
        # not take the bytes elsewhere.
        opened = _opened_path(folder, folder_path)
        if not any(within(opened, os.path.realpath(place)) for place in places):
            raise LegatoError(
                f"{path} was not written: its folder leads to {opened}, outside "
                f"{' and '.join(places)}",
                remedy="Replace the link with a folder of its own, or remove it",
            )
        write_in_directory(folder, name, data)
    except OSError as error:
        raise LegatoError(
            f"{path} was not written: {error.strerror}",
            remedy="Check the permissions of the file and its folder (ls -l)",
        ) from None
    finally:
        os.close(folder)


def _opened_path(folder: int, named: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{folder}")
    except OSError:  # no /proc (macOS): the name, resolved now
        return os.path.realpath(named)
