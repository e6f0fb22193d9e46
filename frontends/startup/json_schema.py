"""``--json-schema``: inline JSON or a file holding it, read and checked before any request.

The Agent SDK passes its ``output_format`` schema inline; a person may find a file handier. A
value that starts as JSON does (``{``) is read as JSON, anything else as a path. ``jsonschema``
is imported only when the flag is given: this runs on every start.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from actors.errors import UsageError
from frontends.errors_out import report
from frontends.startup.words import MAX_STDIN_BYTES

if TYPE_CHECKING:
    import argparse

_REMEDY = 'Give a JSON Schema object (--json-schema \'{"type": "object"}\') or a file holding one'


def check_json_schema(args: argparse.Namespace) -> int | None:
    """``args.json_schema`` made the schema itself (a dict), or the exit code of a usage error
    naming the flag and the problem."""
    given: str | None = args.json_schema
    if given is None:
        return None
    if args.headless is None and args.input_format != "stream-json":
        # As the reference's: the value is the result's, and only a headless run has one.
        return report(
            UsageError(
                "--json-schema works only in a headless run: its value is the result's",
                remedy='Add -p (legato -p "question" --json-schema ...), or leave the flag out',
            )
        )
    try:
        args.json_schema = read_schema(given)
    except UsageError as error:
        return report(error)
    return None


def read_schema(given: str) -> dict[str, Any]:
    text, where = given, "--json-schema"
    if not given.lstrip().startswith("{"):
        where = f"--json-schema {given}"
        try:
            with open(given, encoding="utf-8") as file:
                text = file.read(MAX_STDIN_BYTES + 1)
        except (OSError, UnicodeDecodeError) as error:
            raise UsageError(
                f"{where}: neither inline JSON nor a readable file "
                f"({getattr(error, 'strerror', None) or error})",
                remedy=_REMEDY,
            ) from None
        if len(text) > MAX_STDIN_BYTES:
            raise UsageError(f"{where}: the file is too large for a schema", remedy=_REMEDY)
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{where}: not JSON ({error})", remedy=_REMEDY) from None
    if not isinstance(schema, dict):
        raise UsageError(f"{where}: a schema is a JSON object", remedy=_REMEDY)
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as error:
        path = "/".join(str(part) for part in error.absolute_path) or "the top"
        raise UsageError(
            f"{where}: not a valid JSON Schema: {error.message} (at {path})", remedy=_REMEDY
        ) from None
    from referencing.exceptions import Unresolvable

    validator = jsonschema.validators.validator_for(schema)(schema)
    try:
        # A $ref that leads nowhere (or to a URL: no schema is fetched) is found now, not when
        # the model's first value is checked: each one is looked up from the root (a schema
        # with nested $id scopes resolves relative to them: there, only what a trial meets).
        refs = [] if _nested_ids(schema) else sorted(set(_refs(schema)))
        if refs:
            from referencing import Registry
            from referencing.jsonschema import DRAFT202012, specification_with

            dialect = schema.get("$schema")
            spec = specification_with(dialect, default=DRAFT202012) if dialect else DRAFT202012
            resolver = Registry().resolver_with_root(spec.create_resource(schema))
            for ref in refs:
                resolver.lookup(ref)
        any(validator.iter_errors(None))
    except Unresolvable as error:
        raise UsageError(
            f"{where}: a $ref cannot be resolved ({error}); Legato fetches no schema from the "
            "network",
            remedy="Put every definition the schema refers to in the schema itself ($defs)",
        ) from None
    return schema


def _refs(node: object) -> list[str]:
    """Every ``$ref`` of the schema, wherever it stands."""
    found: list[str] = []
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            found.append(ref)
        for key, value in node.items():
            if key not in ("const", "enum", "examples", "default"):  # values, not schemas
                found += _refs(value)
    elif isinstance(node, list):
        for item in node:
            found += _refs(item)
    return found


def _nested_ids(node: object, top: bool = True) -> bool:
    if isinstance(node, dict):
        if not top and isinstance(node.get("$id"), str):
            return True
        return any(_nested_ids(value, False) for value in node.values())
    if isinstance(node, list):
        return any(_nested_ids(item, False) for item in node)
    return False
