"""``maxBackgroundCommands``: how many background commands may run at once. A bad value names
the file, the line, the field and what it takes (exit 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.config.conftest import Setup


@pytest.mark.parametrize("value", ["0", "65", '"four"', "2.5", "true"])
def test_a_bad_limit_names_the_field_and_what_it_takes(setup: Setup, value: str) -> None:
    path = setup.settings(f'{{\n  "maxBackgroundCommands": {value}\n}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2, done.stderr
    assert f"{path}:2: field 'maxBackgroundCommands': must be a whole number from 1 to 64" in (
        done.stderr
    )
    assert "→ Set 'maxBackgroundCommands' to a whole number from 1 to 64, or remove it" in (
        done.stderr
    )


def test_a_good_limit_is_taken(setup: Setup) -> None:
    setup.settings('{"maxBackgroundCommands": 2}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr


def test_a_misspelt_key_is_a_warning_with_the_right_name(setup: Setup) -> None:
    path = setup.settings('{\n "max_background_commands": 2}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert f"{path}:2: unknown key 'max_background_commands' is ignored; did you mean " in (
        done.stderr
    )
    assert "'maxBackgroundCommands'?" in done.stderr
