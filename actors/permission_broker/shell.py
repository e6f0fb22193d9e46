"""A shell command line -> every simple command it would run, read with tree-sitter-bash.

A line such as ``cd src && FOO=1 make $(cat target) | tee log`` runs four commands (``cd``,
``make``, ``cat``, ``tee``); the permission rules must see each of them. The tree is walked
whole, so commands inside ``&&``/``||``/``;``/``|``, subshells, ``{ }`` groups, ``$( )`` and
backticks, process substitutions and if/for/while/case bodies are all found; the script of
``bash -c '...'``, and the string that ``eval`` or ``trap`` runs, are parsed in turn.

Words are compared after shell unquoting (``'git' "status"`` is ``git status``). A word whose
value is only known when the line runs (``$X``, ``$(...)``) is ``None``. What cannot be judged
statically at all, such as a command name that comes from an expansion, ``eval "$X"``, or a
line that does not parse, is listed in ``problems``: such a line always needs a person.

The parser is built on first use, not at import: ``import actors.permission_broker`` must stay
cheap for ``legato --version``.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# Builtins that run a string as shell code. The string is checked like a script; when it is
# only known at run time, so is what they run.
RUNS_A_STRING = frozenset({"eval", "trap"})
MAX_NESTING = 4  # bash -c "bash -c '...'": deeper than this is treated as unknowable
_SHOWN_CHARS = 80

# In an unquoted word these expand at run time (globs, brace expansion).
_EXPANDING = re.compile(r"(?<!\\)[*?\[{]")
_WORD_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
# Inside double quotes a backslash escapes only these (bash manual, "Double Quotes").
_DOUBLE_QUOTE_ESCAPE = re.compile(r'\\([$`"\\\n])')


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str | None, ...]  # unquoted; None where the value is only known at run time
    text: str  # as written, shortened, for messages

    @property
    def name(self) -> str | None:
        return self.words[0] if self.words else None


@dataclass(frozen=True, slots=True)
class Redirect:
    target: str  # a literal path, unquoted
    text: str  # as written: '> out.txt'


@dataclass(slots=True)
class CommandLine:
    text: str
    commands: list[SimpleCommand] = field(default_factory=list)  # each must be allowed
    # ``bash -c '...'`` themselves: their script's commands are in ``commands`` and stand for
    # them, so they need no allowing of their own, but blocked rules still apply to them.
    launchers: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # why it cannot be judged statically


# The broker parses in worker threads; a parser must not be used by two threads at once.
_parser_lock = threading.Lock()


@functools.cache
def _parser() -> Parser:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse_command_line(line: str) -> CommandLine:
    result = CommandLine(line)
    _collect(line, result, depth=0)
    return result


def shorten(text: str) -> str:
    """One line, at most 80 characters: how a command is quoted in a message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_CHARS else flat[: _SHOWN_CHARS - 3] + "..."


def _collect(line: str, out: CommandLine, depth: int) -> None:
    source = line.encode("utf-8", errors="surrogateescape")
    with _parser_lock:
        root = _parser().parse(source).root_node
    if root.has_error:
        # Keep walking: a blocked command in a broken line should still read as blocked.
        out.problems.append(_parse_problem(root, source))
    stack = [root]
    while stack:
        node = stack.pop()
        match node.type:
            case "comment":
                continue
            case "command":
                _command(node, source, out, depth)
            case "declaration_command" | "unset_command":
                out.commands.append(_declaration(node, source))
            case "file_redirect":
                _redirect(node, source, out)
        stack.extend(reversed(node.children))


def _command(node: Node, source: bytes, out: CommandLine, depth: int) -> None:
    name_node: Node | None = None
    words: list[str | None] = []
    for index, child in enumerate(node.children):
        match node.field_name_for_child(index):
            case "name":
                name_node = child.named_children[0] if child.named_children else child
                words.append(_value(name_node, source))
            case "argument":
                words.append(_value(child, source))
    if name_node is None or name_node.is_missing:
        return  # only assignments and redirections (or a parse error, reported already)
    command = SimpleCommand(tuple(words), shorten(_text(node, source)))
    name = command.name
    if name is None or _expands(name_node, source):
        out.problems.append(f"the command name in '{command.text}' is only known when it runs")
        command = SimpleCommand((None, *words[1:]), command.text)
    elif name in RUNS_A_STRING:
        # Unlike 'bash -c', these need allowing themselves as well: they are rare, and listing
        # 'eval' or 'trap' is a deliberate choice.
        out.commands.append(command)
        runs_script, script = _string_script(name, words)
        if runs_script:
            _run_script(command, script, out, depth)
        return
    elif os.path.basename(name) in SHELLS:
        runs_script, script = _shell_script(words)
        if runs_script:
            # The script's commands stand for the shell: 'bash -c "make"' needs 'make' allowed.
            out.launchers.append(command)
            _run_script(command, script, out, depth)
            return
    out.commands.append(command)


def _run_script(command: SimpleCommand, script: str | None, out: CommandLine, depth: int) -> None:
    """Collect the commands of the script that ``command`` runs."""
    if script is None:
        out.problems.append(f"the script in '{command.text}' is only known when it runs")
    elif depth >= MAX_NESTING:
        out.problems.append(f"'{command.text}' nests shells too deeply to check")
    else:
        _collect(script, out, depth + 1)


def _string_script(name: str, words: list[str | None]) -> tuple[bool, str | None]:
    """What ``eval args...`` or ``trap action signals...`` runs, like ``_shell_script``.

    eval joins its arguments with spaces. trap runs its first argument when a signal name
    follows it; a lone argument, '-' and '' (ignore the signal) run nothing; -p/-l list.
    """
    args = [word for word in words[1:] if word not in ("--", "-p", "-l", "-pl", "-lp")]
    if name == "eval":
        if None in args:
            return True, None
        return True, " ".join(word for word in args if word is not None)
    if len(args) < 2 or args[0] == "-":
        return False, None
    return True, args[0]


def _shell_script(words: list[str | None]) -> tuple[bool, str | None]:
    """For ``bash [options] -c script``: (True, the script, or None when it is unknown).

    Bash reads the script from the first argument that is not an option (``-o`` and ``-O``
    take a value of their own). Without ``-c`` the answer is (False, None).
    """
    takes_value = False
    has_c = False
    for word in words[1:]:
        if takes_value:
            takes_value = False
        elif word is None:
            return has_c, None
        elif word.startswith("--"):
            continue  # "--" ends the options; long options (--norc, --login) take no value
        elif word[:1] in ("-", "+") and len(word) > 1:
            has_c = has_c or "c" in word[1:]
            takes_value = word[1:] in ("o", "O")
        else:
            return has_c, word if has_c else None
    return False, None


def _declaration(node: Node, source: bytes) -> SimpleCommand:
    """``export A=1 B``, ``local x``, ``unset y``: a builtin with words."""
    words: list[str | None] = [_text(node.children[0], source)]
    for child in node.named_children:
        if child.type == "variable_assignment":
            words.append(_assignment(child, source))
        else:
            words.append(_value(child, source))
    return SimpleCommand(tuple(words), shorten(_text(node, source)))


def _assignment(node: Node, source: bytes) -> str | None:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    value_text = _value(value, source) if value is not None else ""
    if name is None or value_text is None:
        return None
    return f"{_text(name, source)}={value_text}"


def _redirect(node: Node, source: bytes, out: CommandLine) -> None:
    destination = node.child_by_field_name("destination")
    if destination is None:
        return
    target = _value(destination, source)
    # Numbers are file descriptors (2>&1), '-' closes one; an unknown target cannot be checked.
    # A relative target is taken from the project root, where commands start: a 'cd' earlier
    # in the line is not followed.
    if target is None or target.isdigit() or target == "-":
        return
    out.redirects.append(Redirect(target, shorten(_text(node, source))))


def _value(node: Node, source: bytes) -> str | None:
    """A word's value after unquoting, or None when it is only known at run time."""
    text = _text(node, source)
    match node.type:
        case "word" | "command_name":
            return _WORD_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], text)
        case "number":
            return text
        case "raw_string":
            return text[1:-1]
        case "string":
            if any(c.is_named and c.type != "string_content" for c in node.children):
                return None  # "$X", "$(cmd)" inside
            inner = text[1:-1]
            return _DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m[1] == "\n" else m[1], inner)
        case "translated_string":
            strings = [c for c in node.named_children if c.type == "string"]
            return _value(strings[0], source) if strings else None
        case "concatenation":
            parts = [_value(c, source) if c.is_named else _text(c, source) for c in node.children]
            return None if None in parts else "".join(p for p in parts if p is not None)
    # Expansions, substitutions, $'...' strings: their value is only known when they run.
    return None


def _expands(node: Node, source: bytes) -> bool:
    """Whether an unquoted part of the word is a glob or a brace expansion."""
    if node.type == "word":
        return bool(_EXPANDING.search(_text(node, source)))
    if node.type == "concatenation":
        return any(_expands(child, source) for child in node.children)
    return False


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _parse_problem(root: Node, source: bytes) -> str:
    """Where the line stops parsing, in words."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_missing:
            before = shorten(source[: node.start_byte].decode("utf-8", errors="replace"))
            return f"the line is incomplete after '{before}'"
        if node.type == "ERROR":
            near = shorten(source[node.start_byte :].decode("utf-8", errors="replace"))[:30]
            return f"the line does not parse as shell near '{near}'"
        stack.extend(reversed(node.children))
    return "the line does not parse as shell"
