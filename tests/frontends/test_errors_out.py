"""One function says an error to the person, in one format, and picks the exit code: the
error's own, from the one table of codes in actors/errors.py."""

from __future__ import annotations

import io

import pytest

from actors import errors
from actors.errors import (
    EXIT_FAILURE,
    EXIT_USAGE,
    MEANINGS,
    ApiError,
    ConfigError,
    LegatoError,
    UsageError,
)
from frontends.errors_out import report, warn


def _subclasses(root: type[LegatoError]) -> list[type[LegatoError]]:
    found: list[type[LegatoError]] = []
    for sub in root.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_an_error_is_said_with_its_remedy_and_ends_with_its_code() -> None:
    out = io.StringIO()
    code = report(UsageError("--model: unknown model 'gtp'", remedy="Use sonnet"), out)
    assert out.getvalue() == "legato: --model: unknown model 'gtp'\n  → Use sonnet\n"
    assert code == EXIT_USAGE


def test_a_config_error_names_the_file_line_and_field() -> None:
    out = io.StringIO()
    error = ConfigError("must be true or false, not 'off'", path="/p/s.json", line=3, field="x")
    assert report(error, out) == EXIT_USAGE
    assert out.getvalue() == "legato: /p/s.json:3: field 'x': must be true or false, not 'off'\n"


def test_a_subcommand_says_its_own_name() -> None:
    out = io.StringIO()
    assert report(ApiError("refused", remedy="Wait"), out, program="legato doctor") == 1
    assert out.getvalue() == "legato doctor: refused\n  → Wait\n"


def test_anything_else_is_a_bug_said_as_one() -> None:
    out = io.StringIO()
    assert report(RuntimeError("the conductor crashed"), out) == EXIT_FAILURE
    assert out.getvalue() == (
        "legato: internal error: the conductor crashed\n"
        "  → Please report it; run with ASSISTANT_LOG=debug for details\n"
    )


def test_a_warning_says_its_remedy_on_its_own_line_as_an_error_does() -> None:
    out = io.StringIO()
    warn("--future-option was ignored", out, remedy="Update Legato")
    assert out.getvalue() == "legato: warning: --future-option was ignored\n  → Update Legato\n"


def test_control_characters_from_a_file_are_shown_not_obeyed() -> None:
    out = io.StringIO()
    report(UsageError("bad value '\x1b]2;T\x07'", remedy=None), out)
    warn("a file \x1b[2K", out)
    assert "\x1b" not in out.getvalue()
    assert out.getvalue().splitlines()[-1] == "legato: warning: a file \\x1b[2K"


def test_every_error_maps_to_a_documented_exit_code() -> None:
    kinds: list[type[LegatoError]] = [LegatoError, *_subclasses(LegatoError)]
    for kind in kinds:
        assert kind.exit_code in MEANINGS, kind.__name__
    # And no code is defined anywhere else: the table's names are the module's.
    names = {name for name in vars(errors) if name.startswith("EXIT_")}
    assert {getattr(errors, name) for name in names} == set(MEANINGS)


@pytest.mark.parametrize("kind", [UsageError, ConfigError])
def test_usage_and_configuration_errors_exit_2(kind: type[LegatoError]) -> None:
    assert kind.exit_code == EXIT_USAGE == 2
