"""Skills: ``.legato/skills/<name>.md``, run as ``/<name> [args]``.

A skill is front matter (``name``, ``description``, both required strings) and a body of
numbered steps the model follows. Arguments are positional and shell-like: ``$ARGUMENTS``
is all of them, ``$1``..``$9`` one each (1-based; a missing one is empty, as in a shell).
A body with no placeholder gets the arguments appended as ``ARGUMENTS: ...``.

A project's skill overrides the bundled skill of the same name.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.errors import ConfigError
from actors.skills import frontmatter

if TYPE_CHECKING:
    from collections.abc import Sequence

# Package data beside this module: hatch's wheel target puts every file under actors/ into the
# wheel (the .md files included), and a wheel is installed unzipped, so a plain path works.
BUNDLED_SKILLS = os.path.join(os.path.dirname(__file__), "bundled", "skills")
PROJECT_SKILLS = os.path.join(".legato", "skills")

# $ARGUMENTS, ${ARGUMENTS}, $1..$9, ${1}..${9}; "$10" is "$1" then "0", as in a shell.
PLACEHOLDER = re.compile(r"\$(?:\{(ARGUMENTS|[1-9])\}|(ARGUMENTS)\b|([1-9]))")
NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    body: str
    path: str
    bundled: bool


def project_skills_dir(project_root: str) -> str:
    return os.path.join(project_root, PROJECT_SKILLS)


def load_skill(path: str, *, bundled: bool = False, expected: str | None = None) -> Skill:
    """Read and check one skill file; ``ConfigError`` names the file, line and field."""
    document = frontmatter.parse(read_text(path), path)
    name = require_string(document, "name")
    description = one_line(require_string(document, "description"))
    if expected is not None and name != expected:
        raise ConfigError(
            f"is '{name}', but the skill is invoked as /{expected}",
            path=path,
            line=document.line_of("name"),
            field="name",
            remedy=f"Set 'name: {expected}', or rename the file to {name}.md",
        )
    if not document.body.strip():
        raise ConfigError(
            "the body is empty",
            path=path,
            line=document.body_line,
            field="body",
            remedy="Write the numbered steps the assistant should follow below the front matter",
        )
    return Skill(name, description, document.body, path, bundled)


def require_string(document: frontmatter.Document, key: str) -> str:
    """A required, non-empty string field of the front matter."""
    if key not in document.fields:
        raise ConfigError(
            "is missing",
            path=document.path,
            line=1,
            field=key,
            remedy=f"Add '{key}: ...' to the front matter",
        )
    value = document.fields[key]
    if not isinstance(value, str) or not value.strip():
        shown = "empty" if value in ("", [], {}, None) else f"{type(value).__name__} {value!r}"
        raise ConfigError(
            f"must be a non-empty string, not {shown}",
            path=document.path,
            line=document.line_of(key),
            field=key,
            remedy=f'Write it as {key}: "some text"',
        )
    return value.strip()


def one_line(text: str) -> str:
    """A description written as a YAML block (``description: |``), on one line: it is shown
    in listings and opens the prompt."""
    return " ".join(text.split())


def find_skill(project_root: str, name: str) -> Skill | None:
    """The project's ``<name>.md`` if there is one, else the bundled one, else None."""
    if not NAME.match(name):
        return None
    for folder, bundled in ((project_skills_dir(project_root), False), (BUNDLED_SKILLS, True)):
        path = os.path.join(folder, f"{name}.md")
        if os.path.isfile(path):
            return load_skill(path, bundled=bundled, expected=name)
    return None


def list_skills(project_root: str) -> tuple[list[Skill], list[ConfigError]]:
    """Every skill by name (project over bundled), and the faults of files that do not load."""
    found: dict[str, Skill] = {}
    faults: list[ConfigError] = []
    for folder, bundled in ((BUNDLED_SKILLS, True), (project_skills_dir(project_root), False)):
        for path in markdown_files(folder):
            stem = os.path.basename(path)[:-3]
            try:
                found[stem] = load_skill(path, bundled=bundled, expected=stem)
            except ConfigError as error:
                faults.append(error)
    return sorted(found.values(), key=lambda skill: skill.name), faults


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


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read()
    except UnicodeDecodeError:
        raise ConfigError("is not UTF-8 text", path=path, remedy="Save it as UTF-8") from None
    except OSError as error:
        raise ConfigError(
            f"cannot be read: {error.strerror}", path=path, remedy="Check the file's permissions"
        ) from None
