"""The reference's settings files through the real `legato config` and `legato doctor`: each
value's source among all the files, the rules with file and line, the keys not acted on, and a
malformed file stopping with its file and line (exit 2)."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tests.config.conftest import Setup


def plant(path: Path, value: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2))
    return os.path.realpath(path)


def test_config_names_the_source_of_each_value_among_all_files(setup: Setup) -> None:
    user = plant(
        setup.home / ".claude" / "settings.json", {"model": "haiku", "alwaysThinkingEnabled": True}
    )
    project = plant(
        setup.project / ".claude" / "settings.json",
        {"permissions": {"deny": ["Read(./.env)"], "defaultMode": "plan"}, "outputStyle": "x"},
    )
    done = setup.legato("config", str(setup.project), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["settings"]["model"]["source"] == user
    assert out["settings"]["permissionMode"] == {
        "value": "plan",
        "source": f"{project}:6 (permissions.defaultMode)",
    }
    assert out["permissionRules"] == [
        {"behavior": "deny", "rule": "Read(./.env)", "source": project, "line": 4}
    ]
    assert out["notActedOn"] == [
        {"key": "outputStyle", "source": f"{project}:8"},
        {"key": "alwaysThinkingEnabled", "source": f"{user}:3"},
    ]
    text = setup.legato("config", str(setup.project)).stdout
    # Listed by file; the heading says how they decide, not an order they are listed in.
    assert (
        "Permission rules (nearest file first; whatever the file, a deny wins over an ask "
        "and an ask over an allow)\n"
        f"  deny   Read(./.env)  ({project}:4)\n"
    ) in text
    assert f"  outputStyle  {project}:8" in text


def test_doctor_lists_the_keys_not_acted_on(setup: Setup) -> None:
    path = plant(setup.project / ".claude" / "settings.json", {"apiKeyHelper": "./key.sh"})
    done = setup.legato("doctor", str(setup.project), "--no-probe")
    assert "Not acted on (keys of the reference's settings that Legato does not use)" in done.stdout
    assert f"  apiKeyHelper  {path}:2" in done.stdout


def test_a_malformed_reference_file_exits_2_naming_file_and_line(setup: Setup) -> None:
    path = setup.project / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{\n  "permissions": {\n    "allow": ["Bash(ls)",]\n  }\n}\n')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:3" in done.stderr or f"{os.path.realpath(path)}:3" in done.stderr
    assert "Traceback" not in done.stderr


def test_config_names_the_file_of_each_variable_but_not_its_value(
    setup: Setup, tmp_path: Path
) -> None:
    (tmp_path / "shared").mkdir()
    user = plant(
        setup.home / ".claude" / "settings.json",
        {
            "env": {"GITHUB_TOKEN": "ghp-secret-value", "A": "1"},
            "permissions": {"additionalDirectories": [str(tmp_path / "shared")]},
        },
    )
    local = plant(setup.project / ".legato" / "settings.local.json", {"env": {"A": "2"}})
    setup.settings({}, trust=True)
    done = setup.legato("config", str(setup.project), "--json")
    assert done.returncode == 0, done.stderr
    settings = json.loads(done.stdout)["settings"]
    assert settings["env.A"] == {"value": "(set)", "source": local}
    assert settings["env.GITHUB_TOKEN"] == {"value": "(set)", "source": user}
    assert settings["additionalDirectories"]["source"] == user
    assert "ghp-secret-value" not in done.stdout
