"""The skills the model loads by itself, with the ``Skill`` tool (the conductor offers it).

The model sees each such skill's name and description in the tool's description, and loads
one by name when it needs it: only then is the file read and its body rendered (the
reference's progressive loading). Which skills: the reference's commands and skill folders,
and Legato's ``.legato/skills/<name>/SKILL.md``, unless the file says
``disable-model-invocation: true``. Legato's ``.legato/skills/<name>.md`` and its bundled
skills are the person's to run (``/commit``, ``/deploy``): the model is not offered them.

A skill folder's other files are listed with the body, by name only; the model reads them with
its Read tool, which the permission broker decides as for any path (a folder outside the
project, such as ``~/.claude/skills/<name>``, is asked about like any other).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import ConfigError, UsageError
from actors.protocol import CommandInfo, SkillPrompt
from actors.skills.skills import candidates, find_skill, load_candidate

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.skills.skill import Skill

# A folder's files listed with its body, at most: enough to find the ones the steps name.
_LISTED = 50


def offered(skill: Skill) -> bool:
    return skill.zero_based and skill.model_invocable


def model_skills(project_root: str, home: str | None = None) -> tuple[CommandInfo, ...]:
    """Every skill the model may load, by name; files that do not load are left out.

    Asked as every session starts: Legato's own skill files are not read for it (a name they
    hold is only skipped), so a session that has none of the reference's files reads none.
    """
    taken: set[str] = set()
    infos: list[CommandInfo] = []
    for candidate in candidates(project_root, home):
        if candidate.name in taken:
            continue
        taken.add(candidate.name)
        if candidate.place.kind == "legato":
            continue
        try:
            skill = load_candidate(candidate)
        except ConfigError:
            continue  # /help names it, with its faults
        if offered(skill):
            infos.append(
                CommandInfo(
                    name=skill.name,
                    description=skill.description,
                    kind="skill",
                    path=skill.path,
                    bundled=False,
                    usage=f"/{skill.name} {skill.hint}",
                )
            )
    return tuple(sorted(infos, key=lambda info: info.name))


def load_for_model(
    name: str, args: Sequence[str], project_root: str, home: str | None = None
) -> SkillPrompt:
    """The skill ``name`` rendered for the model; ``UsageError`` naming the skills there are."""
    skill = find_skill(project_root, name, home) if name else None
    if skill is None or not offered(skill):
        names = ", ".join(info.name for info in model_skills(project_root, home)) or "none"
        raise UsageError(
            f"No skill {name!r} can be loaded. The skills are: {names}.",
            remedy="Call Skill with one of those names",
        )
    lines = [f"Skill /{skill.name}: {skill.description}"]
    if skill.folder:
        lines.append(f"Its folder is {skill.folder}; read the files its steps name from there.")
        files = _files(skill.folder)
        if files:
            lines.append("Files: " + ", ".join(files))
    from actors.skills.reference import render_reference  # with the first skill loaded

    lines += ["", render_reference(skill, args, project_root)]
    return SkillPrompt(
        prompt="\n".join(lines),
        kind="skill",
        name=skill.name,
        path=skill.path,
        from_project=skill.level == "project",
    )


def _files(folder: str) -> list[str]:
    """The folder's files but SKILL.md, relative to it; linked folders are not entered."""
    found: list[str] = []
    for parent, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files):
            relative = os.path.relpath(os.path.join(parent, name), folder)
            if relative != "SKILL.md":  # the body itself, given above
                found.append(relative)
            if len(found) >= _LISTED:
                return [*found, "..."]
    return found
