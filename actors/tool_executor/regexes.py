"""The model's regular expressions (Grep's pattern, TaskOutput's filter): Python's syntax, run
by the ``regex`` package, and never for long.

A pattern comes from the model, and a hostile or careless one can backtrack for hours on an
ordinary line (``(a|aa)+$`` on a run of a's). Python's own ``re`` holds the GIL for the whole
match, so every task of the session, the one that reads Esc included, would stand still, in a
worker thread as much as in the event loop. ``regex`` reads the same syntax, lets go of the GIL
while it matches (``concurrent=True``) and gives up after a time limit, which becomes the
call's error.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING

from actors.errors import ToolFailure

if TYPE_CHECKING:
    from collections.abc import Iterator

    import regex

# Seconds one match may take. An ordinary pattern takes microseconds on a line and well under a
# second on a whole large file; what takes longer is backtracking, and waiting would not help.
MATCH_TIMEOUT = 1.0
# A whole text's matches, one after the other (a multiline Grep), may take longer on a big file
# with many of them: a second more for every so many characters.
CHARS_PER_SECOND = 4 * 2**20


class BadPattern(ValueError):
    """A pattern that is not a regular expression; the message says why."""


def compile_pattern(
    pattern: str, *, ignore_case: bool = False, multiline: bool = False
) -> regex.Pattern[str]:
    """``multiline``: ``^`` and ``$`` at every line, and ``.`` across them. Raises BadPattern."""
    import regex  # imported when a pattern is first used, not as every session starts

    # VERSION0: the syntax of Python's re, not the module's extended one.
    flags = regex.VERSION0 | (regex.IGNORECASE if ignore_case else 0)
    if multiline:
        flags |= regex.MULTILINE | regex.DOTALL
    _check_nesting(pattern)
    read_as_re, added = _braces_as_re_reads(pattern)
    try:
        return regex.compile(read_as_re, flags)
    except regex.error as exc:
        # regex's error has the message and place apart (its stubs do not say so).
        place: int | None = getattr(exc, "pos", None)
        if place is None or not added:
            raise BadPattern(str(exc)) from None
        # Where it is in the pattern as written, before the backslashes put in.
        place -= sum(1 for put_in in added if put_in < place)
        raise BadPattern(f"{getattr(exc, 'msg', exc)} at position {place}") from None
    except ValueError as exc:  # flags that exclude each other: (?a) with (?u) or (?L)
        raise BadPattern(str(exc)) from None
    except RecursionError:  # _check_nesting lets through nothing this deep: a safety net
        raise BadPattern("groups nested too deeply to read") from None


# Both parsers read groups by recursion: a pattern nested thousands deep would exhaust the
# interpreter's stack (or, where the recursion limit was raised, the C stack). rg's own limit
# is 250; no pattern a person writes comes near this one.
MAX_NESTING = 100


def _check_nesting(pattern: str) -> None:
    """Raise BadPattern where ``pattern``'s groups nest more than MAX_NESTING deep."""
    depth = deepest = 0
    index, size, in_class = 0, len(pattern), False
    while index < size:
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
            index += 1
            # A "]" first in a class ("[]]", "[^]]") is itself.
            index += pattern.startswith("^", index)
            index += pattern.startswith("]", index)
            continue
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth = max(depth - 1, 0)
        index += 1
    if deepest > MAX_NESTING:
        raise BadPattern(f"groups nested {deepest} deep (at most {MAX_NESTING})")


# A count, as ``re`` reads one: {m}, {m,}, {,n}, {m,n}. Any other "{" is itself to ``re``.
_COUNT = re.compile(r"\{(?:[0-9]+(?:,[0-9]*)?|,[0-9]+)\}")
# Escapes whose braces are their own: \p{Greek}, \P{Lu}, \N{EM DASH}.
_BRACED_ESCAPES = frozenset("pPN")


def _braces_as_re_reads(pattern: str) -> tuple[str, list[int]]:
    """``pattern`` with each "{" that ``re`` reads as itself escaped, and where the backslashes
    were put in: ``regex`` reads some of those as fuzzy matching, ``f"{e}"`` as ``f"`` then
    ``"`` with any number of errors, matching ``f"xy"`` and far more."""
    if "{" not in pattern:
        return pattern, []
    out: list[str] = []
    added: list[int] = []
    index, size, written = 0, len(pattern), 0
    while index < size:
        stop = index + 1
        if pattern[index] == "\\":
            stop = index + 2
            if pattern[index + 1 : stop] in _BRACED_ESCAPES and pattern.startswith("{", stop):
                end = pattern.find("}", stop)
                stop = size if end < 0 else end + 1
        elif pattern[index] == "{" and not _COUNT.match(pattern, index):
            added.append(written)
            out.append("\\")
            written += 1
        out.append(pattern[index:stop])
        written += stop - index
        index = stop
    return "".join(out), added


# What ``re`` reads and ``regex`` may read otherwise, braces aside (``_braces_as_re_reads``):
# "[:", a POSIX class to ``regex`` (``[[:alpha:]]``), which a model writing one means.
_READ_APART = re.compile(r"\[:")


def check_pattern(pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> None:
    """Raise BadPattern where ``compile_pattern`` would, without loading ``regex`` when Python's
    own ``re`` (loaded already) reads the pattern: ``regex`` reads every pattern ``re`` does but
    those of ``_READ_APART``. A Grep that ripgrep answers needs no more than this
    (``test_pattern_check.py`` holds the two to the same answer)."""
    _check_nesting(pattern)
    if not _READ_APART.search(pattern):
        flags = (re.IGNORECASE if ignore_case else 0) | (
            re.MULTILINE | re.DOTALL if multiline else 0
        )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "possible nested set": not for the model
                re.compile(pattern, flags)
        except Exception:  # whatever re says, regex is the one asked
            pass
        else:
            return
    compile_pattern(pattern, ignore_case=ignore_case, multiline=multiline)


def search(pattern: regex.Pattern[str], text: str) -> regex.Match[str] | None:
    try:
        return pattern.search(text, concurrent=True, timeout=MATCH_TIMEOUT)
    except TimeoutError:
        raise _too_slow(pattern) from None


def finditer(pattern: regex.Pattern[str], text: str) -> Iterator[regex.Match[str]]:
    """Every match in ``text``, within a time limit for them all that grows with the text."""
    limit = MATCH_TIMEOUT + len(text) / CHARS_PER_SECOND
    try:
        yield from pattern.finditer(text, concurrent=True, timeout=limit)
    except TimeoutError:
        raise _too_slow(pattern, limit) from None


def _too_slow(pattern: regex.Pattern[str], limit: float = MATCH_TIMEOUT) -> ToolFailure:
    shown = pattern.pattern if len(pattern.pattern) <= 80 else pattern.pattern[:77] + "..."
    return ToolFailure(
        f"The pattern {shown!r} took more than {limit:.0f} s on one text and was "
        "stopped: it backtracks (nested repetition such as (a+)+ or (a|aa)+).",
        remedy="Write it without repetition inside repetition, or search for a plain word",
    )
