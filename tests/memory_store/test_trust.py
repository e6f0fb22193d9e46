"""Which of a project's settings widen what commands may do, what applies while the project is
untrusted, and the trust record: the loader's side of ``legato trust``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import msgspec
import pytest

from actors.memory_store import trust
from actors.memory_store.loader import explain_context, load_context
from actors.places import trust_path
from actors.protocol import ProjectSettings, SandboxSettings, TrustItem
from actors.settings import DEFAULT_DENY_READ

if TYPE_CHECKING:
    from tests.memory_store.conftest import Dirs


@pytest.mark.parametrize(
    "entry",
    ["*", "* *", "g*t status", "bash", "bash -c", "sh *", "python3", "python3.12 -c",
     "/usr/bin/python -c", "node -e", "perl *", "env *", "sudo *", "xargs *", "npx *", "ruby",
     # Options alone leave the code open: ``python -u`` covers ``python -u -c CODE``.
     "python -u", "bash -x", "node --no-warnings",
     # Other spellings of the same programs: case (macOS), a version, a debug build.
     "BASH *", "Bash -c", "perl5.36.0 *", "lua5.4 -e", "php8.2 -r", "node18 *",
     "python3.12-dbg -c", "tclsh8.6",
     # Languages that start programs: awk's system(), sed's e, vim's :!, gdb's !.
     "awk *", "gawk", "sed -n", "sed s/a/b/", "vim *", "gdb -ex", "sqlite3 *", "dc",
     "source *", ". *",
     # Wrappers the broker looks through, and runners whose subcommand runs a program.
     "builtin *", "ionice *", "unshare *", "systemd-run *", "npm *", "npm exec *",
     "pnpm dlx *", "yarn *", "uv run *", "uv run python *", "poetry run *", "bundle exec *"],
)  # fmt: skip
def test_entries_that_allow_any_command_widen(entry: str) -> None:
    assert trust.command_widens(entry)


@pytest.mark.parametrize(
    "entry",
    ["git status", "npm run *", "pytest", "python3 manage.py test", "python -m pytest",
     "xargs grep", "env", "make", "ls *", "npm run *", "uv run pytest *", "uv pip install *",
     "awk '{print $1}'", "git *", "cargo test *", "source .venv/bin/activate"],
)  # fmt: skip
def test_entries_that_name_a_program_do_not(entry: str) -> None:
    assert not trust.command_widens(entry)


def test_the_wrappers_and_runners_are_the_brokers() -> None:
    # The broker judges a wrapper's command in its own right, and a last ``*`` in an entry
    # covers that command too: each one the broker looks through widens with a wildcard.
    from actors.permission_broker import wrappers

    assert wrappers.WRAPPERS <= trust.WRAPPERS
    for prefix in wrappers._RUNNERS:
        if len(prefix) == 1:
            assert prefix[0] in trust.WRAPPERS
        else:
            assert prefix[1] in trust.RUNNERS[prefix[0]]


def settings(**fields: object) -> ProjectSettings:
    return msgspec.convert(fields, ProjectSettings)


def keys(items: tuple[TrustItem, ...]) -> list[tuple[str, object]]:
    return [(item.key, item.value) for item in items]


def test_each_widening_key_is_an_item_and_narrowing_ones_are_not() -> None:
    wide = settings(
        permissionMode="auto",
        allowedPaths=["src/**", "~/.ssh/**", "//etc", "../x", ".git/hooks/**", "!~/x"],
        allowedCommands=["git status", "*"],
        allowedTools=["Bash"],
        blockedPaths=[".env"],
        sandbox={
            "enabled": False,
            "network": True,
            "autoAllow": True,
            "allowWrite": ["build", "~/.cache", "/tmp/x", ".git", "../up"],
            "readOnly": ["ro"],
            "denyRead": ["~/.ssh"],
            "passEnv": ["GH_TOKEN", "ASSISTANT_API_KEY"],
            "unconfinedCommands": ["docker"],
            "allowUnixSockets": ["/run/docker.sock"],
        },
    )
    items = trust.widening_items(wide, {"Stop": []}, "/p", "/h")
    assert keys(items) == [
        ("permissionMode", "auto"),
        ("allowedPaths", "~/.ssh/**"),
        ("allowedPaths", "//etc"),
        ("allowedPaths", "../x"),
        ("allowedPaths", ".git/hooks/**"),
        ("allowedCommands", "*"),
        ("allowedTools", "Bash"),
        ("sandbox.allowWrite", "~/.cache"),
        ("sandbox.allowWrite", "/tmp/x"),
        ("sandbox.allowWrite", ".git"),
        ("sandbox.allowWrite", "../up"),
        ("sandbox.passEnv", "GH_TOKEN"),
        ("sandbox.unconfinedCommands", "docker"),
        ("sandbox.allowUnixSockets", "/run/docker.sock"),
        ("sandbox.enabled", False),
        ("hooks", {"Stop": []}),
    ]
    narrow = trust.without_widening(wide, "/p", "/h")
    assert narrow.permission_mode is None
    assert narrow.allowed_paths == ("src/**", "!~/x")
    assert narrow.allowed_commands == ("git status",)
    assert narrow.allowed_tools == ()
    assert narrow.blocked_paths == (".env",)
    # A credential in passEnv is no trust item: it is never passed, and its own warning says so.
    assert narrow.sandbox == SandboxSettings(
        allow_write=("build",),
        read_only=("ro",),
        deny_read=("~/.ssh",),
        pass_env=("ASSISTANT_API_KEY",),
    )


@pytest.mark.parametrize("mode", ["ask", "custom", "plan"])
def test_modes_that_accept_nothing_unasked_do_not_widen(mode: str) -> None:
    assert trust.widening_items(settings(permissionMode=mode), None, "/p", "/h") == ()


def test_deny_read_only_adds_to_the_folders_always_hidden() -> None:
    for deny in ([], ["~/.npmrc"], [*DEFAULT_DENY_READ, "~/.npmrc"]):
        wide = settings(sandbox={"denyRead": deny})
        assert trust.widening_items(wide, None, "/p", "/h") == ()
        assert trust.without_widening(wide, "/p", "/h").sandbox.deny_read == tuple(deny)


def test_untrusted_items_are_left_out_with_a_warning_and_explained(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"sandbox": {"unconfinedCommands": ["docker"]}}))
    explained = explain_context(str(dirs.project), home=str(dirs.home), env={})
    assert explained.context.settings.sandbox.unconfined_commands == ()
    assert not explained.context.trusted
    [warning] = explained.context.warnings
    assert warning == (
        f"{dirs.settings.resolve()}: not applied (project not trusted): "
        f'sandbox.unconfinedCommands: "docker"; {trust.REMEDY}'
    )
    [row] = explained.not_applied
    assert (row.key, row.value) == ("sandbox.unconfinedCommands", "docker")
    assert row.source.startswith("not applied (project not trusted): ")


def test_a_file_s_untrusted_items_make_one_warning_naming_each(dirs: Dirs) -> None:
    # The shape of a Claude Code user's committed settings: several allow rules and env.
    claude = dirs.project / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text(
        json.dumps(
            {
                "permissions": {"allow": ["Bash(npm run lint)", "Bash(git diff:*)"]},
                "env": {"NODE_ENV": "development"},
            }
        )
    )
    explained = explain_context(str(dirs.project), home=str(dirs.home), env={})
    assert explained.context.warnings == (
        f"{claude.resolve()}: not applied (project not trusted): "
        'permissions.allow: "Bash(npm run lint)", permissions.allow: "Bash(git diff:*)", '
        f'env.NODE_ENV: "development"; {trust.REMEDY}',
    )
    assert len(explained.not_applied) == 3


def test_trust_applies_them_until_the_content_changes(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"sandbox": {"allowUnixSockets": ["/run/x.sock"]}}))
    root = str(dirs.project.resolve())
    context = load_context(root, home=str(dirs.home), env={})
    trust.record(trust_path(root, str(dirs.home)), context.trust_fingerprint)
    context = load_context(root, home=str(dirs.home), env={})
    assert context.trusted
    assert context.settings.sandbox.allow_unix_sockets == ("/run/x.sock",)
    assert context.warnings == ()
    dirs.settings.write_text(json.dumps({"sandbox": {"allowUnixSockets": ["/run/y.sock"]}}))
    context = load_context(root, home=str(dirs.home), env={})
    assert not context.trusted
    assert context.settings.sandbox.allow_unix_sockets == ()


def test_an_untrusted_projects_commands_are_confined_only_until_trusted(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    settings = {"allowedCommands": ["make", "bash -c"]}
    dirs.settings.write_text(json.dumps(settings))
    root = str(dirs.project.resolve())
    context = load_context(root, home=str(dirs.home), env={})
    assert context.confined_only_commands == ("make",)
    trust.record(trust_path(root, str(dirs.home)), context.trust_fingerprint)
    context = load_context(root, home=str(dirs.home), env={})
    assert context.trusted
    assert context.confined_only_commands == ()


def test_an_allowed_path_naming_git_hooks_folder_widens(dirs: Dirs) -> None:
    # Husky's setup: git runs the hooks in .husky/_, and they run the scripts beside it. An
    # entry naming that folder would let the model write the next commit's hook unasked.
    (dirs.project / ".git").mkdir()
    (dirs.project / ".git" / "config").write_text("[core]\n\thooksPath = .husky/_\n")
    (dirs.project / ".husky" / "_").mkdir(parents=True)
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"allowedPaths": [".husky/**", "src/**"]}))
    context = load_context(str(dirs.project.resolve()), home=str(dirs.home), env={})
    assert keys(context.trust_items) == [("allowedPaths", ".husky/**")]
    assert context.settings.allowed_paths == ("src/**",)


def test_a_record_that_is_not_one_trusts_nothing(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"permissionMode": "auto"}))
    root = str(dirs.project.resolve())
    path = trust_path(root, str(dirs.home))
    trust.record(path, "x")
    with open(path, "w") as file:
        file.write("[" * 100_000)
    context = load_context(root, home=str(dirs.home), env={})
    assert not context.trusted
    assert context.permission_mode == "ask"
    assert any(f"{path}: not a trust record" in warning for warning in context.warnings)


def test_the_users_own_mode_still_applies(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"permissionMode": "auto"}))
    dirs.write_config(json.dumps({"permissionMode": "auto"}))
    context = load_context(str(dirs.project), home=str(dirs.home), env={})
    assert context.permission_mode == "auto"
    env = {"ASSISTANT_PERMISSION_MODE": "auto"}
    dirs.write_config("{}")
    assert load_context(str(dirs.project), home=str(dirs.home), env=env).permission_mode == "auto"
    assert load_context(str(dirs.project), home=str(dirs.home), env={}).permission_mode == "ask"


@pytest.mark.parametrize(
    ("users", "projects", "applied", "refused"),
    [
        (None, "haiku", "claude-haiku-4-5-20251001", False),
        (None, "openai:llama3", "claude-sonnet-4-6", True),
        ("openai:qwen", "openai:llama3", "openai:llama3", False),
        ("openai:qwen", "opus", "openai:qwen", True),
    ],
)
def test_the_projects_model_stays_on_the_users_provider(
    dirs: Dirs, users: str | None, projects: str, applied: str, refused: bool
) -> None:
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"model": projects}))
    if users:
        dirs.write_config(json.dumps({"defaultModel": users}))
    context = load_context(str(dirs.project), home=str(dirs.home), env={})
    assert context.model == applied
    assert any("another provider than yours" in w for w in context.warnings) == refused


def test_allow_write_of_a_project_folder_that_links_out_widens(dirs: Dirs) -> None:
    root = dirs.project.resolve()
    (root / "build").symlink_to(dirs.home)
    (root / "out").mkdir()
    wide = settings(sandbox={"allowWrite": ["build", "out"]})
    items = trust.widening_items(wide, None, str(root), str(dirs.home))
    assert keys(items) == [("sandbox.allowWrite", "build")]


def test_the_refused_models_warning_escapes_it_once(dirs: Dirs) -> None:
    # Escaped, then quoted: quoted with repr it read openai:x\\x1b, a backslash too many.
    dirs.settings.parent.mkdir()
    dirs.settings.write_text(json.dumps({"model": "openai:x\x1b]2;T\x07"}))
    context = load_context(str(dirs.project), home=str(dirs.home), env={})
    warning = next(w for w in context.warnings if "another provider" in w)
    assert "model 'openai:x\\x1b]2;T\\x07' not applied" in warning
