"""Which ``@path`` imports from outside the project the user approved, in the user's folder.

    ~/.legato/projects/<hash>/imports-approved.json
    {"imports": ["<fingerprint>", ...]}

A fingerprint holds the importing file, the imported file's real path and its text
(``actors/instructions/loading.py``): a change to either file asks again. Never in the project,
whose files are the repository's to write. A file that cannot be read approves nothing (the
warning says why); writing it is atomic.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.atomic import write_atomically
from actors.own_files import SETTINGS_CAP, Refused, read_own

if TYPE_CHECKING:
    from collections.abc import Iterable


class _Approvals(msgspec.Struct, frozen=True):
    imports: list[str] = msgspec.field(default_factory=list)


def read_approved(path: str, warnings: list[str]) -> frozenset[str]:
    """The approved fingerprints; none when the file is absent or unreadable."""
    try:
        found = read_own(path, inside=(os.path.dirname(path),), cap=SETTINGS_CAP)
    except Refused as refused:
        warnings.append(f"{refused.message}; no import is approved. {refused.remedy}")
        return frozenset()
    if found is None:
        return frozenset()
    try:
        return frozenset(msgspec.json.decode(found.data, type=_Approvals).imports)
    except (msgspec.DecodeError, RecursionError) as error:
        warnings.append(
            f"{path}: not an approvals file ({error}); no import is approved. "
            "Remove it and approve the imports again with 'legato trust'"
        )
        return frozenset()


def approve(path: str, fingerprints: Iterable[str]) -> None:
    """Add these approvals to those recorded."""
    current = read_approved(path, [])
    _write(path, current | frozenset(fingerprints))


def revoke(path: str) -> bool:
    """Forget every approval; whether there was one."""
    if not read_approved(path, []):
        return False
    _write(path, frozenset())
    return True


def _write(path: str, fingerprints: frozenset[str]) -> None:
    data = msgspec.json.format(msgspec.json.encode(_Approvals(sorted(fingerprints))))
    write_atomically(path, data + b"\n", mode=0o600)
