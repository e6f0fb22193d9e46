"""Grep checks its pattern without loading the ``regex`` package when Python's own ``re``
reads it (``regexes.check_pattern``): the check must refuse exactly the patterns ``regex``
refuses, with ``regex``'s own message, or a Grep ripgrep answers would give results for a
pattern the Python search calls invalid (or the other way round)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actors.tool_executor import regexes
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from pathlib import Path

# The pieces of Python's syntax, those ``re`` and ``regex`` read alike and those they do not:
# fuzzy counts ({e<=1}), \p{..}, POSIX classes, branch reset, possessive and atomic forms,
# conditionals, named and numbered references.
PIECES = [
    *"ab()[]{}*+?|^$.\\-,:=!<>#&~ PpdwsSbBAZzxXmNgGkKhv0123uUieEl",
    *("(?", "(?P<n>", "(?P=n)", "(?i)", "(?s)", "(?m)", "(?x)", "(?a)", "(?L)", "(?-i:"),
    *("(?:", "(?=", "(?<=", "(?<!", "(?!", "(?>", "(?(1)", "(?|", "(?#c)", "\\p{L}", "\\P{Lu}"),
    *("{2,3}", "{,2}", "{2}", "{2,}", "{e<=1}", "{s", "*+", "++", "?+", "\\N{DIGIT ONE}"),
    *("\\g<1>", "\\x41", "\\u0041", "\\0", "\\01", "\\1", "[^", "[]", "[[:alpha:]]", "\\Q"),
]


def _verdict(check: object, pattern: str, **flags: bool) -> str | None:
    try:
        check(pattern, **flags)  # type: ignore[operator]
    except regexes.BadPattern as exc:
        return str(exc)
    return None


@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join),
    st.booleans(),
    st.booleans(),
)
def test_the_check_refuses_what_regex_refuses_and_nothing_else(
    pattern: str, ignore_case: bool, multiline: bool
) -> None:
    flags = {"ignore_case": ignore_case, "multiline": multiline}
    assert _verdict(regexes.check_pattern, pattern, **flags) == _verdict(
        regexes.compile_pattern, pattern, **flags
    )


@pytest.mark.parametrize(
    "pattern",
    [
        "a{e<=1}",  # a literal brace to re, a fuzzy count to regex
        "x{d",
        "\\N{NO SUCH NAME}",
        "(?P<n>a)(?P=m)",
        "[[:nosuch:]]",
        "((a)",
        "a{3,2}",
    ],
)
def test_patterns_re_and_regex_read_apart_are_judged_as_regex_judges_them(pattern: str) -> None:
    assert _verdict(regexes.check_pattern, pattern) == _verdict(regexes.compile_pattern, pattern)


@pytest.mark.parametrize(
    "pattern",
    [
        "((a)",
        "*a",
        "a{3,2}",
        "[[:nosuch:]]",
        "a{e<=1}((",
        "(?a)(?u)x",  # regex raised ValueError for these, and RecursionError for the next
        "(" * 3000 + "a" + ")" * 3000,
    ],
)
async def test_an_invalid_pattern_is_the_calls_error_on_both_engines(
    tmp_path: Path, pattern: str
) -> None:
    # A folder (ripgrep asked first, or not asked at all) and a single file (the Python
    # search): the same error, naming the pattern, and nothing searched.
    (tmp_path / "a.py").write_text("x{d ((a) aaa *a\n")
    async with session(tmp_path) as s:
        for path in (str(tmp_path), str(tmp_path / "a.py")):
            result = (await s.one("Grep", pattern=pattern, path=path)).result
            assert result.is_error
            assert result.content.startswith(f"Invalid regex {pattern!r}: "), result.content


@pytest.mark.parametrize(
    ("pattern", "found"),
    [
        ('f"{e}"', ['print(f"{e}")']),  # fuzzy matching to regex: every line with an f"
        ("{d}", ["x = {d}"]),
        ("a{i}b", ["a{i}b"]),
        ("{2,x}", ["{2,x}"]),
        ("a{2}", ["aa"]),  # a count stays a count
        (r"\p{Lu}{s}", ["A{s}"]),  # an escape's own braces stay its own
    ],
)
async def test_a_brace_that_starts_no_count_is_itself_as_re_reads_it(
    tmp_path: Path, pattern: str, found: list[str]
) -> None:
    lines = ['print(f"{e}")', 'print(f"xy")', "x = {d}", "x = d", "a{i}b", "ab", "{2,x}"]
    lines += ["aa", "a", "A{s}", "As"]
    (tmp_path / "a.py").write_text("\n".join(lines) + "\n")
    async with session(tmp_path) as s:
        for path in (str(tmp_path), str(tmp_path / "a.py")):  # a folder, and one file
            result = (await s.one("Grep", pattern=pattern, path=path, output_mode="content")).result
            assert not result.is_error, result.content
            shown = [line.split(":", 2)[2] for line in result.content.splitlines()]
            assert shown == found, (pattern, path, result.content)


def test_groups_nested_too_deep_are_refused_whatever_the_recursion_limit() -> None:
    # Both parsers read groups by recursion. Where something in the process raised the limit
    # (mypy run in-process sets 16,384), a deep pattern was read, or would exhaust the C stack.
    deep = "(" * 5000 + "a" + ")" * 5000
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(20_000)
        for check in (regexes.check_pattern, regexes.compile_pattern):
            assert _verdict(check, deep) == "groups nested 5000 deep (at most 100)"
            assert _verdict(check, "(" * 100 + "a" + ")" * 100) is None
            assert _verdict(check, "[(]" * 500) is None  # in a class, "(" is itself
    finally:
        sys.setrecursionlimit(limit)
