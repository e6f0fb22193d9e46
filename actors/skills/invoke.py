"""``/<name> [args]``: from a command's name and arguments to what runs, for every frontend.

``prepare`` turns ``/commit``, ``/crud-gen product '{"name": "string"}'`` or ``/help`` into
either a ``SkillPrompt`` (a prompt for the model: a skill's steps or a rendered pattern) or a
``SkillOutput`` (text Legato produces itself: the help listing, the memory location, mock
data). The skill library answers ``PrepareCommand`` with it, so a skill behaves the same in
every frontend. Lookup order: the project's skill, the project's pattern, then the bundled ones.
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.places import MEMORY_FILE, memory_dir
from actors.protocol import CommandInfo, SkillOutput, SkillPrompt
from actors.skills import mockdata
from actors.skills.patterns import (
    Pattern,
    bind,
    find_pattern,
    list_patterns,
    render,
    usage_line,
)
from actors.skills.skills import Skill, find_skill, list_skills, render_skill
from actors.skills.stats import record_run

if TYPE_CHECKING:
    from collections.abc import Sequence

BUILTINS = {
    "help": "list the skills and patterns with their descriptions",
    "memory": "show where this project's memory lives and what it holds",
}


def find_command(project_root: str, name: str) -> Skill | Pattern | None:
    """The skill or pattern ``/name`` runs: the project's before the bundled, skills first."""
    skill = find_skill(project_root, name)
    pattern = find_pattern(project_root, name)
    if skill is not None and pattern is not None:
        return pattern if skill.bundled and not pattern.bundled else skill
    return skill or pattern


def prepare(
    name: str,
    args: Sequence[str],
    project_root: str,
    *,
    home: str | None = None,
    seed: int | None = None,
) -> SkillPrompt | SkillOutput:
    """What ``/name args`` runs: ``UsageError`` for a bad call, ``ConfigError`` for a bad file.

    A pattern run is counted for ``--pattern-stats``.
    """
    home = home if home is not None else os.path.expanduser("~")
    if name == "help":
        return SkillOutput(help_text(project_root, home))
    if name == "memory":
        return SkillOutput(memory_text(project_root, home))
    found = find_command(project_root, name)
    if found is None:
        raise UsageError(
            f"/{name} is not a skill or a pattern", remedy=_suggest(project_root, name)
        )
    if isinstance(found, Skill):
        prompt = (
            f"Run the skill /{found.name}: {found.description}\n"
            f"Follow these steps in order.\n\n{render_skill(found, args)}"
        )
        return SkillPrompt(prompt=prompt, kind="skill", name=found.name, path=found.path)
    pattern: Pattern = found
    values = bind(pattern, args)
    result: SkillPrompt | SkillOutput
    if pattern.generator == "mock-data":
        result = SkillOutput(mockdata.generate(values["schema"], int(values["count"]), seed=seed))
    else:
        shown = ", ".join(f"{key}={value}" for key, value in values.items() if value) or "none"
        prompt = (
            f"Run the pattern /{pattern.name}: {pattern.description}\n"
            f"Arguments: {shown}\n"
            "Produce everything the pattern lists, following its steps, with its template "
            f"filled in for these arguments.\n\n{render(pattern, values)}"
        )
        result = SkillPrompt(prompt=prompt, kind="pattern", name=pattern.name, path=pattern.path)
    record_run(project_root, home, pattern.name)
    return result


def list_commands(project_root: str) -> tuple[CommandInfo, ...]:
    """Every skill and pattern ``/name`` can run here, for /help and completion."""
    skills, _ = list_skills(project_root)
    patterns, _ = list_patterns(project_root)
    infos = [
        CommandInfo(
            name=s.name,
            description=s.description,
            kind="skill",
            path=s.path,
            bundled=s.bundled,
            usage=f"/{s.name} [args]",
        )
        for s in skills
    ]
    infos += [
        CommandInfo(
            name=p.name,
            description=p.description,
            kind="pattern",
            path=p.path,
            bundled=p.bundled,
            usage=usage_line(p),
        )
        for p in patterns
    ]
    return tuple(infos)


def help_text(project_root: str, home: str) -> str:
    skills, skill_faults = list_skills(project_root)
    patterns, pattern_faults = list_patterns(project_root)
    names = [s.name for s in skills] + [p.name for p in patterns]
    width = max(map(len, names), default=10) + 2
    lines = ["Skills (/<name> [args]):"]
    lines += [_entry(s.name, s.description, s.bundled, width) for s in skills]
    lines += ["", "Patterns (/<name> <args>; legato /<name> --test shows one rendered):"]
    lines += [_entry(p.name, p.description, p.bundled, width) for p in patterns]
    lines += ["", "Built in:"]
    lines += [f"  /{name:<{width}}{text}" for name, text in BUILTINS.items()]
    faults = [*skill_faults, *pattern_faults]
    if faults:
        lines += ["", "Not loaded (fix these files):"]
        lines += [f"  {fault.message}" for fault in faults]
    lines += ["", f"Memory: {memory_dir(os.path.realpath(project_root), home)}"]
    return "\n".join(lines)


def _entry(name: str, description: str, bundled: bool, width: int) -> str:
    return f"  /{name:<{width}}{description}{'' if bundled else '  (project)'}"


def memory_text(project_root: str, home: str) -> str:
    folder = memory_dir(os.path.realpath(project_root), home)
    lines = [f"Memory for this project: {folder}"]
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".md"))
    except FileNotFoundError:
        names = []
    if MEMORY_FILE in names:
        with open(os.path.join(folder, MEMORY_FILE), encoding="utf-8", errors="replace") as file:
            count = sum(1 for _ in file)
        lines.append(
            f"  {MEMORY_FILE}: {count} lines (the first 200 are loaded into every session)"
        )
    else:
        lines.append(f"  {MEMORY_FILE}: not written yet; ask 'remember that ...' to start it")
    topics = [name for name in names if name != MEMORY_FILE]
    lines.append(f"  topic files: {', '.join(topics) if topics else 'none'} (read when relevant)")
    return "\n".join(lines)


def _suggest(project_root: str, name: str) -> str:
    names = [info.name for info in list_commands(project_root)] + list(BUILTINS)
    close = difflib.get_close_matches(name, names, n=3)
    hint = f"Did you mean {', '.join('/' + c for c in close)}? " if close else ""
    return f"{hint}Run 'legato /help' to list them; add your own in .legato/skills/<name>.md"
