"""The sandbox keys a project's settings cannot use against the user: Legato's own folders made
writable, the default deny list emptied, limits out of range."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.memory_store import load_context
from actors.settings import DEFAULT_DENY_READ

if TYPE_CHECKING:
    from tests.memory_store.conftest import Dirs


def error_for(dirs: Dirs, sandbox: object) -> ConfigError:
    dirs.write_settings(json.dumps({"sandbox": sandbox}, indent=2))
    with pytest.raises(ConfigError) as info:
        load_context(str(dirs.project), home=str(dirs.home))
    return info.value


@pytest.mark.parametrize(
    "entry", ["~", "/", "~/.config", "~/.config/legato", "~/.legato/projects", "//"]
)
def test_allow_write_that_opens_legatos_folders_is_refused(dirs: Dirs, entry: str) -> None:
    error = error_for(dirs, {"allowWrite": ["~/.cache", entry]})
    assert error.field == "sandbox.allowWrite[1]"
    assert error.path is not None and error.path.endswith("settings.json")
    assert error.line == 5
    assert f"{entry!r} would let commands write" in error.message
    assert error.remedy is not None and "~/.config/legato or ~/.legato" in error.remedy


def test_a_link_in_the_project_to_legatos_folder_is_refused_too(dirs: Dirs) -> None:
    (dirs.home / ".config" / "legato").mkdir(parents=True)
    (dirs.project / "cache").symlink_to(dirs.home / ".config")
    error = error_for(dirs, {"allowWrite": ["cache"]})
    assert error.field == "sandbox.allowWrite[0]"


def test_folders_beside_legatos_stay_allowed(dirs: Dirs) -> None:
    dirs.write_settings(json.dumps({"sandbox": {"allowWrite": ["~/.cache", "~/.config/x"]}}))
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.settings.sandbox.allow_write == ("~/.cache", "~/.config/x")


def test_deny_read_adds_to_the_defaults(dirs: Dirs) -> None:
    dirs.write_settings(json.dumps({"sandbox": {"denyRead": []}}))
    context = load_context(str(dirs.project), home=str(dirs.home))
    assert context.settings.sandbox.deny_read == ()  # the layout adds DEFAULT_DENY_READ
    for place in ("~/.config/gh", "~/.git-credentials", "~/.npmrc", "~/.config/legato"):
        assert place in DEFAULT_DENY_READ


@pytest.mark.parametrize(
    ("key", "value"),
    [("maxProcesses", 0), ("maxProcesses", 7), ("maxProcesses", "many"), ("maxMemoryMB", 63)],
)
def test_limits_out_of_range_name_the_field(dirs: Dirs, key: str, value: object) -> None:
    error = error_for(dirs, {key: value})
    assert error.field == f"sandbox.{key}"
    assert "must be a whole number" in error.message
    assert error.remedy is not None and f"Set 'sandbox.{key}'" in error.remedy


def test_limits_within_range_are_taken(dirs: Dirs) -> None:
    dirs.write_settings(json.dumps({"sandbox": {"maxProcesses": 64, "maxMemoryMB": 2048}}))
    sandbox = load_context(str(dirs.project), home=str(dirs.home)).settings.sandbox
    assert (sandbox.max_processes, sandbox.max_memory_mb) == (64, 2048)
