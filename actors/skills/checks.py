"""``legato /<name> --test``: check a skill or pattern file and render it with sample arguments.

A fault raises ``ConfigError`` naming the file, the line and the field (the CLI exits 2); what
is worth knowing but not wrong comes back as a warning line.
"""

from __future__ import annotations

import os
import re

from actors.errors import ConfigError, UsageError
from actors.protocol import CheckReport
from actors.skills import mockdata
from actors.skills.changelog import CHANGELOG_FILE, check_changelog
from actors.skills.invoke import find_command
from actors.skills.patterns import (
    Pattern,
    bind,
    list_patterns,
    project_patterns_dir,
    render,
    unbound,
)
from actors.skills.skills import PLACEHOLDER as SKILL_PLACEHOLDER
from actors.skills.skills import Skill, load_skill, project_skills_dir, read_text, substitute

SAMPLE_ARGS = tuple(f"sample-{n}" for n in range(1, 10))
SAMPLE_SCHEMA = '{"id": "uuid", "name": "string", "email": "email"}'
_NUMBERED_STEP = re.compile(r"^\s*\d+[.)]\s+\S", re.MULTILINE)
_STRAY_DOLLAR = re.compile(r"\$(?:0|ARGS\b|ARG\b|ARGUMENT\b|\{[^}]*\})")
_SECTIONS = (
    ("generat", "the generated-content list"),
    ("step", "the steps"),
    ("template", "the template"),
)


def check_command(project_root: str, name: str) -> CheckReport:
    """Check ``/name``: the project's file when there is one, else the bundled one."""
    skill_file = os.path.join(project_skills_dir(project_root), f"{name}.md")
    if os.path.isfile(skill_file):
        return check_skill(load_skill(skill_file, expected=name))  # a name mismatch is a fault
    found = find_command(project_root, name)
    if found is None:
        raise UsageError(
            f"/{name} is not a skill or a pattern",
            remedy=f"Create .legato/skills/{name}.md or .legato/patterns/{name}.md",
        )
    if isinstance(found, Skill):
        return check_skill(found)
    return check_pattern(project_root, found)


def check_skill(skill: Skill) -> CheckReport:
    rendered, used = substitute(skill.body, SAMPLE_ARGS)
    warnings: list[str] = []
    notes: list[str] = []
    if not used:
        rendered = f"{rendered}\n\nARGUMENTS: {' '.join(SAMPLE_ARGS)}"
        notes.append("no placeholder: arguments are appended as 'ARGUMENTS: ...'")
    if SKILL_PLACEHOLDER.search(rendered):
        raise ConfigError("a placeholder was left unrendered", path=skill.path, field="body")
    if not _NUMBERED_STEP.search(skill.body):
        warnings.append("the body has no numbered steps (1. ..., 2. ...)")
    for match in _STRAY_DOLLAR.finditer(skill.body):
        warnings.append(f"{match.group(0)} is not a placeholder; use $ARGUMENTS or $1..$9")
    return CheckReport(
        kind="skill",
        name=skill.name,
        path=skill.path,
        sample=" ".join(SAMPLE_ARGS),
        rendered=rendered,
        warnings=tuple(warnings),
        notes=tuple(notes),
    )


def check_pattern(project_root: str, pattern: Pattern) -> CheckReport:
    for placeholder, line in unbound(pattern):
        names = ", ".join(arg.name for arg in pattern.args) or "none"
        raise ConfigError(
            f"the placeholder {{{{{placeholder}}}}} is bound to no argument (arguments: {names})",
            path=pattern.path,
            line=line,
            field="body",
            remedy="Add the argument to 'args', or fix the placeholder's spelling",
        )
    sample = [_sample(arg.name, arg.type, arg.choices, arg.default) for arg in pattern.args]
    values = bind(pattern, sample)
    bind(pattern, [v for v, arg in zip(sample, pattern.args, strict=True) if arg.required])
    shown = " ".join(_quote(value) for value in sample)
    if pattern.generator == "mock-data":
        rendered = mockdata.generate(values["schema"], 2, seed=0)
    else:
        rendered = render(pattern, values)
    warnings: list[str] = []
    notes: list[str] = []
    lowered = pattern.body.lower()
    for word, what in _SECTIONS:
        if not re.search(rf"^#+ .*{word}", lowered, re.MULTILINE):
            warnings.append(f"the body has no heading for {what}")
    # The library's changelog next to the pattern, and the project's own, whichever exist.
    folders = dict.fromkeys((os.path.dirname(pattern.path), project_patterns_dir(project_root)))
    for folder in folders:
        changelog = os.path.join(folder, CHANGELOG_FILE)
        if os.path.isfile(changelog):
            known = {p.name for p in list_patterns(project_root)[0]}
            versions = check_changelog(changelog, read_text(changelog), known)
            notes.append(f"{changelog}: {versions} version(s), format ok")
    return CheckReport(
        kind="pattern",
        name=pattern.name,
        path=pattern.path,
        sample=shown,
        rendered=rendered,
        warnings=tuple(warnings),
        notes=tuple(notes),
    )


def _sample(name: str, kind: str, choices: tuple[str, ...] | None, default: str | None) -> str:
    if choices:
        return choices[-1] if default == choices[0] and len(choices) > 1 else choices[0]
    if kind == "json":
        return SAMPLE_SCHEMA
    if kind == "integer":
        return "3"
    return f"sample-{name}"


def _quote(value: str) -> str:
    return f"'{value}'" if any(char in value for char in ' {}"') else value
