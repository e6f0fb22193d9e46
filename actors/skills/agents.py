"""Subagent types: ``.legato/agents/<name>.md`` and ``~/.config/legato/agents/<name>.md``, and
the reference's ``.claude/agents/<name>.md`` and ``~/.claude/agents/<name>.md`` beside them.

The file format is Claude Code's: front matter, then the agent's system prompt. Fields other
than these four (Claude Code's ``color``, ``permissionMode``...) are read and ignored.

    ---
    name: code-reviewer
    description: Reviews a change for bugs and style; use after editing code.
    tools: Read, Grep, Glob        # or a YAML list; absent: every tool but Agent
    model: haiku                   # an alias, a model id, or inherit (the default)
    ---
    You are a careful code reviewer...

Where two files name one type, the first of these wins: ``.legato/agents``, ``.claude/agents``,
``~/.config/legato/agents``, ``~/.claude/agents`` (Legato's own before the reference's, the
project's before the user's). A file that cannot be read as a type
is skipped, and its fault (file, line, field, remedy) is reported, as skills' are: one bad file
should not stop a session that may never start that agent.
"""

from __future__ import annotations

import os

from actors.errors import ConfigError, UsageError
from actors.models import resolve_model
from actors.protocol import AgentType, AgentTypes
from actors.skills import frontmatter
from actors.skills.skill import one_line
from actors.skills.skills import NAME, markdown_files, read_text, require_string

PROJECT_AGENTS = os.path.join(".legato", "agents")
USER_AGENTS = os.path.join(".config", "legato", "agents")
THEIR_AGENTS = os.path.join(".claude", "agents")
INHERIT = "inherit"
_TOOLS_REMEDY = "Write the tools as 'tools: Read, Grep' or as a YAML list ([Read, Grep])"


def agent_folders(project_root: str, home: str) -> tuple[tuple[str, str, str], ...]:
    """``(folder, the folder its files' real paths stay in, the folder as /help names it)``,
    the one that wins a name first."""
    return (
        (os.path.join(project_root, PROJECT_AGENTS), project_root, PROJECT_AGENTS),
        (os.path.join(project_root, THEIR_AGENTS), project_root, THEIR_AGENTS),
        (
            os.path.join(home, USER_AGENTS),
            os.path.join(home, ".config", "legato"),
            os.path.join("~", USER_AGENTS),
        ),
        (os.path.join(home, THEIR_AGENTS), os.path.join(home, ".claude"), "~/.claude/agents"),
    )


def list_agents(project_root: str, home: str) -> AgentTypes:
    """Every agent type by name (the first folder that has a name wins), and the faults of
    files that do not load."""
    types, faults, _ = survey_agents(project_root, home)
    return AgentTypes(types=types, faults=tuple(fault.describe() for fault in faults))


def survey_agents(
    project_root: str, home: str
) -> tuple[tuple[AgentType, ...], tuple[ConfigError, ...], list[tuple[str, str, str]]]:
    """``list_agents``, and ``(file, name, the file that wins)`` for each file a winner of the
    same name hides."""
    found: dict[str, AgentType] = {}
    faults: list[ConfigError] = []
    hidden: list[tuple[str, str, str]] = []
    # Each file's real path stays in the folder it belongs to: the project for the project's,
    # the user's own folder for the user's (a link out of either is refused, not followed).
    for folder, inside, _ in agent_folders(project_root, home):
        for path in markdown_files(folder):
            try:
                agent = load_agent(path, inside=inside)
            except ConfigError as error:
                faults.append(error)
                continue
            winner = found.setdefault(agent.name, agent)
            if winner is not agent:
                shown = shown_path(path, project_root, home)
                hidden.append((shown, agent.name, shown_path(winner.path, project_root, home)))
    types = tuple(sorted(found.values(), key=lambda agent: agent.name))
    return types, tuple(faults), hidden


def shown_path(path: str, project_root: str, home: str) -> str:
    """An agent file as /help names it: from its folder's shown name."""
    for folder, _, shown in agent_folders(project_root, home):
        if os.path.dirname(path) == folder:
            return os.path.join(shown, os.path.basename(path))
    return path


def load_agent(path: str, *, inside: str | None = None) -> AgentType:
    """Read and check one agent file; ``ConfigError`` names the file, line and field."""
    document = frontmatter.parse_as_the_reference(read_text(path, inside=inside), path)
    name = require_string(document, "name")
    if not NAME.match(name):
        raise ConfigError(
            f"'{name}' is not a usable name",
            path=path,
            line=document.line_of("name"),
            field="name",
            remedy="Use lowercase letters, digits, '-' and '_', starting with a letter or digit",
        )
    description = one_line(require_string(document, "description"))
    if not document.body.strip():
        raise ConfigError(
            "the body is empty",
            path=path,
            line=document.body_line,
            field="body",
            remedy="Write the agent's system prompt below the front matter",
        )
    return AgentType(
        name=name,
        description=description,
        prompt=document.body,
        tools=_tools(document),
        model=_model(document),
        path=path,
    )


def _tools(document: frontmatter.Document) -> tuple[str, ...] | None:
    if "tools" not in document.fields or document.fields["tools"] is None:
        return None
    value = document.fields["tools"]
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
        names = [name for name in names if name]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        names = [item.strip() for item in value]
    else:
        raise ConfigError(
            f"must be a comma-separated list or a list of tool names, not {value!r}",
            path=document.path,
            line=document.line_of("tools"),
            field="tools",
            remedy=_TOOLS_REMEDY,
        )
    for name in names:
        if not name.isidentifier():
            raise ConfigError(
                f"{name!r} is not a tool name",
                path=document.path,
                line=document.line_of("tools"),
                field="tools",
                remedy=_TOOLS_REMEDY,
            )
    return tuple(dict.fromkeys(names))


def _model(document: frontmatter.Document) -> str | None:
    if "model" not in document.fields or document.fields["model"] is None:
        return None
    value = document.fields["model"]
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"must be a model alias, a model id or 'inherit', not {value!r}",
            path=document.path,
            line=document.line_of("model"),
            field="model",
            remedy="Write 'model: inherit', an alias (opus, sonnet, haiku) or a model id",
        )
    if value.strip() == INHERIT:
        return None
    try:
        return resolve_model(value).id
    except UsageError as error:
        raise ConfigError(
            error.message,
            path=document.path,
            line=document.line_of("model"),
            field="model",
            remedy=error.remedy,
        ) from None
