"""`legato config`, `doctor` and `permissions` ask the actors that own what they report: they
import the protocol, the errors, the model table and actor classes from their packages' roots,
and nothing inside an actor's package. Asking stays cheap: no trio, and no HTTP client where
nothing is sent."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from runtime import Actor
from tests.frontends.conftest import REPO
from tests.test_import_graph import SHARED  # the modules every actor and frontend may use

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

COMMANDS = (
    "commands/doctor",
    "commands/config",
    "commands/arguments",
    "commands/listings",
    "commands/permissions",
    "commands/permission_targets",
    "commands/permission_lines",
    "commands/permission_session",
    "commands/permission_writes",
    "commands/asking",
)


def imports_from_actors(module: str) -> list[tuple[str, str]]:
    """(module, name) for every name the frontend module imports from ``actors``."""
    tree = ast.parse((REPO / "frontends" / f"{module}.py").read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, "") for alias in node.names if alias.name.startswith("actors")]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("actors"):
            found += [(node.module or "", alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("module", COMMANDS)
def test_the_commands_reach_actors_only_through_their_doors(module: str) -> None:
    found = imports_from_actors(module)
    assert found, "the check would pass on a module that imports nothing"
    for source, name in found:
        if source in SHARED:
            continue
        assert source.count(".") == 1, f"{source}: inside an actor's package"
        imported = getattr(importlib.import_module(source), name, None)
        assert isinstance(imported, type) and issubclass(imported, Actor), (
            f"{source}.{name} is not an actor"
        )


def loaded_by(project: Project, *args: str) -> set[str]:
    """The modules loaded once ``legato <args>`` has run in-process."""
    probe = (
        "import contextlib, io, sys\n"
        "from frontends.cli import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = run({list(args)!r})\n"
        "print(code, ' '.join(sorted(sys.modules)))"
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(project.home), "ASSISTANT_API_KEY": "sk-x"}
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, env=env, check=True
    )
    code, modules = done.stdout.split(" ", 1)
    assert code == "0", done.stderr
    return set(modules.split())


COMMANDS_ASKING = {
    "config": lambda root: ["config", root],
    "doctor --no-probe": lambda root: ["doctor", root, "--no-probe"],
    "permissions": lambda root: ["permissions", "--project", root],
}


@pytest.mark.parametrize("command", COMMANDS_ASKING)
def test_asking_imports_no_trio_and_makes_no_http_client(project: Project, command: str) -> None:
    modules = loaded_by(project, *COMMANDS_ASKING[command](str(project.root)))
    assert "runtime.supervisor" in modules and "asyncio" in modules  # actors were asked
    # trio's import is most of a quick command's start; an HTTP client loads httpcore.
    assert not {"trio", "httpcore", "botocore"} & modules
