"""The ``sandbox`` object of the project settings: a bad value names the file, the line, the
field and what it takes (exit 2); an unknown key inside it is a warning with a did-you-mean."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def test_a_bad_sandbox_value_names_the_field(setup: Setup) -> None:
    path = setup.settings('{\n  "sandbox": {\n    "network": "off"\n  }\n}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:3: field 'sandbox.network': must be true or false, not 'off'" in done.stderr
    assert "→ Set 'sandbox.network' to true or false, or remove it" in done.stderr


def test_a_pattern_in_a_sandbox_list_is_refused(setup: Setup) -> None:
    path = setup.settings('{"sandbox": {\n "allowWrite": [\n  "~/ok",\n  "~/*.log"]}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert (
        f"{path}:4: field 'sandbox.allowWrite[1]': '~/*.log' is a pattern: the sandbox takes "
        "plain paths, one folder or file each"
    ) in done.stderr


def test_an_unknown_sandbox_key_is_a_warning(setup: Setup) -> None:
    path = setup.settings('{"sandbox": {\n "denyread": []}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert (
        f"{path}:2: unknown key 'sandbox.denyread' is ignored; did you mean 'denyRead'?"
        in done.stderr
    )


def test_the_sandbox_belongs_in_the_project_file(setup: Setup) -> None:
    setup.config({"sandbox": {"enabled": False}})
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert "'sandbox' is ignored here; it belongs in the project settings file" in done.stderr
