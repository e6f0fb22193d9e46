"""Judging a web fetch (kind ``fetch``, WebFetch) and a web search (kind ``search``, WebSearch).

A fetch is judged by its host, as the executor will connect to it: lower case, no port, no
trailing dot, an internationalised name in its ASCII (``xn--``) form, an IPv6 address without
its brackets. The order, in every mode:

1. A deny rule (``WebFetch``, ``WebFetch(domain:...)`` covering the host, a tool glob) or a
   blockedTools entry denies.
2. A host that resolved to an address on this machine or its networks (``local_address``:
   loopback, private, link-local, cloud metadata) is denied unless an allow rule names that very
   host, without a wildcard. Neither bare ``WebFetch``, nor allowedTools, nor a wildcard, nor
   bypass mode, nor a person's answer allows it: a page the model read can name a host that
   looks public and resolves to this machine, and nobody can tell that from a question.
3. The session's ``never`` for the host denies; its ``always`` allows; an allow rule
   (``WebFetch(domain:...)``, ``WebFetch``, allowedTools ``WebFetch``) allows.
4. Anything else is a question per host (y / n / always / never): bypass mode allows it;
   dontAsk and a headless run deny it, naming the rule that would allow it.

An ask rule (``Policy._ask_rule``) then puts what these allow to a person, each time.

A search has no host: bare ``WebSearch`` rules and tool entries decide, and otherwise the same
question, where ``always`` covers every web search of the session.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import msgspec

from actors.permission_broker.answers import SEARCH_KEY, remembered
from actors.permission_broker.questions import FULL_CHOICES, Question, blocked
from actors.permission_broker.rules import Judgement
from actors.protocol import Decision
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.permission_broker.grounds import PolicyGrounds
    from actors.protocol import PermissionRequest

# What a host may hold once normalised: a DNS name's letters, or an IP address.
_HOST = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*|[0-9a-f:.]*:[0-9a-f:.]*")


def with_host(request: PermissionRequest) -> PermissionRequest:
    """``request`` with its host as the rules match it (``""`` when none can be read): the
    request's own host, or the URL's (past any ``user@`` part) when it gives none."""
    host = request.host
    if host is None:
        try:
            host = urlsplit(request.url or "").hostname or ""
        except ValueError:
            host = ""
    return msgspec.structs.replace(request, host=normal_host(host))


def normal_host(host: str) -> str:
    """``EXAMPLE.COM.`` -> ``example.com``, ``[::1]:8080`` -> ``::1``, ``bücher.de`` ->
    ``xn--bcher-kva.de``; ``""`` for what is no host. Unicode is folded as IDNA folds it, so
    a full-width ``ｅｘａｍｐｌｅ.com`` meets the rules for ``example.com``, where it connects."""
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1 : host.find("]")] if "]" in host else ""
    elif host.count(":") == 1:
        host = host.partition(":")[0]  # a port
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii").lower()
        except UnicodeError:
            return ""
    host = host.rstrip(".")
    return host if _HOST.fullmatch(host) else ""


def unlisted(request: PermissionRequest) -> Judgement:
    if request.kind == "search":
        return Judgement("unlisted", "web searches are not allowed by any rule")
    return Judgement("unlisted", f"fetching from {_shown(request)} is not allowed by any rule")


def fetch_rule(host: str) -> str:
    """The allow rule that names ``host``: ``WebFetch(domain:[::1])`` for an IPv6 address."""
    return f"WebFetch(domain:{f'[{host}]' if ':' in host else host})"


def assess_web(
    policy: PolicyGrounds, request: PermissionRequest, judgement: Judgement
) -> Decision | Question:
    """A fetch or a search, once blockedTools and the deny rules have let it through;
    ``judgement`` is the rules' verdict on it (``Policy.verdict``)."""
    if judgement.verdict == "blocked":
        return blocked(policy.settings_file, judgement)
    if request.kind == "fetch":
        host = request.host or ""
        if not host:
            return Decision(
                False,
                f"the URL {_url(request)} names no host that can be fetched",
                remedy="Give an http:// or https:// URL with a host name or address",
            )
        if request.local_address is not None:
            return _local(policy, request, host)
        keys = (("fetch", host),)
        scope = f"fetching pages from {_shown(request)}"
        rule = fetch_rule(host)
    else:
        keys, scope, rule = (SEARCH_KEY,), "searching the web", "WebSearch"
    earlier = remembered(policy._answers, keys)
    if earlier is not None:
        return earlier
    if judgement.verdict == "allowed":
        return Decision(True, judgement.reason)
    verb = "fetching" if request.kind == "fetch" else "searching"
    return Question(
        FULL_CHOICES,
        keys,
        scope,
        f"{judgement.reason}, so {policy._mode_name} asks before {verb}, and a headless run "
        f"cannot ask. To allow it, add the rule '{rule}' to permissions.allow in "
        f'{policy.settings_file}, or pass --allowedTools "{rule}"',
    )


def _local(policy: PolicyGrounds, request: PermissionRequest, host: str) -> Decision:
    """A host on this machine or its networks: only an allow rule naming it exactly."""
    address = escape_controls(request.local_address or "", newlines=True)
    where = f"{_shown(request)} resolves to {address}, an address on this machine or its network"
    named = policy.rules.reference.names_host(host)
    if named is not None:
        return Decision(True, f"{where}; allowed by {named.named}, which names it exactly")
    rule = fetch_rule(host)
    held = policy._held_rules
    if held is not None and (ruled := held.reference.names_host(host)) is not None:
        remedy = (
            f"The {ruled.named} allows it once you trust this project's settings: run "
            "'legato trust' ('legato trust --show' lists what it applies)"
        )
    else:
        remedy = (
            f"To allow it, add the rule '{rule}' to permissions.allow in {policy.settings_file}, "
            f'or pass --allowedTools "{rule}"; a wildcard, a bare WebFetch rule, bypass mode '
            "and an answer to a question do not allow a local address"
        )
    return Decision(
        False,
        f"{where}; fetching from there needs an allow rule naming {_shown(request)} exactly",
        remedy=remedy,
    )


def _shown(request: PermissionRequest) -> str:
    return escape_controls(request.host or "", newlines=True)


def _url(request: PermissionRequest) -> str:
    return repr(escape_controls(request.url or "", newlines=True))
