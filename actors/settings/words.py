"""What a settings field takes, in words, read from its type and its ``msgspec.Meta``.

A field's bounds, default and meaning are written once, on the field; a message about a bad
value (``must be a whole number from 1 to 64 (default 4), not 0``) and the check of the docs'
tables are made from them here. The words come from the type:

    bool                         true or false
    Literal["a", "b"]            one of a, b
    int, Meta(ge=1, le=64)       a whole number from 1 to 64 (default 4)
    a Struct, Meta(examples=)    an object such as {"network": false}
    tuple[str, ...], strings()   a list of paths such as ["~/.cache/pip"]; one element: a path
    str                          a string, or the Meta's ``extra["words"]``

An ``int``'s Meta may name a unit (``extra["unit"]``) and say in words what its unset default
means (``extra["default"]``), or leave it unsaid (``extra["default"]`` None).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, get_args, get_origin

import msgspec

if TYPE_CHECKING:
    from msgspec.inspect import Field, Type


def strings(description: str, *, each: str, many: str, example: list[str]) -> msgspec.Meta:
    """The Meta of a list of strings: what it is for, what one element is (``"a path"``), what
    several are (``"paths"``), and an example value."""
    return msgspec.Meta(
        description=description, examples=[example], extra={"each": each, "many": many}
    )


class Takes(msgspec.Struct, frozen=True):
    """What a field takes (``a whole number from 1 to 64``) and its default in words, when
    that is worth saying (``4``; a number's only: a list's empty default goes without saying)."""

    words: str
    default: str | None = None
    # The default is said in words (``half the memory``) rather than as its value (``4``).
    default_in_words: bool = False

    def with_default(self) -> str:
        """``a whole number from 1 to 64 (default 4)``, ``... (default: half the memory)``"""
        if self.default is None:
            return self.words
        return f"{self.words} (default{':' if self.default_in_words else ''} {self.default})"


def keys(struct: type[msgspec.Struct]) -> tuple[str, ...]:
    """The struct's fields by their JSON names, in order."""
    return tuple(field.encode_name for field in msgspec.structs.fields(struct))


def objects(struct: type[msgspec.Struct]) -> dict[str, type[msgspec.Struct]]:
    """The fields that hold an object of their own (``sandbox``), by JSON name."""
    found: dict[str, type[msgspec.Struct]] = {}
    for field in msgspec.structs.fields(struct):
        kind = field.type
        if get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
        # ``Struct | None`` (``statusLine``): an object too, when it is written.
        members = [arg for arg in get_args(kind) if arg is not type(None)]
        if len(members) == 1 and len(get_args(kind)) == 2:
            kind = members[0]
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            found[field.encode_name] = kind
    return found


def takes(struct: type[msgspec.Struct], *path: str, each: bool = False) -> Takes:
    """What the field at ``path`` (JSON names: ``("sandbox", "maxProcesses")``) takes; with
    ``each``, what one element of a list takes."""
    import msgspec.inspect as inspect  # only for a message about a bad value

    field = _field(inspect.type_info(struct), path)
    kind, meta = _unwrapped(field.type)
    if each and isinstance(kind, inspect.VarTupleType | inspect.ListType):
        return Takes(meta.get("each", _words(kind.item_type, {})))
    if each and isinstance(kind, inspect.DictType):
        return Takes(_words(kind.value_type, {}))  # one value of an object of strings
    if not isinstance(kind, inspect.IntType):
        return Takes(_words(kind, meta))
    if "default" in meta:
        said = meta["default"]  # None: the default goes unsaid
        return Takes(_words(kind, meta), None if said is None else str(said), default_in_words=True)
    return Takes(_words(kind, meta), None if field.default is None else str(field.default))


def description(struct: type[msgspec.Struct], *path: str) -> str:
    """What the field at ``path`` is for, as its Meta says."""
    import msgspec.inspect as inspect

    _, meta = _unwrapped(_field(inspect.type_info(struct), path).type)
    return str(meta.get("description", ""))


def bounds(struct: type[msgspec.Struct], *path: str) -> tuple[int | None, int | None, Any]:
    """A whole-number field's lowest and highest value, and its default."""
    import msgspec.inspect as inspect

    field = _field(inspect.type_info(struct), path)
    kind, _ = _unwrapped(field.type)
    if not isinstance(kind, inspect.IntType):
        raise TypeError(f"{'.'.join(path)} is not a whole number")
    return kind.ge, kind.le, field.default


def _field(info: Type, path: tuple[str, ...]) -> Field:
    import msgspec.inspect as inspect

    found: Field | None = None
    for key in path:
        kind, _ = _unwrapped(info if found is None else found.type)
        if not isinstance(kind, inspect.StructType):
            raise KeyError(key)
        found = next((f for f in kind.fields if f.encode_name == key), None)
        if found is None:
            raise KeyError(key)
    if found is None:
        raise KeyError(path)
    return found


def _unwrapped(kind: Type) -> tuple[Type, dict[str, Any]]:
    """The type without its Meta and without ``| None``, and what its Meta says (the JSON
    schema's words and ``extra``, merged)."""
    import msgspec.inspect as inspect

    meta: dict[str, Any] = {}
    while True:
        if isinstance(kind, inspect.Metadata):
            meta |= kind.extra_json_schema or {}
            meta |= kind.extra or {}
            kind = kind.type
        elif isinstance(kind, inspect.UnionType):
            others = [t for t in kind.types if not isinstance(t, inspect.NoneType)]
            if len(others) != 1:
                return kind, meta
            kind = others[0]
        else:
            return kind, meta


def _words(kind: Type, meta: dict[str, Any]) -> str:
    import json

    import msgspec.inspect as inspect

    match kind:
        case inspect.BoolType():
            return "true or false"
        case inspect.LiteralType():
            return "one of " + ", ".join(str(value) for value in kind.values)
        case inspect.IntType():
            unit = f" of {meta['unit']}" if "unit" in meta else ""
            return f"a whole number{unit} from {kind.ge} to {kind.le}"
        case inspect.StructType():
            return f"an object such as {json.dumps(meta['examples'][0])}"
        case inspect.VarTupleType() | inspect.ListType():
            return f"a list of {meta['many']} such as {json.dumps(meta['examples'][0])}"
    return str(meta.get("words", "a string"))
