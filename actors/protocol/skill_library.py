"""The skill library's inbox: skills (``.legato/skills/<name>.md``) and patterns
(``.legato/patterns/<file>.md``), the project's over the bundled ones, run as ``/<name> [args]``
(docs/skills-and-patterns.md), and the subagent types the conductor runs.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from actors.settings import PermissionRule
from runtime import Ask

CommandKind = Literal["skill", "pattern"]


class CommandInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One skill or pattern ``/name`` runs here, for ``/help`` and completion."""

    name: str
    description: str
    kind: CommandKind
    path: str  # the file it is read from
    bundled: bool  # shipped with Legato rather than the project's own
    usage: str  # ``/name <required> [optional]``


class SkillPrompt(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """A skill's steps or a rendered pattern: the prompt to run like a typed one."""

    prompt: str
    kind: CommandKind
    name: str
    path: str
    # A project's file, not Legato's bundled one: its ``@path`` references are the file
    # author's, not the person's, and are read as the model's reads are.
    from_project: bool = False
    # What the person should know before it runs (a field of the file that is not applied),
    # said where the session's other warnings are.
    notes: tuple[str, ...] = ()
    # The reference's ``!`cmd``` lines, in order: each runs as a Bash call (the permission
    # broker decides it) before the prompt goes, its output put in place of the n-th mark,
    # ``SHELL_MARK<n>SHELL_MARK`` (frontends/skills/shell_lines.py).
    shell: tuple[str, ...] = ()
    # The user's own command's ``model``: the prompt runs on it (a project's is not applied).
    model: str | None = None
    # Its ``allowed-tools``, as allow rules for its prompt alone (its ``!`` lines included):
    # the frontend hands them to the broker (``AllowForPrompt``), a project's only once the
    # user trusts the project.
    allowed: tuple[PermissionRule, ...] = ()


# NUL: no file's text or typed argument holds one, so a mark is never the file author's text.
SHELL_MARK = "\0"


class SkillOutput(msgspec.Struct, frozen=True, tag=True):
    """Text Legato produced itself, without the model: ``/help``, ``/memory``, mock data."""

    text: str


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """A skill or pattern file that passed ``legato /<name> --test``, rendered with samples."""

    kind: CommandKind
    name: str
    path: str
    sample: str  # the sample arguments, as typed
    rendered: str
    warnings: tuple[str, ...] = ()  # worth fixing, but not wrong
    notes: tuple[str, ...] = ()  # what else was checked, or how the arguments are used


class PatternRuns(msgspec.Struct, frozen=True):
    name: str
    runs: int


class ListCommands(Ask[tuple[CommandInfo, ...]], frozen=True, tag=True):
    """Every skill and pattern the project can run, by name; files that do not load are left
    out (``/help`` names them)."""


class PrepareCommand(Ask[SkillPrompt | SkillOutput], frozen=True, tag=True):
    """What ``/name args`` runs. A bad call raises ``UsageError`` (an unknown name with a
    did-you-mean), a file that does not load ``ConfigError`` naming its file, line and field.
    A pattern's run is counted for ``--pattern-stats``."""

    name: str
    args: tuple[str, ...] = ()
    seed: int | None = None  # mock data: the same seed gives the same records
    in_session: bool = False  # advice says what to type in a session, not in a shell


class CheckCommand(Ask[CheckReport], frozen=True, tag=True):
    """``legato /<name> --test``: check the file ``/name`` runs (the project's when there is
    one) and render it with sample arguments. A fault raises ``ConfigError`` naming the file,
    the line and the field. Not counted as a run."""

    name: str


class GetPatternStats(Ask[tuple[PatternRuns, ...]], frozen=True, tag=True):
    """How often each pattern ran in this project: every pattern, then retired ones that ran."""


class AgentType(msgspec.Struct, frozen=True, kw_only=True):
    """A kind of subagent the ``Agent`` tool can start (``subagent_type``)."""

    name: str
    description: str
    prompt: str  # its system prompt: the file's body
    tools: tuple[str, ...] | None = None  # the tools it is offered; None: all but Agent
    model: str | None = None  # an alias or id; None: the parent's model ("inherit")
    path: str = ""  # the file it is read from; "" for a built-in type


class AgentTypes(msgspec.Struct, frozen=True, kw_only=True):
    """The user's agent types, and the files that could not be read as one (each fault names
    the file, the line, the field and the remedy; such a file is skipped)."""

    types: tuple[AgentType, ...] = ()
    faults: tuple[str, ...] = ()

    def describe_faults(self) -> str:
        """The warning for the files that were skipped; "" when none was. A frontend says it
        with the settings' warnings, after the banner (or the ``init`` line): the conductor,
        which starts before either is shown, does not."""
        if not self.faults:
            return ""
        import textwrap  # only when a file is at fault

        shown = "\n".join(textwrap.indent(fault, "  ") for fault in self.faults)
        many = "s" if len(self.faults) > 1 else ""
        return f"Skipped agent file{many} that could not be read:\n{shown}"


class ListAgents(Ask[AgentTypes], frozen=True, tag=True):
    """The user's subagent types: ``.legato/agents/<name>.md``, then ``.claude/agents/``,
    ``~/.config/legato/agents/`` and ``~/.claude/agents/``; the first with a name wins."""


class ListModelSkills(Ask[tuple[CommandInfo, ...]], frozen=True, tag=True):
    """The skills the model may load by itself (the ``Skill`` tool): the reference's commands
    and skill folders whose files do not say ``disable-model-invocation: true``."""


class LoadSkill(Ask[SkillPrompt], frozen=True, tag=True):
    """A skill the model asked for with the ``Skill`` tool, rendered with its arguments. An
    unknown name raises ``UsageError`` listing the skills there are; a bad file ``ConfigError``."""

    name: str
    args: tuple[str, ...] = ()


SkillLibraryMsg = (
    ListCommands
    | PrepareCommand
    | CheckCommand
    | GetPatternStats
    | ListAgents
    | ListModelSkills
    | LoadSkill
)
