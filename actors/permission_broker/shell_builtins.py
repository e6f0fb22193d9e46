"""What shells and a few bash builtins do, read from their words alone.

Which commands are shells (``bash -c '...'`` runs a script), which builtins run a string as
shell code (``eval``, ``trap``) and which change the working folder (``cd``); the script each
of them runs; the variables that ``read``, ``printf -v``, ``mapfile`` and ``getopts`` set in
the shell; and whether ``set`` exports every variable set after it. ``shell.py`` asks these
of each simple command it finds.
"""

from __future__ import annotations

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# Builtins that run a string as shell code. The string is checked like a script; when it is
# only known at run time, so is what they run.
RUNS_A_STRING = frozenset({"eval", "trap"})
# Builtins that change the shell's working folder, from where relative paths are taken.
CHANGES_DIRECTORY = frozenset({"cd", "pushd", "popd"})


def variables_read_into(words: tuple[str | None, ...]) -> list[str]:
    """Variables that read, printf -v, mapfile and getopts set in the shell."""
    name = words[0]
    args = [word for word in words[1:] if word is not None]
    if name == "read":
        # Its operands are variable names, and so is the value of -a (an array).
        names: list[str] = []
        index = 0
        while index < len(args):
            word = args[index]
            index += 1
            if not word.startswith("-") or word == "-":
                names.append(word)
                continue
            for position, letter in enumerate(word[1:], start=2):
                if letter in "adinNptu":
                    value = word[position:] or (args[index] if index < len(args) else "")
                    index += 0 if word[position:] else 1
                    names += [value] if letter == "a" else []
                    break
        return names
    if name == "printf" and "-v" in args:
        index = args.index("-v")
        return args[index + 1 : index + 2]
    if name in ("mapfile", "readarray"):
        operands = [word for word in args if not word.startswith("-")]
        return operands[-1:]
    if name == "getopts":
        return args[1:2]
    return []


def sets_allexport(words: tuple[str | None, ...]) -> bool:
    """'set -a', 'set -ea', 'set -o allexport' (a word only known at run time might too)."""
    for index, word in enumerate(words[1:], start=1):
        if word is None:
            return True
        if word.startswith("-") and not word.startswith("--") and "a" in word:
            return True
        if word == "-o" and words[index + 1 : index + 2] in (("allexport",), (None,)):
            return True
    return False


def string_script(name: str, words: tuple[str | None, ...]) -> tuple[bool, str | None]:
    """What ``eval args...`` or ``trap action signals...`` runs, like ``shell_script``.

    eval joins its arguments with spaces. trap runs its first argument when a signal name
    follows it; a lone argument, '-' and '' (ignore the signal) run nothing; -p/-l list.
    """
    args = [word for word in words[1:] if word not in ("--", "-p", "-l", "-pl", "-lp")]
    if name == "eval":
        if None in args:
            return True, None
        return True, " ".join(word for word in args if word is not None)
    if len(args) < 2 or args[0] == "-":
        return False, None
    return True, args[0]


def shell_script(words: tuple[str | None, ...]) -> tuple[bool, str | None]:
    """For ``bash [options] -c script``: (True, the script, or None when it is unknown).

    Bash reads the script from the first argument that is not an option (``-o`` and ``-O``
    take a value of their own). Without ``-c`` the answer is (False, None).
    """
    takes_value = False
    has_c = False
    for word in words[1:]:
        if takes_value:
            takes_value = False
        elif word is None:
            return has_c, None
        elif word.startswith("--"):
            continue  # "--" ends the options; long options (--norc, --login) take no value
        elif word[:1] in ("-", "+") and len(word) > 1:
            has_c = has_c or "c" in word[1:]
            takes_value = word[1:] in ("o", "O")
        else:
            return has_c, word if has_c else None
    return False, None
