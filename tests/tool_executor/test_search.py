"""Glob and Grep over a small real tree."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.search import literal_of
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
        "src/util.py": "def helper():\n    return 'TODO later'\n",
        "src/deep/more.py": "# todo: nothing\nVALUE = 1\n",
        "src/web.ts": "export const todo = 1;\n",
        "README.md": "# Demo\nA TODO list.\n",
        "node_modules/lib/index.js": "// TODO vendored\n",
        ".git/config": "[core] TODO\n",
        "build/out.py": "# TODO generated\n",
        "logs/app.log": "TODO in a log\n",
        ".gitignore": "build/\n*.log\n",
    }
    for index, (name, text) in enumerate(sorted(files.items())):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    (tmp_path / "src" / "blob.bin").write_bytes(b"TODO\x00\x01\x02")
    os.utime(tmp_path / "src" / "util.py", (2_000_000, 2_000_000))  # the newest
    return tmp_path


async def test_glob_finds_files_newest_first_skipping_the_noise(tree: Path) -> None:
    async with session(tree) as s:
        done = await s.one("Glob", pattern="**/*.py")
    assert done.result.content.split("\n") == [
        str(tree / "src/util.py"),
        str(tree / "src/deep/more.py"),
        str(tree / "src/app.py"),
    ]
    assert s.broker.requests[0].kind == "read"


async def test_glob_patterns_and_paths(tree: Path) -> None:
    async with session(tree) as s:
        top = await s.one("Glob", pattern="*.md")
        under = await s.one("Glob", pattern="*.{py,ts}", path="src")
        prefixed = await s.one("Glob", pattern="src/deep/*.py")
        absolute = await s.one("Glob", pattern=str(tree / "src" / "*.ts"))
        named = await s.one("Glob", pattern="node_modules/**/*.js")
        none = await s.one("Glob", pattern="**/*.rs")
        missing = await s.one("Glob", pattern="*", path="nowhere")
    assert top.result.content == str(tree / "README.md")
    assert set(under.result.content.split("\n")) == {
        str(tree / "src/app.py"),
        str(tree / "src/util.py"),
        str(tree / "src/web.ts"),
    }
    assert prefixed.result.content == str(tree / "src/deep/more.py")
    assert absolute.result.content == str(tree / "src/web.ts")
    assert named.result.content == str(tree / "node_modules/lib/index.js")
    assert not none.result.is_error and none.result.content.startswith("No files match")
    assert missing.result.is_error
    assert missing.result.content == f"Directory does not exist: {tree / 'nowhere'}."


async def test_glob_caps_its_list(tmp_path: Path) -> None:
    for i in range(1005):
        (tmp_path / f"f{i}.txt").write_text("")
    async with session(tmp_path) as s:
        done = await s.one("Glob", pattern="*.txt")
    lines = done.result.content.split("\n")
    assert len(lines) == 1001
    assert lines[-1] == ("(Showing the 1000 newest of 1005 files. Use a narrower pattern or path.)")


async def test_grep_lists_matching_files_newest_first(tree: Path) -> None:
    async with session(tree) as s:
        done = await s.one("Grep", pattern="TODO")
    # Not the binary, node_modules, .git, or what .gitignore excludes (build/, *.log).
    assert done.result.content.split("\n") == [str(tree / "src/util.py"), str(tree / "README.md")]


async def test_grep_content_with_numbers_and_context(tree: Path) -> None:
    async with session(tree) as s:
        plain = await s.one("Grep", pattern="return", output_mode="content", path="src")
        context = await s.one(
            "Grep", pattern="getcwd", output_mode="content", path="src", **{"-B": 2}
        )
        bare = await s.one(
            "Grep", pattern="VALUE", output_mode="content", path="src", **{"-n": False}
        )
    app, util = tree / "src/app.py", tree / "src/util.py"
    assert plain.result.content == (
        f"{app}:4:    return os.getcwd()\n{util}:2:    return 'TODO later'"
    )
    assert context.result.content == (
        f"{app}-2-\n{app}-3-def main():\n{app}:4:    return os.getcwd()"
    )
    assert bare.result.content == f"{tree / 'src/deep/more.py'}:VALUE = 1"


async def test_grep_count_case_glob_type_and_head_limit(tree: Path) -> None:
    async with session(tree) as s:
        count = await s.one("Grep", pattern="todo", output_mode="count", **{"-i": True})
        by_glob = await s.one("Grep", pattern="todo", glob="*.ts")
        by_type = await s.one("Grep", pattern="(?i)todo", type="py")
        limited = await s.one("Grep", pattern="(?i)todo", head_limit=1)
        unknown = await s.one("Grep", pattern="x", type="cobol")
        bad = await s.one("Grep", pattern="foo(")
    assert count.result.content == "\n".join(
        [
            f"{tree / 'README.md'}:1",
            f"{tree / 'src/deep/more.py'}:1",
            f"{tree / 'src/util.py'}:1",
            f"{tree / 'src/web.ts'}:1",
        ]
    )
    assert by_glob.result.content == str(tree / "src/web.ts")
    assert by_type.result.content == f"{tree / 'src/util.py'}\n{tree / 'src/deep/more.py'}"
    assert limited.result.content == (
        f"{tree / 'src/util.py'}\n(Showing the first 1 results; there are more.)"
    )
    assert unknown.result.is_error and unknown.result.content.startswith("Unknown type 'cobol'")
    assert bad.result.is_error and bad.result.content.startswith("Invalid regex 'foo('")


async def test_grep_multiline_and_a_single_file(tree: Path) -> None:
    async with session(tree) as s:
        spanning = await s.one(
            "Grep", pattern=r"main\(\):.*getcwd", output_mode="content", multiline=True
        )
        single_line = await s.one("Grep", pattern=r"main\(\):.*getcwd")
        one_file = await s.one("Grep", pattern="def", path="src/util.py", output_mode="content")
        missing = await s.one("Grep", pattern="x", path="nope")
    app = tree / "src/app.py"
    assert spanning.result.content == f"{app}:3:def main():\n{app}:4:    return os.getcwd()"
    assert single_line.result.content.startswith("No matches for")
    assert one_file.result.content == f"{tree / 'src/util.py'}:1:def helper():"
    assert (
        missing.result.is_error
        and missing.result.content == f"Path does not exist: {tree / 'nope'}."
    )


async def test_grep_caps_its_output(tmp_path: Path) -> None:
    (tmp_path / "many.txt").write_text("match\n" * 10_000)
    async with session(tmp_path, output_cap=1000) as s:
        done = await s.one("Grep", pattern="match", output_mode="content")
    assert len(done.result.content) < 1200
    assert done.result.content.endswith(
        "(Output cut at 1000 characters; narrow the search with path, glob, type or head_limit.)"
    )


async def test_a_search_asked_into_an_ignored_folder_looks_there(tree: Path) -> None:
    # uv and virtualenv mark their folders with a .gitignore that ignores everything.
    (tree / "env").mkdir()
    (tree / "env" / ".gitignore").write_text("*\n")
    (tree / "env" / "site.py").write_text("# TODO in a dependency\n")
    async with session(tree) as s:
        everywhere = await s.one("Grep", pattern="TODO")
        in_env = await s.one("Grep", pattern="TODO", path="env")
        in_build = await s.one("Grep", pattern="TODO", path="build")
        globbed = await s.one("Glob", pattern="*.py", path="build")
    assert str(tree / "env") not in everywhere.result.content
    assert in_env.result.content == str(tree / "env/site.py")
    assert in_build.result.content == str(tree / "build/out.py")
    assert globbed.result.content == str(tree / "build/out.py")


async def test_glob_syntax_is_wcmatch_with_dotfiles_braces_classes_and_escapes(
    tmp_path: Path,
) -> None:
    for name in (".github/workflows/ci.yml", "a*b.txt", "axb.txt", "src/a.py", "src/b/c.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("hit\n")
    async with session(tmp_path) as s:
        dotted = await s.one("Glob", pattern="**/*.yml")
        escaped = await s.one("Glob", pattern="a\\*b.txt")
        classes = await s.one("Glob", pattern="src/[!a]/*.py")
        by_name = await s.one("Grep", pattern="hit", glob="*.py")
        by_path = await s.one("Grep", pattern="hit", glob="src/*.py")
    assert dotted.result.content == str(tmp_path / ".github/workflows/ci.yml")
    assert escaped.result.content == str(tmp_path / "a*b.txt")  # not axb.txt
    assert classes.result.content == str(tmp_path / "src/b/c.py")
    assert set(by_name.result.content.split("\n")) == {
        str(tmp_path / "src/a.py"),
        str(tmp_path / "src/b/c.py"),
    }
    assert by_path.result.content == str(tmp_path / "src/a.py")


def test_only_a_plain_word_is_taken_as_literal() -> None:
    assert literal_of("def __init__", ignore_case=False) == "def __init__"
    assert literal_of("def __init__", ignore_case=True) is None
    for pattern in ("a.b", "^a", "a$", "a|b", "a\\b", "(?i)a", "a{2}", "[a]", "a*", "a+?", ""):
        assert literal_of(pattern, ignore_case=False) is None


async def test_a_plain_word_finds_what_the_regex_finds(tmp_path: Path) -> None:
    (tmp_path / "crlf.txt").write_bytes(b"one\r\nneedle here\r\n")
    (tmp_path / "split.txt").write_text("need\nle\n")
    (tmp_path / "end.txt").write_text("no end line needle")
    (tmp_path / "none.txt").write_text("nothing\n")
    for name in ("crlf.txt", "split.txt", "end.txt", "none.txt"):
        os.utime(tmp_path / name, (1_000_000, 1_000_000))
    async with session(tmp_path) as s:
        plain = await s.one("Grep", pattern="needle", output_mode="content")
        regex = await s.one("Grep", pattern="need(le)", output_mode="content")
        counted = [
            await s.one("Grep", pattern=pattern, output_mode=mode)
            for pattern in ("needle", "need(le)")
            for mode in ("count", "files_with_matches")
        ]
    assert plain.result.content == regex.result.content
    assert [done.result.content for done in counted[:2]] == [
        done.result.content for done in counted[2:]
    ]
    assert counted[0].result.content == (f"{tmp_path / 'crlf.txt'}:1\n{tmp_path / 'end.txt'}:1")
    assert plain.result.content == "\n".join(
        [f"{tmp_path / 'crlf.txt'}:2:needle here", f"{tmp_path / 'end.txt'}:1:no end line needle"]
    )


async def test_a_pattern_with_a_nul_character_is_searched_for_not_an_error(
    tmp_path: Path,
) -> None:
    """No argument can hold a NUL: such a pattern goes to the Python matcher."""
    (tmp_path / "text.txt").write_bytes(b"x" * 9000 + b"\nbefore a\x00b after\n")
    async with session(tmp_path) as calls:
        found = await calls.one("Grep", pattern="a\x00b", output_mode="content", **{"-n": True})
        none = await calls.one("Grep", pattern="z\x00z")
    assert not found.result.is_error
    assert found.result.content == f"{tmp_path / 'text.txt'}:2:before a\x00b after"
    assert none.result.content == f"No matches for 'z\\x00z' in {tmp_path}."
