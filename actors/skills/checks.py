"""``legato /<name> --test``: check a skill or pattern file and render it with sample arguments.

A fault raises ``ConfigError`` naming the file, the line and the field (the CLI exits 2); what
is worth knowing but not wrong comes back as a warning line.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from actors.errors import ConfigError, UsageError
from actors.protocol import CheckReport
from actors.skills import frontmatter, mockdata
from actors.skills.changelog import CHANGELOG_FILE, check_changelog
from actors.skills.frontmatter import Faults, FileFaults
from actors.skills.invoke import find_file
from actors.skills.patterns import PLACEHOLDER as PATTERN_PLACEHOLDER
from actors.skills.patterns import (
    Pattern,
    bind,
    list_patterns,
    load_pattern,
    lookup,
    project_patterns_dir,
    render,
    unbound,
)
from actors.skills.reference import render_reference
from actors.skills.skills import PLACEHOLDER as SKILL_PLACEHOLDER
from actors.skills.skills import find_skill, load_skill, read_text, substitute

if TYPE_CHECKING:
    from actors.skills.skill import Skill

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
    """Check ``/name``: the file meant to be it, found by its file name or by the name in its
    front matter (the project's when there is one, else the bundled one). Every fault of the
    file is reported at once."""
    meant = find_file(project_root, name)
    if meant is None:
        found = find_skill(project_root, name)  # the reference's commands and skill folders
        if found is not None:
            return check_reference(found, project_root)
        raise UsageError(
            f"/{name} is not a skill or a pattern: no file is named {name}.md or declares "
            f"'name: {name}'",
            remedy=f"Create .legato/skills/{name}.md or .legato/patterns/{name}.md",
        )
    kind, path = meant
    if kind == "skill":
        # The file's own name is what it is invoked as; a front matter that disagrees is a fault.
        return check_skill(load_skill(path, expected=os.path.basename(path)[:-3]))
    return check_pattern(project_root, _load_pattern(path))


def _load_pattern(path: str) -> Pattern:
    """The pattern, or every fault of its file: the front matter's, and the placeholders bound
    to no argument (which running it would send to the model as written)."""
    document = frontmatter.parse(read_text(path), path)  # unreadable: nothing more to find
    faults = Faults(path)
    pattern: Pattern | None = None
    try:
        pattern = load_pattern(path)
    except FileFaults as error:
        faults.found.extend(error.faults)
    except ConfigError as error:
        faults.add(error)
    raw = document.fields.get("args")
    declared = raw if isinstance(raw, list) else []
    names = [item["name"] for item in declared if isinstance(item, dict) and "name" in item]
    for placeholder, line in unbound(document.body, [str(n) for n in names], document.body_line):
        faults.add(
            ConfigError(
                f"the placeholder {{{{{placeholder}}}}} is bound to no argument "
                f"(arguments: {', '.join(map(str, names)) or 'none'})",
                path=path,
                line=line,
                field="body",
                remedy="Add the argument to 'args', or fix the placeholder's spelling",
            )
        )
    faults.check()
    assert pattern is not None  # no fault was found, so it loaded
    return pattern


def check_reference(skill: Skill, project_root: str) -> CheckReport:
    """A reference command or skill folder (loaded, so its front matter is sound), rendered
    with sample arguments as the model would get it."""
    sample = SAMPLE_ARGS[:3]
    notes = [f"from {skill.source}; its placeholders count from $0, as the reference's do"]
    if skill.allowed_tools:
        notes.append(f"allowed-tools ({', '.join(skill.allowed_tools)}) is not applied")
    if skill.model and skill.level == "user":
        notes.append(f"runs on the model {skill.model}")
    elif skill.model:
        notes.append(f"model ({skill.model}) is not applied: a project's file")
    return CheckReport(
        kind="skill",
        name=skill.name,
        path=skill.path,
        sample=" ".join(sample),
        rendered=render_reference(skill, sample, project_root),
        notes=tuple(notes),
    )


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
    warnings += _dangling(skill)
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


def _dangling(skill: Skill) -> list[str]:
    """The lines that would be sent with a hole in them when the arguments are left out: a
    skill's arguments are all optional, so "Target: $1." must read well without them."""
    found: list[str] = []
    for offset, line in enumerate(skill.body.splitlines()):
        if SKILL_PLACEHOLDER.search(line):
            empty, _ = substitute(line, ())
            found.append(
                f"line {skill.body_line + offset}: without arguments it is sent as "
                f"{empty.strip()!r}; refer to 'the arguments' in words instead (Legato appends "
                "them as 'ARGUMENTS: ...' only when some are given)"
            )
    return found


def check_pattern(project_root: str, pattern: Pattern) -> CheckReport:
    sample = [_sample(arg.name, arg.type, arg.choices, arg.default) for arg in pattern.args]
    values = bind(pattern, sample)
    bind(pattern, [v for v, arg in zip(sample, pattern.args, strict=True) if arg.required])
    shown = " ".join(_quote(value) for value in sample)
    if pattern.generator == "mock-data":
        rendered = mockdata.generate(values["schema"], 2, seed=0)
    else:
        rendered = render(pattern, values)
    warnings: list[str] = _holes(pattern)
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


def _holes(pattern: Pattern) -> list[str]:
    """The lines that would be sent with a hole in them when an optional argument with no
    default is left out (the prompt's "Arguments:" line names only the given ones)."""
    optional = {arg.name: "" for arg in pattern.args if not arg.required and arg.default is None}
    found: list[str] = []
    for offset, line in enumerate(pattern.body.splitlines()):
        names = [m.group(1) for m in PATTERN_PLACEHOLDER.finditer(line)]
        empty = [name for name in names if lookup(name, optional) is not None]
        if empty:
            shown = PATTERN_PLACEHOLDER.sub(lambda m: _left_out(m, optional), line)
            found.append(
                f"line {pattern.body_line + offset}: without {', '.join(empty)} it is sent as "
                f"{shown.strip()!r}; give the argument a default, or refer to it in words"
            )
    return found


def _left_out(match: re.Match[str], optional: dict[str, str]) -> str:
    value = lookup(match.group(1), optional)
    return match.group(0) if value is None else value


def _sample(name: str, kind: str, choices: tuple[str, ...] | None, default: str | None) -> str:
    if choices:
        return choices[-1] if default == choices[0] and len(choices) > 1 else choices[0]
    if kind in ("json", "schema"):
        return SAMPLE_SCHEMA
    if kind == "integer":
        return "3"
    return f"sample-{name}"


def _quote(value: str) -> str:
    return f"'{value}'" if any(char in value for char in ' {}"') else value
