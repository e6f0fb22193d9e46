"""Judging a command line by all its parts: its commands, each redirection as a read or write of
its target, the paths its arguments name, and how it will run (in the sandbox or not).
"""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from actors.git_files import is_control
from actors.path_entries import within
from actors.permission_broker.answers import remembered
from actors.permission_broker.arguments import named_paths
from actors.permission_broker.path_checks import PathChecks
from actors.permission_broker.questions import (
    FULL_CHOICES,
    ONCE_CHOICES,
    Question,
    blocked,
    once,
    plan_refuses,
    together,
)
from actors.permission_broker.rules import Judgement
from actors.protocol import Decision, HowItRuns, PermissionRequest
from actors.run_files import SCRIPT_RUNNERS

if TYPE_CHECKING:
    from actors.permission_broker.shell import CommandLine, SimpleCommand
    from actors.protocol import OperationKind

# Redirection targets that are no file of anyone's: 'make > /dev/null', 'cmd 2> /dev/stderr'.
HARMLESS_TARGETS = frozenset(
    {
        "/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero",
        "/dev/random", "/dev/urandom", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
    }
)  # fmt: skip


class CommandChecks(PathChecks):
    """A request to run a command line, judged by all its parts."""

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
            return blocked(self.settings_file, judgement)
        if self.mode == "plan":
            shown = judgement.unlisted.text if judgement.unlisted else line.text
            return plan_refuses(f"running '{shown}'")
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
            joined = together(questions)
            return dataclasses.replace(
                joined,
                unconfined=outside,
                confinement=self._confinement(request, outside=outside),
                person_only=joined.person_only or outside,
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
            return once(
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
        earlier = remembered(self._answers, keys)
        if earlier is not None:
            return earlier
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
                    once(
                        f"the target of '{redirect.text}' is only known when it runs, so it "
                        "needs a person's approval and a headless run cannot ask. Write the "
                        "target out literally, or run it interactively"
                    )
                )
                continue
            if line.changes_directory and not target.startswith(("/", "~")):
                parts.append(
                    once(
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
                    once(
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
                    once(
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


def _unconfined(command: str) -> Question:
    """Running outside the sandbox: a yes or a no from a person, never remembered."""
    return once(
        f"running '{command}' outside the sandbox needs a person's approval, and a headless run "
        "cannot ask. Run it without dangerouslyDisableSandbox, or run it interactively",
        warning="This command asks to run outside the sandbox: it can write anywhere you can "
        "and read your credential folders.",
    )
