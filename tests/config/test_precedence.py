"""flags > environment > project settings > global config > defaults, for every layer pair, and
the source of each value as `legato config` reports it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.errors import UsageError
from actors.memory_store import Explained, Overrides, explain_context

if TYPE_CHECKING:
    from tests.config.conftest import Setup

LAYERS = ("flag", "env", "settings", "config")
MODELS = {"flag": "haiku", "env": "opus", "settings": "sonnet", "config": "claude-opus-4-6"}
MODES = {"flag": "custom", "env": "plan", "settings": "auto", "config": "ask"}
IDS = {
    "haiku": "claude-haiku-4-5-20251001",
    "opus": "claude-opus-4-6",
    "sonnet": "claude-sonnet-4-6",
}


def explain(setup: Setup, present: tuple[str, ...]) -> Explained:
    if "settings" in present:
        setup.settings({"model": MODELS["settings"], "permissionMode": MODES["settings"]})
    if "config" in present:
        setup.config({"defaultModel": MODELS["config"], "permissionMode": MODES["config"]})
    env: dict[str, str] = {}
    if "env" in present:
        env = {"ASSISTANT_MODEL": MODELS["env"], "ASSISTANT_PERMISSION_MODE": MODES["env"]}
    overrides = Overrides()
    if "flag" in present:
        overrides = Overrides(model=MODELS["flag"], permission_mode="custom")
    return explain_context(str(setup.project), home=str(setup.home), overrides=overrides, env=env)


SUBSETS = [LAYERS[i:] for i in range(len(LAYERS))] + [("flag", "config"), ("env", "config"), ()]


@pytest.mark.parametrize("present", SUBSETS, ids=lambda p: "+".join(p) or "none")
def test_the_nearest_layer_wins_and_is_named(setup: Setup, present: tuple[str, ...]) -> None:
    explained = explain(setup, present)
    by_key = {s.key: s for s in explained.settings}
    winner = present[0] if present else None
    sources = {
        "flag": ("--model", "--permission-mode"),
        "env": ("ASSISTANT_MODEL", "ASSISTANT_PERMISSION_MODE"),
        "settings": (str(setup.settings_file), str(setup.settings_file)),
        "config": (f"{setup.config_file} (defaultModel)", str(setup.config_file)),
    }
    if winner is None:
        assert (explained.context.model, explained.context.permission_mode) == (
            "claude-sonnet-4-6",
            "ask",
        )
        assert by_key["model"].source == by_key["permissionMode"].source == "built-in default"
        return
    expected_model = IDS.get(MODELS[winner], MODELS[winner])
    assert explained.context.model == expected_model
    assert explained.context.permission_mode == MODES[winner]
    assert (by_key["model"].source, by_key["permissionMode"].source) == sources[winner]


def test_a_bad_environment_value_names_the_variable_and_the_allowed_values(setup: Setup) -> None:
    with pytest.raises(UsageError) as info:
        explain_context(
            str(setup.project), home=str(setup.home), env={"ASSISTANT_PERMISSION_MODE": "yolo"}
        )
    assert info.value.exit_code == 2
    assert "ASSISTANT_PERMISSION_MODE='yolo'" in info.value.message
    assert info.value.remedy is not None
    assert "ask, auto, custom, plan" in info.value.remedy
    with pytest.raises(UsageError, match=r"ASSISTANT_MODEL='opsu'.*Did you mean 'opus'"):
        explain_context(str(setup.project), home=str(setup.home), env={"ASSISTANT_MODEL": "opsu"})


def test_file_only_values_name_their_file(setup: Setup) -> None:
    setup.config({"theme": "light"})
    setup.settings({"allowedCommands": ["git status"]})
    by_key = {s.key: s for s in explain(setup, ()).settings}
    assert (by_key["theme"].value, by_key["theme"].source) == ("light", str(setup.config_file))
    assert by_key["autoSave"].source == "built-in default"
    assert by_key["allowedCommands"].value == ("git status",)
    assert by_key["allowedCommands"].source == str(setup.settings_file)


def test_legato_config_prints_values_and_sources(setup: Setup) -> None:
    setup.settings({"permissionMode": "auto"})
    setup.config({"defaultModel": "haiku", "apiKey": "sk-secret-value-123"})
    done = setup.legato(
        "config", str(setup.project), "--model", "opus", ASSISTANT_PERMISSION_MODE="plan"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Effective settings for {setup.project}"
    assert any(line.split() == ["model", "claude-opus-4-6", "--model"] for line in lines)
    assert any(
        line.split() == ["permissionMode", "plan", "ASSISTANT_PERMISSION_MODE"] for line in lines
    )
    assert "with the key from apiKey in ~/.config/legato/config.json" in done.stdout
    assert "sk-secret-value-123" not in done.stdout + done.stderr


def test_legato_config_json(setup: Setup) -> None:
    setup.settings({"model": "haiku"})
    done = setup.legato("config", str(setup.project), "--json", ASSISTANT_API_KEY="sk-x-123456")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["settings"]["model"] == {
        "value": "claude-haiku-4-5-20251001",
        "source": str(setup.settings_file),
    }
    assert out["credentials"] == [
        "Anthropic API at https://api.anthropic.com with the key from ASSISTANT_API_KEY"
    ]
    assert "sk-x-123456" not in done.stdout
