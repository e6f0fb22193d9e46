"""What the policy would decide, asking nobody: ``legato permissions explain`` and the session's
``/permissions``.

The policy's own ``assess`` decides, so an explanation cannot disagree with what the broker
does. A decision names the settings file when it is the rules' verdict word for word (a blocked
or allowed entry); otherwise the mode, the session's answers or Legato's own places decided.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.protocol import Assessment, Decision, PermissionsReport
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.permission_broker.policy import Policy
    from actors.protocol import PermissionRequest


def report(policy: Policy, requests: Sequence[PermissionRequest] = ()) -> PermissionsReport:
    rules = policy.rules
    return PermissionsReport(
        mode=policy.mode,
        rules_file=policy.settings_file,
        rules=(
            ("allowedPaths", tuple(rule.text for rule in rules.paths.allowed)),
            ("blockedPaths", tuple(rule.text for rule in rules.paths.blocked)),
            ("allowedCommands", tuple(entry.text for entry in rules.allowed_commands)),
            ("blockedCommands", tuple(entry.text for entry in rules.blocked_commands)),
            ("allowedTools", tuple(entry.text for entry in rules.allowed_tools)),
            ("blockedTools", tuple(entry.text for entry in rules.blocked_tools)),
        ),
        permission_rules=policy.permission_rules,
        assessments=tuple(assess_quietly(policy, request) for request in requests),
        replies=policy.replies(),
    )


def assess_quietly(policy: Policy, request: PermissionRequest) -> Assessment:
    """The policy's verdict on ``request``; a question becomes ``asks``, with its reason."""
    rules = policy.rules
    if request.kind == "call" and request.server is None:
        # Asked by name alone: the server is the configured one whose tools the name is among.
        request = msgspec.structs.replace(request, server=policy.server_of(request.tool))
    if request.kind == "fetch":
        target = escape_controls(request.url or "", newlines=True)
    elif request.kind == "search":
        target = "the web"
    elif request.kind == "run":
        target = request.command or ""
    elif request.kind == "call":
        target = escape_controls(request.tool, newlines=True)
    else:
        target = ", ".join(rules.show(path) for path in request.paths or (rules.root,))
    judgement = policy.verdict(request)
    outcome = policy.assess(request)
    local = _if_local(policy, request) if request.kind == "fetch" else ""
    if isinstance(outcome, Decision):
        return Assessment(
            kind=request.kind,
            target=target,
            outcome="allowed" if outcome.allowed else "denied",
            reason=outcome.reason + (local if outcome.allowed else ""),
            rules_file=policy.settings_file
            if outcome.reason == judgement.reason and not judgement.names_file
            else None,
        )
    # A question's headless reason starts with the rules' verdict when that is why it asks
    # ("'git push' is not in allowedCommands, so ..."); the verdict alone says it shortest.
    headless = outcome.headless_reason
    reason = judgement.reason if headless.startswith(judgement.reason) else headless
    return Assessment(kind=request.kind, target=target, outcome="asks", reason=reason + local)


def _if_local(policy: Policy, request: PermissionRequest) -> str:
    """What the explanation cannot know without a DNS lookup: whether the host is local."""
    from actors.permission_broker.web import fetch_rule, with_host

    host = with_host(request).host
    if not host:
        return ""
    shown = escape_controls(host, newlines=True)
    if policy.rules.reference.names_host(host) is not None:
        return f"; a rule names {shown} exactly, so it would be fetched from a local address too"
    return (
        f"; if {shown} resolves to an address on this machine or its network, only the allow "
        f"rule '{fetch_rule(host)}' would allow it"
    )
