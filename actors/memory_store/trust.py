"""Settings of a project's file that widen what commands and the model may do, and whether the
user trusts them, kept in the user's own folder.

    ~/.legato/projects/<hash>/trusted.json
    {"fingerprint": "<sha256 of the widening items as now>"}

A project's ``.legato/settings.json`` comes with the repository. What it narrows always applies;
what it widens (the items below) applies only once the user has trusted this project's widening
items as they are now: the terminal asks once, ``legato trust`` records it for headless runs.
The fingerprint covers the canonical JSON of the list of items (key and value), and the
project's hooks with them and the scripts of the project they run, so any change to any of
them makes the project untrusted again.
Never in the project: a repository must not be able to trust itself. A record that cannot be
read trusts nothing; writing it is atomic.

The widening items (docs/security.md lists them for users):

- ``permissionMode: auto`` (``ask``, ``custom`` and ``plan`` accept nothing unasked);
- an ``allowedCommands`` entry that allows any command line: ``*`` or a wildcard program, a
  shell or an interpreter alone, with options alone, with a wildcard or with its inline-code
  option (``bash -c``, ``python -u``, ``node -e``, ``awk *``), a wrapper that runs its words
  with a wildcard (``env *``), a package manager's runner with a wildcard (``npm *``);
- an ``allowedPaths`` entry reaching outside the project (``~/...``, ``//...``, ``..``), or
  naming Legato's or git's own folder (``.legato``, ``.git``: their files change the rules or
  run programs), or naming a file or folder of the project that runs outside the sandbox (a
  hook's script, an MCP server's, ``.mcp.json``, git's ``core.hooksPath``);
- every ``allowedTools`` entry: it allows a tool's calls whatever path or command they name;
- ``sandbox.enabled: false``; ``sandbox.allowWrite`` outside the project or into ``.git`` or
  ``.legato``; every ``sandbox.passEnv``, ``sandbox.unconfinedCommands`` and
  ``sandbox.allowUnixSockets`` entry; ``sandbox.maxProcesses`` above the default (a command
  that forks without end would take the machine's processes);
- ``hooks``: commands that run as the user, outside the sandbox;
- ``statusLine``, in any file the project brings: a command that runs as the user, outside the
  sandbox, after every answer (combine.py lists it, and the scripts it runs count as the
  hooks' do);
- the reference-shaped keys of every file the project brings (``.claude/`` and the local
  files too): ``permissions.allow`` rules, ``permissions.defaultMode: acceptEdits``,
  ``permissions.additionalDirectories``, ``env`` (reference_keys.py decides which).

``sandbox.network: true`` and ``sandbox.autoAllow: true`` are the defaults, so never widen;
``sandbox.denyRead`` only adds to the folders always hidden, so it never widens either.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from typing import TYPE_CHECKING, Any

import msgspec

from actors.credentials import LEGATO_CREDENTIALS
from actors.memory_store import hooks_approval
from actors.places import sandbox_path, within
from actors.settings import MAX_PROCESSES, TrustItem
from actors.visible import setting_line

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence

    from actors.settings import ProjectSettings

# Modes that accept nothing a person has not: ``custom`` is ``ask`` with the project's rules,
# which every mode applies (actors/permission_broker/policy.py), so it accepts nothing more.
# ``auto`` accepts edits, and confined commands unasked: it widens.
NARROW_MODES = ("ask", "custom", "plan")
# Programs that run any code their words hold: shells, interpreters, and programs with a
# language of their own that can start a program (awk's system(), GNU sed's ``e``, vim's ``:!``,
# gdb's ``!``, dc's ``!``, m4's syscmd, sqlite3's ``.shell``). Compared by name without the
# folder, the letter case (macOS finds ``BASH`` as bash) or a version (``perl5.36``, ``lua5.4``).
SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "pwsh"}
)
INTERPRETERS = frozenset(
    {
        "python", "pypy", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua",
        "luajit", "tclsh", "wish", "osascript", "awk", "gawk", "mawk", "nawk", "sed", "gsed",
        "expect", "julia", "r", "rscript", "guile", "racket", "sbcl", "clisp", "ocaml",
        "runghc", "ghci", "groovy", "jshell", "jrunscript", "elixir", "iex", "erl", "escript",
        "gnuplot", "m4", "dc", "sqlite3", "vim", "vi", "nvim", "ex", "emacs", "gdb", "lldb",
        # The shell's own: they run a file as shell code (``source /dev/stdin <<EOF``).
        "source", ".",
    }
)  # fmt: skip
# Their inline-code options: ``python -c CODE`` is any program.
INLINE_CODE = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print", "-r", "--command"})
# Programs that run the command their words name: the permission broker's wrappers and what
# they start (``actors/permission_broker/wrappers.py``, kept in step by a test).
WRAPPERS = frozenset(
    {
        "env", "sudo", "doas", "su", "runuser", "xargs", "nice", "ionice", "nohup", "timeout",
        "time", "command", "builtin", "coproc", "exec", "eval", "stdbuf", "unbuffer", "setsid",
        "chroot", "strace", "ltrace", "watch", "flock", "parallel", "npx", "uvx", "bunx",
        "pnpx", "pipx", "find", "ssh", "script", "taskset", "chrt", "unshare", "nsenter",
        "setpriv", "systemd-run", "pkexec", "firejail", "dbus-run-session", "ssh-agent",
        "busybox", "toybox",
    }
)  # fmt: skip
# Package managers whose subcommand runs the command that follows it (the broker's runners):
# ``npm *`` may be ``npm exec node -e CODE``, as ``npm exec *`` is.
RUNNERS: dict[str, frozenset[str]] = {
    "uv": frozenset({"run"}),
    "npm": frozenset({"exec", "x"}),
    "pnpm": frozenset({"exec", "dlx"}),
    "yarn": frozenset({"dlx", "exec"}),
    "poetry": frozenset({"run"}),
    "pipenv": frozenset({"run"}),
    "pipx": frozenset({"run"}),
    "conda": frozenset({"run"}),
    "bundle": frozenset({"exec"}),
    "bun": frozenset({"x"}),
}
_GLOB = frozenset("*?[")
# Folders inside the project whose files change Legato's rules or run programs.
_OWN = (".legato", ".git")


# ── which items widen ────────────────────────────────────────────────────────────────────────


def widening_items(
    settings: ProjectSettings, hooks: Any, root: str, home: str, runs: Iterable[str] = ()
) -> tuple[TrustItem, ...]:
    """The settings' widening items, in the file's key order, then the hooks. ``runs``: the
    places of the project whose files run outside the sandbox (``run_files.places_that_run``)."""
    sandbox = settings.sandbox
    items: list[TrustItem] = []
    if settings.permission_mode not in (None, *NARROW_MODES):
        items.append(TrustItem("permissionMode", settings.permission_mode))
    for key, entries, widens in _lists(settings, root, home, tuple(runs)):
        items += (TrustItem(key, entry) for entry in entries if widens(entry))
    if not sandbox.enabled:
        items.append(TrustItem("sandbox.enabled", False))
    if sandbox.max_processes > MAX_PROCESSES:
        items.append(TrustItem("sandbox.maxProcesses", sandbox.max_processes))
    if hooks:
        items.append(TrustItem("hooks", hooks))
    return tuple(items)


def without_widening(
    settings: ProjectSettings, root: str, home: str, runs: Iterable[str] = ()
) -> ProjectSettings:
    """The settings with each widening item left out: what applies while untrusted. A value
    left out falls back to what it would be without the project's file."""
    sandbox = settings.sandbox
    kept = {
        key: tuple(entry for entry in entries if not widens(entry))
        for key, entries, widens in _lists(settings, root, home, tuple(runs))
    }
    sandbox = msgspec.structs.replace(
        sandbox,
        enabled=True,
        max_processes=min(sandbox.max_processes, MAX_PROCESSES),
        allow_write=kept["sandbox.allowWrite"],
        pass_env=kept["sandbox.passEnv"],
        unconfined_commands=kept["sandbox.unconfinedCommands"],
        allow_unix_sockets=kept["sandbox.allowUnixSockets"],
    )
    mode = settings.permission_mode if settings.permission_mode in NARROW_MODES else None
    return msgspec.structs.replace(
        settings,
        permission_mode=mode,
        allowed_commands=kept["allowedCommands"],
        allowed_paths=kept["allowedPaths"],
        allowed_tools=kept["allowedTools"],
        sandbox=sandbox,
    )


def _lists(
    settings: ProjectSettings, root: str, home: str, runs: tuple[str, ...]
) -> list[tuple[str, Sequence[str], Callable[[str], bool]]]:
    sandbox = settings.sandbox

    def every(_entry: str) -> bool:
        return True

    def writable(entry: str) -> bool:
        return _sandbox_path_widens(entry, root, home)

    def path_rule(entry: str) -> bool:
        return _path_rule_widens(entry) or _names_a_place_that_runs(entry, root, home, runs)

    return [
        ("allowedPaths", settings.allowed_paths, path_rule),
        ("allowedCommands", settings.allowed_commands, command_widens),
        ("allowedTools", settings.allowed_tools, every),
        ("sandbox.allowWrite", sandbox.allow_write, writable),
        # Legato's own credentials are never passed, trusted or not (a warning says so): asking
        # to trust them would suggest otherwise.
        ("sandbox.passEnv", sandbox.pass_env, lambda name: name not in LEGATO_CREDENTIALS),
        ("sandbox.unconfinedCommands", sandbox.unconfined_commands, every),
        ("sandbox.allowUnixSockets", sandbox.allow_unix_sockets, every),
    ]


def command_widens(entry: str) -> bool:
    """Whether an allowedCommands entry allows any command line (the module docstring).

    An entry matches a command whose words begin with its own (``command_rules.py``), so what
    it leaves open after its last word is open: ``python -u`` covers ``python -u -c CODE``.
    """
    try:
        words = shlex.split(entry)
    except ValueError:
        words = entry.split()
    if not words:
        return False
    if _GLOB & set(words[0]):
        return True
    program, rest = program_name(words[0]), words[1:]
    wildcard = [i for i, word in enumerate(rest) if _GLOB & set(word)]
    if program in ("sed", "gsed"):
        # GNU sed reads options past its script (``sed s/a/b/ -e '1e CMD'``): nothing that
        # follows an entry is out of reach.
        return True
    if program in SHELLS or program in INTERPRETERS:
        # Only options named (or none): the code or script is still the model's to choose.
        options_only = all(word.startswith("-") for word in rest)
        return options_only or bool(wildcard) or rest[0] in INLINE_CODE
    if program in WRAPPERS:
        return bool(wildcard)
    if program in RUNNERS and wildcard:
        # The first word that is not an option, up to the wildcard, is the subcommand.
        named = [i for i, word in enumerate(rest[: wildcard[0]]) if not word.startswith("-")]
        if not named:
            return True
        if rest[named[0]] not in RUNNERS[program]:
            return False
        # ``uv run *`` runs any program; ``uv run pytest *`` runs pytest, as ``pytest *`` would.
        inner = rest[named[1] :] if len(named) > 1 else ["*"]
        return command_widens(shlex.join(inner))
    return False


def program_name(word: str) -> str:
    """A command's program as the lists above name it: no folder, no case, no version
    (``/usr/bin/Python3.12`` is ``python``, ``perl5.36.0`` is ``perl``, ``node18`` is ``node``)."""
    name = os.path.basename(word).lower().removesuffix("-dbg")
    bare = name.rstrip("0123456789.-_")
    return bare if bare in SHELLS or bare in INTERPRETERS or bare in WRAPPERS else name


def _path_rule_widens(entry: str) -> bool:
    """An allowedPaths entry outside the project (``~/``, ``//``, ``..``) or in its own
    folders. A ``!`` entry takes away from what is allowed, so it never widens."""
    if entry.startswith("!"):
        return False
    if entry.startswith(("~", "//")):
        return True
    parts = [part for part in entry.strip("/").split("/") if part not in ("", ".")]
    return ".." in parts or any(part.strip("*") in _OWN for part in parts)


def _names_a_place_that_runs(entry: str, root: str, home: str, runs: tuple[str, ...]) -> bool:
    """An allowedPaths entry that names, by its literal folders or as a file, a place whose
    files run outside the sandbox (a hook's script, an MCP server's, .mcp.json, git's hooks
    folder): the broker lets the model write there unasked, where it otherwise always asks."""
    if entry.startswith("!") or not runs:
        return False
    # Only an entry whose literal folders lead to or into such a place can name it: the rest
    # are told apart by their words, without loading the glob engine at start.
    literal: list[str] = []
    for part in (part for part in entry.split("/") if part not in ("", ".")):
        if _GLOB & set(part) or "\\" in part:
            break
        literal.append(part)
    places = [os.path.relpath(path, root).split(os.sep) for path in runs]
    if not literal or not any(place[: len(literal)] == literal[: len(place)] for place in places):
        return False
    from actors.path_entries import PathRules
    from actors.path_patterns import PatternError

    try:
        rules = PathRules(root, (entry,), (), home=home)
    except PatternError:
        return True  # the loader refuses it; what it would name cannot be told
    # A folder's files are named by an entry whose literal folders lie in it (``.husky/**``).
    names_folder = [rule.literal for rule in rules.allowed if rule.literal != rule.base]
    return any(
        rules.names_file(path)
        or rules.names_explicitly(path, path) is not None
        or (os.path.isdir(path) and any(within(folder, path) for folder in names_folder))
        for path in runs
    )


def _sandbox_path_widens(entry: str, root: str, home: str) -> bool:
    """A ``sandbox.allowWrite`` path outside the project, or inside git's or Legato's folder."""
    # Where a mount of it would lead: a folder of the project may be a link out of it.
    path = sandbox_path(entry, root, home)
    inside = os.path.relpath(path, root) if within(path, root) else None
    if inside is None:
        return True
    return inside.split(os.sep)[0] in _OWN


# ── the fingerprint and the record ───────────────────────────────────────────────────────────


def fingerprint(items: Iterable[TrustItem], scripts: Mapping[str, str] | None = None) -> str:
    """The items, and the digests of the scripts the hooks among them run
    (``hooks_approval.scripts``), canonical, hashed; "" when there are none."""
    listed: list[Any] = [[item.key, item.value] for item in items]
    if not listed:
        return ""
    if scripts and any(item[0] in ("hooks", "statusLine") for item in listed):
        listed.append(["hook scripts", dict(scripts)])
    canonical = json.dumps(listed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def trusted_fingerprint(path: str, warnings: list[str]) -> str:
    """The fingerprint the user trusted, or "" (none, or a record that cannot be read)."""
    return hooks_approval.read_fingerprint(
        path,
        warnings,
        kind="a trust record",
        unapproved="the project is not trusted",
        remedy="Remove it and trust the project again with 'legato trust'",
    )


def record(path: str, trusted: str) -> None:
    hooks_approval.record(path, trusted)


def revoke(path: str) -> bool:
    """Forget the trust; whether there was one to forget."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return False
    return True


# ── in words ─────────────────────────────────────────────────────────────────────────────────


REMEDY = "run 'legato trust' to trust this project's settings, or answer the question at start"


def not_applied(settings_file: str, items: Iterable[TrustItem]) -> list[str]:
    """One warning per file, naming each item it leaves out (the hooks have the hook runner's
    own note): a cloned repository's settings often hold a dozen allow rules, and a dozen
    warnings with the same remedy before every run would bury the one that matters."""
    by_file: dict[str, list[str]] = {}
    for item in items:
        if item.key != "hooks":
            by_file.setdefault(item.source or settings_file, []).append(
                setting_line(item.key, item.value)
            )
    return [
        f"{source}: not applied (project not trusted): {', '.join(lines)}; {REMEDY}"
        for source, lines in by_file.items()
    ]
