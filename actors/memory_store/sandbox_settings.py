"""The ``sandbox`` object of the project settings: the checks of its entries that its types
(actors/settings/sandbox.py) cannot make.

The lists hold plain paths, not patterns (a mount needs one real path): ``~/...`` under the home
folder, ``/...`` absolute, anything else relative to the project root. An entry that cannot be
such a path is refused when the settings load, like a bad path rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.credentials import LEGATO_CREDENTIALS, credential_values, is_credential
from actors.errors import ConfigError
from actors.places import opens_legato_folder

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from actors.settings import ProjectSettings
    from actors.settings.validate import Loaded

_GLOB = frozenset("*?[{")


def check_sandbox(settings: Loaded[ProjectSettings], *, home: str, root: str) -> None:
    """Refuse a path entry no mount could mean, and an ``allowWrite`` entry that would open
    Legato's own folders; raises ConfigError naming file, line and field."""
    sandbox = settings.value.sandbox
    for key, entries in (
        ("allowWrite", sandbox.allow_write),
        ("readOnly", sandbox.read_only),
        ("denyRead", sandbox.deny_read),
        ("allowUnixSockets", sandbox.allow_unix_sockets),
    ):
        for index, entry in enumerate(entries):
            problem = _path_problem(entry)
            if problem:
                raise ConfigError(
                    problem,
                    path=settings.path,
                    line=settings.line_of("sandbox", key, index) or settings.line_of("sandbox"),
                    field=f"sandbox.{key}[{index}]",
                    remedy=(
                        f"Write one path per entry of 'sandbox.{key}' (~/..., /... or relative "
                        "to the project; docs/configuration.md describes them)"
                    ),
                )
    for index, entry in enumerate(sandbox.allow_write):
        own = opens_legato_folder(entry, root, home)
        if own is not None:
            raise ConfigError(
                f"{entry!r} would let commands write {own}, where Legato keeps its key, global "
                "hooks and approvals: a command could plant a hook that runs in every session",
                path=settings.path,
                line=settings.line_of("sandbox", "allowWrite", index)
                or settings.line_of("sandbox"),
                field=f"sandbox.allowWrite[{index}]",
                remedy=(
                    "Name only the folders commands need to write (such as ~/.cache/pip), none "
                    "that holds or lies in ~/.config/legato or ~/.legato"
                ),
            )


def _path_problem(entry: str) -> str | None:
    if not entry.strip():
        return "an empty entry names no path"
    if _GLOB & set(entry):
        return f"{entry!r} is a pattern: the sandbox takes plain paths, one folder or file each"
    if entry.startswith("~") and not (entry == "~" or entry.startswith("~/")):
        return f"{entry!r}: '~user' is not supported; write the folder's absolute path"
    if "\x00" in entry:
        return "a path cannot hold a NUL character"
    return None


def pass_env_warnings(
    settings: Loaded[ProjectSettings], env: Mapping[str, str], secrets: Iterable[str | None]
) -> list[str]:
    """A warning for each ``sandbox.passEnv`` entry naming one of Legato's own credentials (a
    credential variable, or one holding a credential's value): it is not passed, whatever the
    file (a command the model chose would get the key), and the session goes on."""
    values = credential_values(env, secrets)
    warnings = []
    for index, name in enumerate(settings.value.sandbox.pass_env):
        if not is_credential(name, env.get(name, ""), values):
            continue
        line = settings.line_of("sandbox", "passEnv", index) or settings.line_of("sandbox")
        where = settings.path if line is None else f"{settings.path}:{line}"
        why = (
            "is one of Legato's own credential variables"
            if name in LEGATO_CREDENTIALS
            else "holds Legato's own API key"
        )
        warnings.append(
            f"{where}: field 'sandbox.passEnv[{index}]': {name} {why}, which "
            "Legato keeps to itself: no command gets it. Remove it from 'sandbox.passEnv'; "
            "a command that needs a key of its own reads it from a variable of its own"
        )
    return warnings
