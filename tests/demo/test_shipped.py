"""The wheel ships every module ``legato --demo`` imports, whatever its exclude list says.

Nothing is built: the check reads the wheel target in pyproject.toml (its packages, and its
exclude patterns matched as hatchling matches them, as .gitignore lines) and follows the imports
from ``legato``'s entry point and the demo with ast, imports inside functions included (the demo
imports the scripted API only when it runs). Imports under ``if TYPE_CHECKING:`` never run and
are not followed.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pathspec

ROOT = Path(__file__).resolve().parents[2]


def wheel_target() -> tuple[list[str], list[str]]:
    """The wheel's packages and exclude patterns, as pyproject.toml states them."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        pyproject = tomllib.load(file)
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    return list(wheel["packages"]), list(wheel.get("exclude", []))


def demo_roots() -> list[str]:
    """The modules ``legato --demo`` starts from: the console script's, then the demo's."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        script: str = tomllib.load(file)["project"]["scripts"]["legato"]
    return [script.partition(":")[0], "frontends.demo"]


def module_file(name: str) -> Path | None:
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Imports(ast.NodeVisitor):
    """The names a module imports at run time: modules, and ``from`` names that may be modules."""

    def __init__(self, module: str, is_package: bool) -> None:
        self.package = module if is_package else module.rpartition(".")[0]
        self.names: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            for child in node.body:
                self.visit(child)
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        self.names.update(alias.name for alias in node.names)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            package = self.package
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{node.module}" if node.module else package
        else:
            base = node.module or ""
        self.names.add(base)
        # `from package import name` imports package.name when it is a submodule.
        self.names.update(f"{base}.{alias.name}" for alias in node.names)


def reachable(roots: list[str], packages: list[str]) -> set[str]:
    """Every first-party module the roots import, directly or not, their parent packages too."""
    seen: set[str] = set()
    pending = list(roots)
    while pending:
        name = pending.pop()
        parts = name.split(".")
        for end in range(1, len(parts) + 1):
            prefix = ".".join(parts[:end])
            if prefix in seen or parts[0] not in packages:
                continue
            path = module_file(prefix)
            if path is None:
                continue  # a name imported from a module, not a module
            seen.add(prefix)
            visitor = _Imports(prefix, path.name == "__init__.py")
            visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
            pending.extend(visitor.names)
    return seen


def unshipped(modules: set[str], packages: list[str], exclude: list[str]) -> list[str]:
    spec = pathspec.GitIgnoreSpec.from_lines(exclude)
    missing = []
    for name in sorted(modules):
        path = module_file(name)
        assert path is not None
        relative = path.relative_to(ROOT).as_posix()
        if relative.split("/")[0] not in packages or spec.match_file(relative):
            missing.append(name)
    return missing


def test_every_module_the_demo_imports_is_shipped() -> None:
    packages, exclude = wheel_target()
    modules = reachable(demo_roots(), packages)

    # The walk follows the demo's lazy imports down to the scripted API and the session.
    assert {
        "frontends.demo.run",
        "frontends.demo.script",
        "frontends.demo.scripted_api.server",
        "frontends.demo.scripted_api.validate",
        "frontends.headless.run",
        "actors.conductor.actor",
        "runtime.actor",
    } <= modules
    assert unshipped(modules, packages, exclude) == []


def test_an_exclude_that_would_break_the_demo_is_caught() -> None:
    packages, exclude = wheel_target()
    modules = reachable(demo_roots(), packages)

    one_file = [*exclude, "frontends/demo/scripted_api/validate.py"]
    assert unshipped(modules, packages, one_file) == ["frontends.demo.scripted_api.validate"]
    whole_package = [*exclude, "scripted_api/"]
    assert unshipped(modules, packages, whole_package) == sorted(
        name for name in modules if name.startswith("frontends.demo.scripted_api")
    )
    assert unshipped(modules, [p for p in packages if p != "runtime"], exclude) == sorted(
        name for name in modules if name.startswith("runtime")
    )


def test_each_exclude_leaves_out_a_file_that_exists() -> None:
    packages, exclude = wheel_target()
    files = [
        path.relative_to(ROOT).as_posix()
        for package in packages
        for path in (ROOT / package).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    ]
    for pattern in exclude:
        spec = pathspec.GitIgnoreSpec.from_lines([pattern])
        assert any(spec.match_file(file) for file in files), f"{pattern} excludes nothing"
    assert "frontends/demo/scripted_api/__main__.py" in [
        file for file in files if pathspec.GitIgnoreSpec.from_lines(exclude).match_file(file)
    ]
