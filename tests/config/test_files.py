"""What a person sees for a broken file, through the real `legato` command: file and line for
malformed JSON, a did-you-mean for an unknown key, file, field and allowed values for a bad value
(exit 2, no traceback), and a warning for a key that others can read."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def test_malformed_json_names_the_file_and_line(setup: Setup) -> None:
    path = setup.settings('{\n  "model": "opus",\n  "permissionMode": "ask",\n}\n')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:4: malformed JSON" in done.stderr
    assert "JSON allows no comma after the last item" in done.stderr
    assert "→" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_key_is_a_warning_with_a_did_you_mean(setup: Setup) -> None:
    path = setup.settings('{\n  "permisionMode": "auto"\n}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert f"{path}:2: unknown key 'permisionMode' is ignored; did you mean 'permissionMode'?" in (
        done.stderr
    )


def test_a_bad_value_names_file_field_and_allowed_values(setup: Setup) -> None:
    path = setup.config('{"theme": "dark",\n "permissionMode": "always"}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert (
        f"{path}:2: field 'permissionMode': must be one of ask, auto, custom, plan, not 'always'"
        in done.stderr
    )
    assert "Traceback" not in done.stderr


def test_no_file_may_start_a_session_that_asks_nobody(setup: Setup) -> None:
    # A cloned repository's settings must not turn the questions off: only an embedding
    # frontend starts dont_ask or bypass (Overrides).
    for mode in ("bypass", "dont_ask"):
        path = setup.settings({"permissionMode": mode})
        done = setup.legato("config", str(setup.project))
        assert done.returncode == 2
        assert f"field 'permissionMode': must be one of ask, auto, custom, plan, not '{mode}'" in (
            done.stderr
        ), path


def test_a_bad_value_stops_a_session_before_any_request(setup: Setup) -> None:
    setup.settings({"allowedPaths": "src/**"})
    done = setup.legato(
        str(setup.project),
        "--headless",
        "hi",
        ASSISTANT_API_KEY="k",
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert done.returncode == 2
    assert "field 'allowedPaths'" in done.stderr
    assert 'a list of glob strings such as ["src/**"]' in done.stderr


def test_a_key_in_a_readable_config_warns(setup: Setup) -> None:
    path = setup.config({"apiKey": "sk-secret-abc-123"})
    setup.config_file.chmod(0o644)
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert f"{path} holds apiKey and other users can read it; run: chmod 600 {path}" in done.stderr
    assert "sk-secret-abc-123" not in done.stdout + done.stderr


def test_a_bad_environment_value_exits_2(setup: Setup) -> None:
    done = setup.legato("config", str(setup.project), ASSISTANT_PERMISSION_MODE="yolo")
    assert done.returncode == 2
    assert "ASSISTANT_PERMISSION_MODE='yolo' is not a permission mode" in done.stderr
    assert "→" in done.stderr
