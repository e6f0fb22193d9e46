"""What every check of the policy stands on: the rules built from the project's context, the
mode, the session's answers, and the verdicts the checks share.

``PolicyGrounds`` is the base of ``Policy``: its checks of files (``path_checks.py``), of walks
(``walks.py``) and of commands (``command_checks.py``) build on it, and ``policy.py`` puts them
in order.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.permission_broker.questions import HEADLESS
from actors.permission_broker.rule_verdicts import allowed, denied
from actors.permission_broker.rules import Judgement, Rules
from actors.places import legato_dir
from actors.protocol import Decision
from actors.run_files import places_that_run
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.permission_broker.questions import Question, SessionKey
    from actors.permission_broker.shell import CommandLine
    from actors.protocol import PermissionMode, PermissionRequest, ProjectContext

_MODE_NAMES: dict[PermissionMode, str] = {
    "ask": "ask mode",
    "auto": "auto-accept mode",
    "custom": "custom mode",
    "plan": "plan mode",
    # dontAsk judges by ask mode's rules; its denial says that nobody is asked.
    "dont_ask": "ask mode",
    "bypass": "bypassPermissions mode",
}


class PolicyGrounds:
    """A policy's rules, mode and answers, and the verdicts all its checks share."""

    def __init__(self, context: ProjectContext) -> None:
        self.rules = Rules(
            context.project_root,
            context.settings,
            home=context.home or None,
            more_roots=context.add_dirs,
            permission_rules=context.permission_rules,
        )
        sandbox = context.settings.sandbox
        # In auto mode, a command unknown to the rules runs without a question when it is
        # fully confined and offline: the sandbox holds what it may touch, and with no network
        # it cannot send the project anywhere. With network, or with autoAllow off, or under
        # Landlock alone (request.confined false), it asks.
        self._confined_offline_runs = (
            sandbox is not None and not sandbox.network and sandbox.auto_allow
        )
        # What a command's question says about how it will run.
        self._sandbox_off = sandbox is not None and not sandbox.enabled
        self._network = sandbox is None or sandbox.network
        # Programs the user runs outside the sandbox (docker, say): the rules still apply.
        self._unconfined_programs = frozenset(
            () if sandbox is None else sandbox.unconfined_commands
        )
        # The untrusted project's entries allow only commands that run in the sandbox: judged
        # unconfined, a command meets the rules without them. An allow rule in the reference's
        # syntax is such an entry when its text is listed there too ('Bash(npm test)').
        self._unconfined_rules = (
            Rules(
                context.project_root,
                msgspec.structs.replace(
                    context.settings,
                    allowed_commands=tuple(
                        entry
                        for entry in context.settings.allowed_commands
                        if entry not in context.confined_only_commands
                    ),
                ),
                home=context.home or None,
                more_roots=context.add_dirs,
                permission_rules=tuple(
                    rule
                    for rule in context.permission_rules
                    if rule.behavior != "allow" or rule.text not in context.confined_only_commands
                ),
            )
            if context.confined_only_commands
            else None
        )
        # The untrusted project's allow rules, alone: what they would allow is named in the
        # remedy of a question (trust the project), never allowed.
        self._held_rules = (
            Rules(
                context.project_root,
                msgspec.structs.replace(
                    context.settings, allowed_commands=(), allowed_paths=(), allowed_tools=()
                ),
                home=context.home or None,
                more_roots=context.add_dirs,
                permission_rules=tuple(r for r in context.held_rules if r.behavior == "allow"),
            )
            if context.held_rules
            else None
        )
        # Paths some rule keeps from the model: blockedPaths, or a deny rule naming paths.
        self._blocks_paths = bool(self.rules.paths.blocked) or any(
            ruled.path is not None for ruled in self.rules.reference.of("deny")
        )
        self.mode: PermissionMode = context.permission_mode
        self._bypass_disabled = context.bypass_disabled
        self.permission_rules = context.permission_rules
        self._mcp_servers = tuple(server.name for server in context.mcp_servers)
        self.settings_file = os.path.join(context.project_root, ".legato", "settings.json")
        self._last_line: tuple[str, CommandLine] | None = None
        self._answers: dict[SessionKey, bool] = {}  # the session's always (True) / never
        # The project's memory folder is Legato's own notebook, outside the project.
        self.memory_dir = os.path.realpath(context.memory_dir) if context.memory_dir else ""
        home = os.path.realpath(context.home or os.path.expanduser("~"))
        root = self.rules.root
        # Places whose files change what Legato or git will do; writing there always asks.
        self.own_places: tuple[tuple[str, str], ...] = (
            (os.path.join(root, ".legato"), "Legato's own settings, skills and agents (.legato/)"),
            # The reference's settings, commands, skills and agents, which Legato reads as it
            # reads its own: a write there needs what a write to .legato/ needs.
            (os.path.join(root, ".claude"), "the reference assistant's settings, commands, "
             "skills and agents (.claude/)"),
            (os.path.join(home, ".claude"), "your settings, commands, skills and agents for "
             "the reference assistant (~/.claude/)"),
            (os.path.join(root, ".git"), "git's own files (.git/), where hooks and config run "
             "programs"),
            (os.path.join(home, ".config", "legato"), "Legato's global configuration"),
            (legato_dir(home), "Legato's own data (~/.legato/)"),
        )  # fmt: skip
        # Files that run with the user's full rights, outside the sandbox: what hooks and MCP
        # servers run, and .mcp.json, where a server written starts unasked when the user has
        # enabled all of a project's servers; and the files and folders outside .git that
        # git's config names (an included config, core.hooksPath).
        # The statusLine command's files too: it runs after every answer, unasked.
        status_line = context.status_line.command if context.status_line else None
        places = places_that_run(root, home, context.hooks, context.mcp_servers, status_line)
        self.own_places += tuple((path, escape_controls(what)) for path, what in places.items())

    def _unasked(self, request: PermissionRequest, question: Question) -> Decision | Question:
        """``question`` settled without asking, where the mode or an answer given already does;
        else ``question`` itself."""
        if request.preapproved is not None:
            # Its input came with an allow answer: asking again would ask the same answerer.
            if request.preapproved == "target" or not question.person_only:
                return Decision(True, "allowed with the input the permission answer gave")
            return Decision(
                False,
                question.headless_reason.replace(
                    HEADLESS,
                    "the input an allow answer gave (updatedInput) is not put to anyone again",
                ),
            )
        if request.typed_by_person and not question.person_only:
            # The person typed it (``!cmd``): asking them whether to run it would be asking
            # the question they just answered. What only a person may allow each time is still
            # put to them: an ask rule, a hook's ask, a place the rules cannot vouch for.
            return Decision(True, "the person typed this command")
        if self.mode == "bypass" and not question.person_only and not self._bypass_disabled:
            return Decision(True, "bypassPermissions mode allows what the rules do not block")
        if self.mode == "dont_ask":
            reason = question.headless_reason.replace(HEADLESS, "in dontAsk mode nobody is asked")
            return Decision(
                False, f"{reason} (or switch from dontAsk to a permission mode that asks)"
            )
        return question

    def _line(self, request: PermissionRequest) -> CommandLine | None:
        """A command's line, parsed once for the several checks of one request (the last
        line parsed is kept; a line is not changed once parsed)."""
        if request.kind != "run":
            return None
        text = request.command or ""
        last = self._last_line
        if last is not None and last[0] == text:
            return last[1]
        from actors.permission_broker.shell import parse_command_line

        line = parse_command_line(text)
        self._last_line = (text, line)
        return line

    def _with_tool(self, request: PermissionRequest, judgement: Judgement) -> Judgement:
        """An allowedTools entry for a built-in tool ('Bash'), or an allow rule for the tool
        or every path, allows what no rule lists; it does not lift a block, nor what needs a
        person whatever the rules say."""
        if judgement.verdict != "unlisted":
            return judgement
        return (
            self.rules.allowed_tool(request.tool, request.server)
            or allowed(self.rules, request)
            or judgement
        )

    def _command_verdict(self, request: PermissionRequest, line: CommandLine) -> Judgement:
        judgement = self.rules.judge_command(line)
        if judgement.verdict != "blocked" and request.paths:
            judgement = self.rules.blocked_path(request.paths) or judgement
        if judgement.verdict != "blocked":
            # A command that might run what a deny rule names needs a person.
            judgement = denied(self.rules, request, line) or judgement
        return self._with_tool(request, judgement)

    @property
    def _mode_name(self) -> str:
        return _MODE_NAMES[self.mode]
