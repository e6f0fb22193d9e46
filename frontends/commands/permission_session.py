"""``/permissions`` in a session: the mode, the rules and the session's ``always``/``never``
replies, or what they decide for a path or a command (``/permissions explain``), as the
session's own broker answers; ``/permissions forget <number>`` drops a reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from frontends.commands.permission_lines import decision_lines, folder_lines, rule_lines
from frontends.commands.permission_targets import judged_line, requests_for, split_target

if TYPE_CHECKING:
    from actors.protocol import (
        PermissionBrokerMsg,
        PermissionMode,
        PermissionRequest,
        PermissionsReport,
    )
    from runtime import Address


async def session_text(argument: str, root: str, broker: Address[PermissionBrokerMsg]) -> str:
    """``/permissions [explain <path or command>]`` in a session: the broker answers by message,
    in the session's current mode and with the answers given so far; raises UsageError."""
    import anyio.to_thread

    from actors.errors import UsageError
    from actors.protocol import ExplainPermissions

    action, _, rest = argument.strip().partition(" ")
    if action == "forget":
        return await _forget(rest.strip(), broker)
    force, target = split_target(rest)
    if action not in ("", "explain") or (action == "explain" and not target):
        raise UsageError(
            f"/permissions {argument.strip()}: not a form it takes",
            remedy="Type /permissions, /permissions explain <path or command>, or "
            "/permissions forget <number>",
        )
    requests: tuple[PermissionRequest, ...] = ()
    if action == "explain":
        requests = await anyio.to_thread.run_sync(requests_for, target, root, force)
    report = await broker.ask(ExplainPermissions(requests=requests))
    lines = [f"Mode: {report.mode} (this session's): {MODE_GRANTS[report.mode]}"]
    if action == "explain":
        lines += judged_line(target, root, force) + decision_lines(report)
    else:
        lines += rule_lines(report) + folder_lines(report) + reply_lines(report)
    return "\n".join(lines)


# What each mode decides by itself, after the rules and the session's replies.
MODE_GRANTS: dict[PermissionMode, str] = {
    "ask": "asks before anything the rules and your replies do not settle",
    "auto": "reads and edits files inside the project without asking; asks the rest",
    "custom": "allows only what the rules allow; asks the rest",
    "plan": "reads inside the project; refuses writes, commands and MCP calls (Shift+Tab leaves)",
    "dont_ask": "refuses what the rules and your replies do not allow, asking nobody",
    "bypass": "allows everything the rules do not block",
}


def reply_lines(report: PermissionsReport) -> list[str]:
    """The session's ``always``/``never`` replies, numbered for ``/permissions forget``."""
    if not report.replies:
        return ["Your replies: none yet (an 'always' or 'never' to a question is kept here)"]
    lines = ["Your replies this session (/permissions forget <number> removes one):"]
    for number, reply in enumerate(report.replies, 1):
        word = "always" if reply.allowed else "never "
        lines.append(f"  {number}. {word}  {reply.covers}")
    return lines


def mode_note(report: PermissionsReport) -> str | None:
    """After a mode change: whether the replies given earlier still apply (they do, in every
    mode; Plan Mode refuses writes and commands before they are looked at)."""
    count = len(report.replies)
    if not count:
        return None
    one = count == 1
    them = "your 'always'/'never' reply" if one else f"your {count} 'always'/'never' replies"
    apply = "applies" if one else "apply"
    if report.mode == "plan":
        return (
            f"In Plan Mode writes and commands are refused whatever {them} "
            f"{'says' if one else 'say'}; {'it' if one else 'they'} {apply} again when you "
            "leave it (Shift+Tab). /permissions lists them."
        )
    return f"{them.capitalize()} still {apply} in this mode. /permissions lists them."


async def _forget(number: str, broker: Address[PermissionBrokerMsg]) -> str:
    from actors.errors import UsageError
    from actors.protocol import ForgetReply

    if not number.isdigit():
        raise UsageError(
            f"/permissions forget {number}".rstrip() + ": give the number of a reply",
            remedy="Type /permissions to see your replies, numbered, then /permissions forget "
            "<number>",
        )
    forgotten = await broker.ask(ForgetReply(number=int(number)))
    if forgotten is None:
        raise UsageError(
            f"/permissions forget {number}: there is no reply {number}",
            remedy="Type /permissions to see your replies, numbered",
        )
    word = "always" if forgotten.allowed else "never"
    return f"Forgot '{word}' for {forgotten.covers}: Legato asks about it again."
