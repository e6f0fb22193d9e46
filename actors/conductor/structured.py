"""``StructuredOutput``: the model gives a prompt's answer as a value of a JSON Schema
(``--json-schema``, the Agent SDK's ``output_format``).

A tool the model calls is the portable way: every provider that takes tools takes it, and the
tool's input is the value. The conductor answers the call: a value valid against the schema
ends the prompt (the value is the outcome's ``structured_output``); an invalid one is answered
with what is wrong, as an error the model reads and corrects. An answer that ends without the
call is told to call it. After ``MAX_RETRIES`` misses the prompt ends as an error
(``error_max_structured_output_retries``) naming the last problems.

The API takes only an object as a tool's input: a schema of anything else (an array, a
string) is offered as the property ``value`` of an object, and the value is taken out again.
``jsonschema`` is imported when a schema is first checked, not on the start path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.protocol import ToolResult
from actors.tool_names import STRUCTURED_OUTPUT

if TYPE_CHECKING:
    from actors.protocol import Block, ToolCall

# Wrong answers (an off-schema value, or none) before the prompt ends as an error.
MAX_RETRIES = 3
# Problems told to the model (and to the person at the end), of the many one value can have.
SHOWN_ERRORS = 5
ENDED = "structured output given"
_WRAPPED = "value"

_DESCRIPTION = (
    "Give your final answer as structured data. Call this exactly once, at the end, with input "
    "valid against its schema; if it reports errors, call it again with them corrected."
)
NUDGE = (
    f"(Your answer must be given by calling the {STRUCTURED_OUTPUT} tool with input valid "
    "against its schema. Call it now.)"
)


class StructuredOutput:
    """One prompt's StructuredOutput: its definition, its calls checked, the value once valid."""

    def __init__(self, schema: Block) -> None:
        self.schema = schema
        self._wrapped = schema.get("type") != "object"
        self.given = False
        self.value: Any = None
        self.misses = 0
        self.errors: list[str] = []

    @property
    def exhausted(self) -> bool:
        return self.misses >= MAX_RETRIES

    def definition(self) -> Block:
        schema = self.schema
        if self._wrapped:
            schema = {"type": "object", "properties": {_WRAPPED: schema}, "required": [_WRAPPED]}
        return {"name": STRUCTURED_OUTPUT, "description": _DESCRIPTION, "input_schema": schema}

    def missed(self, errors: list[str]) -> None:
        self.misses += 1
        self.errors = errors

    def run(self, call: ToolCall) -> ToolResult:
        if self.given:
            return ToolResult(tool_use_id=call.id, content="The answer was already given.")
        value = call.input.get(_WRAPPED) if self._wrapped else call.input
        errors = problems(self.schema, value)
        if not errors:
            self.given, self.value = True, value
            return ToolResult(
                tool_use_id=call.id, content="Structured output accepted.", stop_reason=ENDED
            )
        self.missed(errors)
        listed = "\n".join(f"- {error}" for error in errors)
        if self.exhausted:
            return ToolResult(
                tool_use_id=call.id,
                content=f"The value does not match the schema:\n{listed}",
                is_error=True,
                stop_reason=ENDED,
            )
        return ToolResult(
            tool_use_id=call.id,
            content=f"The value does not match the schema:\n{listed}\nCall "
            f"{STRUCTURED_OUTPUT} again with these corrected.",
            is_error=True,
        )


def problems(schema: Block, value: Any) -> list[str]:
    """What is wrong with ``value`` against ``schema``, each with where (``$.items[2]``)."""
    import jsonschema
    from referencing.exceptions import Unresolvable

    validator = jsonschema.validators.validator_for(schema)(schema)
    try:
        found = sorted(
            validator.iter_errors(value), key=lambda error: [str(p) for p in error.absolute_path]
        )
    except Unresolvable as error:
        # A $ref the start's trial did not reach: said, and counted as a miss like any other.
        return [f"the schema cannot be checked here: {error}"]
    return [f"{_where(error.absolute_path)}: {error.message}" for error in found[:SHOWN_ERRORS]]


def _where(path: Any) -> str:
    where = "$"
    for part in path:
        where += f"[{part}]" if isinstance(part, int) else f".{part}"
    return where
