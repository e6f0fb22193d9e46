"""Deciding one permission request: the rules, the mode and the session's answers.

The order of the checks:
1. A blocked rule denies, in every mode: blockedTools for the tool's name, a deny rule in the
   reference's syntax (``rule_set.py``: ``Bash(rm *)``, ``Read(./.env)``), then the path and
   command rules.
2. Plan mode is read-only: writes, commands and calls of MCP tools are denied. A file with
   several names (hard links) always asks when there are blockedPaths: the rules cannot see
   its other names.
3. Reading and writing in the project's memory folder (``~/.legato/projects/<hash>/memory``)
   is accepted, so "remember that ..." works in every mode but plan. A write to Legato's own
   files (``.legato/``, ``~/.config/legato/``, ``~/.legato/``), to ``.git/``, to ``.mcp.json``
   or to a file that a hook or an MCP server runs (``actors/run_files.py``) always asks,
   whatever the mode, unless an allowedPaths entry names that place explicitly: those files
   change the rules themselves, or run programs (git hooks, ``core.fsmonitor``), outside the
   sandbox.
4. An earlier ``never`` denies, an allowed rule accepts, an earlier ``always`` accepts. The
   allowed rules are allowedPaths, allowedCommands and allowedTools, in every mode.
5. The mode: ``auto`` accepts reading and editing inside the project, ``plan`` accepts reading
   inside it; ``ask``, ``custom`` and ``dont_ask`` accept nothing more. Reading a file inside
   the project that the person named with ``@path`` is accepted: naming it was their yes.
6. Anything else is a question, settled unasked where the mode or an answer already given
   says so (``_unasked``): ``dont_ask`` denies it; ``bypass`` allows it unless only a person
   may (``Question.person_only``); a request whose input came with an allow answer
   (``preapproved``) is allowed, except what needs an answer of its own. The rest is put to the
   person, or denied when there is no one to ask (headless). A command the person typed
   (``!cmd``, ``typed_by_person``) is their own request: its question is settled as allowed,
   unless only a person may allow it.

An ask rule in the reference's syntax (``Bash(git push *)``) turns whatever the steps above
allow or ask into a question for a person, each time, in every mode (``_ask_rule``); its allow
rules are allowed rules of step 4.

A call of an MCP tool (kind ``call``) can do anything its server can, so it is judged like a
command: no mode accepts it by itself, only an allowedTools entry or an ``always`` for that very
tool does; the server's own read-only hints are not trusted.

A web fetch (kind ``fetch``) is judged by its host and a web search (kind ``search``) as a
whole, in ``web.py``: deny, ask and allow rules as above, a host on this machine or its
networks only by an allow rule naming it exactly, and otherwise a question per domain.

A command line is judged by all its parts: its commands (``rules.py``), each redirection as a
read or write of its target through the same checks as a tool's, and the paths its arguments
name. What cannot be judged before it runs, or what the rules cannot vouch for whatever they
say (a variable that changes what a program runs, an argument naming a blocked file), is put
to a person each time, without 'always'.

The policy is plain synchronous code; the actor only carries the questions to the UI.

``Policy`` puts the checks in this order; each is in a module of its own: what they all stand
on (``grounds.py``), files (``path_checks.py``), walks (``walks.py``), command lines
(``command_checks.py``), the web (``web.py``), the questions and refusals (``questions.py``)
and the session's answers (``answers.py``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import msgspec

from actors.errors import UsageError
from actors.permission_broker.answers import answered, describe, remembered
from actors.permission_broker.command_checks import CommandChecks
from actors.permission_broker.questions import (
    FULL_CHOICES,
    ONCE_CHOICES,
    Question,
    SessionKey,
    blocked,
    plan_refuses,
)
from actors.permission_broker.rule_verdicts import asked, denied
from actors.permission_broker.tool_rules import describe_tool
from actors.permission_broker.walks import Walks
from actors.permission_broker.web import assess_web, with_host
from actors.permission_broker.web import unlisted as web_unlisted
from actors.protocol import Decision, PermissionAnswer, Reply
from actors.tool_names import MCP_PREFIX
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.permission_broker.rules import Judgement
    from actors.protocol import PermissionMode, PermissionRequest


class Policy(CommandChecks, Walks):
    """The rules, the mode and the session's answers of one session, deciding its requests."""

    def carry_on_from(self, earlier: Policy) -> None:
        """The session's mode and answers, from the policy this one replaces (the same
        context with other rules for a prompt)."""
        self.mode = earlier.mode
        self._answers = dict(earlier._answers)

    def switch(self, mode: PermissionMode) -> None:
        """Switch to ``mode``; bypassPermissions is refused while a settings file disables it."""
        if mode == "bypass" and self._bypass_disabled:
            raise UsageError(
                "the bypassPermissions mode is disabled by "
                f"permissions.disableBypassPermissionsMode at {self._bypass_disabled}",
                remedy="Choose another mode, or remove that key from the file and start again",
            )
        self.mode = mode

    def assess(self, request: PermissionRequest) -> Decision | Question:
        if request.kind == "fetch":
            request = with_host(request)
        outcome = self._assess(request)
        if not (isinstance(outcome, Decision) and not outcome.allowed):
            outcome = self._ask_rule(request, outcome)
        if request.hook_asks is not None and isinstance(outcome, Decision) and outcome.allowed:
            # The rules allow it, and a hook wants a person to say so: once, not 'always'.
            reason = escape_controls(request.hook_asks, newlines=True)
            outcome = Question(
                ONCE_CHOICES,
                (),
                "this call",
                f"a PreToolUse hook asks for a person ({reason}), and a headless run cannot ask. "
                "Run interactively to answer it",
                warning=f"a PreToolUse hook asks: {reason}",
                person_only=True,
            )
        elif request.hook_asks is not None and isinstance(outcome, Question):
            outcome = dataclasses.replace(outcome, person_only=True)  # no mode answers a hook's ask
        if isinstance(outcome, Question):
            return self._unasked(request, outcome)
        return outcome

    def _ask_rule(
        self, request: PermissionRequest, outcome: Decision | Question
    ) -> Decision | Question:
        """An ask rule puts what the rest allows to a person, in every mode: each time."""
        if not self.rules.reference:
            return outcome
        found = asked(self.rules, request, self._line(request))
        if found is None:
            return outcome
        why, source = found
        # Whatever else would have been asked, this rule asks: its reason is the one to act on.
        warnings = [f"{why[:1].upper()}{why[1:]}."]
        if isinstance(outcome, Question) and outcome.warning:
            warnings.append(outcome.warning)
        return Question(
            ONCE_CHOICES,
            (),
            "",
            f"{why}, so a person must approve it, and a headless run cannot ask. Run "
            f"interactively to approve it, or remove the ask rule from "
            f"{escape_controls(source, newlines=True)}",
            warning=" ".join(warnings),
            person_only=True,
            unconfined=isinstance(outcome, Question) and outcome.unconfined,
            confinement=outcome.confinement if isinstance(outcome, Question) else None,
        )

    def _assess(self, request: PermissionRequest) -> Decision | Question:
        blocked_by = self.rules.blocked_tool(request.tool, request.server)
        if blocked_by is not None:
            return blocked(self.settings_file, blocked_by)
        if self.rules.reference:
            denied_by = denied(self.rules, request, self._line(request))
            if denied_by is not None and denied_by.verdict == "blocked":
                return blocked(self.settings_file, denied_by)
        if request.kind == "call":
            return self._assess_call(request)
        if request.kind in ("fetch", "search"):
            return assess_web(self, request, self.verdict(request))
        if request.kind == "run":
            return self._assess_command(request)
        return self._assess_paths(request)

    def verdict(self, request: PermissionRequest) -> Judgement:
        """The rules' verdict on ``request``, before the mode and the session's answers: the
        one ``assess`` starts from, and the one an explanation names."""
        rules = self.rules
        if request.kind == "fetch" and request.host is None:
            request = with_host(request)
        blocked_by = rules.blocked_tool(request.tool, request.server)
        if blocked_by is not None:
            return blocked_by
        line = self._line(request)
        denied_by = denied(rules, request, line)
        if denied_by is not None and denied_by.verdict == "blocked":
            return denied_by
        if request.kind == "call":
            return self._with_tool(request, rules.judge_call(request.tool, request.server))
        if request.kind in ("fetch", "search"):
            return self._with_tool(request, web_unlisted(request))
        if line is not None:
            return self._command_verdict(request, line)
        return self._with_tool(request, rules.judge_paths(request.paths or (rules.root,)))

    def answer(self, question: Question, answer: str | PermissionAnswer) -> Decision:
        """Apply the person's reply to ``question``."""
        decision = answered(self._answers, question, answer)
        if decision.allowed and question.unconfined:
            return msgspec.structs.replace(decision, unconfined=True)
        return decision

    def _assess_call(self, request: PermissionRequest) -> Decision | Question:
        """A call of an MCP tool, which can do anything its server can: asked like a command.

        Its read-only hint is the server's word about itself, so it counts for nothing: plan
        mode refuses every call, and no mode accepts one by itself.
        """
        judgement = self.verdict(request)
        shown = describe_tool(request.tool, request.server)
        if judgement.verdict == "blocked":
            return blocked(self.settings_file, judgement)
        if self.mode == "plan":
            return plan_refuses(f"calling {shown}", ", as an MCP tool can change anything")
        keys: tuple[SessionKey, ...] = (("call", request.tool),)
        earlier = remembered(self._answers, keys)
        if earlier is not None:
            return earlier
        if judgement.verdict == "allowed":
            return Decision(True, judgement.reason)
        server_entry = f" (or '{MCP_PREFIX}{request.server}' for all its server's tools)"
        return Question(
            FULL_CHOICES,
            keys,
            describe(keys[0]),
            f"{judgement.reason}, so {self._mode_name} asks before calling it, and a headless "
            f"run cannot ask. To allow it, add '{escape_controls(request.tool, newlines=True)}'"
            f"{server_entry if request.server else ''} to allowedTools in {self.settings_file}",
        )

    def server_of(self, tool: str) -> str | None:
        """The configured MCP server whose tool ``tool`` names, the longest name first (of
        servers 'a' and 'a__b', 'mcp__a__b__x' is taken as a__b's); None when none is."""
        names = [n for n in self._mcp_servers if tool.startswith(f"{MCP_PREFIX}{n}__")]
        return max(names, key=len, default=None)

    def replies(self) -> tuple[Reply, ...]:
        """The session's ``always`` and ``never`` answers, in the order they were given."""
        return tuple(Reply(describe(key), allowed) for key, allowed in self._answers.items())

    def forget(self, number: int) -> Reply | None:
        """Drop the ``number``-th reply (from 1, as ``replies`` lists them); None if none is."""
        keys = list(self._answers)
        if not 1 <= number <= len(keys):
            return None
        key = keys[number - 1]
        return Reply(describe(key), self._answers.pop(key))
