"""Patterns: parameterised generators in ``.legato/patterns/<file>.md``.

Front matter: ``name``, ``description``, ``args`` (each ``name``, ``description``,
``required``, ``choices``, ``default``). Legato adds two optional fields, both documented in
docs/skills-and-patterns.md: ``args[].type`` (``string``, ``json`` or ``integer``; a ``json``
argument that does not parse is reported where it breaks) and ``generator`` (``mock-data``:
the output is fully determined by the arguments, so Legato renders it without a model).

The body (generated-content list, steps, template) may use ``{{arg}}`` placeholders; ``{{Arg}}``
gives the value in PascalCase and ``{{ARG}}`` in UPPER_SNAKE_CASE. The rendered body is the task
handed to the model. The file name may differ from the pattern's name; a project pattern
overrides the bundled one of the same name.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.errors import ConfigError, UsageError
from actors.nesting import MAX_DEPTH, too_deep
from actors.skills import frontmatter
from actors.skills.skill import one_line
from actors.skills.skills import NAME, markdown_files, read_text, require_string

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

BUNDLED_PATTERNS = os.path.join(os.path.dirname(__file__), "bundled", "patterns")
PROJECT_PATTERNS = os.path.join(".legato", "patterns")
NOT_PATTERNS = frozenset({"readme.md", "changelog.md"})  # the library's own documents
ARG_TYPES = ("string", "json", "integer", "schema")
# A ``schema`` argument's type names: the ones mock data can make, as the specification lists.
SCHEMA_TYPES = ("string", "number", "boolean", "date", "email", "url", "uuid")
GENERATORS = ("mock-data",)
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\s*\}\}")
_ARG_FIELDS = frozenset({"name", "description", "required", "choices", "default", "type"})


@dataclass(frozen=True)
class PatternArg:
    name: str
    description: str
    required: bool = False
    choices: tuple[str, ...] | None = None
    default: str | None = None
    type: str = "string"


@dataclass(frozen=True)
class Pattern:
    name: str
    description: str
    args: tuple[PatternArg, ...]
    body: str
    path: str
    bundled: bool
    generator: str | None = None
    body_line: int = 1


def project_patterns_dir(project_root: str) -> str:
    return os.path.join(project_root, PROJECT_PATTERNS)


def pattern_files(folder: str) -> list[str]:
    return [p for p in markdown_files(folder) if os.path.basename(p).lower() not in NOT_PATTERNS]


def load_pattern(path: str, *, bundled: bool = False) -> Pattern:
    """Read and check one pattern file; ``ConfigError`` names the file, line and field (all the
    faults at once, when there are several)."""
    document = frontmatter.parse(read_text(path), path)
    faults = frontmatter.Faults(path)
    name = require_string(document, "name", faults)
    if name and not NAME.match(name):
        faults.add(
            _fault(document, "name", f"{name!r} cannot be typed as /{name}", "Use lower-case-words")
        )
    description = one_line(require_string(document, "description", faults))
    generator = document.fields.get("generator")
    if generator is not None and generator not in GENERATORS:
        faults.add(
            _fault(document, "generator", f"{generator!r} is not one of {', '.join(GENERATORS)}")
        )
    if not document.body.strip():
        faults.add(
            ConfigError(
                "the body is empty",
                path=path,
                line=document.body_line,
                field="body",
                remedy="Write the generated-content list, the steps and the template",
            )
        )
    args = _args(document, faults)
    if generator == "mock-data" and [arg.name for arg in args][:2] != ["schema", "count"]:
        faults.add(
            _fault(
                document,
                "generator",
                "mock-data needs the arguments schema and count, in that order",
                "Declare args 'schema' (type: schema) and 'count' (type: integer), or drop "
                "'generator'",
            )
        )
    faults.check()
    return Pattern(
        name,
        description,
        args,
        document.body,
        path,
        bundled,
        generator if isinstance(generator, str) else None,
        document.body_line,
    )


def _args(document: frontmatter.Document, faults: frontmatter.Faults) -> tuple[PatternArg, ...]:
    raw = document.fields.get("args")
    if raw is None or raw == "":
        return ()
    if not isinstance(raw, list):
        faults.add(_fault(document, "args", "must be a list of argument objects"))
        return ()
    args: list[PatternArg] = []
    for index, item in enumerate(raw):
        where = f"args[{index}]"
        if not isinstance(item, dict):
            faults.add(_fault(document, where, "must be an object with name and description"))
            continue
        arg = _arg(document, where, item, faults)
        if arg is not None:
            args.append(arg)
    seen: set[str] = set()
    for index, item in enumerate(raw):
        name = item.get("name") if isinstance(item, dict) else None
        if isinstance(name, str) and name in seen:
            faults.add(_fault(document, f"args[{index}].name", f"repeats the argument '{name}'"))
        if isinstance(name, str):
            seen.add(name)
    return tuple(args)


def _arg(
    document: frontmatter.Document,
    where: str,
    item: dict[str, object],
    faults: frontmatter.Faults,
) -> PatternArg | None:
    """One argument, or None when it has faults (each added to ``faults``)."""
    before = len(faults.found)
    for key in item:
        if key not in _ARG_FIELDS:
            faults.add(
                _fault(
                    document,
                    f"{where}.{key}",
                    "is not an argument field",
                    f"Use only {', '.join(sorted(_ARG_FIELDS))}",
                )
            )
    for key in ("name", "description"):
        value = item.get(key)
        if not isinstance(value, str) or not value.strip():
            faults.add(_fault(document, f"{where}.{key}", "must be a non-empty string"))
    name, description = str(item.get("name")), str(item.get("description"))
    required = item.get("required", False)
    if not isinstance(required, bool):
        faults.add(
            _fault(document, f"{where}.required", f"must be true or false, not {required!r}")
        )
    kind = item.get("type", "string")
    if kind not in ARG_TYPES:
        faults.add(
            _fault(document, f"{where}.type", f"{kind!r} is not one of {', '.join(ARG_TYPES)}")
        )
    choices = item.get("choices")
    if choices is not None and (
        not isinstance(choices, list) or not choices or any(isinstance(c, dict) for c in choices)
    ):
        faults.add(_fault(document, f"{where}.choices", "must be a non-empty list of values"))
        choices = None
    shown_choices = tuple(str(c) for c in choices) if isinstance(choices, list) else None
    default = item.get("default")
    if isinstance(default, list | dict):
        faults.add(_fault(document, f"{where}.default", "must be a single value"))
        default = None
    text_default = None if default is None else _text(default)
    if text_default is not None:
        if required is True:
            faults.add(
                _fault(
                    document,
                    f"{where}.default",
                    "a required argument never uses its default",
                    "Drop the default, or make the argument optional",
                )
            )
        if shown_choices is not None and text_default not in shown_choices:
            faults.add(
                _fault(
                    document,
                    f"{where}.default",
                    f"{text_default!r} is not one of the choices {', '.join(shown_choices)}",
                )
            )
        problem = _type_problem(str(kind), text_default) if kind in ARG_TYPES else None
        if problem:
            faults.add(_fault(document, f"{where}.default", problem))
    if len(faults.found) > before:
        return None
    return PatternArg(name, description, bool(required), shown_choices, text_default, str(kind))


def _text(value: object) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _type_problem(kind: str, value: str) -> str | None:
    if kind == "integer" and not re.fullmatch(r"-?\d+", value.strip()):
        return f"{value!r} is not a whole number"
    if kind == "integer" and len(value.strip().lstrip("-")) > 18:
        # Past 4300 digits Python builds no integer; no count or size needs more than 18.
        return f"is a whole number of {len(value.strip().lstrip('-'))} digits, too large to use"
    if kind in ("json", "schema"):
        if too_deep(value) is not None:
            return f"is JSON nested more than {MAX_DEPTH} levels deep"
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as error:
            return json_problem(value, error)
        except ValueError:  # the interpreter reads no integer past 4300 digits
            return "holds a number too large to read"
        if kind == "schema":
            return schema_problem(parsed)
    return None


def schema_problem(schema: object, where: str = "") -> str | None:
    """What is wrong with a schema (an object of field names to type names, or to nested
    objects of the same kind), naming the entry; None when it is right."""
    types = ", ".join(SCHEMA_TYPES)
    if not isinstance(schema, dict) or not schema:
        found = "an empty object" if schema == {} else f"{type(schema).__name__} {schema!r}"
        inside = f" at '{where}'" if where else ""
        return (
            f"must be a JSON object of field names to type names{inside}, not {found}; "
            f'for example {{"name": "string", "price": "number"}} (types: {types})'
        )
    for name, kind in schema.items():
        entry = f"{where}.{name}" if where else name
        if isinstance(kind, dict):
            problem = schema_problem(kind, entry)
            if problem:
                return problem
        elif kind not in SCHEMA_TYPES:
            return f"has the field '{entry}' of type {json.dumps(kind)}; the types are {types}"
    return None


def json_problem(text: str, error: json.JSONDecodeError) -> str:
    """Where a JSON text breaks: the message, the position and a caret under it."""
    line = text.splitlines()[error.lineno - 1] if text.splitlines() else ""
    return (
        f"is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}\n"
        f"    {line}\n    {' ' * (error.colno - 1)}^"
    )


def _fault(
    document: frontmatter.Document, key: str, message: str, remedy: str | None = None
) -> ConfigError:
    line = document.line_of(key) or document.line_of(key.split(".")[0]) or 1
    return ConfigError(
        message,
        path=document.path,
        line=line,
        field=key,
        remedy=remedy or "Fix the front matter (see docs/skills-and-patterns.md for its format)",
    )


# ── finding ─────────────────────────────────────────────────────────────────────────────────


def find_pattern(project_root: str, name: str) -> Pattern | None:
    """The project's pattern called ``name`` if any, else the bundled one, else None.

    A project file named ``<name>.md`` that does not load is an error, not a miss: the user
    meant that file.
    """
    for folder, bundled in ((project_patterns_dir(project_root), False), (BUNDLED_PATTERNS, True)):
        files = pattern_files(folder)
        for path in files:
            if os.path.basename(path) == f"{name}.md":
                pattern = load_pattern(path, bundled=bundled)
                if pattern.name == name:
                    return pattern
        for path in files:
            try:
                pattern = load_pattern(path, bundled=bundled)
            except ConfigError:
                continue  # someone else's broken file; /<its name> --test reports it
            if pattern.name == name:
                return pattern
    return None


def list_patterns(project_root: str) -> tuple[list[Pattern], list[ConfigError]]:
    """Every pattern by name (project over bundled), and the faults of files that do not load."""
    found: dict[str, Pattern] = {}
    faults: list[ConfigError] = []
    for folder, bundled in ((BUNDLED_PATTERNS, True), (project_patterns_dir(project_root), False)):
        for path in pattern_files(folder):
            try:
                pattern = load_pattern(path, bundled=bundled)
            except ConfigError as error:
                faults.append(error)
                continue
            found[pattern.name] = pattern
    return sorted(found.values(), key=lambda pattern: pattern.name), faults


# ── arguments and rendering ─────────────────────────────────────────────────────────────────


def bind(pattern: Pattern, positional: Sequence[str]) -> dict[str, str]:
    """Match positional values to the pattern's arguments, check them, apply defaults."""
    usage = usage_line(pattern)
    if len(positional) > len(pattern.args):
        extra = ", ".join(repr(value) for value in positional[len(pattern.args) :])
        raise UsageError(
            f"/{pattern.name} takes {len(pattern.args)} argument(s); {extra} is one too many",
            remedy=f"Usage: {usage}. Quote a value that holds spaces (a JSON value as one "
            "quoted string)",
        )
    values: dict[str, str] = {}
    for index, arg in enumerate(pattern.args):
        if index < len(positional):
            values[arg.name] = _check_value(pattern, arg, positional[index], usage)
        elif arg.required:
            raise UsageError(
                f"/{pattern.name} needs the argument '{arg.name}' ({arg.description})",
                remedy=f"Usage: {usage}",
            )
        elif arg.default is not None:
            values[arg.name] = arg.default
        else:
            values[arg.name] = ""
    return values


def _check_value(pattern: Pattern, arg: PatternArg, value: str, usage: str) -> str:
    if arg.choices is not None:
        matches = [choice for choice in arg.choices if choice.lower() == value.lower()]
        if not matches:
            raise UsageError(
                f"/{pattern.name}: '{arg.name}' is {value!r}; allowed: {', '.join(arg.choices)}",
                remedy=f"Usage: {usage}",
            )
        value = matches[0]  # the spelling the pattern uses: "get" -> "GET"
    problem = _type_problem(arg.type, value)
    if problem:
        raise UsageError(f"/{pattern.name}: '{arg.name}' {problem}", remedy=f"Usage: {usage}")
    return value


def usage_line(pattern: Pattern) -> str:
    parts = [f"/{pattern.name}"]
    for arg in pattern.args:
        shown = "|".join(arg.choices) if arg.choices else arg.name
        parts.append(f"<{shown}>" if arg.required else f"[{shown}]")
    return " ".join(parts)


def render(pattern: Pattern, values: Mapping[str, str]) -> str:
    """The body with every placeholder filled; unbound ones are left as written."""

    def fill(match: re.Match[str]) -> str:
        value = lookup(match.group(1), values)
        return match.group(0) if value is None else value

    return PLACEHOLDER.sub(fill, pattern.body)


def lookup(placeholder: str, values: Mapping[str, str]) -> str | None:
    """``{{name}}`` as given, ``{{Name}}`` in PascalCase, ``{{NAME}}`` in UPPER_SNAKE_CASE."""
    if placeholder in values:
        return values[placeholder]
    lower = placeholder.lower()
    if placeholder.isupper() and lower in values:
        return "_".join(_words(values[lower])).upper()
    first_lower = placeholder[:1].lower() + placeholder[1:]
    if placeholder[:1].isupper() and first_lower in values:
        return "".join(word[:1].upper() + word[1:] for word in _words(values[first_lower]))
    return None


def _words(value: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", value)
    return [word for word in re.split(r"[^A-Za-z0-9]+", spaced) if word]


def unbound(body: str, names: Sequence[str], body_line: int) -> list[tuple[str, int]]:
    """Placeholders of ``body`` bound to none of the argument ``names``, with their line
    numbers in the file (the body starting at ``body_line``)."""
    sample = dict.fromkeys(names, "x")
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(body.splitlines()):
        for match in PLACEHOLDER.finditer(line):
            if lookup(match.group(1), sample) is None:
                found.append((match.group(1), body_line + offset))
    return found
