"""The tools' input fields, as msgspec Structs, and the definitions sent to the model.

The field names are Claude Code's (its tools' input shapes), so skills and prompts written for
it work unchanged. Each Struct is the one source of truth: it decodes the model's untrusted input
and it generates the JSON Schema the model sees. Every byte of the definitions goes out with every
request, so the descriptions are short and the schemas are trimmed (``_lean``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import msgspec

from actors.errors import InvalidToolInput

if TYPE_CHECKING:
    from actors.protocol import Block

MAX_TIMEOUT_MS = 600_000
DEFAULT_TIMEOUT_MS = 120_000
DEFAULT_READ_LIMIT = 2000
DEFAULT_WAIT_MS = 30_000  # TaskOutput's wait for a command to end, as Claude Code's

InputT = TypeVar("InputT", bound=msgspec.Struct)

_Lines = Annotated[int, msgspec.Meta(ge=0)]


class ReadInput(msgspec.Struct, frozen=True, kw_only=True):
    file_path: Annotated[str, msgspec.Meta(description="Absolute path")]
    offset: Annotated[int, msgspec.Meta(ge=0, description="First line (1-based)")] | None = None
    limit: Annotated[int, msgspec.Meta(ge=1, description="Number of lines")] | None = None
    pages: Annotated[str, msgspec.Meta(description="PDF page range, e.g. 1-5")] | None = None


class WriteInput(msgspec.Struct, frozen=True, kw_only=True):
    file_path: Annotated[str, msgspec.Meta(description="Absolute path")]
    content: str


class EditInput(msgspec.Struct, frozen=True, kw_only=True):
    file_path: Annotated[str, msgspec.Meta(description="Absolute path")]
    old_string: Annotated[str, msgspec.Meta(description="Exact text to replace")]
    new_string: str
    replace_all: bool = False


class NotebookEditInput(msgspec.Struct, frozen=True, kw_only=True):
    notebook_path: Annotated[str, msgspec.Meta(description="Absolute path to the .ipynb")]
    new_source: str = ""
    cell_id: (
        Annotated[str, msgspec.Meta(description="Cell to change, or to insert after (none: first)")]
        | None
    ) = None
    cell_type: (
        Annotated[Literal["code", "markdown"], msgspec.Meta(description="Required to insert")]
        | None
    ) = None
    edit_mode: Literal["replace", "insert", "delete"] = "replace"


class BashInput(msgspec.Struct, frozen=True, kw_only=True):
    command: str
    timeout: (
        Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMEOUT_MS, description="Milliseconds")] | None
    ) = None
    description: Annotated[str, msgspec.Meta(description="What it does, in 5-10 words")] | None = (
        None
    )
    run_in_background: bool = False
    # Claude Code's name. Only where the sandbox refused what the command must do; the user is
    # always asked (a headless run is denied).
    dangerouslyDisableSandbox: bool = False


class TaskOutputInput(msgspec.Struct, frozen=True, kw_only=True):
    task_id: str
    block: Annotated[bool, msgspec.Meta(description="Wait for it to end")] = True
    timeout: (
        Annotated[int, msgspec.Meta(ge=0, le=MAX_TIMEOUT_MS, description="Max wait, ms")] | None
    ) = None
    filter: Annotated[str, msgspec.Meta(description="Regex: matching lines only")] | None = None


class TaskStopInput(msgspec.Struct, frozen=True, kw_only=True):
    task_id: str


class GlobInput(msgspec.Struct, frozen=True, kw_only=True):
    pattern: str
    path: Annotated[str, msgspec.Meta(description="Directory; default project root")] | None = None


GrepMode = Literal["content", "files_with_matches", "count"]


class GrepInput(msgspec.Struct, frozen=True, kw_only=True):
    pattern: Annotated[str, msgspec.Meta(description="Python regex")]
    path: Annotated[str, msgspec.Meta(description="File or directory")] | None = None
    glob: Annotated[str, msgspec.Meta(description="File filter, e.g. *.py")] | None = None
    type: Annotated[str, msgspec.Meta(description="File type, e.g. py, js, rust")] | None = None
    output_mode: GrepMode = "files_with_matches"
    ignore_case: bool = msgspec.field(default=False, name="-i")
    line_numbers: bool = msgspec.field(default=True, name="-n")
    after: _Lines | None = msgspec.field(default=None, name="-A")
    before: _Lines | None = msgspec.field(default=None, name="-B")
    context: _Lines | None = msgspec.field(default=None, name="-C")
    head_limit: Annotated[int, msgspec.Meta(ge=1, description="First N results")] | None = None
    multiline: Annotated[bool, msgspec.Meta(description="Patterns may span lines")] = False


class WebFetchInput(msgspec.Struct, frozen=True, kw_only=True):
    url: Annotated[str, msgspec.Meta(description="http(s) URL")]
    prompt: Annotated[str, msgspec.Meta(description="What to find in the page")]


def decode(tool: str, raw: object, input_type: type[InputT]) -> InputT:
    """The model's arguments as ``input_type``, or an InvalidToolInput naming the field."""
    if isinstance(raw, dict):
        # A null is how models often say "not given"; the schema never offers null.
        raw = {key: value for key, value in raw.items() if value is not None}
    try:
        return msgspec.convert(raw, input_type)
    except msgspec.ValidationError as exc:
        # Optional fields are typed ``X | None`` here, but null is not what the model should send.
        problem = str(exc).replace(" | null`", "`")
        raise InvalidToolInput(
            f"Invalid input for {tool}: {problem}. {tool} takes {describe_fields(input_type)}."
        ) from None


def describe_fields(input_type: type[msgspec.Struct]) -> str:
    """``file_path (string, required), offset (integer), ...`` from the schema."""
    schema = input_schema(input_type)
    required = set(schema.get("required", ()))
    parts = []
    for name, prop in schema["properties"].items():
        kind = prop.get("type") or ("one of " + "|".join(map(str, prop.get("enum", ()))))
        parts.append(f"{name} ({kind}{', required' if name in required else ''})")
    return ", ".join(parts)


def input_schema(input_type: type[msgspec.Struct]) -> Block:
    schema = msgspec.json.schema(input_type)
    body: Block = _lean(schema["$defs"][input_type.__name__])
    return body


def _lean(node: Any) -> Any:
    """Drop what costs bytes and tells the model nothing: titles, null options and defaults."""
    if isinstance(node, list):
        return [_lean(item) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if options is not None:
        kept = [option for option in options if option != {"type": "null"}]
        if len(kept) == 1:
            node = {**{k: v for k, v in node.items() if k != "anyOf"}, **kept[0]}
    return {
        key: _lean(value)
        for key, value in node.items()
        if key != "title" and not (key == "default" and value is None)
    }
