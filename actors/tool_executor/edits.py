"""Changing a file the session has read (Write, Edit): what it holds now, whether that is what
the model saw, and the write itself, every step through the door."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING

from actors import door
from actors.errors import ToolFailure
from actors.tool_executor.files import FileStamp

if TYPE_CHECKING:
    from actors.door import Target


def fresh(target: Target, stamp: FileStamp | None, verb: str) -> tuple[bytes, int] | None:
    """The bytes and mode of a file the session may change; None when there is no file.

    The content decides freshness: a file whose mtime moved but whose bytes are the same (a
    ``touch``, a formatter that changed nothing) is still what the model saw.
    """
    try:
        file = door.open_read(target, "written")
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise ToolFailure(
            f"{target.shown} is a directory; give the path of a file to {verb}."
        ) from None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure(f"{target.shown} is not a regular file (a device, pipe or socket).")
        if stamp is None:
            raise ToolFailure(
                f"{target.shown} has not been read in this session. Read it first, then {verb} it."
            )
        data = file.read()
    if st.st_size != stamp.size or hashlib.sha256(data).digest() != stamp.digest:
        raise ToolFailure(
            f"{target.shown} has changed on disk since it was last read (by the user or another "
            f"program). Read it again, then {verb} it."
        )
    return data, stat.S_IMODE(st.st_mode)


def write_if_unchanged(
    target: Target, expected: bytes | None, data: bytes, *, mode: int | None
) -> FileStamp:
    """Write ``data`` if the file is still what the call planned on (``None``: absent).

    Checked again just before writing, because the user may take a while to allow the change.
    """
    try:
        with door.open_read(target, "written") as file:
            unchanged = file.read() == expected
    except FileNotFoundError:
        unchanged = expected is None
    if not unchanged:
        raise ToolFailure(
            f"{target.shown} changed on disk while the change waited for permission. "
            "Read it again, then retry."
        )
    return FileStamp.of(door.write(target, data, mode=mode), data)
