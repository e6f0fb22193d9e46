"""A session mirrored into the driving program's own store (the Agent SDK's ``session_store``).

With ``--session-mirror`` the session store hands each batch of events it saves to the UI as a
``TranscriptMirrored``, which stream-json prints as a ``transcript_mirror`` line: the SDK takes
those lines off the stream and appends their entries to its store under the key it reads from
the line's ``filePath``, ``<config>/projects/<project key>/<session id>.jsonl``. The entries are
Legato's own session events, unchanged, so that a resume loses nothing.

To resume from its store, the SDK writes the stored entries to that same path under a folder of
its own (``CLAUDE_CONFIG_DIR``) and passes ``--resume <id>``: a session this machine has never
saved is then read from there (``import_events``) into Legato's own sessions folder, and goes
on from it. The path is the SDK's (and the reference CLI's), so it is computed as they compute
it: the config folder from ``CLAUDE_CONFIG_DIR`` or ``~/.claude``, the project key from the
project folder's real path (the SDK starts Legato in it).
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import TYPE_CHECKING

import msgspec

from actors.places import within
from actors.protocol import CheckpointTaken, Rewound

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from actors.protocol import Checkpoint, FileBefore, SessionEvent

# The reference's project folder names: every character but ASCII letters and digits made a
# hyphen; a longer name is cut and told apart by a hash of the whole path.
_NOT_KEPT = re.compile(r"[^a-zA-Z0-9]")
_LONGEST_KEY = 200
_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def transcript_path(env: Mapping[str, str], cwd: str, session_id: str) -> str:
    """Where the driving program expects the session ``session_id`` of ``cwd`` to be."""
    config = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    config = unicodedata.normalize("NFC", config)
    return os.path.join(config, "projects", project_key(cwd), f"{session_id}.jsonl")


def project_key(directory: str) -> str:
    """The SDK's ``project_key_for_directory``: the folder's real path, made a file name."""
    path = unicodedata.normalize("NFC", os.path.realpath(directory))
    key = _NOT_KEPT.sub("-", path)
    if len(key) <= _LONGEST_KEY:
        return key
    return f"{key[:_LONGEST_KEY]}-{_hash(path)}"


def confined(events: list[SessionEvent], project_root: str) -> list[SessionEvent]:
    """``events`` with the files their checkpoints would restore kept to the project's.

    A session from a store is the program's copy, kept on a service this machine does not
    control: /undo, /rewind and the SDK's ``rewind_files`` must not write what it says to a
    file outside the project (a ``~/.bashrc``), so those entries are left out."""
    roots = {os.path.normpath(project_root), os.path.realpath(project_root)}

    def among(path: str) -> bool:
        # Only a whole path that stays inside once its ``..`` are taken out.
        normal = os.path.normpath(path)
        return os.path.isabs(path) and any(within(normal, root) for root in roots)

    def inside(before: FileBefore) -> bool:
        # Where the path led when recorded is needed too: /undo writes only there, whereas a
        # path alone is followed as it leads now, out through any link the project holds.
        # Legato records it always; only a session older than that, or forged, lacks it.
        return before.real is not None and among(before.path) and among(before.real)

    def kept(checkpoint: Checkpoint) -> Checkpoint:
        return msgspec.structs.replace(
            checkpoint,
            files=_plain(before for before in checkpoint.files if inside(before)),
            folders=tuple(folder for folder in checkpoint.folders if among(folder)),
        )

    out: list[SessionEvent] = []
    for event in events:
        match event:
            case CheckpointTaken(checkpoint=checkpoint):
                out.append(CheckpointTaken(kept(checkpoint)))
            case Rewound(undo=undo):
                files = _plain(before for before in undo.files if inside(before))
                checkpoints = tuple(kept(checkpoint) for checkpoint in undo.checkpoints)
                out.append(
                    Rewound(msgspec.structs.replace(undo, files=files, checkpoints=checkpoints))
                )
            case _:
                out.append(event)
    return out


def _plain(files: Iterable[FileBefore]) -> tuple[FileBefore, ...]:
    # The permission bits only: a restored file is never made setuid, setgid or sticky by
    # what a store says.
    return tuple(
        before if before.mode is None else msgspec.structs.replace(before, mode=before.mode & 0o777)
        for before in files
    )


def _hash(text: str) -> str:
    # The reference's 32-bit string hash (JavaScript's ``h = (h << 5) - h + c | 0``), in base 36.
    h = 0
    for char in text:
        h = ((h << 5) - h + ord(char)) & 0xFFFFFFFF
    if h >= 0x80000000:
        h -= 0x100000000
    h = abs(h)
    digits = ""
    while h:
        h, digit = divmod(h, 36)
        digits = _DIGITS[digit] + digits
    return digits or "0"
