"""The reference assistant's commands and skills, read as Legato's skills.

Where they are, each in its own format (docs/claude-code.md):

- ``.claude/commands/**/*.md`` and ``~/.claude/commands/**/*.md``: a command, run as
  ``/<file name>``; a file in a sub-folder is namespaced by it, ``frontend/component.md`` is
  ``/frontend:component``. The front matter is optional; without a ``description`` the body's
  first line describes it.
- ``.claude/skills/<name>/SKILL.md``, ``~/.claude/skills/<name>/SKILL.md`` and Legato's own
  ``.legato/skills/<name>/SKILL.md``: a skill, run as ``/<folder name>``; the folder may hold
  files the steps refer to, and the model may load it by itself (the ``Skill`` tool).

Their placeholders are the reference's: ``$ARGUMENTS`` is every argument, ``$ARGUMENTS[N]`` and
``$N`` one, counted from 0 (Legato's own ``<name>.md`` skills count from 1), ``\\$1`` a literal
``$1``; ``${CLAUDE_SKILL_DIR}`` and ``${CLAUDE_PROJECT_DIR}`` the skill's folder and the project.

A ``!`cmd``` in a body, which the reference runs before the model sees the text, is never run
by the skill library: ``render_parts`` leaves a mark where its output goes, and the frontend
runs it as a Bash call through the tool executor (frontends/skills/shell_lines.py), which the
permission broker decides as any other (asked, sandboxed, refused in a headless run no rule
allows). A skill the model loads itself gets its commands listed for it to run
(``render_reference``).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal

from actors.errors import ConfigError, UsageError
from actors.models import resolve_model
from actors.protocol import SHELL_MARK as MARK
from actors.skills import frontmatter
from actors.skills.skill import DEFAULT_HINT, HINT_FIELD, Skill, one_line

if TYPE_CHECKING:
    from collections.abc import Sequence

Level = Literal["project", "user"]

SKILL_FILE = "SKILL.md"
# One segment of a command's name: the name of a file or folder a person can type.
SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
COMMAND_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*(?::[A-Za-z0-9][A-Za-z0-9_-]*)*$")
# The session's own commands: a file of one of these names never runs in their place.
RESERVED = frozenset(
    {
        "help", "clear", "quit", "exit", "model", "fast", "cost", "undo", "compact",
        "permissions", "tasks", "mcp", "hooks", "context", "memory", "patterns", "init",
        "rewind",
    }
)  # fmt: skip
# A folder of commands is walked this deep and no further, and this many files at most: a
# repository's tree of ten thousand files should not slow every /help.
_MAX_DEPTH = 6
_MAX_FILES = 500
_DESCRIPTION_CUT = 200

# $ARGUMENTS[N], $ARGUMENTS, $N (0-based), each unless escaped by one backslash.
_PLACEHOLDER = re.compile(r"(\\\\)?(\\)?\$(?:ARGUMENTS\[(\d+)\]|(ARGUMENTS)\b|(\d))")
# A ```! fenced block, or !`cmd` at a line's start or after a space, in the file's order.
_SHELL = re.compile(
    r"^```!\s*\n(?P<block>.*?)^```\s*$|(?:(?<=\s)|^)!`(?P<line>[^`\n]+)`",
    re.MULTILINE | re.DOTALL,
)


def command_files(folder: str) -> list[tuple[str, str]]:
    """``(name, path)`` of every command under ``folder``: ``a/b.md`` is ``a:b``. Folders that
    are symlinks are not entered (a clone's link may lead anywhere on the disk); a name no
    person could type is left out here and reported by ``unusable``."""
    found: list[tuple[str, str]] = []
    for parent, folders, files in os.walk(folder):
        depth = os.path.relpath(parent, folder).count(os.sep) + (parent != folder)
        folders[:] = sorted(name for name in folders if depth < _MAX_DEPTH)
        for name in sorted(files):
            if not name.endswith(".md"):
                continue
            path = os.path.join(parent, name)
            parts = os.path.relpath(path, folder)[:-3].split(os.sep)
            found.append((":".join(parts), path))
            if len(found) >= _MAX_FILES:
                return found
    return found


def skill_folders(folder: str) -> list[tuple[str, str]]:
    """``(name, path of its SKILL.md)`` of every skill folder in ``folder``."""
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    found = []
    for name in names:
        path = os.path.join(folder, name, SKILL_FILE)
        if os.path.lexists(path):
            found.append((name, path))
    return found


def unusable(name: str, path: str) -> ConfigError | None:
    """Why ``name`` cannot be a command, or None when it can."""
    if not COMMAND_NAME.match(name):
        return ConfigError(
            f"'{name}' cannot be typed as a command",
            path=path,
            remedy="Name it with letters, digits, '-' and '_' (sub-folders become 'folder:name')",
        )
    if name.lower() in RESERVED:
        return ConfigError(
            f"is named like the session's own /{name.lower()}, which runs instead",
            path=path,
            remedy=f"Rename it, say to {name}-project.md",
        )
    return None


def load_reference(
    text: str,
    path: str,
    name: str,
    *,
    level: Level,
    source: str,
    folder: str = "",
) -> Skill:
    """A command or SKILL.md file as a ``Skill``; ``ConfigError`` names the file, line and field
    (all its faults at once)."""
    if text.lstrip("\ufeff").startswith("---"):
        document = frontmatter.parse_as_the_reference(text, path)
    else:  # the reference's commands need no front matter
        document = frontmatter.Document(path, {}, {}, text.strip(), 1)
    faults = frontmatter.Faults(path)
    description = _string(document, "description", faults) or _first_line(document.body)
    hint = _string(document, HINT_FIELD, faults) or DEFAULT_HINT
    model = _model(document, _string(document, "model", faults), faults)
    allowed = _tool_list(document, "allowed-tools", faults)
    user_invocable = _flag(document, "user-invocable", True, faults)
    model_invocable = not _flag(document, "disable-model-invocation", False, faults)
    if not document.body.strip():
        faults.add(
            ConfigError(
                "the body is empty",
                path=path,
                line=document.body_line,
                field="body",
                remedy="Write what the assistant should do below the front matter",
            )
        )
    faults.check()
    return Skill(
        name,
        one_line(description)[:_DESCRIPTION_CUT],
        document.body,
        path,
        False,
        " ".join(hint.split()),
        document.body_line,
        level=level,
        source=source,
        folder=folder,
        zero_based=True,
        allowed_tools=allowed,
        allowed_line=document.line_of("allowed-tools"),
        model=model or None,
        user_invocable=user_invocable,
        model_invocable=model_invocable,
    )


def render_reference(skill: Skill, args: Sequence[str], project_root: str) -> str:
    """The body for the model to run itself: the placeholders filled, the ``!`` commands
    listed first for the model to run with its Bash tool (a skill the model loaded, whose
    commands are its own calls; ``--test``'s rendering)."""
    body, commands = render_parts(skill, args, project_root)
    body = re.sub(f"{MARK}([0-9]+){MARK}", r"[the output of command \1]", body)
    if not commands:
        return body
    listed = "\n".join(f"{n}. `{text}`" for n, text in enumerate(commands, 1))
    return (
        "First run each of these shell commands with the Bash tool, one call each, and read "
        "its output where the text below refers to it (a command that is refused or fails: "
        f"say so, and go on without its output):\n{listed}\n\n{body}"
    )


def render_parts(
    skill: Skill, args: Sequence[str], project_root: str
) -> tuple[str, tuple[str, ...]]:
    """The body with its placeholders filled and each ``!`` command replaced by a mark,
    ``MARK<n>MARK`` (from 1), and the commands, filled too: what a person's ``/name`` runs
    before the prompt goes (frontends/skills/shell_lines.py puts each output in its place).

    The ``!`` commands are found in the file as written, before the arguments go in: an
    argument that holds ``!`cmd``` is text, never a command of its own (the reference's
    substitution, too, runs once over the file)."""
    body = skill.body.replace("${CLAUDE_PROJECT_DIR}", project_root)
    if skill.folder:
        body = body.replace("${CLAUDE_SKILL_DIR}", skill.folder)
    commands: list[str] = []

    def command(match: re.Match[str]) -> str:
        commands.append((match.group("block") or match.group("line")).strip())
        return f"{MARK}{len(commands)}{MARK}"

    body = _SHELL.sub(command, body.replace(MARK, ""))
    args = [arg.replace(MARK, "") for arg in args]
    body, used = _fill(body, args)
    filled = [_fill(text, args) for text in commands]
    if args and not used and not any(had for _, had in filled):
        body = f"{body}\n\nARGUMENTS: {' '.join(args)}"
    return body, tuple(text for text, _ in filled)


def _fill(text: str, args: Sequence[str]) -> tuple[str, bool]:
    """``text`` with its placeholders filled; whether it had any."""
    used = False

    def fill(match: re.Match[str]) -> str:
        nonlocal used
        doubled, escaped, index, everything, digit = match.groups()
        if escaped and not doubled:
            return match.group(0)[1:]  # "\$1": a literal "$1"
        used = True
        if everything:
            value = " ".join(args)
        else:
            at = int(index if index is not None else digit)
            value = args[at] if at < len(args) else ""
        return (doubled or "") + value

    return _PLACEHOLDER.sub(fill, text), used


def _first_line(body: str) -> str:
    """The reference's default description: the body's first line of text."""
    # A line that holds a shell command or a fence is a step, not a description of the rest.
    plain = _SHELL.sub("", body)
    for line in plain.splitlines():
        text = line.strip().lstrip("#").strip()
        if text and not text.startswith("```"):
            return text
    return ""


def _string(document: frontmatter.Document, key: str, faults: frontmatter.Faults) -> str:
    value = document.fields.get(key)
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    faults.field(
        document,
        key,
        f"must be a string, not {type(value).__name__} {value!r}",
        f'Write it as {key}: "some text", or drop it',
    )
    return ""


def _model(document: frontmatter.Document, value: str, faults: frontmatter.Faults) -> str:
    """The model's id, ``""`` for none or ``inherit``; a name no provider knows is a fault."""
    if not value or value == "inherit":
        return ""
    try:
        return resolve_model(value).id
    except UsageError as error:
        faults.field(document, "model", error.message, error.remedy)
        return ""


def _flag(
    document: frontmatter.Document, key: str, default: bool, faults: frontmatter.Faults
) -> bool:
    value = document.fields.get(key, default)
    if isinstance(value, bool):
        return value
    faults.field(
        document,
        key,
        f"must be true or false, not {value!r}",
        f"Write {key}: true, or {key}: false",
    )
    return default


def _tool_list(
    document: frontmatter.Document, key: str, faults: frontmatter.Faults
) -> tuple[str, ...]:
    """``Read Grep``, ``Read, Bash(git add *)`` or a YAML list: the rules, one each."""
    value = document.fields.get(key)
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(item.strip() for item in value if item.strip())
    if isinstance(value, str):
        return tuple(_split_rules(value))
    faults.field(
        document,
        key,
        f"must be a list of tools, not {value!r}",
        f"Write it as {key}: Read, Grep, Bash(git status *)",
    )
    return ()


def _split_rules(text: str) -> list[str]:
    """Split on commas and spaces outside parentheses: ``Bash(git add *)`` is one rule."""
    rules: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth <= 0 and (char == "," or char.isspace()):
            depth = 0
            if current:
                rules.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        rules.append("".join(current))
    return rules
