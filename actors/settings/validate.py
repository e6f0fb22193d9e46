"""One JSON settings file -> a validated struct, or a ConfigError a person can act on.

msgspec does the converting; this module turns its verdicts into messages that name the file,
the line, the field and what the field accepts, in the words of the field's ``msgspec.Meta``
(actors/settings/words.py). Unknown keys are warnings with a did-you-mean,
not errors: a typo should not stop a session, but it should not pass silently either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from actors.errors import ConfigError
from actors.settings.jsonpos import (
    decode,
    format_path,
    key_positions,
    parse_error_path,
)
from actors.settings.words import keys, objects, takes

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.settings.jsonpos import JsonPath, Position

S = TypeVar("S", bound=msgspec.Struct)

REMEDY_SYNTAX = "Fix the JSON at that line, or move the file aside to use the defaults"


class FileSchema(msgspec.Struct, Generic[S], frozen=True):
    """What a file holds: its struct, whose fields' Meta say what each key takes, and the keys
    of the same file that another reader checks."""

    struct: type[S]
    # Keys read by their own parser (hook_settings.py, mcp_servers.py) -> what they take.
    others: Mapping[str, str] = msgspec.field(default_factory=dict)
    secret: frozenset[str] = frozenset()  # keys whose values are never shown
    # key -> the file it belongs in
    elsewhere: Mapping[str, str] = msgspec.field(default_factory=dict)
    # Another program's file (the reference's), which may hold keys Legato does not act on and
    # gains keys over time: those are listed (``Loaded.unknown``), not warned about.
    foreign: bool = False

    @property
    def known(self) -> tuple[str, ...]:
        return (*keys(self.struct), *self.others)


class Loaded(msgspec.Struct, Generic[S], frozen=True):
    """A validated file, with the positions of its keys for later messages."""

    path: str
    value: S
    positions: Mapping[JsonPath, Position]
    # the decoded object, for hook_settings.py
    raw: Mapping[str, Any] = msgspec.field(default_factory=dict)
    # A foreign file's keys Legato does not act on ("statusLine", "permissions.disableX"),
    # each with its line when known.
    unknown: tuple[tuple[str, int | None], ...] = ()

    def line_of(self, *steps: str | int) -> int | None:
        position = self.positions.get(steps)
        return position.line if position else None


# Where an editor finds a file's JSON schema (the reference's docs begin their settings with
# it): no setting, so neither an unknown key nor one "not acted on".
SCHEMA_KEY = "$schema"


def load_json(path: str, text: str, schema: FileSchema[S], warnings: list[str]) -> Loaded[S]:
    """Decode and validate ``text`` (the contents of ``path``); append warnings for unknown keys."""
    raw = decode(
        path,
        text,
        deep_remedy="No setting nests that deep: fix the file, or move it aside",
        syntax_remedy=REMEDY_SYNTAX,
    )
    if not isinstance(raw, dict):
        raise ConfigError(
            f"the file must hold one JSON object ({{...}}), not {_kind(raw)}",
            path=path,
            line=1,
            remedy='Wrap the settings in braces, e.g. {"permissionMode": "ask"}',
        )
    positions = key_positions(text)
    known = schema.known
    inside = objects(schema.struct)
    unknown: list[tuple[str, int | None]] = []
    for key in raw:
        if key == SCHEMA_KEY:
            continue
        if key not in known:
            where = positions.get((key,))
            if schema.foreign:
                unknown.append((key, where.line if where else None))
            else:
                warnings.append(_unknown_key(path, key, where, known, schema.elsewhere))
        elif key in inside and isinstance(raw[key], dict):
            inner = keys(inside[key])
            for sub in raw[key]:
                if sub not in inner:
                    at = positions.get((key, sub))
                    if schema.foreign:
                        unknown.append((f"{key}.{sub}", at.line if at else None))
                    else:
                        warnings.append(_unknown_key(path, sub, at, inner, {}, within=key))
    try:
        value = msgspec.convert(raw, schema.struct)
    except msgspec.ValidationError as error:
        raise _invalid(path, raw, positions, schema, str(error)) from None
    return Loaded(path, value, positions, raw, tuple(unknown))


def _unknown_key(
    path: str,
    key: str,
    where: Position | None,
    known: Sequence[str],
    elsewhere: Mapping[str, str],
    *,
    within: str = "",
) -> str:
    at = f"{path}:{where.line}" if where else path
    shown = f"{within}.{key}" if within else key
    home = elsewhere.get(key)
    if home is not None:
        return f"{at}: '{key}' is ignored here; it belongs in {home}"
    # Compared case-blind, so that 'PermissionMode' and 'allowed_paths' find their key.
    by_lower = {name.lower().replace("_", ""): name for name in known}
    import difflib  # only for a key that is not one: not on every run's way

    close = difflib.get_close_matches(key.lower().replace("_", ""), list(by_lower), n=1)
    if close:
        hint = f"; did you mean '{by_lower[close[0]]}'?"
    else:
        hint = f"; the known keys are {', '.join(known)}"
    return f"{at}: unknown key '{shown}' is ignored{hint}"


def _invalid(
    path: str,
    raw: dict[str, Any],
    positions: Mapping[JsonPath, Position],
    schema: FileSchema[Any],
    error: str,
) -> ConfigError:
    """A ConfigError for msgspec's ``Expected `str`, got `int` - at `$.model```, in the words
    of the field's Meta."""
    _, _, at = error.rpartition(" - at ")
    at = at.strip("`")
    steps = parse_error_path(at.removesuffix("[...]"))
    if at.endswith("[...]"):
        # msgspec does not name the key of an object of strings (``env``) whose value is
        # wrong: the first value that is not a string is the one.
        found = _value_at(raw, steps)
        if isinstance(found, dict):
            bad = next((key for key, value in found.items() if not isinstance(value, str)), None)
            steps = steps if bad is None else (*steps, bad)
    key = steps[0] if steps and isinstance(steps[0], str) else None
    if key is None or key not in keys(schema.struct):
        return ConfigError(error, path=path, remedy=REMEDY_SYNTAX)
    # The nearest position we know: the element itself, else its key.
    where = next(
        (positions[steps[:n]] for n in range(len(steps), 0, -1) if steps[:n] in positions), None
    )
    inner = objects(schema.struct).get(key)
    field: tuple[str, ...] = (key,)
    if inner is not None and len(steps) > 1 and isinstance(steps[1], str):
        # A key of an object: "sandbox.network" is named, and what it takes.
        field = (key, steps[1])
    whole = takes(schema.struct, *field)
    if len(steps) > len(field):  # an element of a list
        accepts = takes(schema.struct, *field, each=True).words
    else:
        accepts = whole.with_default()
    got = _describe(_value_at(raw, steps), secret=key in schema.secret)
    name = ".".join(field)
    return ConfigError(
        f"must be {accepts}, not {got}",
        path=path,
        line=where.line if where else None,
        field=format_path(steps),
        remedy=f"Set '{name}' to {whole.with_default()}, or remove it to use the default",
    )


def _value_at(raw: Any, steps: JsonPath) -> Any:
    value = raw
    for step in steps:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _describe(value: Any, *, secret: bool) -> str:
    """How to name a wrong value in a message; a secret's value is never shown."""
    if isinstance(value, str) and not secret:
        shown = value if len(value) <= 40 else value[:37] + "..."
        return repr(shown)
    if isinstance(value, int | float) and not isinstance(value, bool) and not secret:
        return repr(value)  # a number out of range is best named by itself
    return _kind(value)


def _kind(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "true" if value else "false"
        case int() | float():
            return "a number"
        case str():
            return "a string"
        case list():
            return "a list"
        case dict():
            return "an object"
    return type(value).__name__
