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
"""

from __future__ import annotations

import dataclasses
import os
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec

from actors.errors import UsageError
from actors.git_files import is_control
from actors.path_entries import within
from actors.permission_broker.arguments import named_paths
from actors.permission_broker.rule_verdicts import allowed, asked, denied
from actors.permission_broker.rules import Judgement, Rules
from actors.permission_broker.tool_rules import describe_tool
from actors.permission_broker.web import SEARCH_KEY, assess_web, with_host
from actors.permission_broker.web import unlisted as web_unlisted
from actors.places import legato_dir
from actors.protocol import Decision, HowItRuns, PermissionAnswer, PermissionRequest, Reply
from actors.run_files import SCRIPT_RUNNERS, places_that_run
from actors.tool_names import MCP_PREFIX
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.permission_broker.shell import CommandLine, SimpleCommand
    from actors.protocol import OperationKind, PermissionMode, ProjectContext

# ("read", "inside"), ("write", "outside"), ("run", "git"), ("call", "mcp__git__status")
SessionKey = tuple[str, str]

FULL_CHOICES = ("y", "n", "always", "never")
ONCE_CHOICES = ("y", "n")

# Redirection targets that are no file of anyone's: 'make > /dev/null', 'cmd 2> /dev/stderr'.
HARMLESS_TARGETS = frozenset(
    {
        "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero",
        "/dev/random", "/dev/urandom", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
    }
)  # fmt: skip

# The tools that read a folder's files through a walk the broker filters (``filter_readable``).
_SEARCH_TOOLS = frozenset({"Grep", "Glob"})
_VERBS = {"read": "reading", "write": "writing", "create": "creating", "run": "running"}
_MODE_NAMES: dict[PermissionMode, str] = {
    "ask": "ask mode",
    "auto": "auto-accept mode",
    "custom": "custom mode",
    "plan": "plan mode",
    # dontAsk judges by ask mode's rules; its denial says that nobody is asked.
    "dont_ask": "ask mode",
    "bypass": "bypassPermissions mode",
}

# How to leave Plan Mode: Shift+Tab in the terminal, the flag for a headless run.
LEAVE_PLAN = (
    "Leave Plan Mode to allow it: Shift+Tab in the terminal, or another --permission-mode "
    "(auto accepts edits inside the project)"
)

# What undoes a 'never': the person's own reply, so only the person can.
FORGET_NEVER = "/permissions lists the reply; /permissions forget <number> removes it"

# How a question's denial says that nobody could be asked; ``_unasked`` puts why instead when a
# mode or an answer given already is the reason.
HEADLESS = "a headless run cannot ask"


@dataclass(frozen=True, slots=True)
class Question:
    """A request the rules leave to a person."""

    choices: tuple[str, ...]
    keys: tuple[SessionKey, ...]  # what 'always' and 'never' remember
    scope: str  # what those answers cover, in words: "running 'git'"
    headless_reason: str  # the denial when there is no one to ask
    warning: str | None = None  # shown with the question: why it needs particular care
    unconfined: bool = False  # a yes lets it run outside the sandbox (unconfinedCommands)
    confinement: HowItRuns | None = None  # for a command: in the sandbox or not
    # Only a person (or an entry naming it) may allow it, whatever the mode: what the rules
    # cannot vouch for (a yes for this one call only), a place outside the project, what
    # changes Legato's own files, what runs outside the sandbox.
    person_only: bool = False


class Policy:
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

    def _assess(self, request: PermissionRequest) -> Decision | Question:
        blocked = self.rules.blocked_tool(request.tool, request.server)
        if blocked is not None:
            return self._blocked(blocked)
        if self.rules.reference:
            denied_by = denied(self.rules, request, self._line(request))
            if denied_by is not None and denied_by.verdict == "blocked":
                return self._blocked(denied_by)
        if request.kind == "call":
            return self._assess_call(request)
        if request.kind in ("fetch", "search"):
            return assess_web(self, request)
        if request.kind == "run":
            return self._assess_command(request)
        return self._assess_paths(request)

    def verdict(self, request: PermissionRequest) -> Judgement:
        """The rules' verdict on ``request``, before the mode and the session's answers: the
        one ``assess`` starts from, and the one an explanation names."""
        rules = self.rules
        if request.kind == "fetch" and request.host is None:
            request = with_host(request)
        blocked = rules.blocked_tool(request.tool, request.server)
        if blocked is not None:
            return blocked
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

    def answer(self, question: Question, answer: str | PermissionAnswer) -> Decision:
        """Apply the person's reply to ``question``."""
        decision = self._answer(question, answer)
        if decision.allowed and question.unconfined:
            return msgspec.structs.replace(decision, unconfined=True)
        return decision

    def _answer(self, question: Question, answer: str | PermissionAnswer) -> Decision:
        match answer:
            case PermissionAnswer(choice="y", updated_input=updated_input):
                return Decision(True, "the user allowed it", updated_input=updated_input)
            case PermissionAnswer(choice="n", message=message, interrupt=interrupt):
                reason = "the user denied it" + (f": {message}" if message else "")
                return Decision(False, reason, message=message, interrupt=interrupt)
            case "y":
                return Decision(True, "the user allowed it")
            case "n":
                return Decision(False, "the user denied it")
            case "always" | "never" if answer in question.choices:
                allowed = answer == "always"
                for key in question.keys:
                    self._answers[key] = allowed
                verb = "allowed" if allowed else "denied"
                return Decision(
                    allowed,
                    f"the user {verb} {question.scope} for this session",
                    remedy=None if allowed else FORGET_NEVER,
                )
        return Decision(False, f"the answer {answer!r} is not one of the choices; taken as no")

    # ── files ───────────────────────────────────────────────────────────────────────────────

    def _assess_paths(self, request: PermissionRequest) -> Decision | Question:
        rules = self.rules
        # A tool that names no path works in the project root (a search of the whole project).
        paths = request.paths or (rules.root,)
        verb = _VERBS[request.kind]
        judgement = self._with_tool(request, rules.judge_paths(paths))
        if judgement.verdict == "blocked":
            return self._blocked(judgement)
        resolved = [rules.paths.resolve(path) for path in paths]
        inside = all(rules.paths.inside(path) for path in resolved)
        shown = ", ".join(f"'{rules.show(path)}'" for path in paths)
        writes = request.kind != "read"
        if writes and self.mode == "plan":
            return self._plan_refuses(f"{verb} {shown}")
        if request.hard_links > 1 and self._blocks_paths:
            return _hard_links_question(request, verb, shown)
        if self.memory_dir and all(self._in_memory_folder(path) for path in resolved):
            return Decision(True, f"{verb} in the project's memory folder is accepted")
        if writes:
            own = self._own_place(paths)
            if own is not None:
                return Question(
                    ONCE_CHOICES,
                    (),
                    "",
                    f"{verb} {shown} changes {own}, which always needs a person's approval "
                    "whatever the mode, and a headless run cannot ask. To let the model change "
                    f"it, name it in allowedPaths in {self.settings_file}",
                    warning=f"This changes {own}.",
                    person_only=True,
                )
        # Each kind is its own: an 'always' given to Create file does not cover editing the
        # files that exist, which the person never saw a diff of.
        keys = tuple(
            dict.fromkeys(
                (request.kind, "inside" if rules.paths.inside(p) else "outside") for p in resolved
            )
        )
        remembered = self._remembered(keys)
        if remembered is not None:
            return remembered
        if judgement.verdict == "allowed":
            return Decision(True, judgement.reason)
        if inside and (self.mode == "auto" or (self.mode == "plan" and not writes)):
            return Decision(True, f"{verb} inside the project is accepted in {self._mode_name}")
        if inside and not writes and request.named_by_user:
            return Decision(True, f"the user named {shown} with @ in the prompt")
        if inside and self._narrowed_search(request, resolved):
            return Decision(
                True,
                f"searching {shown} in custom mode: only the files the rules let tools read are "
                "searched or listed",
            )
        return Question(
            FULL_CHOICES,
            keys,
            ", ".join(_describe(key) for key in keys),
            self._headless_paths(
                # Once each: a path and the real path it resolves to are often the same.
                verb,
                shown,
                judgement,
                [*dict.fromkeys(p for p in resolved if not rules.paths.inside(p))],
                folders=self._searched_folders(request, resolved),
            ),
            person_only=not inside,
        )

    def _narrowed_search(self, request: PermissionRequest, resolved: Sequence[str]) -> bool:
        """A Grep or Glob of folders inside the project, in custom mode: it runs, narrowed to
        the files the rules allow (``filter_readable`` judges each one as a read of its own),
        rather than asking about the whole folder, most of which the rules may not allow."""
        return (
            self.mode == "custom"
            and request.kind == "read"
            and request.tool in _SEARCH_TOOLS
            and all(os.path.isdir(path) for path in resolved)
        )

    def _in_memory_folder(self, resolved: str) -> bool:
        return resolved == self.memory_dir or resolved.startswith(self.memory_dir + os.sep)

    def _own_place(self, paths: Sequence[str]) -> str | None:
        """What a write to ``paths`` would change among Legato's and git's own files, unless an
        allowedPaths entry names that place explicitly (``.legato/skills/**``)."""
        rules = self.rules.paths
        for path in paths:
            for candidate in dict.fromkeys((rules.resolve(path), rules.written(path))):
                for place, description in (*self.own_places, *_nested_git(candidate)):
                    # Letter case too: on a disk that ignores it (macOS's default), .GIT/hooks
                    # and .Claude/settings.json are git's hooks and the reference's settings.
                    if not within(candidate.casefold(), place.casefold()):
                        continue
                    if rules.names_explicitly(candidate, place) is None and not rules.names_file(
                        candidate
                    ):
                        return description
        return None

    # ── walks ───────────────────────────────────────────────────────────────────────────────

    def hidden(self, path: str) -> bool:
        """Whether a blockedPaths entry or a deny rule for reading covers ``path`` (absolute):
        what a confined command finds unreadable and a checkpoint leaves out."""
        paths = self.rules.paths
        if paths.blocked_by(path) is not None:
            return True
        reference = self.rules.reference
        return bool(reference) and (
            reference.path("deny", "read", paths.written(path), paths.resolve(path)) is not None
        )

    def filter_readable(
        self, folder: str, paths: Sequence[str], *, search: bool = False
    ) -> tuple[bool, ...]:
        """Which of ``paths``, met on a walk of ``folder`` (already allowed), a tool may read,
        asking nobody: one flag each.

        Blocked entries hold for every file; a file that leads out of the folder (a symlink)
        is judged as a read of its own, and one that would need a person is left out: so is a
        file with several names (hard links) when there are blockedPaths. A ``search`` (Grep,
        Glob) of a folder custom mode let through only narrowed judges every file so.
        """
        real_folder = self.rules.paths.resolve(folder)
        # A folder searched only because custom mode narrows searches (``_narrowed_search``):
        # each file in it needs the rules' own yes, as a Read of it would.
        narrowed = (
            search
            and self.mode == "custom"
            and self.rules.judge_paths((folder,)).verdict != "allowed"
            and self._remembered((("read", "inside"),)) is None
        )
        real_parents: dict[str, str] = {}  # the folders met, resolved once for all their files
        blocked_folders: dict[str, bool] = {}
        return tuple(
            self._readable(path, real_folder, real_parents, blocked_folders, narrowed=narrowed)
            for path in paths
        )

    def readable_in_walk(self, folder: str, path: str) -> bool:
        """``filter_readable`` for one path."""
        return self.filter_readable(folder, (path,))[0]

    def _readable(
        self,
        path: str,
        real_folder: str,
        real_parents: dict[str, str],
        blocked_folders: dict[str, bool],
        *,
        narrowed: bool = False,
    ) -> bool:
        rules = self.rules.paths
        written = rules.written(path)
        try:
            st = os.lstat(written) if written == path else None
            if st is None or stat.S_ISLNK(st.st_mode):
                # A symlink, or a path not as a walk gives it (relative, or with ..): in full.
                resolved = rules.resolve(path)
                st = os.stat(resolved)
            else:
                parent, name = os.path.split(written)
                resolved = os.path.join(_real_folder(parent, real_parents), name)
        except OSError:
            return False  # gone, or a symlink that leads nowhere: nothing to read
        is_dir = stat.S_ISDIR(st.st_mode)
        if rules.blocked_in_walk(resolved, written, is_dir, blocked_folders):
            return False
        reference = self.rules.reference
        if reference and any(
            reference.path(behavior, "read", written, resolved) for behavior in ("deny", "ask")
        ):
            return False  # denied, or a person's to decide: a walk asks nobody
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and self._blocks_paths:
            return False  # another of its names may be blocked: a person's question, see above
        if within(resolved, real_folder) and not narrowed:
            return True
        request = PermissionRequest(tool="Walk", kind="read", paths=(path,))
        outcome = self._assess_paths(request)
        if isinstance(outcome, Question):
            outcome = self._unasked(request, outcome)  # what the mode settles; nobody is asked
        return isinstance(outcome, Decision) and outcome.allowed

    def _searched_folders(self, request: PermissionRequest, resolved: Sequence[str]) -> list[str]:
        """The allowedPaths entry that would let a Grep or Glob read each folder it searches
        (``**`` for the project root, ``/docs/**`` for docs); none for anything else."""
        if request.tool not in _SEARCH_TOOLS or not all(os.path.isdir(p) for p in resolved):
            return []
        root = self.rules.paths.resolve(self.rules.root)
        entries = []
        for path in resolved:
            relative = os.path.relpath(path, root)
            entries.append("**" if relative == "." else f"/{relative}/**")
        return entries

    def _headless_paths(
        self,
        verb: str,
        shown: str,
        judgement: Judgement,
        outside: Sequence[str],
        *,
        folders: Sequence[str] = (),
    ) -> str:
        if outside:
            # An entry starting with // names an absolute path (the rules read like .gitignore).
            entries = ", ".join(f"'/{path}'" for path in outside)
            return (
                f"{judgement.reason}; {verb} outside the project always needs a person's "
                "approval unless allowedPaths names it, and a headless run cannot ask. Run "
                f"interactively to approve it, or add {entries} to allowedPaths in "
                f"{self.settings_file}"
            )
        if folders:
            # A search: the entry to add, and the mode that searches only what the rules allow.
            entries = ", ".join(f"'{entry}'" for entry in folders)
            return (
                f"{judgement.reason}, so {self._mode_name} asks before {verb} {shown}, and a "
                f"headless run cannot ask. To allow it, add {entries} to allowedPaths in "
                f"{self.settings_file} (every file not blocked), run with --permission-mode "
                "custom to search only the files allowedPaths allows, or with "
                "--permission-mode auto"
            )
        return (
            f"{judgement.reason}, so {self._mode_name} asks before {verb} {shown}, and a "
            f"headless run cannot ask. To allow it, add a matching pattern to allowedPaths in "
            f"{self.settings_file}, or run with --permission-mode auto"
        )

    # ── commands ────────────────────────────────────────────────────────────────────────────

    def _assess_command(self, request: PermissionRequest) -> Decision | Question:
        """The line as a whole: its commands, its redirections and the paths it names.

        Any blocked part denies; then plan mode denies; any part that needs a person makes the
        whole line need one ('always' is offered only when every such part allows it); what
        is left is the commands' verdict.
        """
        line = self._line(request)
        assert line is not None  # a request of kind "run"
        judgement = self._command_verdict(request, line)
        if judgement.verdict == "blocked":
            return self._blocked(judgement)
        if self.mode == "plan":
            shown = judgement.unlisted.text if judgement.unlisted else line.text
            return self._plan_refuses(f"running '{shown}'")
        outside = self._runs_outside(line)
        held = request.confined or request.partly_confined
        unconfined = outside or request.unconfined or not held
        if unconfined and judgement.verdict == "allowed" and self._unconfined_rules is not None:
            judgement = self._confined_only(request, line, judgement)
        parts = [
            self._command_part(line, judgement, confined=request.confined and not outside),
            *self._redirect_parts(request.tool, line),
            *self._argument_parts(line),
        ]
        for part in parts:
            if isinstance(part, Decision) and not part.allowed:
                return part
        questions = [part for part in parts if isinstance(part, Question)]
        if request.unconfined:
            questions.append(_unconfined(line.text))
        if questions:
            together = _together(questions)
            return dataclasses.replace(
                together,
                unconfined=outside,
                confinement=self._confinement(request, outside=outside),
                person_only=together.person_only or outside,
            )
        first = parts[0]
        if outside and isinstance(first, Decision):
            return Decision(first.allowed, first.reason, unconfined=True)
        return first

    def _confined_only(
        self, request: PermissionRequest, line: CommandLine, judgement: Judgement
    ) -> Judgement:
        """The verdict for a command that runs unconfined, by the rules without the untrusted
        project's allowedCommands entries: they allow it only in the sandbox."""
        assert self._unconfined_rules is not None  # only with such entries
        without = self._unconfined_rules.judge_command(line)
        if without.verdict != "unlisted":
            return without if without.verdict != "allowed" else judgement
        why = self._confinement(request, outside=False).why_unconfined
        return Judgement(
            "risky",
            f"{judgement.reason}, but it would run unconfined ({why}), and a project's "
            "allowedCommands allow a command unasked only in the sandbox until you trust it",
            remedy=(
                "Install bubblewrap so that commands run in the sandbox; or, to have them run "
                f"unconfined, set sandbox.enabled to false in {self.settings_file} and trust "
                "it with 'legato trust'"
            ),
        )

    def _confinement(self, request: PermissionRequest, *, outside: bool) -> HowItRuns:
        """How the command will run if the person says yes, for them to weigh: a confined
        command can still send what it reads over the network, unless it has none."""
        if request.confined and not outside and not request.unconfined:
            return HowItRuns(confined=True, network=self._network)
        if request.partly_confined and not outside and not request.unconfined:
            return HowItRuns(confined=False, network=self._network, partly=True)
        if request.unconfined:
            why = "dangerouslyDisableSandbox"
        elif outside:
            why = "sandbox.unconfinedCommands"
        elif self._sandbox_off:
            why = "sandbox.enabled is false"
        else:
            why = "the sandbox cannot run here"
        return HowItRuns(confined=False, why_unconfined=why)

    def _runs_outside(self, line: CommandLine) -> bool:
        """Every program of the line is in sandbox.unconfinedCommands (and it can be known)."""
        if not self._unconfined_programs or line.problems:
            return False
        names = [command.name for command, _ in line.every_command() if not command.launches]
        return bool(names) and all(name in self._unconfined_programs for name in names)

    def _command_part(
        self, line: CommandLine, judgement: Judgement, *, confined: bool = False
    ) -> Decision | Question:
        if judgement.verdict in ("unknowable", "risky"):
            remedy = judgement.remedy or "Write the command out literally, or run it interactively"
            return _once(
                f"{judgement.reason}, so it needs a person's approval and a headless run cannot "
                f"ask. {remedy}"
            )
        # What runs from other commands' words counts too: 'always' for 'find -exec rm' is
        # remembered for both find and rm.
        names = [
            command.name
            for command, _ in line.every_command()
            if command.name is not None and not command.launches
        ]
        keys = tuple(dict.fromkeys(("run", name) for name in names))
        remembered = self._remembered(keys)
        if remembered is not None:
            return remembered
        if judgement.verdict == "allowed":
            return Decision(True, judgement.reason)
        if (
            confined
            and self.mode == "auto"
            and self._confined_offline_runs
            and self._names_only_project_paths(line)
        ):
            return Decision(True, "it runs in the sandbox, without network (sandbox.autoAllow)")
        held = self._held_rules.judge_command(line) if self._held_rules else None
        first = judgement.unlisted.name if judgement.unlisted else None
        suggestion = f"'{first}' (or the whole command)" if first else "an entry"
        # The same in the reference's syntax, for a person whose rules are in .claude/; only
        # for a plain program name, which the rule can hold as it is.
        plain = first and all(c.isascii() and (c.isalnum() or c in "._+-") for c in first)
        rule = (
            f", or the rule 'Bash({first} *)' to permissions.allow in .claude/settings.json"
            if plain
            else ""
        )
        return Question(
            FULL_CHOICES if keys else ONCE_CHOICES,
            keys,
            "running " + ", ".join(f"'{name}'" for name in dict.fromkeys(names)),
            f"{judgement.reason}, so {self._mode_name} asks before running it, and a headless "
            + (
                f"run cannot ask. The {held.reason.removeprefix('allowed by ')} allows it once "
                "you trust this project's settings: run 'legato trust' ('legato trust --show' "
                "lists what it applies)"
                if held is not None and held.verdict == "allowed"
                else f"run cannot ask. To allow it, add {suggestion} to allowedCommands in "
                f"{self.settings_file}{rule}"
            ),
            person_only=not keys,  # no program the rules could name: theirs is no verdict
        )

    def _redirect_parts(self, tool: str, line: CommandLine) -> list[Decision | Question]:
        """Each redirection is a read or a write of its target, judged like a tool's."""
        parts: list[Decision | Question] = []
        for redirect in line.redirects:
            target = redirect.target
            if target in HARMLESS_TARGETS:
                continue
            if target is None:
                parts.append(
                    _once(
                        f"the target of '{redirect.text}' is only known when it runs, so it "
                        "needs a person's approval and a headless run cannot ask. Write the "
                        "target out literally, or run it interactively"
                    )
                )
                continue
            if line.changes_directory and not target.startswith(("/", "~")):
                parts.append(
                    _once(
                        f"the line changes folder with 'cd', so where '{redirect.text}' leads is "
                        "only known when it runs; it needs a person's approval and a headless "
                        "run cannot ask. Give the target as an absolute path, or run it "
                        "interactively"
                    )
                )
                continue
            kinds: list[OperationKind] = []
            if redirect.reads:
                kinds.append("read")
            if redirect.writes:
                kinds.append("write")
            for kind in kinds:
                part = self._assess_paths(PermissionRequest(tool=tool, kind=kind, paths=(target,)))
                if isinstance(part, Question):
                    part = dataclasses.replace(
                        part, headless_reason=f"In '{redirect.text}': {part.headless_reason}"
                    )
                parts.append(part)
        return parts

    def _names_only_project_paths(self, line: CommandLine) -> bool:
        paths = self.rules.paths
        return all(
            paths.inside(paths.resolve(path)) for _, path, _ in named_paths(line, paths.root)
        )

    def _argument_parts(self, line: CommandLine) -> list[Question]:
        """A word that names a blocked path or Legato's own files needs a person.

        Path rules cannot bind what an allowed program does with its arguments: 'cat .env'
        reads the blocked file and 'tee .legato/settings.json' rewrites the rules.
        """
        rules = self.rules.paths
        for command, path, whole in named_paths(line, rules.root):
            shown = rules.relative(rules.written(path))
            pattern = rules.blocked_by(path)
            if pattern is not None:
                return [
                    _once(
                        f"'{command.text}' names '{shown}', which blockedPaths entry "
                        f"'{pattern.text}' covers; path rules cannot bind what an allowed program "
                        "reads or writes, so a person must decide, and a headless run cannot "
                        "ask. Run it interactively to approve it",
                        warning=f"It names '{shown}', which blockedPaths entry '{pattern.text}' "
                        "covers: the rules cannot stop an allowed program from reading it.",
                    )
                ]
            if whole and os.path.normpath(path) in _programs_run(command, rules.root):
                continue  # running a hook's script does not change it: the sandbox holds it
            own = self._own_file_named(path, whole=whole)
            if own is not None:
                return [
                    _once(
                        f"'{command.text}' names '{shown}', among {own}; a program can change "
                        "it through its arguments, so a person must decide, and a headless run "
                        "cannot ask. Run it interactively to approve it",
                        warning=f"It names '{shown}', among {own}.",
                    )
                ]
        return []

    def _own_file_named(self, path: str, *, whole: bool) -> str | None:
        """Which of Legato's or git's own files a command's word names, if any.

        In .git/ only the files that run programs or say where the repository lies count
        (``actors/git_files.py``: config, hooks, commondir...) and the folder itself named as
        a whole word ('cp x .git', 'mv repo .git'): 'ls .git/refs' changes nothing, and
        '--exclude-dir=.git' is common.
        """
        rules = self.rules.paths
        git = os.path.join(rules.root, ".git")
        kept: list[str] = []
        for candidate in dict.fromkeys((rules.resolve(path), rules.written(path))):
            if self.memory_dir and self._in_memory_folder(candidate):
                continue
            if within(candidate, git) and not is_control(candidate, git, whole=whole):
                continue
            kept.append(candidate)
        return self._own_place(kept) if kept else None

    # ── MCP calls ───────────────────────────────────────────────────────────────────────────

    def _assess_call(self, request: PermissionRequest) -> Decision | Question:
        """A call of an MCP tool, which can do anything its server can: asked like a command.

        Its read-only hint is the server's word about itself, so it counts for nothing: plan
        mode refuses every call, and no mode accepts one by itself.
        """
        judgement = self.verdict(request)
        shown = describe_tool(request.tool, request.server)
        if judgement.verdict == "blocked":
            return self._blocked(judgement)
        if self.mode == "plan":
            return self._plan_refuses(f"calling {shown}", ", as an MCP tool can change anything")
        keys: tuple[SessionKey, ...] = (("call", request.tool),)
        remembered = self._remembered(keys)
        if remembered is not None:
            return remembered
        if judgement.verdict == "allowed":
            return Decision(True, judgement.reason)
        server_entry = f" (or '{MCP_PREFIX}{request.server}' for all its server's tools)"
        return Question(
            FULL_CHOICES,
            keys,
            _describe(keys[0]),
            f"{judgement.reason}, so {self._mode_name} asks before calling it, and a headless "
            f"run cannot ask. To allow it, add '{escape_controls(request.tool, newlines=True)}'"
            f"{server_entry if request.server else ''} to allowedTools in {self.settings_file}",
        )

    def server_of(self, tool: str) -> str | None:
        """The configured MCP server whose tool ``tool`` names, the longest name first (of
        servers 'a' and 'a__b', 'mcp__a__b__x' is taken as a__b's); None when none is."""
        names = [n for n in self._mcp_servers if tool.startswith(f"{MCP_PREFIX}{n}__")]
        return max(names, key=len, default=None)

    # ── the session's answers ───────────────────────────────────────────────────────────────

    def replies(self) -> tuple[Reply, ...]:
        """The session's ``always`` and ``never`` answers, in the order they were given."""
        return tuple(Reply(_describe(key), allowed) for key, allowed in self._answers.items())

    def forget(self, number: int) -> Reply | None:
        """Drop the ``number``-th reply (from 1, as ``replies`` lists them); None if none is."""
        keys = list(self._answers)
        if not 1 <= number <= len(keys):
            return None
        key = keys[number - 1]
        return Reply(_describe(key), self._answers.pop(key))

    def _remembered(self, keys: tuple[SessionKey, ...]) -> Decision | None:
        """'never' for any part denies; 'always' for every part allows."""
        if not keys:
            return None
        answers = [self._answers.get(key) for key in keys]
        for key, answer in zip(keys, answers, strict=True):
            if answer is False:
                return Decision(
                    False,
                    f"the user denied {_describe(key)} for this session",
                    remedy=FORGET_NEVER,
                )
        if all(answers):
            scope = ", ".join(_describe(key) for key in keys)
            return Decision(True, f"the user allowed {scope} for this session")
        return None

    def _blocked(self, judgement: Judgement) -> Decision:
        """A blocked entry's refusal: it holds in every mode, whatever the person replies."""
        return Decision(
            False,
            judgement.reason,
            remedy=judgement.remedy
            or "A blocked entry holds in every mode and no reply overrides it; to allow "
            f"this, remove the entry from {self.settings_file}",
        )

    def _plan_refuses(self, what: str, why: str = "") -> Decision:
        reason = f"plan mode is read-only: {what} is not allowed{why}"
        return Decision(False, reason, remedy=LEAVE_PLAN)

    @property
    def _mode_name(self) -> str:
        return _MODE_NAMES[self.mode]


def _programs_run(command: SimpleCommand, root: str) -> set[str]:
    """The files ``command`` runs by naming them: its program (``./fmt.sh``), and the script
    an interpreter is given first (``bash scripts/fmt.sh``), as absolute paths from ``root``."""
    words = command.words
    name = words[0] if words else None
    if name is None:
        return set()
    run = [name]
    # The word right after it only: past an option, a word may be that option's value
    # ('env -C .legato tee x' runs tee in .legato).
    script = words[1] if len(words) > 1 else None
    if os.path.basename(name) in SCRIPT_RUNNERS and script and not script.startswith("-"):
        run.append(script)
    return {os.path.normpath(os.path.join(root, os.path.expanduser(word))) for word in run}


def _nested_git(path: str) -> list[tuple[str, str]]:
    """The ``.git`` folders of repositories nested anywhere on ``path`` (``sub/.git``): a
    ``cd sub && git status`` runs their hooks and config just the same."""
    parts = path.split(os.sep)
    return [
        (os.sep.join(parts[: index + 1]), "git's own files (.git/), where hooks and config run "
         "programs")
        for index, part in enumerate(parts)
        if part == ".git"
    ]  # fmt: skip


def _unconfined(command: str) -> Question:
    """Running outside the sandbox: a yes or a no from a person, never remembered."""
    return _once(
        f"running '{command}' outside the sandbox needs a person's approval, and a headless run "
        "cannot ask. Run it without dangerouslyDisableSandbox, or run it interactively",
        warning="This command asks to run outside the sandbox: it can write anywhere you can "
        "and read your credential folders.",
    )


def _once(headless_reason: str, warning: str | None = None) -> Question:
    """A question that only a yes or a no can answer: nothing to remember for the session, and
    nothing the rules can vouch for, so only a person may allow it."""
    return Question(ONCE_CHOICES, (), "", headless_reason, warning, person_only=True)


def _together(questions: list[Question]) -> Question:
    """One question for a line whose parts each need a person."""
    if len(questions) == 1:
        return questions[0]
    once = any(question.choices == ONCE_CHOICES for question in questions)
    keys = () if once else tuple(dict.fromkeys(k for q in questions for k in q.keys))
    scope = ", ".join(dict.fromkeys(q.scope for q in questions if q.scope))
    # Reasons that 'always' cannot answer come first: they are what the person must weigh.
    ordered = sorted(questions, key=lambda q: q.choices != ONCE_CHOICES)
    reasons = list(dict.fromkeys(question.headless_reason for question in ordered))
    warnings = list(dict.fromkeys(q.warning for q in ordered if q.warning))
    return Question(
        FULL_CHOICES if keys else ONCE_CHOICES,
        keys,
        scope if keys else "",
        " Also: ".join(reasons),
        " ".join(warnings) or None,
        person_only=any(question.person_only for question in questions),
    )


def _describe(key: SessionKey) -> str:
    group, scope = key
    if group == "run":
        return f"running '{scope}'"
    if group == "call":
        return f"calling '{escape_controls(scope, newlines=True)}'"
    if group == "fetch":
        return f"fetching pages from {escape_controls(scope, newlines=True)}"
    if (group, scope) == SEARCH_KEY:
        return "searching the web"
    what = {"read": "reading files", "write": "editing existing files"}.get(
        group, "creating new files"
    )
    return f"{what} {scope} the project"


def _hard_links_question(request: PermissionRequest, verb: str, shown: str) -> Question:
    # Rules see names, not files: another name of this file may be a blocked one, and no rule
    # can tell. Only a person can, each time: "always" would cover other files too.
    return Question(
        ONCE_CHOICES,
        (),
        "",
        f"{shown} is a file with {request.hard_links} names (hard links), and the path rules "
        f"judge names: one of the others may be in blockedPaths. So {verb} it needs a person's "
        "approval, and a headless run cannot ask. Run interactively to approve it",
        warning=f"This file has {request.hard_links} names (hard links); the path rules see "
        "only this one.",
        person_only=True,
    )


def _real_folder(folder: str, known: dict[str, str]) -> str:
    """``os.path.realpath(folder)`` for a normalised absolute path, built from the real path of
    the folder above it when ``folder`` is not a symlink: a walk's files share their folders,
    and each is looked at once (one lstat) instead of once per file and per level."""
    real = known.get(folder)
    if real is None:
        above, name = os.path.split(folder)
        if not name or os.path.islink(folder):
            real = os.path.realpath(folder)
        else:
            real = os.path.join(_real_folder(above, known), name)
        known[folder] = real
    return real
