"""Loading the context: precedence, project root, LEGATO.md, MEMORY.md, and the API key."""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING

import pytest
import rich.pretty

from actors.errors import ConfigError, UsageError
from actors.memory_store import Overrides, load_context
from actors.places import memory_dir, project_hash
from actors.settings.jsonpos import Position, key_positions

if TYPE_CHECKING:
    from actors.protocol import PermissionMode
    from tests.memory_store.conftest import Dirs

SECRET = "sk-test-0123456789-do-not-print"


def test_without_files_everything_has_its_default(dirs: Dirs) -> None:
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert (context.model, context.permission_mode) == ("claude-sonnet-4-6", "ask")
    assert (context.guides, context.memory, context.warnings) == ((), None, ())
    assert context.config.theme == "dark"
    assert context.settings.allowed_commands == ()


# (flag, settings, config, expected model id)
MODEL_PRECEDENCE: list[tuple[str | None, str | None, str | None, str]] = [
    ("haiku", "opus", "sonnet", "claude-haiku-4-5-20251001"),
    (None, "opus", "haiku", "claude-opus-4-6"),
    (None, None, "haiku", "claude-haiku-4-5-20251001"),
    (None, None, "claude-opus-4-6", "claude-opus-4-6"),
    (None, None, None, "claude-sonnet-4-6"),
]


@pytest.mark.parametrize(("flag", "settings", "config", "expected"), MODEL_PRECEDENCE)
def test_model_precedence_is_flag_then_settings_then_config_then_sonnet(
    dirs: Dirs, flag: str | None, settings: str | None, config: str | None, expected: str
) -> None:
    if settings:
        dirs.write_settings(json.dumps({"model": settings}))
    if config:
        dirs.write_config(json.dumps({"defaultModel": config}))
    context = load_context(str(dirs.project), home=str(dirs.home), overrides=Overrides(model=flag))
    assert context.model == expected


MODE_PRECEDENCE: list[tuple[PermissionMode | None, str | None, str | None, str]] = [
    ("plan", "custom", "auto", "plan"),
    (None, "custom", "auto", "custom"),
    (None, None, "auto", "auto"),
    (None, None, None, "ask"),
]


@pytest.mark.parametrize(("flag", "settings", "config", "expected"), MODE_PRECEDENCE)
def test_permission_mode_precedence(
    dirs: Dirs, flag: PermissionMode | None, settings: str | None, config: str | None, expected: str
) -> None:
    if settings:
        dirs.write_settings(json.dumps({"permissionMode": settings}))
    if config:
        dirs.write_config(json.dumps({"permissionMode": config}))
    overrides = Overrides(permission_mode=flag)
    context = load_context(str(dirs.project), home=str(dirs.home), overrides=overrides)
    assert context.permission_mode == expected


def test_an_unknown_model_on_the_command_line_is_a_usage_error(dirs: Dirs) -> None:
    with pytest.raises(UsageError, match=r"unknown model 'hiaku'\. Did you mean 'haiku'"):
        load_context(str(dirs.project), home=str(dirs.home), overrides=Overrides(model="hiaku"))


def test_an_unknown_model_in_a_file_is_an_error_even_when_a_flag_wins(dirs: Dirs) -> None:
    path = dirs.write_config('{"defaultModel": "opsu"}')
    with pytest.raises(ConfigError) as info:
        load_context(str(dirs.project), home=str(dirs.home), overrides=Overrides(model="opus"))
    assert info.value.message == (
        f"{path}:1: field 'defaultModel': unknown model 'opsu'. Did you mean 'opus'?"
    )


def test_the_project_root_is_the_real_path(dirs: Dirs) -> None:
    link = dirs.project.parent / "link"
    link.symlink_to(dirs.project, target_is_directory=True)
    context = load_context(str(link / "." / ".." / "link"), home=str(dirs.home))
    assert context.project_root == os.path.realpath(dirs.project)


def test_a_missing_project_directory_is_a_usage_error(dirs: Dirs) -> None:
    with pytest.raises(UsageError, match="is not a directory"):
        load_context(str(dirs.project / "nope"), home=str(dirs.home))


def test_the_guide_is_loaded_whole(dirs: Dirs) -> None:
    text = "# Project\n" + "line\n" * 500
    (dirs.project / "LEGATO.md").write_text(text)
    (guide,) = load_context(str(dirs.project), home=str(dirs.home)).guides
    assert guide.text == text


def test_memory_lives_under_a_hash_of_the_real_project_path(dirs: Dirs) -> None:
    real = os.path.realpath(dirs.project)
    digest = hashlib.sha256(real.encode("utf-8")).hexdigest()[:16]
    assert project_hash(real) == digest
    expected = os.path.join(str(dirs.home), ".legato", "projects", digest, "memory")
    assert memory_dir(real, str(dirs.home)) == expected
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.memory_dir == expected
    assert context.memory is None


def test_only_the_first_200_lines_of_memory_are_loaded(dirs: Dirs) -> None:
    folder = memory_dir(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(folder)
    lines = [f"fact {n}\n" for n in range(1, 301)]
    with open(os.path.join(folder, "MEMORY.md"), "w") as file:
        file.writelines(lines)
    memory = load_context(str(dirs.project), home=str(dirs.home)).memory
    assert memory == "".join(lines[:200])


def test_a_short_memory_is_loaded_whole(dirs: Dirs) -> None:
    folder = memory_dir(os.path.realpath(dirs.project), str(dirs.home))
    os.makedirs(folder)
    with open(os.path.join(folder, "MEMORY.md"), "w") as file:
        file.write("- tests run with pytest\n- no trailing newline")
    memory = load_context(str(dirs.project), home=str(dirs.home)).memory
    assert memory == "- tests run with pytest\n- no trailing newline"


def test_a_readable_key_file_gets_a_chmod_warning(dirs: Dirs) -> None:
    path = dirs.write_config(json.dumps({"apiKey": SECRET}))
    os.chmod(path, 0o644)
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.warnings == (
        f"{path} holds apiKey and other users can read it; run: chmod 600 {path}",
    )
    os.chmod(path, 0o600)
    assert load_context(str(dirs.project), home=str(dirs.home)).warnings == ()


def test_a_readable_config_without_a_key_gets_no_warning(dirs: Dirs) -> None:
    path = dirs.write_config('{"theme": "light"}')
    os.chmod(path, 0o644)
    assert load_context(str(dirs.project), home=str(dirs.home)).warnings == ()


def test_the_api_key_never_appears_in_a_message_warning_or_repr(dirs: Dirs) -> None:
    path = dirs.write_config(json.dumps({"apiKey": SECRET, "theme": "light"}))
    os.chmod(path, 0o644)
    dirs.write_settings(json.dumps({"apiKey": SECRET}))
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.config.api_key == SECRET
    shown = [repr(context), str(context), rich.pretty.pretty_repr(context), *context.warnings]
    assert all(SECRET not in text for text in shown)
    assert "api_key='<hidden>'" in repr(context.config)
    # Errors in the key's own field or elsewhere in the file do not show it either.
    for config in ({"apiKey": SECRET, "theme": 3}, {"apiKey": [SECRET]}):
        dirs.write_config(json.dumps(config))
        with pytest.raises(ConfigError) as info:
            load_context(str(dirs.project), home=str(dirs.home))
        assert SECRET not in info.value.describe()
    dirs.write_config('{"apiKey": "' + SECRET + '",, }')
    with pytest.raises(ConfigError) as info:
        load_context(str(dirs.project), home=str(dirs.home))
    assert SECRET not in info.value.describe()


def test_key_positions_map_paths_to_lines() -> None:
    text = '{\n  "a": 1,\n  "b": [\n    "x",\n    {"c": "}"}\n  ],\n  "d\\"e": {}\n}'
    positions = key_positions(text)
    assert positions[("a",)] == Position(2, 3)
    assert positions[("b",)] == Position(3, 3)
    assert positions[("b", 0)] == Position(4, 5)
    assert positions[("b", 1)] == Position(5, 5)
    assert positions[("b", 1, "c")] == Position(5, 6)
    assert positions[('d"e',)] == Position(7, 3)
