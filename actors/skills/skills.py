"""Skills: ``.legato/skills/<name>.md``, run as ``/<name> [args]``, and the reference's
commands and skill folders beside them (``reference.py``).

A skill is front matter (``name``, ``description``, both required strings) and a body of
numbered steps the model follows. Arguments are positional and shell-like: ``$ARGUMENTS``
is all of them, ``$1``..``$9`` one each (1-based; a missing one is empty, as in a shell).
A body with no placeholder gets the arguments appended as ``ARGUMENTS: ...``.

Where one name is found in several places, the first of these runs (``places``): Legato's
own before the reference's, the project's before the user's, the bundled last.

    .legato/skills/<name>.md, .legato/skills/<name>/SKILL.md,
    .claude/skills/<name>/SKILL.md, .claude/commands/**/*.md,
    ~/.claude/skills/<name>/SKILL.md, ~/.claude/commands/**/*.md, the bundled skills
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Literal, NamedTuple

import msgspec

from actors.errors import ConfigError
from actors.own_files import LIBRARY_CAP, Refused, read_own
from actors.skills import frontmatter
from actors.skills.skill import DEFAULT_HINT, HINT_FIELD, Skill, one_line

if TYPE_CHECKING:
    from collections.abc import Sequence

# Package data beside this module: hatch's wheel target puts every file under actors/ into the
# wheel (the .md files included), and a wheel is installed unzipped, so a plain path works.
BUNDLED_SKILLS = os.path.join(os.path.dirname(__file__), "bundled", "skills")
PROJECT_SKILLS = os.path.join(".legato", "skills")

# $ARGUMENTS, ${ARGUMENTS}, $1..$9, ${1}..${9}; "$10" is "$1" then "0", as in a shell.
PLACEHOLDER = re.compile(r"\$(?:\{(ARGUMENTS|[1-9])\}|(ARGUMENTS)\b|([1-9]))")
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_NAME_LINE = re.compile(r"^name:\s*(\S.*?)\s*(?:#.*)?$")

PlaceKind = Literal["legato", "skill-folder", "commands"]


class Place(NamedTuple):
    """A folder skills are read from, and how."""

    kind: PlaceKind
    folder: str
    level: Literal["project", "user", "bundled"]
    inside: str  # the folder a file's real path must stay in
    shown: str  # the folder as /help names it


class Candidate(NamedTuple):
    """A file that would run as ``/name``, before it is read."""

    name: str
    path: str
    place: Place

    @property
    def source(self) -> str:
        return os.path.join(self.place.shown, os.path.relpath(self.path, self.place.folder))


def places(project_root: str, home: str | None = None) -> list[Place]:
    """Every folder skills come from, the one that wins a name first."""
    home = home if home is not None else os.path.expanduser("~")
    user = os.path.join(home, ".claude")
    root = project_root

    def project(kind: PlaceKind, *parts: str) -> Place:
        return Place(kind, os.path.join(root, *parts), "project", root, os.path.join(*parts))

    return [
        project("legato", PROJECT_SKILLS),
        project("skill-folder", PROJECT_SKILLS),
        project("skill-folder", ".claude", "skills"),
        project("commands", ".claude", "commands"),
        Place("skill-folder", os.path.join(user, "skills"), "user", user, "~/.claude/skills"),
        Place("commands", os.path.join(user, "commands"), "user", user, "~/.claude/commands"),
        Place("legato", BUNDLED_SKILLS, "bundled", _BUNDLED, "bundled"),
    ]


def candidates(project_root: str, home: str | None = None) -> list[Candidate]:
    """Every file that would run as a skill, in the order the names are won."""
    found: list[Candidate] = []
    for place in places(project_root, home):
        if place.kind == "legato":
            files = [(os.path.basename(p)[:-3], p) for p in markdown_files(place.folder)]
        elif not os.path.lexists(place.folder):
            continue  # most projects have none: the reference's reader is not even loaded
        elif place.kind == "skill-folder":
            from actors.skills import reference

            files = reference.skill_folders(place.folder)
        else:
            from actors.skills import reference

            files = reference.command_files(place.folder)
        found += [Candidate(name, path, place) for name, path in files]
    return found


def load_candidate(candidate: Candidate) -> Skill:
    """Read one candidate; ``ConfigError`` names the file, line and field."""
    place = candidate.place
    if place.kind == "legato":
        skill = load_skill(
            candidate.path, bundled=place.level == "bundled", expected=candidate.name
        )
        return msgspec.structs.replace(skill, level=place.level, source=candidate.source)
    from actors.skills import reference

    fault = reference.unusable(candidate.name, candidate.path)
    if fault is not None:
        raise fault
    text = read_text(candidate.path, inside=place.inside)
    folder = os.path.dirname(candidate.path) if place.kind == "skill-folder" else ""
    level: Literal["project", "user"] = "user" if place.level == "user" else "project"
    return reference.load_reference(
        text, candidate.path, candidate.name, level=level, source=candidate.source, folder=folder
    )


def project_skills_dir(project_root: str) -> str:
    return os.path.join(project_root, PROJECT_SKILLS)


def load_skill(path: str, *, bundled: bool = False, expected: str | None = None) -> Skill:
    """Read and check one skill file; ``ConfigError`` names the file, line and field (all the
    faults at once, when there are several)."""
    document = frontmatter.parse(read_text(path), path)
    faults = frontmatter.Faults(path)
    name = require_string(document, "name", faults)
    description = one_line(require_string(document, "description", faults))
    if name and expected is not None and name != expected:
        faults.add(
            ConfigError(
                f"is '{name}', but the skill is invoked as /{expected}",
                path=path,
                line=document.line_of("name"),
                field="name",
                remedy=f"Set 'name: {expected}', or rename the file to {name}.md",
            )
        )
    hint = document.fields.get(HINT_FIELD, DEFAULT_HINT)
    if not isinstance(hint, str) or not hint.strip():
        faults.add(
            ConfigError(
                f"must be a string such as '<file> [focus]', not {hint!r}",
                path=path,
                line=document.line_of(HINT_FIELD),
                field=HINT_FIELD,
                remedy=f"Write it as {HINT_FIELD}: <file> [focus], or drop it",
            )
        )
        hint = DEFAULT_HINT
    if not document.body.strip():
        faults.add(
            ConfigError(
                "the body is empty",
                path=path,
                line=document.body_line,
                field="body",
                remedy="Write the numbered steps the assistant should follow below the front "
                "matter",
            )
        )
    faults.check()
    hint = " ".join(hint.split())
    return Skill(name, description, document.body, path, bundled, hint, document.body_line)


def require_string(
    document: frontmatter.Document, key: str, faults: frontmatter.Faults | None = None
) -> str:
    """A required, non-empty string field of the front matter: ``""`` after a fault added to
    ``faults``, or the fault raised when there is no ``faults`` to gather it."""
    if faults is None:
        alone = frontmatter.Faults(document.path)
        text = require_string(document, key, alone)
        alone.check()
        return text
    if key not in document.fields:
        faults.add(
            ConfigError(
                "is missing",
                path=document.path,
                line=1,
                field=key,
                remedy=f"Add '{key}: ...' to the front matter",
            )
        )
        return ""
    value = document.fields[key]
    if not isinstance(value, str) or not value.strip():
        shown = "empty" if value in ("", [], {}, None) else f"{type(value).__name__} {value!r}"
        faults.field(
            document,
            key,
            f"must be a non-empty string, not {shown}",
            f'Write it as {key}: "some text"',
        )
        return ""
    return value.strip()


def declared_name(path: str) -> str | None:
    """The ``name:`` a file's front matter declares, even when the file has other faults."""
    try:
        text = read_text(path)
    except ConfigError:
        return None
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:]:
        if line.strip() == "---":
            break
        # A plain reading of one line, not the YAML parser: a file whose YAML is broken
        # elsewhere still says which command it is meant to be.
        match = _NAME_LINE.match(line)
        if match:
            return match.group(1).strip().strip("'\"")
    return None


def find_skill(project_root: str, name: str, home: str | None = None) -> Skill | None:
    """The skill ``/name`` runs (the first place that has it wins), or None."""
    for candidate in candidates(project_root, home):
        if candidate.name == name:
            return load_candidate(candidate)
    return None


class Shadowed(NamedTuple):
    """A file that would run as ``/name`` but for ``winner``, found first."""

    source: str
    name: str
    winner: str


def list_skills(
    project_root: str, home: str | None = None
) -> tuple[list[Skill], list[ConfigError]]:
    """Every skill by name (the first place that has a name wins), and the faults of files
    that do not load."""
    skills, faults, _ = survey(project_root, home)
    return skills, faults


def survey(
    project_root: str, home: str | None = None
) -> tuple[list[Skill], list[ConfigError], list[Shadowed]]:
    """``list_skills``, and the files a winner of the same name hides."""
    found: dict[str, Skill] = {}
    winners: dict[str, str] = {}
    faults: list[ConfigError] = []
    shadowed: list[Shadowed] = []
    for candidate in candidates(project_root, home):
        if candidate.name in winners:
            shadowed.append(Shadowed(candidate.source, candidate.name, winners[candidate.name]))
            continue
        try:
            found[candidate.name] = load_candidate(candidate)
        except ConfigError as error:
            faults.append(error)
        # A broken file still holds its name: a file further down never runs in its place
        # without a word.
        winners[candidate.name] = candidate.source
    return sorted(found.values(), key=lambda skill: skill.name), faults, shadowed


def render_skill(skill: Skill, args: Sequence[str]) -> str:
    """The body with its placeholders filled; the prompt the model gets."""
    body, used = substitute(skill.body, args)
    if not used and args:
        body = f"{body}\n\nARGUMENTS: {' '.join(args)}"
    return body


def substitute(body: str, args: Sequence[str]) -> tuple[str, bool]:
    """Fill ``$ARGUMENTS`` and ``$1``..``$9``; say whether the body had any placeholder."""
    used = False

    def fill(match: re.Match[str]) -> str:
        nonlocal used
        used = True
        key = match.group(1) or match.group(2) or match.group(3)
        if key == "ARGUMENTS":
            return " ".join(args)
        index = int(key) - 1
        return args[index] if index < len(args) else ""

    return PLACEHOLDER.sub(fill, body), used


def markdown_files(folder: str) -> list[str]:
    try:
        names = sorted(os.listdir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [os.path.join(folder, name) for name in names if name.endswith(".md")]


def read_text(path: str, *, inside: str | None = None) -> str:
    """A library file's text, read through the door for Legato's own files (its real path in
    ``inside``, by default the folder it belongs to, a regular file, at most ``LIBRARY_CAP``
    bytes); ConfigError."""
    folders = (inside,) if inside is not None else _folders_of(path)
    try:
        found = read_own(path, inside=folders, cap=LIBRARY_CAP)
    except Refused as refused:
        raise ConfigError(refused.why, path=path, remedy=refused.remedy) from None
    if found is None:
        raise ConfigError(
            "cannot be read: No such file or directory",
            path=path,
            remedy="Check the file's permissions",
        )
    try:
        text = found.data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text", path=path, remedy="Save it as UTF-8") from None
    # Newlines as a text file reads them (universal newlines): a file saved on Windows too.
    return text.replace("\r\n", "\n").replace("\r", "\n")


_BUNDLED = os.path.join(os.path.dirname(__file__), "bundled")
_USER_FOLDER = os.sep + os.path.join(".config", "legato") + os.sep
_PROJECT_FOLDER = os.sep + ".legato" + os.sep


def _folders_of(path: str) -> tuple[str, ...]:
    """Where a library file may lead: Legato's own bundled files stay among them, the user's
    (``~/.config/legato/agents``) in the user's Legato folder, a project's (``<project>/.legato/
    skills``...) in the project; anything else in its own folder."""
    if path.startswith(_BUNDLED + os.sep):
        return (_BUNDLED,)
    if _USER_FOLDER in path:
        return (path[: path.rindex(_USER_FOLDER) + len(_USER_FOLDER) - 1],)
    if _PROJECT_FOLDER in path:
        return (path[: path.rindex(_PROJECT_FOLDER)] or os.sep,)
    return (os.path.dirname(path),)
