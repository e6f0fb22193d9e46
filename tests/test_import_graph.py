"""The import graph: the layers' arrows point one way, and an actor's insides are its own.

Every import counts, at the top of a module or inside a function, for typing or not:

- ``runtime/`` imports nothing from ``actors/`` or ``frontends/``;
- ``actors/`` imports nothing from ``frontends/``; the modules all actors share (``protocol``,
  ``errors``...) import no actor package, and an actor's package imports no other actor's package,
  not even its root: what two actors share is a shared module, or a message;
- a frontend reaches the actors only through the protocol (``actors.protocol`` and the other
  shared modules: ``actors.errors``, ``actors.models``...), the public names of ``runtime`` and
  the composition root, ``frontends.session``: it alone imports an actor package's root (the
  actor classes), besides the UI actor's ``Renderer`` implementations;
- nothing imports ``frontends.cli``, the entry point, and the frontends import one another
  without a cycle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LAYERS = ("runtime", "actors", "frontends")

# The modules under actors/ that every actor and frontend may use: messages, errors, the model
# table, the names of Legato's own places under ~/.legato, and how text from a model or an MCP
# server is shown safely (the broker's reasons and the questions of every frontend), and the
# tool names that tool rules may hold (the Agent SDK's allowed_tools are checked with them),
# the permission modes in the Agent SDK's names, and counts in words for every summary, and
# how deep a JSON text nests (a stream-json line is measured before it is decoded).
SHARED = {
    "actors.protocol",
    "actors.errors",
    "actors.models",
    "actors.places",
    "actors.visible",
    "actors.tool_names",
    "actors.permission_modes",
    "actors.counts",
    # Legato's own credentials, which no command, hook or MCP server gets.
    "actors.credentials",
    "actors.nesting",
    # Which actor answers which tool call, and the typed ids of background commands and agents
    # (``/tasks stop`` reads an id as the model's TaskStop does).
    "actors.tool_routes",
    # What the settings files hold, and how a file's text is validated into it: the memory store
    # reads the files and sends the settings; the executor, the broker, the MCP client and the
    # hook runner receive them. A package of several modules, but a leaf the actors share, not
    # an actor: a frontend imports its root.
    "actors.settings",
    # Images and PDFs made ready for the model, pure functions of bytes: the executor's Read
    # and references, the conductor's estimates, a frontend's pasted or SDK-sent image. Its
    # modules are imported by name (the root imports neither, so Pillow stays unloaded).
    "actors.media",
    "actors.media.images",
    "actors.media.pdf",
    # The programs run for others (commands, hooks, MCP servers, rg) as process groups, and
    # their output capped.
    "actors.process_groups",
    "actors.output_caps",
    # The proxies and certificates of the session's environment: the model client's requests
    # and WebFetch's go the same way.
    "actors.proxies",
    # The door to files (the executor's tools), and through it to what Legato reads for itself
    # (the memory store, the skill library).
    "actors.door",
    "actors.own_files",
    # The instruction files (LEGATO.md, CLAUDE.md...) and their imports: the memory store reads
    # them at start, the conductor a sub-folder's when the model works there; one reader.
    "actors.instructions",
    # How much the model reasons (--effort, the thinking flags): the flags' checks, the
    # session's options and the conductor's requests read the same rules.
    "actors.reasoning",
    # OpenTelemetry export: the conductor's prompts, the model client's requests, the
    # executor's tool calls and the broker's decisions, reported to one owner. Its root imports
    # nothing of OpenTelemetry; ``actors.telemetry.otel`` is imported only when export is on.
    "actors.telemetry",
    "actors.telemetry.otel",
    "actors.telemetry.setup",
}

# Frontend modules that may import an actor package's root, and which packages. Only two kinds:
# the composition root, which constructs every actor (so that a subcommand, a benchmark or a
# test gets its actors wired as a session wires them), and the UI actor's ``Renderer``
# implementations, which subclass the class the UI actor calls (an interface the frontends
# implement, not an actor they reach into). Everything else a frontend needs of an actor it
# asks by a message, or through a function the composition root exposes.
ROOT_IMPORTS: dict[str, set[str]] = {
    "frontends.session": {
        "actors.conductor",
        "actors.hooks",
        "actors.mcp_client",
        "actors.memory_store",
        "actors.model_client",
        "actors.permission_broker",
        "actors.session_store",
        "actors.skills",
        "actors.tool_executor",
        "actors.ui",
    },
    # Names, for typing only, the two collaborators a session's options may carry: who answers
    # the broker's questions and who runs the driving program's callback hooks.
    "frontends.session_options": {"actors.hooks", "actors.ui"},
    "frontends.headless.render": {"actors.ui"},
    # Puts the broker's questions to the driving program.
    "frontends.headless.sdk_session": {"actors.ui"},
    "frontends.interactive.renderer": {"actors.ui"},
}

# Violations still to be moved, each as (importing module, imported module); the test below
# fails for an entry that no longer names a violation. Empty: keep it so.
ALLOWED_FOR_NOW: set[tuple[str, str]] = set()


@dataclass(frozen=True)
class Import:
    importer: str  # the module, dotted
    imported: str  # the module it names: ``from a.b import c`` is ``a.b.c`` when that is one
    line: int
    typing_only: bool = False  # under ``if TYPE_CHECKING:``: never run


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path) -> dict[str, Path]:
    return {
        module_name(path, root): path
        for layer in LAYERS
        for path in sorted((root / layer).rglob("*.py"))
    }


def imports_of(name: str, source: str, known: set[str], *, package: bool) -> list[Import]:
    """The imports of one module that name a module of the three layers."""
    found: list[Import] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.Import):
            found.extend(Import(name, a.name, node.lineno, typing_only) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(name, node.module, node.level, package=package)
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                imported = whole if whole in known else base
                found.append(Import(name, imported, node.lineno, typing_only))
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                visit(statement, True)
            for statement in node.orelse:
                visit(statement, typing_only)
        else:
            for child in ast.iter_child_nodes(node):
                visit(child, typing_only)

    visit(ast.parse(source), False)
    return [i for i in found if i.imported.split(".")[0] in LAYERS]


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _absolute(name: str, module: str | None, level: int, *, package: bool) -> str:
    if level == 0:
        return module or ""
    parts = name.split(".")
    base = parts if package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def graph(root: Path) -> list[Import]:
    found = modules(root)
    known = set(found)
    return [
        edge
        for name, path in found.items()
        for edge in imports_of(
            name, path.read_text(encoding="utf-8"), known, package=path.name == "__init__.py"
        )
    ]


def actor_packages(root: Path) -> set[str]:
    found = {f"actors.{p.parent.name}" for p in (root / "actors").glob("*/__init__.py")}
    return found - SHARED


def violation(edge: Import, packages: set[str]) -> str | None:
    """Why this import breaks the rules in the module docstring; None when it keeps them."""
    importer, imported = edge.importer, edge.imported
    layer, target = importer.split(".")[0], imported.split(".")[0]
    own = next((p for p in packages if importer == p or importer.startswith(p + ".")), None)
    owner = next((p for p in packages if imported == p or imported.startswith(p + ".")), None)
    if layer == "runtime" and target != "runtime":
        return "the kernel imports only itself"
    if layer == "actors":
        if target == "frontends":
            return "an actor imports a frontend"
        if owner is None or owner == own:
            return None
        if own is None:
            return "a module the actors share imports an actor package"
        if imported != owner:
            return f"an actor reaches into another actor's module ({owner})"
        return f"an actor imports another actor's package ({owner})"
    if layer != "frontends":
        return None
    if imported == "frontends.cli":
        return "the entry point is imported"
    if target == "runtime":
        return None if imported == "runtime" else "a frontend imports a kernel module"
    if target != "actors" or imported in SHARED:
        return None
    if imported == owner and owner in ROOT_IMPORTS.get(importer, set()):
        return None
    if imported == owner:
        return "a frontend imports an actor package outside the composition root"
    return "a frontend reaches into an actor's module"


def violations(root: Path) -> dict[tuple[str, str], str]:
    packages = actor_packages(root)
    found: dict[tuple[str, str], str] = {}
    for edge in graph(root):
        why = violation(edge, packages)
        if why is not None:
            found[(edge.importer, edge.imported)] = f"line {edge.line}: {why}"
    return found


def cycles(edges: list[tuple[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    successors: dict[str, list[str]] = {}
    for start, end in edges:
        successors.setdefault(start, []).append(end)
        successors.setdefault(end, [])
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in successors[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(successors):
        if node not in index:
            visit(node)
    return groups


# ── the project ─────────────────────────────────────────────────────────────────────────────


def test_imports_keep_the_layers_and_the_actors_own_modules() -> None:
    found = violations(REPO)
    unexpected = {edge: why for edge, why in found.items() if edge not in ALLOWED_FOR_NOW}
    assert unexpected == {}


def test_the_allowlist_names_only_violations_that_remain() -> None:
    assert ALLOWED_FOR_NOW - set(violations(REPO)) == set()


def test_the_frontends_import_one_another_without_a_cycle() -> None:
    # Imports for typing only never run, so they cannot make a cycle; those inside functions
    # do run, later, and count.
    edges = [
        (edge.importer, edge.imported)
        for edge in graph(REPO)
        if not edge.typing_only
        and edge.importer.startswith("frontends.")
        and edge.imported.startswith("frontends.")
        and (edge.importer, edge.imported) not in ALLOWED_FOR_NOW
    ]
    assert cycles(edges) == []


# ── the checker itself ──────────────────────────────────────────────────────────────────────


def write(root: Path, files: dict[str, str]) -> None:
    for layer in LAYERS:
        (root / layer).mkdir(exist_ok=True)
        (root / layer / "__init__.py").touch()
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.name != "__init__.py":
            (path.parent / "__init__.py").touch()
        path.write_text(source)


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        (
            "frontends/status.py",
            "from actors.conductor.compaction import fill_text",
            "a frontend reaches into an actor's module",
        ),
        (
            "frontends/status.py",
            "from actors.conductor import compaction",
            "a frontend reaches into an actor's module",
        ),
        (
            "frontends/status.py",
            "def f():\n    import actors.conductor.compaction",
            "a frontend reaches into an actor's module",
        ),
        (
            "frontends/status.py",
            "from actors.conductor import Conductor",
            "a frontend imports an actor package outside the composition root",
        ),
        (
            "frontends/status.py",
            "from runtime.mailbox import Reply",
            "a frontend imports a kernel module",
        ),
        ("frontends/demo.py", "from frontends.cli import run", "the entry point is imported"),
        (
            "actors/ui/actor.py",
            "from actors.conductor.compaction import fill_text",
            "an actor reaches into another actor's module (actors.conductor)",
        ),
        (
            "actors/ui/actor.py",
            "from ..conductor.compaction import fill_text",
            "an actor reaches into another actor's module (actors.conductor)",
        ),
        (
            "actors/ui/actor.py",
            "from actors.conductor import Conductor",
            "an actor imports another actor's package (actors.conductor)",
        ),
        (
            "actors/ui/actor.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from actors import conductor",
            "an actor imports another actor's package (actors.conductor)",
        ),
        (
            "actors/ui/actor.py",
            "from frontends.startup import debug",
            "an actor imports a frontend",
        ),
        (
            "actors/protocol/__init__.py",
            "from actors.conductor import Conductor",
            "a module the actors share imports an actor package",
        ),
        ("runtime/actor.py", "from actors.protocol import Usage", "the kernel imports only itself"),
    ],
)
def test_the_checker_finds_each_kind_of_violation(
    tmp_path: Path, module: str, source: str, why: str
) -> None:
    write(
        tmp_path,
        {
            "actors/conductor/__init__.py": "",
            "actors/conductor/compaction.py": "",
            "actors/ui/__init__.py": "",
            "actors/protocol/__init__.py": "",
            "runtime/mailbox.py": "",
            "frontends/cli.py": "",
            module: source,
        },
    )
    found = violations(tmp_path)
    assert [text.split(": ", 1)[1] for text in found.values()] == [why]


def test_the_checker_lets_the_allowed_imports_through(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "actors/conductor/__init__.py": "from actors.conductor.actor import Conductor",
            "actors/conductor/actor.py": "from actors.conductor import compaction\n"
            "from actors.process_groups import stop\nfrom runtime import Actor",
            "actors/conductor/compaction.py": "from actors.protocol import Usage",
            "actors/ui/__init__.py": "",
            "actors/process_groups.py": "",
            "actors/protocol/__init__.py": "from runtime import Ask",
            "frontends/session.py": "from actors.conductor import Conductor",
            "frontends/status.py": "from actors.protocol import Usage\n"
            "from runtime import supervise",
        },
    )
    assert violations(tmp_path) == {}


def test_imports_for_typing_only_are_told_apart() -> None:
    source = (
        "from typing import TYPE_CHECKING\nimport frontends.a\n"
        "if TYPE_CHECKING:\n    import frontends.b\nelse:\n    import frontends.c\n"
        "def f():\n    import frontends.d\n"
    )
    found = imports_of("frontends.x", source, set(), package=False)
    assert [(i.imported, i.typing_only) for i in found] == [
        ("frontends.a", False),
        ("frontends.b", True),
        ("frontends.c", False),
        ("frontends.d", False),
    ]


def test_cycles_are_found_however_long() -> None:
    assert cycles([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == [["a", "b", "c"]]
    assert cycles([("a", "b"), ("b", "c"), ("a", "c")]) == []
