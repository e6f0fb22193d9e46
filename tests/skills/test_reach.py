"""Frontends reach skills and patterns by message: no frontend imports the insides of the skill
library or of the memory store, only their package roots (the actor classes a session is
assembled from), the protocol and the errors."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FRONTENDS = sorted((REPO / "frontends").rglob("*.py"))
INSIDES = ("actors.skills.", "actors.memory_store.")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_frontend_imports_the_insides_of_the_library_or_the_memory_store() -> None:
    reaching = {
        str(path.relative_to(REPO)): sorted(n for n in imported(path) if n.startswith(INSIDES))
        for path in FRONTENDS
    }
    assert {path: names for path, names in reaching.items() if names} == {}


def test_the_check_sees_the_imports_it_is_about() -> None:
    app = imported(REPO / "frontends" / "interactive" / "app.py")
    assert "actors.protocol" in app
    # Inside a function, where the composition root imports the package it builds from.
    assert "actors.skills" in imported(REPO / "frontends" / "session.py")
