"""Text that bash evaluates again as code, hidden in words a rule would take as harmless.

Bash evaluates an array's subscript, a substring's offset and length, and every name in
``$(( ))`` as an arithmetic expression, and evaluates a variable's value the same way when
the variable is named there: a value such as ``a[$(cmd)]`` then runs ``cmd``. So do an
indirect ``${!name}`` (the name it holds may be ``a[$(cmd)]``), the prompt transform
``${x@P}`` (prompt strings undergo command substitution) and the builtins that take a
variable's name (``printf -v``, ``test -v``, ``unset``). ``x='a[$(id)]'; echo $((x))`` looks
like an allowed ``echo``, yet runs ``id``.

What such an expansion runs is only known when the line runs, so a line holding one is one
the rules cannot vouch for: it always needs a person. Numbers alone (``$((1+2))``,
``${a[0]}``, ``${x:1:2}``) and an array's keys or elements (``${!a[@]}``, ``${a[@]}``) are
left alone; ``for ((i = 0; i < n; i++))`` names variables, so it asks too.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

# A subscript that is a plain number, or every element: nothing evaluated.
_PLAIN_INDEX = re.compile(r"-?\d+|[@*]")
# A number as bash writes one: 31, 0x1f, 16#ff.
_NUMBER = re.compile(r"\d+|0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+")
# What may stand in an arithmetic expansion without naming a variable.
_ARITHMETIC_PLAIN = frozenset({"number", "binary_expression", "unary_expression",
                               "parenthesized_expression", "ternary_expression"})  # fmt: skip
# Nodes whose value is a variable's, or a word bash reads as one.
_NAMING = frozenset({"variable_name", "simple_expansion", "expansion", "subscript", "word",
                     "command_substitution", "string", "raw_string"})  # fmt: skip
# Builtins that take variable names (arguments past the options); bash evaluates a name's
# subscript.
_TAKES_NAMES = frozenset(
    {"unset", "export", "readonly", "declare", "typeset", "local", "read", "mapfile",
     "readarray", "getopts"}
)  # fmt: skip
# Builtins where only the word after an option is a name: 'printf -v NAME', 'test -v NAME'.
_NAME_AFTER = {"printf": ("-v",), "test": ("-v", "-R"), "[": ("-v", "-R"), "wait": ("-p",)}


def evaluated(node: Node) -> bool:
    """Whether ``node`` (an expansion or a subscript met on the walk) has bash evaluate a
    value as code."""
    match node.type:
        case "arithmetic_expansion":
            return any(_names_value(child) for child in node.named_children)
        case "c_style_for_statement":
            # for ((i = 0; i < n; i++)): its three expressions, not its body (walked on its own)
            header = (c for c in node.named_children if c.type not in ("do_group", "comment"))
            return any(_names_value(child) for child in header)
        case "subscript":
            index = node.child_by_field_name("index")
            if index is None:
                named = node.named_children
                index = named[1] if len(named) > 1 else None
            return index is not None and not _PLAIN_INDEX.fullmatch(_text(index))
        case "expansion":
            return _expansion_evaluates(node)
    return False


def _names_value(node: Node) -> bool:
    if node.type in ("variable_name", "word") and _NUMBER.fullmatch(_text(node)):
        return False  # the grammar reads 0x1f as a name
    if node.type in _NAMING:
        return True
    if node.type in _ARITHMETIC_PLAIN:
        return any(_names_value(child) for child in node.named_children)
    return node.type != "number"


def _expansion_evaluates(node: Node) -> bool:
    kinds = [child.type for child in node.children]
    if "!" in kinds:
        after = kinds[kinds.index("!") + 1 :]
        # ${!prefix*}, ${!prefix@} and ${!a[@]} list names or keys; anything else is
        # indirect: the value is a name, and the name may hold a subscript.
        listing = after[:1] == ["variable_name"] and after[1:2] in (["*"], ["@"])
        subscript = node.children[kinds.index("!") + 1] if after[:1] == ["subscript"] else None
        keys = subscript is not None and _text(subscript).endswith(("[@]", "[*]"))
        if not listing and not keys:
            return True
    if "@" in kinds and kinds[kinds.index("@") + 1 : kinds.index("@") + 2] == ["P"]:
        return True
    if ":" in kinds:
        # ${x:offset:length}: both arithmetic.
        rest = node.children[kinds.index(":") + 1 :]
        return any(child.type not in ("number", ":", "}") for child in rest)
    return False


def names_evaluated(words: tuple[str | None, ...]) -> bool:
    """Whether a builtin that takes variable names is given one whose subscript bash would
    evaluate, or one only known when it runs."""
    if not words or words[0] is None:
        return False
    name = os.path.basename(words[0])
    if name in _TAKES_NAMES:
        names = [w for w in words[1:] if w is None or not w.startswith("-")]
    elif name in _NAME_AFTER:
        options = _NAME_AFTER[name]
        names = [w for w, before in zip(words[2:], words[1:], strict=False) if before in options]
    else:
        return False
    return any(word is None or _subscripted(word.partition("=")[0]) for word in names)


def _subscripted(name: str) -> bool:
    if "[" not in name:
        return False
    index = name[name.index("[") + 1 :].removesuffix("]")
    return not _PLAIN_INDEX.fullmatch(index)


def _text(node: Node) -> str:
    return node.text.decode("utf-8", errors="replace") if node.text else ""
