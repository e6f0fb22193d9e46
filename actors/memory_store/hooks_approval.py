"""Whether the user approved the project's hooks, kept in the user's own folder.

    ~/.legato/projects/<hash>/hooks-approved.json
    {"fingerprint": "<sha256 of the project's hooks object and the scripts they run>"}

A project's ``.legato/settings.json`` comes with the repository, and its hooks are commands
that run as the user: an interactive session runs them only once the user has approved them
as they are now. The fingerprint covers the whole ``hooks`` object as written (canonical JSON),
and the bytes of each file of the project that a hook runs (``actors/run_files.py``), so any
change to any hook, or to a script one runs (a pull of the repository), asks again. Never in
the project: a repository must not be able to approve its own hooks. A file that cannot be
read approves nothing; writing it is atomic.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Any

import msgspec

from actors.atomic import write_atomically
from actors.own_files import SETTINGS_CAP, Refused, read_own
from actors.run_files import files_that_run

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from actors.settings import HookGroup

# The most of a hook's script read to fingerprint it; a longer one is fingerprinted by that.
SCRIPT_CAP = 4 * 1024 * 1024


class _Approval(msgspec.Struct, frozen=True):
    fingerprint: str = ""


def fingerprint(hooks: Any, scripts: Mapping[str, str] | None = None) -> str:
    """The project's ``hooks`` object and the scripts they run (``scripts``), canonical,
    hashed; "" when it has no hooks."""
    if not hooks:
        return ""
    value = {"hooks": hooks, "scripts": dict(scripts)} if scripts else hooks
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def scripts(root: str, home: str, groups: Iterable[HookGroup]) -> dict[str, str]:
    """Each file of the project (``root``, real) that ``groups`` run, by its path from the
    root, with the sha256 of its bytes, "missing", or why it cannot be read. Read through the
    door for Legato's own reading: never a FIFO, a device or a file outside the project."""
    found: dict[str, str] = {}
    for path in sorted(files_that_run(root, home, groups, ())):
        try:
            read = read_own(path, inside=(root,), cap=SCRIPT_CAP)
        except Refused as refused:
            found[os.path.relpath(path, root)] = f"not read: {refused.message}"
            continue
        digest = "missing" if read is None else hashlib.sha256(read.data).hexdigest()
        found[os.path.relpath(path, root)] = digest
    return found


def approved_fingerprint(path: str, warnings: list[str]) -> str:
    return read_fingerprint(
        path,
        warnings,
        kind="an approval file",
        unapproved="the project's hooks are not approved",
        remedy="Remove it and approve them again with /hooks approve",
    )


def read_fingerprint(
    path: str, warnings: list[str], *, kind: str, unapproved: str, remedy: str
) -> str:
    """The fingerprint a record in the user's folder holds, or "" (none, or a record that
    cannot be read: it approves nothing, and a warning says so). The project trust record is
    one of these too (trust.py)."""
    try:
        found = read_own(path, inside=(os.path.dirname(path),), cap=SETTINGS_CAP)
    except Refused as refused:
        warnings.append(f"{refused.message}; {unapproved}. {refused.remedy}")
        return ""
    if found is None:
        return ""
    try:
        return msgspec.json.decode(found.data, type=_Approval).fingerprint
    except (msgspec.DecodeError, RecursionError) as error:
        warnings.append(f"{path}: not {kind} ({error}); {unapproved}. {remedy}")
        return ""


def record(path: str, approved: str) -> None:
    write_atomically(path, msgspec.json.encode(_Approval(fingerprint=approved)), mode=0o600)
