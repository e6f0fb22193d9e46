"""A shell command line -> every simple command it would run, read with tree-sitter-bash.

A line such as ``cd src && FOO=1 make $(cat target) | tee log`` runs four commands (``cd``,
``make``, ``cat``, ``tee``); the permission rules must see each of them. The tree is walked
whole, so commands inside ``&&``/``||``/``;``/``|``, subshells, ``{ }`` groups, ``$( )`` and
backticks, process substitutions and if/for/while/case bodies are all found; the script of
``bash -c '...'``, and the string that ``eval`` or ``trap`` runs, are parsed in turn. What a
command runs on its arguments' behalf (``sudo make``, ``find -exec rm``) is read by
``wrappers.py`` and kept with it.

Words are compared after shell unquoting (``'git' "status"`` is ``git status``, ``$'\\x67it'``
is ``git``). A word whose value is only known when the line runs (``$X``, ``$(...)``) is
``None``. What cannot be judged statically at all, such as a command name that comes from an
expansion, ``eval "$X"``, or a line that does not parse, is listed in ``problems``: such a line
always needs a person.

Redirections are file operations: each is listed with what it reads or writes, and a target
known only at run time (``> $OUT``, ``> *.log``, ``> ~user/x``) is ``None``. Variables the line
sets are listed too, both those set for one command (``FOO=1 make``) and those set in the
shell (``export FOO=1``).

How tree-sitter-bash is run, and a line that does not parse explained, is ``shell_syntax.py``;
what shells and builtins such as ``eval`` and ``read`` do with their words is
``shell_builtins.py``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from actors.permission_broker.evaluated import evaluated, names_evaluated
from actors.permission_broker.shell_builtins import (
    CHANGES_DIRECTORY,
    RUNS_A_STRING,
    SHELLS,
    sets_allexport,
    shell_script,
    string_script,
    variables_read_into,
)
from actors.permission_broker.shell_syntax import (
    only_read_write_redirects,
    parse_problem,
    shorten,
    skipped_text,
    syntax_tree,
)
from actors.permission_broker.words import expands, node_text, word_pattern, word_value
from actors.permission_broker.wrappers import Inner, Script, Unclear, Writes, what_it_runs

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tree_sitter import Node

MAX_NESTING = 4  # bash -c "bash -c '...'": deeper than this is treated as unknowable


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str | None, ...]  # unquoted; None where the value is only known at run time
    text: str  # as written, shortened, for messages
    assignments: tuple[str, ...] = ()  # variables set for it alone: FOO=1 make, env FOO=1 make
    runs: tuple[Run, ...] = ()  # what it runs from its own words: sudo make, find -exec rm
    # Unquoted words that expand to file names when it runs ('*.py', 'a{1,2}'), as written.
    patterns: tuple[str, ...] = ()
    # bash -c '...': the script's commands, found in turn, stand for it; it needs no allowing.
    launches: bool = False

    @property
    def name(self) -> str | None:
        return self.words[0] if self.words else None


@dataclass(frozen=True, slots=True)
class Run:
    """A command run by another from its own words, its name at ``offset`` among them."""

    offset: int
    command: SimpleCommand


@dataclass(frozen=True, slots=True)
class Redirect:
    """A file operation of the line: a redirection, or a file an option writes (-fprint)."""

    target: str | None  # a path, unquoted; None when it is only known at run time
    text: str  # as written: '> out.txt'
    reads: bool = False
    writes: bool = True


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    text: str  # as written, for messages: 'export PATH=...'
    exported: bool = False  # export X, declare -x X: every later command sees it


@dataclass(slots=True)
class CommandLine:
    text: str
    commands: list[SimpleCommand] = field(default_factory=list)  # each must be allowed
    # ``bash -c '...'`` themselves: their script's commands are in ``commands`` and stand for
    # them, so they need no allowing of their own, but blocked rules still apply to them.
    launchers: list[SimpleCommand] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    # Variables set in the shell itself, which later commands may see: X=1; export X; for X.
    assignments: list[Assignment] = field(default_factory=list)
    # The literal folders 'cd' goes to, in order; any 'cd', 'pushd' or 'popd' at all sets
    # changes_directory, since a loop or a function can run it before any part of the line.
    directories: list[str] = field(default_factory=list)
    changes_directory: bool = False
    exports_all: bool = False  # 'set -a': every variable set after it is exported
    problems: list[str] = field(default_factory=list)  # why it cannot be judged statically

    def every_command(self) -> Iterator[tuple[SimpleCommand, SimpleCommand | None]]:
        """Each command and launcher, and what they run from their words, in order; each with
        the command that runs it that way (None for the line's own)."""
        stack: list[tuple[SimpleCommand, SimpleCommand | None]] = [
            (command, None) for command in reversed([*self.commands, *self.launchers])
        ]
        while stack:
            command, runner = stack.pop()
            yield command, runner
            stack.extend((run.command, command) for run in reversed(command.runs))


def parse_command_line(line: str) -> CommandLine:
    result = CommandLine(line)
    _collect(line, result, depth=0)
    return result


def _collect(line: str, out: CommandLine, depth: int) -> None:
    source = line.encode("utf-8", errors="surrogateescape")
    root = syntax_tree(source)
    if root.has_error and not only_read_write_redirects(root):
        # Keep walking: a blocked command in a broken line should still read as blocked.
        out.problems.append(parse_problem(root, source))
    skipped = skipped_text(root, source)
    if skipped is not None:
        out.problems.append(skipped)
    # Commands and assignments, handled after the walk in the order they are written, once
    # each command has the words the grammar hangs on its redirections ('cat < in .env').
    pending: list[Node] = []
    extra: dict[int, list[Node]] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        match node.type:
            case "comment":
                continue
            case "command" | "declaration_command" | "unset_command":
                pending.append(node)
            case "variable_assignment" if node.parent is not None and node.parent.type not in (
                "command",
                "declaration_command",
            ):
                pending.append(node)
            case "for_statement" | "select_statement":
                pending.append(node)
            case "file_redirect":
                destinations = _redirect(node, source, out)
                owner = _owner(node, pending) if destinations else None
                if owner is not None:
                    extra.setdefault(owner.id, []).extend(destinations)
            case "arithmetic_expansion" | "expansion" | "subscript" | "c_style_for_statement" if (
                evaluated(node)
            ):
                out.problems.append(_evaluates(node_text(node, source)))
        stack.extend(reversed(node.children))
    for node in pending:
        match node.type:
            case "command":
                _command(node, source, out, depth, extra.get(node.id, []))
            case "variable_assignment":
                out.assignments.append(_shell_assignment(node, source))
            case "for_statement" | "select_statement":
                variable = node.child_by_field_name("variable")
                if variable is not None:
                    text = shorten(node_text(node, source))
                    out.assignments.append(Assignment(node_text(variable, source), text))
            case _:
                out.commands.append(_declaration(node, source, out))


def _owner(redirect: Node, commands: list[Node]) -> Node | None:
    """The simple command a redirection belongs to: the one it sits in, else the nearest
    before it (the grammar hangs 'ls >out -la' on a statement around 'ls')."""
    parent = redirect.parent
    if parent is not None and parent.type == "command":
        return parent
    before = [c for c in commands if c.type == "command" and c.end_byte <= redirect.start_byte]
    return max(before, key=lambda c: c.end_byte, default=None)


def _command(node: Node, source: bytes, out: CommandLine, depth: int, extra: list[Node]) -> None:
    name_node: Node | None = None
    words: list[str | None] = []
    patterns: list[str] = []
    assignments: list[str] = []
    for index, child in enumerate(node.children):
        match node.field_name_for_child(index):
            case "name":
                name_node = child.named_children[0] if child.named_children else child
                words.append(word_value(name_node, source))
            case "argument":
                words.append(word_value(child, source))
                patterns.extend(word_pattern(child, source))
            case _ if child.type == "variable_assignment":
                name = child.child_by_field_name("name")
                if name is not None:
                    assignments.append(node_text(name, source))
    for child in extra:
        words.append(word_value(child, source))
        patterns.extend(word_pattern(child, source))
    end = max([node.end_byte, *(child.end_byte for child in extra)])
    text = shorten(source[node.start_byte : end].decode("utf-8", errors="replace"))
    if name_node is None or name_node.is_missing or not node_text(name_node, source):
        # Only assignments and redirections: 'A=1 > x' sets A in the shell itself.
        out.assignments.extend(Assignment(name, text) for name in assignments)
        return
    if words[0] is None or expands(name_node, source):
        out.problems.append(f"the command name in '{text}' is only known when it runs")
        words[0] = None
    scripts: list[tuple[str, str | None]] = []
    command = _build(tuple(words), text, tuple(assignments), tuple(patterns), out, scripts)
    (out.launchers if command.launches else out.commands).append(command)
    for runner, script in scripts:  # after the command itself, to list commands in order
        _run_script(runner, script, out, depth)


def _build(
    words: tuple[str | None, ...],
    text: str,
    assignments: tuple[str, ...],
    patterns: tuple[str, ...],
    out: CommandLine,
    scripts: list[tuple[str, str | None]],
) -> SimpleCommand:
    """The command with these words; the scripts it runs are added to ``scripts``, as
    (the command, its script), to be parsed in turn."""
    command = SimpleCommand(words, text, assignments, (), patterns)
    name = command.name
    if name is None:
        return command
    base = os.path.basename(name)
    if base in CHANGES_DIRECTORY:
        out.changes_directory = True
        target = words[1] if len(words) > 1 else "~"
        if base == "cd" and target is not None and not target.startswith("-"):
            out.directories.append(target)
    if name in RUNS_A_STRING:
        # Unlike 'bash -c', these need allowing themselves as well: they are rare, and listing
        # 'eval' or 'trap' is a deliberate choice.
        runs_script, script = string_script(name, words)
        if runs_script:
            scripts.append((text, script))
        return command
    if base in SHELLS:
        runs_script, script = shell_script(words)
        if runs_script:
            # The script's commands stand for the shell: 'bash -c "make"' needs 'make' allowed.
            scripts.append((text, script))
            return SimpleCommand(words, text, assignments, (), patterns, launches=True)
    if names_evaluated(words):
        out.problems.append(_evaluates(text))
    out.assignments.extend(Assignment(n, text) for n in variables_read_into(words))
    if name == "set" and sets_allexport(words):
        out.exports_all = True
    runs: list[Run] = []
    for item in what_it_runs(words):
        match item:
            case Inner(offset=offset, words=inner_words, shown=shown, assignments=set_for_it):
                inner = _build(inner_words, shorten(shown), set_for_it, (), out, scripts)
                runs.append(Run(offset, inner))
            case Script(text=script):
                scripts.append((text, script))
            case Unclear(reason=reason):
                out.problems.append(f"cannot tell what '{text}' runs: {reason}")
            case Writes(target=target, shown=shown):
                out.redirects.append(Redirect(_target(target), shorten(shown)))
    return SimpleCommand(words, text, assignments, tuple(runs), patterns)


def _run_script(text: str, script: str | None, out: CommandLine, depth: int) -> None:
    """Collect the commands of the script that the command ``text`` runs."""
    if script is None:
        out.problems.append(f"the script in '{text}' is only known when it runs")
    elif depth >= MAX_NESTING:
        out.problems.append(f"'{text}' nests shells too deeply to check")
    else:
        _collect(script, out, depth + 1)


def _declaration(node: Node, source: bytes, out: CommandLine) -> SimpleCommand:
    """``export A=1 B``, ``local x``, ``unset y``: a builtin with words."""
    keyword = node_text(node.children[0], source)
    words: list[str | None] = [keyword]
    text = shorten(node_text(node, source))
    options = [node_text(c, source) for c in node.named_children if c.type == "word"]
    exported = keyword == "export" or any(o.startswith("-") and "x" in o for o in options)
    for child in node.named_children:
        name: Node | None = None
        if child.type == "variable_assignment":
            words.append(_assignment(child, source))
            name = child.child_by_field_name("name")
        else:
            words.append(word_value(child, source))
            name = child if child.type == "variable_name" else None
        if name is not None and keyword != "unset":
            out.assignments.append(Assignment(node_text(name, source), text, exported))
    named = [
        node_text(c, source) if c.type == "variable_name" else word_value(c, source)
        for c in node.named_children
        if c.type != "variable_assignment"
    ]
    if names_evaluated((keyword, *named)):
        out.problems.append(_evaluates(text))
    return SimpleCommand(tuple(words), text)


def _evaluates(text: str) -> str:
    return (
        f"'{shorten(text)}' has bash evaluate a value as code (evaluated.py), so what it runs "
        "is only known when it runs"
    )


def _assignment(node: Node, source: bytes) -> str | None:
    name = node.child_by_field_name("name")
    value = node.child_by_field_name("value")
    value_text = word_value(value, source) if value is not None else ""
    if name is None or value_text is None:
        return None
    return f"{node_text(name, source)}={value_text}"


def _shell_assignment(node: Node, source: bytes) -> Assignment:
    name = node.child_by_field_name("name")
    return Assignment(
        node_text(name if name is not None else node, source), node_text(node, source)
    )


def _redirect(node: Node, source: bytes, out: CommandLine) -> list[Node]:
    """List the file operation of a redirection; return the words after its target, which
    belong to the command (the grammar takes them for more targets)."""
    destinations = node.children_by_field_name("destination")
    if not destinations:
        return []  # '2>&-' closes a descriptor
    destination, extra = destinations[0], destinations[1:]
    # '<>' comes as '<' and an error '>': the grammar lacks it.
    operator = "".join(
        node_text(c, source) for c in node.children if not c.is_named or c.type == "ERROR"
    )
    if destination.type == "process_substitution":
        return extra  # a pipe to commands, found in the walk like any other
    target = word_value(destination, source)
    if operator in ("<&", ">&") and target is not None and (target.isdigit() or target == "-"):
        return extra  # 2>&1, >&2, <&0: another descriptor, not a file
    if expands(destination, source):
        target = None
    text = shorten(source[node.start_byte : destination.end_byte].decode("utf-8", "replace"))
    reads = operator.startswith("<")
    writes = operator not in ("<", "<&")
    out.redirects.append(Redirect(_target(target), text, reads=reads, writes=writes))
    return extra


def _target(target: str | None) -> str | None:
    """A target as the shell finds it: '~' and '~/...' are in the home folder; other tilde
    forms (~user, ~+) depend on the machine and the moment."""
    if target is None:
        return None
    if target.startswith("~") and target != "~" and not target.startswith("~/"):
        return None
    return target
