"""The permission modes as the Claude Agent SDK names them, and Legato's for each.

A frontend that speaks the SDK's control protocol reads the SDK's name of a mode (its
``permission_mode`` option, ``set_permission_mode``) and reports the session's mode in the SDK's
words; the broker knows only Legato's (``PermissionMode`` in ``actors/protocol/``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import UsageError

if TYPE_CHECKING:
    from actors.protocol import PermissionMode

# The SDK's "auto" lets a model decide what to ask; Legato's nearest is auto-accepting edits.
SDK_MODES: dict[str, PermissionMode] = {
    "default": "ask",
    "acceptEdits": "auto",
    "plan": "plan",
    "auto": "auto",
    "dontAsk": "dont_ask",
    "bypassPermissions": "bypass",
}

# Back, one SDK name each: "custom" (the project's rules, nothing more accepted) is the SDK's
# default as far as a caller can tell.
_SDK_NAMES: dict[PermissionMode, str] = {
    "ask": "default",
    "custom": "default",
    "auto": "acceptEdits",
    "plan": "plan",
    "dont_ask": "dontAsk",
    "bypass": "bypassPermissions",
}


def from_sdk(name: str) -> PermissionMode:
    """Legato's mode for the SDK's ``name``; a UsageError names the bad value and the good ones."""
    mode = SDK_MODES.get(name)
    if mode is None:
        raise UsageError(
            f"{name!r} is not a permission mode",
            remedy=f"Use one of {', '.join(SDK_MODES)}",
        )
    return mode


def to_sdk(mode: PermissionMode) -> str:
    """The SDK's name for Legato's ``mode``."""
    return _SDK_NAMES[mode]
