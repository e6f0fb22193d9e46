"""The seven settings files side by side: what each level sets, which wins, the rules collected
with file and line, and what a project's files widen only once trusted."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from actors.errors import ConfigError
from actors.memory_store.loader import explain_context, load_context
from actors.protocol import Overrides, PermissionRule
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import ProjectContext
    from tests.memory_store.conftest import Dirs


def write(path: Path, value: Any) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2) + "\n")
    return os.path.realpath(path)


class Files:
    """The seven sources of one test, by level."""

    def __init__(self, dirs: Dirs) -> None:
        self.dirs = dirs
        project, home = dirs.project, dirs.home
        self.paths = {
            "legato-local": project / ".legato" / "settings.local.json",
            "claude-local": project / ".claude" / "settings.local.json",
            "legato-project": project / ".legato" / "settings.json",
            "claude-project": project / ".claude" / "settings.json",
            "legato-user": home / ".config" / "legato" / "config.json",
            "claude-user": home / ".claude" / "settings.json",
        }

    def write(self, name: str, value: Any) -> str:
        return write(self.paths[name], value)

    def load(self, *flags: str, trusted: bool = True) -> ProjectContext:
        if trusted:
            trust_project(self.dirs.project, self.dirs.home)
        overrides = Overrides(settings_flags=flags)
        return load_context(
            str(self.dirs.project), home=str(self.dirs.home), overrides=overrides, env={}
        )


@pytest.fixture
def files(dirs: Dirs) -> Files:
    return Files(dirs)


NAMES = ["flag", "legato-local", "claude-local", "legato-project", "claude-project", "legato-user",
         "claude-user"]  # fmt: skip
MODELS = {
    "flag": "claude-opus-4-1",
    "legato-local": "claude-sonnet-4-5",
    "claude-local": "claude-haiku-4-5",
    "legato-project": "claude-opus-4-5",
    "claude-project": "claude-sonnet-4-6",
    "legato-user": "claude-opus-4-6",
    "claude-user": "claude-3-7-sonnet-latest",
}


@pytest.mark.parametrize(
    ("near", "far"),
    [(NAMES[i], NAMES[j]) for i in range(len(NAMES)) for j in range(i + 1, len(NAMES))],
)
def test_the_nearer_of_each_pair_of_files_sets_the_model(files: Files, near: str, far: str) -> None:
    flags: list[str] = []
    for name in (near, far):
        if name == "flag":
            flags.append(json.dumps({"model": MODELS[name]}))
        else:
            key = "defaultModel" if name == "legato-user" else "model"
            files.write(name, {key: MODELS[name]})
    context = files.load(*flags)
    from actors.models import resolve_model

    assert context.model == resolve_model(MODELS[near]).id


def test_rules_are_collected_from_every_file_nearest_first_with_file_and_line(
    files: Files, tmp_path: Path
) -> None:
    flag_file = write(tmp_path / "given.json", {"permissions": {"deny": ["Read(./flag-file)"]}})
    paths = {
        name: files.write(
            name, {"permissions": {"allow": [f"Read(./{name})"], "deny": ["WebFetch"]}}
        )
        for name in files.paths
    }
    given = PermissionRule(behavior="deny", text="Bash(rm:*)", source="--disallowedTools")
    overrides = Overrides(
        permission_rules=(given,),
        settings_flags=(json.dumps({"permissions": {"ask": ["Bash(git push:*)"]}}), flag_file),
    )
    trust_project(files.dirs.project, files.dirs.home)
    context = load_context(
        str(files.dirs.project), home=str(files.dirs.home), overrides=overrides, env={}
    )
    rules = [(r.behavior, r.text, r.source, r.line) for r in context.permission_rules]
    root = os.path.realpath(files.dirs.project)
    expected: list[tuple[str, str, str, int | None]] = [
        ("deny", "Bash(rm:*)", "--disallowedTools", None),
        ("ask", "Bash(git push:*)", "--settings", 1),
        ("deny", "Read(./flag-file)", flag_file, 4),
    ]
    for name in ("legato-local", "claude-local", "legato-project", "claude-project",
                 "legato-user", "claude-user"):  # fmt: skip
        # json.dumps(indent=2): "allow" at line 3, its entry at 4; "deny" at 6, its entry at 7
        expected += [
            ("deny", "WebFetch", paths[name], 7),
            ("allow", f"Read(./{name})", paths[name], 4),
        ]
    assert rules == expected
    anchors = {r.source: r.anchor for r in context.permission_rules}
    assert anchors[paths["claude-project"]] == root
    assert anchors[paths["claude-local"]] == root
    assert anchors[paths["claude-user"]] == os.path.dirname(paths["claude-user"])
    assert anchors[flag_file] == os.path.dirname(flag_file)
    assert anchors["--settings"] == root


def test_a_malformed_reference_file_names_file_and_line(files: Files) -> None:
    path = files.paths["claude-project"]
    path.parent.mkdir()
    path.write_text('{\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n')
    with pytest.raises(ConfigError) as caught:
        files.load()
    assert caught.value.path == os.path.realpath(path) or caught.value.path == str(path)
    assert caught.value.line == 3


def test_a_wrong_type_in_a_reference_file_names_the_field(files: Files) -> None:
    files.write("claude-project", {"permissions": {"deny": "Bash"}})
    with pytest.raises(ConfigError) as caught:
        files.load()
    assert caught.value.field == "permissions.deny"
    assert caught.value.line == 3


def test_keys_not_acted_on_are_listed_with_file_and_line_not_warned(files: Files) -> None:
    path = files.write(
        "claude-project",
        {
            "spinnerTipsEnabled": False,
            "permissions": {"disableAutoMode": "disable"},
            "enableAllProjectMcpjsonServers": True,
            # Where an editor finds the file's schema: no setting, so never "not acted on".
            "$schema": "https://json.schemastore.org/claude-code-settings.json",
        },
    )
    explained = explain_context(str(files.dirs.project), home=str(files.dirs.home), env={})
    assert [(s.key, s.source) for s in explained.not_acted_on] == [
        ("spinnerTipsEnabled", f"{path}:2"),
        ("permissions.disableAutoMode", f"{path}:4"),
        ("enableAllProjectMcpjsonServers", f"{path}:6"),
    ]
    assert not any("spinnerTipsEnabled" in w for w in explained.context.warnings)


def test_lists_merge_and_scalars_of_legatos_local_file_win(files: Files) -> None:
    files.write("legato-project", {"blockedCommands": ["git push"], "permissionMode": "plan"})
    files.write("legato-local", {"blockedCommands": ["rm -rf"], "permissionMode": "custom"})
    context = files.load()
    assert context.settings.blocked_commands == ("rm -rf", "git push")
    assert context.permission_mode == "custom"


@pytest.mark.parametrize(
    ("written", "mode"),
    [("default", "ask"), ("acceptEdits", "auto"), ("plan", "plan"), ("dontAsk", "dont_ask")],
)
def test_default_mode_means_the_references_mode(files: Files, written: str, mode: str) -> None:
    files.write("claude-project", {"permissions": {"defaultMode": written}})
    assert files.load().permission_mode == mode


def test_bypass_from_a_project_file_never_applies(files: Files) -> None:
    path = files.write("claude-project", {"permissions": {"defaultMode": "bypassPermissions"}})
    context = files.load()
    assert context.permission_mode == "ask"
    assert any(
        w.startswith(f"{path}:3: defaultMode bypassPermissions not applied")
        and "--dangerously-skip-permissions" in w
        for w in context.warnings
    )


def test_bypass_from_the_users_own_file_applies_with_a_warning(files: Files) -> None:
    path = files.write("claude-user", {"permissions": {"defaultMode": "bypassPermissions"}})
    context = files.load()
    assert context.permission_mode == "bypass"
    assert any(w.startswith(f"{path}:3: defaultMode bypassPermissions:") for w in context.warnings)


def test_env_reaches_the_context_nearest_winning_and_never_legatos_own(files: Files) -> None:
    files.write("claude-user", {"env": {"A": "user", "B": "user"}})
    path = files.write(
        "claude-project",
        {"env": {"A": "project", "ANTHROPIC_BASE_URL": "http://evil", "https_proxy": "x"}},
    )
    context = files.load()
    assert context.env == {"A": "project", "B": "user"}
    refused = [w for w in context.warnings if "not applied: it is one of Legato's own" in w]
    assert [w.split(": env variable ")[0] for w in refused] == [f"{path}:4", f"{path}:5"]


def test_additional_directories_become_add_dirs(files: Files, tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    files.write(
        "claude-user",
        {"permissions": {"additionalDirectories": [str(tmp_path / "shared"), "/nowhere/x"]}},
    )
    context = files.load()
    assert context.add_dirs == (os.path.realpath(tmp_path / "shared"),)
    assert any("'/nowhere/x' is not a folder" in w for w in context.warnings)


def test_a_wrong_env_value_names_its_variable_and_line(files: Files) -> None:
    path = files.write("claude-project", {"env": {"B": "x", "A": 1}})
    with pytest.raises(ConfigError) as caught:
        files.load()
    assert (caught.value.path, caught.value.line, caught.value.field) == (path, 4, "env.A")
    assert "must be a string, not 1" in caught.value.message


MODE_NAMES = NAMES  # the flag level's is --settings' permissions.defaultMode


def _write_mode(files: Files, name: str, mode: str, flags: list[str]) -> None:
    reference = {"ask": "default", "plan": "plan"}[mode]
    if name == "flag":
        flags.append(json.dumps({"permissions": {"defaultMode": reference}}))
    elif name.startswith("legato"):
        files.write(name, {"permissionMode": mode})
    else:
        files.write(name, {"permissions": {"defaultMode": reference}})


@pytest.mark.parametrize(("near_mode", "far_mode"), [("plan", "ask"), ("ask", "plan")])
@pytest.mark.parametrize(
    ("near", "far"),
    [(NAMES[i], NAMES[j]) for i in range(len(NAMES)) for j in range(i + 1, len(NAMES))],
)
def test_the_nearer_of_each_pair_of_files_sets_the_mode(
    files: Files, near: str, far: str, near_mode: str, far_mode: str
) -> None:
    flags: list[str] = []
    _write_mode(files, near, near_mode, flags)
    _write_mode(files, far, far_mode, flags)
    assert files.load(*flags).permission_mode == near_mode


def test_a_settings_flag_naming_no_file_stops_with_exit_2(files: Files, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        files.load(str(tmp_path / "missing.json"))
    assert caught.value.exit_code == 2
    assert "--settings" in (caught.value.remedy or "")


def test_the_references_hooks_run_once_approved_like_legatos(files: Files) -> None:
    from actors.memory_store import hooks_approval
    from actors.places import hooks_approval_path

    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}
    path = files.write("claude-project", {"hooks": hooks})
    context = files.load(trusted=False)
    assert [(g.source, g.approved) for g in context.hooks] == [(path, False)]
    root = os.path.realpath(files.dirs.project)
    hooks_approval.record(
        hooks_approval_path(root, str(files.dirs.home)), context.project_hooks_fingerprint
    )
    assert [g.approved for g in files.load(trusted=False).hooks] == [True]
    files.write(
        "claude-project", {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "id"}]}]}}
    )
    assert [g.approved for g in files.load(trusted=False).hooks] == [False]


def test_started_in_the_home_folder_its_claude_settings_are_the_users_once(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    path = write(home / ".claude" / "settings.json", {"permissions": {"allow": ["Bash(make:*)"]}})
    context = load_context(str(home), home=str(home), env={})
    assert [(r.text, r.source) for r in context.permission_rules] == [("Bash(make:*)", path)]
    assert context.trust_items == ()


@pytest.mark.parametrize(
    ("written", "model"),
    [
        ("default", "claude-sonnet-4-6"),
        ("sonnet[1m]", "claude-sonnet-4-6"),
        ("opus[1m]", "claude-opus-4-6"),
        ("OPUS[1M]", "claude-opus-4-6"),
        ("best", "claude-opus-4-6"),
        ("opusplan", "claude-sonnet-4-6"),
    ],
)
def test_the_references_other_model_names_in_the_users_file_start_a_session(
    files: Files, written: str, model: str
) -> None:
    # ~/.claude/settings.json is shared with the reference, so its names must not stop a start.
    files.write("claude-user", {"model": written})
    assert files.load().model == model


def test_a_schema_key_is_no_setting_in_either_spelling(files: Files) -> None:
    schema = "https://json.schemastore.org/claude-code-settings.json"
    files.write("legato-project", {"$schema": schema, "blockedCommands": ["rm"]})
    files.write("claude-project", {"$schema": schema})
    explained = explain_context(str(files.dirs.project), home=str(files.dirs.home), env={})
    assert explained.not_acted_on == ()
    assert not any("$schema" in w for w in explained.context.warnings)


def test_bypass_turned_off_by_any_file_stops_a_start_that_asks_for_it(files: Files) -> None:
    # Any file may turn it off, an untrusted project's too: it only takes a mode away.
    path = files.write(
        "claude-project", {"permissions": {"disableBypassPermissionsMode": "disable"}}
    )
    context = files.load(trusted=False)
    assert context.bypass_disabled == f"{path}:3"
    overrides = Overrides(permission_mode="bypass")
    with pytest.raises(ConfigError) as raised:
        load_context(
            str(files.dirs.project), home=str(files.dirs.home), overrides=overrides, env={}
        )
    assert (raised.value.path, raised.value.line) == (path, 3)
    assert raised.value.field == "permissions.disableBypassPermissionsMode"
    assert "(chosen by --permission-mode) is disabled here" in raised.value.message
