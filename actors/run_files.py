"""The files inside the project that run outside the sandbox: what hooks and MCP servers run.

A hook runs with the user's full rights, and so does an MCP server: when the program it runs is
a file of the project (``./scripts/fmt.sh``, ``python tools/server.py``), whoever edits that file
runs code unconfined at the next tool call or session. So these files are protected like
Legato's own: an edit always asks (the broker), and a confined command cannot write them (the
sandbox). ``.mcp.json`` itself too: with ``enableAllProjectMcpServers`` a server written there
starts unasked.

Each hook command and each server's command and args are split like a shell line (``shlex``);
every word, and the value of every ``--option=value``, that names an existing file inside the
project counts: relative to the project root (where both run), absolute, ``~/...`` or
``$HOME/...``, or through ``$CLAUDE_PROJECT_DIR``, ``$LEGATO_PROJECT_DIR``, ``$PWD`` or
``$(pwd)``. A program named by a path (``./fmt.sh``, ``bash scripts/x.sh``) counts even when it
does not exist yet, since creating it is enough. For ``python -m pkg.mod`` (or ``-mpkg.mod``)
the module's own file (``pkg/mod.py``, ``pkg/mod/__main__.py``) counts, and each package's
``__init__.py`` on the way. The word after ``-c`` (``sh -c "./fmt.sh --all"``) is read as a
line of its own. A word with a wildcard (``sh scripts/*.sh``) counts for each file of the
project it matches when the session starts, as the shell expands it before the program runs.
For a task runner (``npm run fmt``, ``make fmt``), the files it reads its tasks from
(``TASK_FILES``).
What those programs import or read in turn cannot be known from the command, and is not
covered. There is no status line command.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
import shlex
from typing import TYPE_CHECKING

from actors.git_files import read_small
from actors.places import within

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from actors.protocol import HookGroup, McpServer

MCP_FILE = ".mcp.json"
# Programs whose first word, when not an option, is the script they run.
SCRIPT_RUNNERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "ruby", "perl", "php"}
)
# Programs whose first word that is not an option is the program they run: those, and a few
# more runtimes and wrappers (``uv run``: ``run`` too).
_INTERPRETERS = SCRIPT_RUNNERS | {"deno", "bun", "tsx", "ts-node", "exec", "env", "uv", "run"}
_HOME_VARIABLE = re.compile(r"\$(?:\{HOME\}|HOME\b)")
_MAX_HOOKS = 64  # scripts of git's hooks read, at most, and their first bytes
_MAX_SCRIPT = 64 * 1024
# Lines within lines read (``sh -c "bash -c '...'"``), at most: each level's quoting at least
# doubles the backslashes of the one inside, so a settings file cannot come near it.
_MAX_NESTING = 32
_MAX_MATCHES = 256  # files a hook's pattern (``scripts/*.sh``) is expanded to, at most
# Task runners: the program is a known one, but what it runs is written in the project, in these
# files (relative to the root, where hooks and servers run): ``npm run fmt`` runs
# ``package.json``'s script with the shell ``.npmrc`` names, ``make fmt`` the Makefile's recipe.
# Each counts where it exists; one a command creates where there was none is not covered.
_NPM = ("package.json", ".npmrc")
TASK_FILES: dict[str, tuple[str, ...]] = {
    "npm": _NPM,
    "pnpm": (*_NPM, "pnpm-workspace.yaml"),
    "yarn": ("package.json", ".yarnrc", ".yarnrc.yml"),  # yarnPath: the yarn that runs
    "bun": ("package.json", "bunfig.toml"),
    "make": ("Makefile", "makefile", "GNUmakefile"),
    "gmake": ("Makefile", "makefile", "GNUmakefile"),
    "just": ("justfile", "Justfile", ".justfile"),
    "task": ("Taskfile.yml", "Taskfile.yaml"),
    "rake": ("Rakefile", "rakefile"),
    "uv": ("pyproject.toml", "uv.toml", "uv.lock"),  # uv run installs what the lock names
    "poetry": ("pyproject.toml",),
    "hatch": ("pyproject.toml", "hatch.toml"),
    "pdm": ("pyproject.toml",),
    "tox": ("tox.ini", "pyproject.toml"),
    "nox": ("noxfile.py",),
    "cargo": ("Cargo.toml", "build.rs", ".cargo/config.toml", ".cargo/config"),
    "pre-commit": (".pre-commit-config.yaml",),
}
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # FOO=1 ./x.sh: still before the program
# The project's folder as a line names it: hooks and servers run there, so ``$PWD`` and
# ``$(pwd)`` are the project too.
_PROJECT_VARIABLE = re.compile(
    r"\$(?:\{(?:(?:CLAUDE|LEGATO)_PROJECT_DIR|PWD)\}|(?:(?:CLAUDE|LEGATO)_PROJECT_DIR|PWD)\b"
    r"|\(pwd\))"
)


def files_that_run(
    root: str,
    home: str,
    hooks: Iterable[HookGroup],
    servers: Iterable[McpServer],
    status_line: str | None = None,
) -> dict[str, str]:
    """Each file inside ``root`` (a real absolute path) that a hook, a server or the
    ``statusLine`` command runs, real and absolute, with who runs it in words ("the
    PostToolUse hook 'fmt.sh x'")."""
    found: dict[str, str] = {}
    if status_line:
        for path in _named_files(status_line, root, home):
            found.setdefault(path, f"the statusLine command '{status_line}'")
    for group in hooks:
        for hook in group.hooks:
            if hook.callback is not None:
                continue  # the embedding program's own function, not a file
            for path in _named_files(hook.command, root, home):
                found.setdefault(path, f"the {group.event} hook '{hook.command}'")
    for server in servers:
        if server.transport != "stdio":
            continue
        line = shlex.join((server.command, *server.args))
        for path in _named_files(line, root, home):
            found.setdefault(path, f"the MCP server '{server.name}'")
    return found


def places_that_run(
    root: str,
    home: str,
    hooks: Iterable[HookGroup],
    servers: Iterable[McpServer],
    status_line: str | None = None,
) -> dict[str, str]:
    """Every place inside the project (``root``, real) whose files run outside the sandbox,
    with what it is in words (as a question says it): ``.mcp.json``, the files hooks and MCP
    servers run, the files git's hook scripts name, and the folders and files outside ``.git``
    that git's config takes programs from (``core.hooksPath``, an included config). Writing any
    of them always asks, unless an allowedPaths entry names it (the permission broker); an
    entry of a project's file that names one is a widening the user trusts first (the memory
    store)."""
    from actors.git_files import configured_places, hook_folders

    found = {
        os.path.join(root, MCP_FILE): (
            "the project's MCP servers (.mcp.json), which run outside the sandbox"
        )
    }
    runs = files_that_run(root, home, hooks, servers, status_line)
    git = os.path.join(root, ".git")
    places = configured_places(git, home) if os.path.isdir(git) else []
    if os.path.isdir(git):
        runs.update(files_git_hooks_name(root, home, hook_folders(git, places)))
    found.update(
        (path, f"a file that {who} runs outside the sandbox") for path, who in runs.items()
    )
    if os.path.isdir(git):
        for path, _, what in places:
            if within(path, root) and not within(path, git):
                found.setdefault(path, f"{what}, where git finds programs to run")
    return found


def files_git_hooks_name(root: str, home: str, folders: Iterable[str]) -> dict[str, str]:
    """Each file inside ``root`` that a hook script of git's, in ``folders``, names: the
    configuration a hook manager reads and runs programs from (pre-commit's hook says
    ``--config=.pre-commit-config.yaml``, whose ``entry`` lines are commands), with the hook
    in words. Only files that exist: a script's words are not all paths."""
    found: dict[str, str] = {}
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)[:_MAX_HOOKS]
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".sample") or not entry.is_file():
                continue
            script = read_small(entry.path, _MAX_SCRIPT)  # git runs a linked hook too
            if script is None:
                continue
            text = script.decode("utf-8", "replace")
            for line in text.splitlines():
                if line.lstrip().startswith("#"):
                    continue
                for path in _named_files(line, root, home, missing_too=False):
                    found.setdefault(path, f"git's {entry.name} hook")
    return found


def _named_files(
    line: str, root: str, home: str, *, missing_too: bool = True, depth: int = 0
) -> Iterator[str]:
    line = _PROJECT_VARIABLE.sub(lambda _: root, line)
    line = _HOME_VARIABLE.sub(lambda _: home, line)
    try:
        words = _words(line)
    except ValueError:  # an unclosed quote: the words as they stand
        words = line.split()
    program = True  # the word is where a program is named: first, or after an interpreter
    for index, word in enumerate(words):
        candidates = [word]
        _, equals, value = word.partition("=")
        if equals and value:
            candidates.append(value)
        if index > 0 and words[index - 1] == "-m":
            candidates += _module_files(word)
        elif word.startswith("-m") and len(word) > 2:
            candidates += _module_files(word[2:])  # ``python -mpkg.mod``, as Python reads it
        if index > 0 and words[index - 1] == "-c":
            # ``sh -c "./fmt.sh --all"``: the shell runs that word as a line of its own, and
            # the words after it are its arguments, not programs.
            if depth < _MAX_NESTING:
                yield from _named_files(word, root, home, missing_too=missing_too, depth=depth + 1)
            program = False
            continue
        for candidate in candidates:
            if (pattern := _pattern(candidate, root, home)) is not None:
                # The shell expands it before the program starts: each file it matches now
                # is a file that runs.
                yield from _matching(pattern, root, home)
                continue
            # A program named by its path counts before it exists: the model could create
            # the very file the hook will run.
            named = missing_too and program and candidate is word and "/" in word
            path = _inside(candidate, root, home, missing_too=named)
            if path is not None:
                yield path
        if word in _SEPARATORS:
            program = True
        elif program and not word.startswith("-") and not _ASSIGNMENT.match(word):
            for name in TASK_FILES.get(os.path.basename(word), ()):
                if (path := _inside(name, root, home)) is not None:
                    yield path
            program = os.path.basename(word) in _INTERPRETERS


def _words(line: str) -> list[str]:
    """``line``'s words as a shell splits them, with ``;``, ``&&``, ``|`` words of their own
    even when written against a word (``cd sub; make``): the program after one is found."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
    lexer.whitespace_split = True
    return list(lexer)


def _module_files(module: str) -> list[str]:
    """What ``python -m module`` runs from the project: the module, and the ``__init__.py`` of
    each package on the way, which Python runs first (``pkg/__init__.py`` for ``pkg.fmt``)."""
    parts = module.split(".")
    base = "/".join(parts)
    packages = ["/".join(parts[:end]) + "/__init__.py" for end in range(1, len(parts))]
    return [*packages, f"{base}.py", f"{base}/__main__.py", f"{base}/__init__.py"]


def _pattern(word: str, root: str, home: str) -> str | None:
    """``word`` as a pattern to expand inside the project (the root's own name escaped, since
    it is no pattern), or None where it has no wildcard or starts outside the project."""
    if word == "~" or word.startswith("~/"):
        word = os.path.join(home, word[2:])
    inside = root.rstrip("/") + "/"
    if word.startswith(inside):
        word = word.removeprefix(inside)
    elif os.path.isabs(word):
        return None
    if not glob.has_magic(word):
        return None
    return os.path.join(glob.escape(root), word)


def _matching(pattern: str, root: str, home: str) -> Iterator[str]:
    for match in itertools.islice(glob.iglob(pattern), _MAX_MATCHES):
        if (path := _inside(match, root, home)) is not None:
            yield path


def _inside(word: str, root: str, home: str, *, missing_too: bool = False) -> str | None:
    if not word or word.startswith("-"):
        return None
    if word == "~" or word.startswith("~/"):
        word = os.path.join(home, word[2:])
    path = os.path.realpath(os.path.join(root, word))
    if path == root or not within(path, root):
        return None
    if os.path.isfile(path) or (missing_too and not os.path.lexists(path)):
        return path
    return None
