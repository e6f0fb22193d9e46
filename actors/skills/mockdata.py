"""Mock data (the mock-data pattern): records from a schema, without a model.

The schema is a JSON object mapping field names to type names (string, number, boolean, date,
email, url, uuid), or to a nested object of the same kind. The output is fully determined by
the schema, the count and the seed, so no model call is needed: it is faster, free, and the
same seed gives the same records (fixtures that do not change between runs).
"""

from __future__ import annotations

import datetime
import json
import random
import uuid
from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.nesting import MAX_DEPTH, too_deep
from actors.skills.patterns import SCHEMA_TYPES, json_problem, schema_problem

if TYPE_CHECKING:
    from collections.abc import Callable

TYPES = SCHEMA_TYPES
DEFAULT_COUNT = 10  # records when the pattern is not told how many
MAX_COUNT = 100_000

_FIRST = ("Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Margaret", "Linus", "Frances")
_LAST = ("Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Hamilton", "Allen")
_CITIES = ("Lisbon", "Osaka", "Nairobi", "Toronto", "Tallinn", "Porto Alegre", "Dublin")
_WORDS = ("amber", "brisk", "cobalt", "delta", "ember", "fable", "granite", "harbor", "ivory")
_STATUS = ("active", "pending", "archived")


def generate(schema_text: str, count: int = DEFAULT_COUNT, *, seed: int | None = None) -> str:
    """``count`` records as a JSON array, indented; ``UsageError`` for a bad schema or count."""
    if too_deep(schema_text) is not None:
        raise UsageError(
            f"/mock-data: 'schema' is JSON nested more than {MAX_DEPTH} levels deep",
            remedy='Give the schema as one quoted JSON object: \'{"name": "string"}\'',
        )
    try:
        schema = json.loads(schema_text)
    except ValueError as error:  # past 4300 digits an integer is a ValueError of its own
        problem = (
            json_problem(schema_text, error)
            if isinstance(error, json.JSONDecodeError)
            else "holds a number too large to read"
        )
        raise UsageError(
            f"/mock-data: 'schema' {problem}",
            remedy='Give the schema as one quoted JSON object: \'{"name": "string"}\'',
        ) from None
    _check(schema, "schema")
    if not 1 <= count <= MAX_COUNT:
        raise UsageError(
            f"/mock-data: 'count' is {count}; it must be from 1 to {MAX_COUNT}",
            remedy="Give a smaller positive count",
        )
    rng = random.Random(seed)
    records = [_record(schema, rng, index) for index in range(count)]
    return json.dumps(records, indent=2, ensure_ascii=False)


def _check(schema: object, where: str) -> None:
    problem = schema_problem(schema)
    if problem:
        raise UsageError(
            f"/mock-data: '{where}' {problem}",
            remedy="Give the schema as one quoted JSON object: "
            '\'{"id": "uuid", "email": "email"}\'',
        )


def _record(schema: dict[str, object], rng: random.Random, index: int) -> dict[str, object]:
    record: dict[str, object] = {}
    for name, kind in schema.items():
        if isinstance(kind, dict):
            record[name] = _record(kind, rng, index)
        else:
            record[name] = _MAKERS[str(kind)](name.lower(), rng, index)
    return record


def _string(field: str, rng: random.Random, index: int) -> str:
    # A value that looks like what the field holds makes the data useful in a UI demo.
    if "first" in field:
        return rng.choice(_FIRST)
    if "last" in field or "surname" in field:
        return rng.choice(_LAST)
    if "name" in field:
        return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
    if "city" in field:
        return rng.choice(_CITIES)
    if "status" in field:
        return rng.choice(_STATUS)
    if "phone" in field:
        return f"+1-555-{rng.randrange(10**4):04d}"
    if "title" in field or "description" in field:
        return " ".join(rng.choice(_WORDS) for _ in range(3)).capitalize()
    return f"{rng.choice(_WORDS)}-{index + 1}"


def _number(field: str, rng: random.Random, index: int) -> int | float:
    if any(word in field for word in ("price", "amount", "cost", "total", "balance")):
        return round(rng.uniform(1, 1000), 2)
    if "age" in field:
        return rng.randint(18, 90)
    if field == "id" or field.endswith("_id"):
        return index + 1
    return rng.randint(0, 1000)


def _boolean(field: str, rng: random.Random, index: int) -> bool:
    return rng.random() < 0.5


def _date(field: str, rng: random.Random, index: int) -> str:
    start = datetime.date(2020, 1, 1)
    return (start + datetime.timedelta(days=rng.randrange(6 * 365))).isoformat()


def _email(field: str, rng: random.Random, index: int) -> str:
    return f"{rng.choice(_FIRST).lower()}.{rng.choice(_LAST).lower()}{index + 1}@example.com"


def _url(field: str, rng: random.Random, index: int) -> str:
    return f"https://example.com/{rng.choice(_WORDS)}/{index + 1}"


def _uuid(field: str, rng: random.Random, index: int) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


_MAKERS: dict[str, Callable[[str, random.Random, int], object]] = {
    "string": _string,
    "number": _number,
    "boolean": _boolean,
    "date": _date,
    "email": _email,
    "url": _url,
    "uuid": _uuid,
}
