"""Settings and config validation: the messages name the file, the line, the field, the values."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.memory_store import load_context

if TYPE_CHECKING:
    from tests.memory_store.conftest import Dirs


def error_for(dirs: Dirs) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_context(str(dirs.project), home=str(dirs.home))
    return info.value


# (settings text, line, field, message after "field '...': ")
INVALID_SETTINGS: list[tuple[str, int, str, str]] = [
    (
        '{\n  "model": "sonnet",\n  "permissionMode": "always"\n}',
        3,
        "permissionMode",
        "must be one of ask, auto, custom, plan, not 'always'",
    ),
    (
        '{\n  "allowedPaths": [\n    "src/**",\n    42\n  ]\n}',
        4,
        "allowedPaths[1]",
        "must be a glob string, not 42",
    ),
    (
        '{"blockedPaths": "secrets/"}',
        1,
        "blockedPaths",
        "must be a list of glob strings such as [\"src/**\"], not 'secrets/'",
    ),
    (
        '{\n\n  "allowedCommands": [null]}',
        3,
        "allowedCommands[0]",
        "must be a command string, not null",
    ),
    (
        '{\n  "blockedCommands": {"rm": true}\n}',
        2,
        "blockedCommands",
        'must be a list of command strings such as ["git status"], not an object',
    ),
    (
        '{\n  "model": 4\n}',
        2,
        "model",
        "must be a model alias (opus, sonnet, haiku) or a model id such as claude-sonnet-4-6, "
        "not 4",
    ),
    (
        '{\n  "permissionMode": "plan",\n  "model": "sonet"\n}',
        3,
        "model",
        "unknown model 'sonet'. Did you mean 'sonnet'?",
    ),
    (
        '{"allowedCommands": ["ls",\n "git \\"status"]}',
        2,
        "allowedCommands[1]",
        "'git \"status' does not split into words: No closing quotation",
    ),
    ('{"allowedPaths": ["  "]}', 1, "allowedPaths[0]", "an empty entry matches nothing"),
    (
        '{\n  "agents": {\n    "maxConcurrent": 0\n  }\n}',
        3,
        "agents.maxConcurrent",
        "must be a whole number from 1 to 64 (default 4), not 0",
    ),
    (
        '{"agents": {"maxDepth": "none"}}',
        1,
        "agents.maxDepth",
        "must be a whole number from 0 to 4 (default 1), not 'none'",
    ),
]


@pytest.mark.parametrize(("text", "line", "field", "message"), INVALID_SETTINGS)
def test_an_invalid_setting_names_file_line_field_and_allowed_values(
    dirs: Dirs, text: str, line: int, field: str, message: str
) -> None:
    path = dirs.write_settings(text)
    error = error_for(dirs)
    assert (error.path, error.line, error.field) == (path, line, field)
    assert error.message == f"{path}:{line}: field '{field}': {message}"
    assert error.exit_code == 2


@pytest.mark.parametrize(
    ("text", "remedy"),
    [
        (
            '{"agents": {"maxConcurrent": 0}}',
            "Set 'agents.maxConcurrent' to a whole number from 1 to 64 (default 4), or remove it "
            "to use the default",
        ),
        (
            '{"sandbox": {"maxMemoryMB": 1}}',
            "Set 'sandbox.maxMemoryMB' to a whole number of MiB from 64 to 16777216 (default: "
            "half the memory), or remove it to use the default",
        ),
    ],
)
def test_the_remedy_of_a_bounded_setting_says_its_bounds_then_its_default(
    dirs: Dirs, text: str, remedy: str
) -> None:
    dirs.write_settings(text)
    assert error_for(dirs).remedy == remedy


# (config text, line, field, message)
INVALID_CONFIG: list[tuple[str, int, str, str]] = [
    ('{\n  "theme": "blue"\n}', 2, "theme", "must be one of dark, light, not 'blue'"),
    ('{"autoSave": "yes"}', 1, "autoSave", "must be true or false, not 'yes'"),
    (
        '{\n "permissionMode": 1}',
        2,
        "permissionMode",
        "must be one of ask, auto, custom, plan, not 1",
    ),
    ('{"defaultModel": "gpt-4"}', 1, "defaultModel", "unknown model 'gpt-4'."),
]


@pytest.mark.parametrize(("text", "line", "field", "message"), INVALID_CONFIG)
def test_an_invalid_config_value_is_reported_the_same_way(
    dirs: Dirs, text: str, line: int, field: str, message: str
) -> None:
    path = dirs.write_config(text)
    error = error_for(dirs)
    assert (error.path, error.line, error.field) == (path, line, field)
    assert error.message.startswith(f"{path}:{line}: field '{field}': {message}")


# (text, line, message)
MALFORMED: list[tuple[str, int, str]] = [
    (
        '{\n  "model": "opus",\n  "permissionMode": "ask",\n}\n',
        4,
        "malformed JSON at column 1: Expecting property name enclosed in double quotes "
        "(JSON allows no comma after the last item)",
    ),
    (
        '{\n  "model": "opus"\n  "permissionMode": "ask"\n}',
        3,
        "malformed JSON at column 3: Expecting ',' delimiter",
    ),
    (
        '{\n  // my settings\n  "model": "opus"\n}',
        2,
        "malformed JSON at column 3: Expecting property name enclosed in double quotes "
        "(JSON allows no comments)",
    ),
    (
        "{\n  'model': 'opus'\n}",
        2,
        "malformed JSON at column 3: Expecting property name enclosed in double quotes "
        "(JSON strings take double quotes)",
    ),
    (
        '{\n  "allowedPaths": ["src/**"\n',
        3,
        "malformed JSON at column 1: Expecting ',' delimiter "
        "(the file ends before every { and [ is closed)",
    ),
    ('{"model": NaN}', 1, "malformed JSON at column 11: invalid character"),
    (" \n", 1, "malformed JSON at column 1: the file is empty (a file with no settings holds {})"),
]


@pytest.mark.parametrize(("text", "line", "message"), MALFORMED)
def test_malformed_json_names_the_line_and_column(
    dirs: Dirs, text: str, line: int, message: str
) -> None:
    path = dirs.write_settings(text)
    error = error_for(dirs)
    assert (error.path, error.line, error.field) == (path, line, None)
    assert error.message == f"{path}:{line}: {message}"


@pytest.mark.parametrize(("text", "kind"), [("[1, 2]", "a list"), ('"ask"', "a string")])
def test_the_top_level_must_be_an_object(dirs: Dirs, text: str, kind: str) -> None:
    path = dirs.write_settings(text)
    assert error_for(dirs).message == (
        f"{path}:1: the file must hold one JSON object ({{...}}), not {kind}"
    )


def test_an_unknown_key_is_a_warning_with_a_did_you_mean(dirs: Dirs) -> None:
    path = dirs.write_settings(
        '{\n  "permisionMode": "auto",\n  "allowed_paths": [],\n  "zzz": 1,\n  "theme": "dark"\n}'
    )
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.permission_mode == "ask"  # the misspelt key took no effect
    assert context.warnings == (
        f"{path}:2: unknown key 'permisionMode' is ignored; did you mean 'permissionMode'?",
        f"{path}:3: unknown key 'allowed_paths' is ignored; did you mean 'allowedPaths'?",
        f"{path}:4: unknown key 'zzz' is ignored; the known keys are model, effortLevel, "
        "permissionMode, allowedPaths, blockedPaths, allowedCommands, blockedCommands, "
        "allowedTools, blockedTools, sandbox, maxBackgroundCommands, agents, webSearch, "
        "permissions, env, statusLine, hooks",
        f"{path}:5: 'theme' is ignored here; it belongs in the global config file ({dirs.config})",
    )


def test_a_directory_in_place_of_the_file_is_an_error(dirs: Dirs) -> None:
    dirs.settings.mkdir(parents=True)
    assert error_for(dirs).message.endswith("settings.json: is a directory, not a file")


def test_a_file_that_is_not_utf8_is_an_error(dirs: Dirs) -> None:
    dirs.settings.parent.mkdir(parents=True)
    dirs.settings.write_bytes(b'{\n"model": "\xff"}')
    error = error_for(dirs)
    assert (error.line, error.message.split(": ", 1)[1]) == (2, "is not UTF-8 text (byte 12)")
