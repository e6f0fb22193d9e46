"""Which value wins, and where it came from: flags > environment > local > project > user >
default.

This is the usual order, nearest to the person first: a flag is typed for this run, a variable
set for this shell, a local file for this person in this project, the project's files for this
project, the user's for every project (settings_files.py lists them). ``legato config`` prints
each winner with its source, so a value that surprises someone can be traced to the file or
variable that set it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from actors.errors import UsageError
from actors.models import resolve_model
from actors.protocol import Setting
from actors.settings import SETTINGS_MODES

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.settings import SettingsMode

T = TypeVar("T")

ENV_MODEL = "ASSISTANT_MODEL"
ENV_PERMISSION_MODE = "ASSISTANT_PERMISSION_MODE"

DEFAULT = "built-in default"


def first(key: str, default: T, *candidates: tuple[T | None, str]) -> Setting[T]:
    """The first candidate that is set, in precedence order, else the default."""
    for value, source in candidates:
        if value is not None:
            return Setting(key, value, source)
    return Setting(key, default, DEFAULT)


def env_model(env: Mapping[str, str]) -> str | None:
    """``ASSISTANT_MODEL``, checked now so that a typo names the variable it came from."""
    value = (env.get(ENV_MODEL) or "").strip()
    if not value:
        return None
    try:
        resolve_model(value)
    except UsageError as error:
        raise UsageError(
            f"{ENV_MODEL}={value!r}: {error.message}",
            remedy=f"{error.remedy}; or unset {ENV_MODEL}",
        ) from None
    return value


def env_permission_mode(env: Mapping[str, str]) -> SettingsMode | None:
    value = (env.get(ENV_PERMISSION_MODE) or "").strip()
    if not value:
        return None
    for mode in SETTINGS_MODES:
        if value == mode:
            return mode
    raise UsageError(
        f"{ENV_PERMISSION_MODE}={value!r} is not a permission mode",
        remedy=f"Set {ENV_PERMISSION_MODE} to one of {', '.join(SETTINGS_MODES)}, or unset it",
    )
