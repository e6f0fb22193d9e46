"""Permission rules in the reference assistant's syntax, as the settings files and flags write
them: ``Bash(npm run test:*)``, ``Read(./secrets/**)``, ``Edit(/src/**)``, ``mcp__github``,
``WebFetch(domain:example.com)``, ``Agent(Explore)``.

The memory store collects them, with where each was written, from every settings file's
``permissions.allow`` / ``ask`` / ``deny`` (Legato's own files and the reference's
``.claude/`` ones) and from the flags (``--allowedTools``, ``--disallowedTools``); the
permission broker parses and matches them: deny before ask before allow, in every mode
(docs/claude-code.md).
"""

from __future__ import annotations

from typing import Literal

import msgspec

RuleBehavior = Literal["allow", "ask", "deny"]


class PermissionRule(msgspec.Struct, frozen=True, kw_only=True):
    """One rule as written, and where: what ``legato permissions explain`` names."""

    behavior: RuleBehavior
    text: str  # as written: "Bash(npm run test:*)"
    source: str  # the settings file's path, or the flag ("--allowedTools")
    line: int | None = None  # its line in that file, when it is a file
    # The folder a path rule's single leading '/' is relative to: the project root for a
    # project's files and the flags, the folder holding ``.claude/`` for the user's
    # ``~/.claude/settings.json`` (so ``/x`` is ``~/.claude/x``, as the reference reads it).
    anchor: str = ""
