"""Environment variables a command line may set without a person looking.

``GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='sh x' git status``
runs 'sh x' though only ``git status`` is allowed; ``PATH``, ``LD_PRELOAD``, ``BASH_ENV``,
``PYTHONSTARTUP``, ``NODE_OPTIONS``, ``PAGER`` and many more do the same for other programs.
Which variables some program reads is open-ended, so the list here is the other way round:
names that only choose a language, colours, a time zone, verbosity or a CI switch, and that
no common program reads as a command, a file to load, or a place to look for programs.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

HARMLESS = frozenset(
    {
        # locale, terminal and colours
        "LANG", "LANGUAGE", "TZ", "TERM", "COLORTERM", "COLUMNS", "LINES", "NO_COLOR",
        "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "CARGO_TERM_COLOR", "PY_COLORS",
        # "this is a CI run", verbosity and debug switches
        "CI", "DEBUG", "VERBOSE", "LOG_LEVEL", "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV",
        "DEBIAN_FRONTEND", "NODE_NO_WARNINGS", "PIP_DISABLE_PIP_VERSION_CHECK",
        "PIP_NO_INPUT", "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        # Python switches that take no module, path or code
        "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING",
        "PYTHONUTF8", "PYTHONFAULTHANDLER", "PYTHONNOUSERSITE",
        # build switches that choose a target, not a tool
        "SOURCE_DATE_EPOCH", "GOOS", "GOARCH", "CGO_ENABLED",
    }
)  # fmt: skip

# LC_ALL, LC_CTYPE, ...: locale categories.
_HARMLESS_PATTERN = re.compile(r"LC_[A-Z]+")


def harmless(name: str) -> bool:
    return name in HARMLESS or bool(_HARMLESS_PATTERN.fullmatch(name))


# Variables that bash itself acts on when they are set in the shell, exported or not: PS4 is
# expanded (and its $(...) run) for every traced command, IFS splits words, CDPATH moves 'cd'.
SHELL_VARIABLES = frozenset(
    {
        "IFS", "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "CDPATH", "GLOBIGNORE",
        "EXECIGNORE", "BASH_ENV", "ENV", "BASH_XTRACEFD", "SHELLOPTS", "BASHOPTS", "PATH",
        "HOME", "TMPDIR", "HISTFILE", "POSIXLY_CORRECT", "BASH_COMPAT", "FUNCNEST",
    }
)  # fmt: skip


def matters_in_the_shell(
    name: str, *, exported: bool, environ: Mapping[str, str] = os.environ
) -> bool:
    """Whether setting ``name`` in the shell itself (``X=1; cmd``, ``export X``, ``for X in``)
    may change what a later command does.

    An exported variable reaches every later command. A plain assignment reaches them only
    when the variable is already exported, that is, in the environment the commands start
    with (``PATH``), or when bash itself reads it (``PS4``); otherwise it stays the shell's own
    working variable (``for f in *.py``).
    """
    if harmless(name):
        return False
    return exported or name in SHELL_VARIABLES or name in environ
