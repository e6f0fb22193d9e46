"""Grep, Glob and the ``@path`` listing through ripgrep: the same answers as the Python walk and
matcher, which take over where rg cannot run; nothing of a blocked file, not even whether it
matches; hostile names; and no rg left running after an interrupt.

The Python engine is the reference (its answers define the right ones). The differential tests
run both engines on the same cases: ``test_differential_*`` compares their answers to every
call in CALLS, one case for each thing the tools' descriptions promise, and the tests that take
``engine`` hold the same assertions on each."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.protocol import InterruptTools, ListFiles, RunTools, ToolFinished, ToolStarted
from actors.tool_executor import ToolExecutor, ripgrep, search_rg
from actors.tool_executor.walk import MAX_IGNORE_BYTES, read_ignore_file
from runtime import supervise
from tests.tool_executor.harness import call, session
from tests.tool_executor.test_walk_permissions import HeldBroker, tools

if TYPE_CHECKING:
    from pathlib import Path

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Grep", {"pattern": "TODO"}),
    ("Grep", {"pattern": "todo", "-i": True, "output_mode": "content"}),
    ("Grep", {"pattern": r"def \w+\(", "output_mode": "content", "-C": 1}),
    ("Grep", {"pattern": "TODO", "output_mode": "count"}),
    ("Grep", {"pattern": "TODO", "glob": "*.py", "output_mode": "content", "-n": False}),
    ("Grep", {"pattern": "TODO", "glob": "src/**/*.py"}),
    ("Grep", {"pattern": "TODO", "type": "ts"}),
    ("Grep", {"pattern": "line", "output_mode": "content", "head_limit": 3}),
    ("Grep", {"pattern": "first.*\n.*second", "multiline": True, "output_mode": "content"}),
    ("Grep", {"pattern": "first.*\n.*second", "multiline": True, "output_mode": "count"}),
    ("Grep", {"pattern": "end$", "output_mode": "content"}),
    ("Grep", {"pattern": "TODO", "path": "build", "output_mode": "content"}),
    ("Grep", {"pattern": "(?<=say )TODO", "output_mode": "content"}),
    ("Glob", {"pattern": "**/*.py"}),
    ("Glob", {"pattern": "*"}),
    ("Glob", {"pattern": "src/*.{py,ts}"}),
    ("Glob", {"pattern": "**/[a-m]*"}),
    ("Glob", {"pattern": "node_modules/**"}),
    # Syntax both read alike, on ASCII and beyond.
    *(
        ("Grep", {"pattern": pattern, "output_mode": "content", "path": "mixed"})
        for pattern in (
            r"\d+",
            r"\w+\s\w+$",
            r"\bwörld\b",
            r"[^a-z ]+",
            r"^\s*#",
            r"\S+$",
            r"a{2,}",
            r"[\w.-]+@[\w-]+\.\w+",
            r"(?i)HÉLLO",
            r"colou?r",
            r"\x41|\u00e9",
            r"\p{Lu}",
            r"\W\W",
            r"^$",
            r".",
            r"é{2}",
            r"[[]",
            r"\[x\]",
            r"(?:ab)+c",
        )
    ),
    ("Grep", {"pattern": "WÖRLD", "-i": True, "output_mode": "count", "path": "mixed"}),
    ("Grep", {"pattern": "TODO", "glob": "[a-u]*.py", "output_mode": "content"}),
    ("Grep", {"pattern": "TODO", "glob": "src/*.{py,ts}", "output_mode": "count"}),
    ("Grep", {"pattern": "TODO", "glob": "*.py", "type": "ts"}),
    # Context after and before, a limit on files and on counts, a single file as the path.
    ("Grep", {"pattern": "TODO", "output_mode": "content", "-A": 1}),
    ("Grep", {"pattern": "VALUE", "output_mode": "content", "-B": 1, "-n": False}),
    ("Grep", {"pattern": "TODO", "head_limit": 2}),
    ("Grep", {"pattern": "TODO", "output_mode": "count", "head_limit": 1}),
    ("Grep", {"pattern": "TODO", "path": "src/app.py", "output_mode": "content"}),
    ("Grep", {"pattern": "TODO", "type": "py", "output_mode": "count"}),
    # Dotfiles are included; ? stays within a name; Glob below a folder.
    ("Grep", {"pattern": "dotted", "glob": ".*", "output_mode": "content"}),
    ("Glob", {"pattern": "**/.*"}),
    ("Glob", {"pattern": "src/????.py"}),
    ("Glob", {"pattern": "*.py", "path": "src"}),
]


@pytest.fixture(params=["rg", "python"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each engine in turn: rg, or the Python walk and matcher, as where rg is missing."""
    if request.param == "python":
        monkeypatch.setattr(ripgrep, "locate", lambda: None)
    return str(request.param)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "src/app.py": "import os\n\ndef main():\n    return os.getcwd()  # TODO\n",
        "src/util.py": "def helper():\n    return 'say TODO later'\n",
        "src/deep/more.py": "# todo: nothing\nVALUE = 1\nfirst\nthen second\n",
        "src/web.ts": "export const todo = 1; // TODO\n",
        "src/crlf.txt": "the end\r\nnot the end.\r\n",
        "src/.env.sample": "dotted = 1\n",
        "README.md": "# Demo\nA TODO list.\n" + "a line\n" * 5,
        "node_modules/lib/index.js": "// TODO vendored\n",
        ".git/config": "[core] TODO\n",
        "build/out.py": "# TODO generated\n",
        "logs/app.log": "TODO in a log\n",
        ".gitignore": "build/\n*.log\n",
        ".ignore": "src/\n",  # rg's own ignore file: not the project's
        "mixed/text.txt": (
            "héllo wörld 42\n  # a comment\n\nmail me: a.b-c@d-e.org\naaa colour color\n"
            "A [x] ÉÉ ééé ababc\nTabs\tand  spaces \nUPPER Ünïcode Ωmega\n"
        ),
    }
    for index, (name, text) in enumerate(sorted(files.items())):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
        os.utime(path, (1_000_000 + index, 1_000_000 + index))
    (tmp_path / "src" / "blob.bin").write_bytes(b"TODO\x00\x01\x02")
    return tmp_path


async def answers(root: Path) -> list[str]:
    async with session(root) as s:
        results = [(await s.one(name, **args)).result.content for name, args in CALLS]
        listed: tuple[str, ...] = await s.executor.address.ask(ListFiles(limit=100))
        results.append("\n".join(listed))
    return results


async def test_differential_without_rg_the_python_walk_and_matcher_answer_the_same(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[list[str]] = []
    running = ripgrep.running

    def counted(rg: str, args: Any, cwd: str) -> Any:
        spawned.append(list(args))
        return running(rg, args, cwd)

    monkeypatch.setattr(ripgrep, "running", counted)
    with_rg = await answers(tree)
    assert len(spawned) >= len(CALLS)  # rg did the work (and refused the look-behind)
    not_executable = tree / ".git" / "rg"  # where no walk looks
    not_executable.write_text("not a program\n")
    monkeypatch.setattr(ripgrep, "locate", lambda: str(not_executable))
    without = await answers(tree)
    assert with_rg == without
    assert with_rg[0].split("\n") == [
        str(tree / name) for name in ("src/web.ts", "src/util.py", "src/app.py", "README.md")
    ]
    assert with_rg[10] == f"{tree / 'src/crlf.txt'}:1:the end"
    assert with_rg[12] == f"{tree / 'src/util.py'}:2:    return 'say TODO later'"


@pytest.mark.parametrize(
    ("pattern", "alike"),
    [
        (r"def \w+\(self", True),
        (r"[a-z]+\d{2,3}\b", True),
        (r"(?i)todo|(?:x)", True),
        (r"[]a]", True),
        (r"\<word\>", False),  # word boundaries to rg, the characters to Python
        (r"[[:alpha:]]", False),  # a POSIX class to rg, a class with "[" ":" ... to Python
        (r"[a-z&&[^aeiou]]", False),
        (r"(a)\1", False),
        (r"(?x) a b", False),
    ],
)
def test_patterns_rg_would_read_otherwise_go_to_python(pattern: str, alike: bool) -> None:
    assert search_rg.alike(pattern) is alike


@pytest.mark.parametrize("mode", ["files_with_matches", "content", "count"])
async def test_a_blocked_file_does_not_tell_whether_it_matches(
    tmp_path: Path, mode: str, engine: str
) -> None:
    (tmp_path / ".env").write_text("KEY=abc\n")
    (tmp_path / "notes.txt").write_text("KEY=a and KEY=z are both here\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("nothing\n")
    async with tools(tmp_path, "auto", blockedPaths=[".env"]) as run:
        hit = await run("Grep", pattern="KEY=a", output_mode=mode)
        miss = await run("Grep", pattern="KEY=z", output_mode=mode)
        nowhere_hit = await run("Grep", pattern="KEY=ab", path="src", output_mode=mode)
        nowhere_miss = await run("Grep", pattern="KEY=zz", path="src", output_mode=mode)
    assert hit.content.encode() == miss.content.encode()  # notes.txt, byte for byte
    assert nowhere_hit.content == nowhere_miss.content.replace("KEY=zz", "KEY=ab")
    assert "abc" not in hit.content + miss.content


async def test_hostile_names_and_files(tmp_path: Path, engine: str) -> None:
    names = ["-rf.py", "a:1:b.py", "new\nline.py", "--files.py"]
    for name in names:
        (tmp_path / name).write_text("hit\n")
    (tmp_path / ".ripgreprc").write_text("--files-without-match\n")
    os.mkfifo(tmp_path / "pipe.py")  # rg would wait on it forever
    (tmp_path / "link.py").symlink_to(tmp_path / "-rf.py")
    async with session(tmp_path) as s:
        content = (await s.one("Grep", pattern="hit", output_mode="content")).result.content
        counted = (await s.one("Grep", pattern="hit", output_mode="count")).result.content
        listed = (await s.one("Glob", pattern="*.py")).result.content
    expected = sorted(str(tmp_path / name) for name in names)
    assert content == "\n".join(f"{path}:1:hit" for path in expected)
    assert counted == "\n".join(f"{path}:1" for path in expected)
    assert sorted(listed.split("\n")) != []  # a newline in a name splits its line, as ever
    assert "pipe.py" not in listed and "link.py" not in listed


async def test_an_interrupt_kills_rg_at_once(tmp_path: Path) -> None:
    for index in range(200):
        (tmp_path / f"f{index}.txt").write_text("x matches\n" * 2000)
    broker = HeldBroker()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path))
    the_call = call("Grep", pattern="x", output_mode="content")
    seen_running: list[int] = []
    async with supervise([broker, executor]):
        async with executor.address.stream(RunTools((the_call,))) as stream:
            async for event in stream:
                if isinstance(event, ToolStarted):
                    await broker.holding.wait()  # rg has written what the pipe holds, and waits
                    seen_running.extend(rg_in(tmp_path))
                    await executor.address.tell(InterruptTools(ids=(the_call.id,)))
                elif isinstance(event, ToolFinished):
                    assert event.result.content.startswith("Interrupted after")
        assert seen_running
        assert rg_in(tmp_path) == []


def rg_in(folder: Path) -> list[int]:
    """The rg processes working in ``folder``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/stat") as file:
                state = file.read().rsplit(")", 1)[1].split()[0]
            exe = os.path.basename(os.readlink(f"/proc/{pid}/exe"))
        except OSError:
            continue
        if cwd == str(folder) and exe == "rg" and state != "Z":
            found.append(int(pid))
    return found


async def test_ignore_files_above_the_project_do_not_count(tmp_path: Path, engine: str) -> None:
    # rg looks for .gitignore files up to / from a folder inside, past a repository too.
    (tmp_path / ".gitignore").write_text("*.txt\n")
    root = tmp_path / "project"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.txt").write_text("found\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "sub" / "b.log").write_text("found\n")
    assert ripgrep.walk_args(str(root), str(root)) is not None
    assert ripgrep.walk_args(str(root / "sub"), str(root)) is None  # the Python walk's then
    (root / ".git").mkdir()
    assert ripgrep.walk_args(str(root / "sub"), str(root)) is None
    for git in (True, False):
        if not git:
            (root / ".git").rmdir()
        async with session(root) as s:
            whole = (await s.one("Grep", pattern="found")).result.content
            sub = (await s.one("Grep", pattern="found", path="sub")).result.content
            listed = (await s.one("Glob", pattern="sub/*")).result.content
        assert whole == sub == listed == str(root / "sub" / "a.txt")


async def test_files_over_20_mb_are_not_searched(tmp_path: Path, engine: str) -> None:
    (tmp_path / "big.txt").write_bytes(b"found\n" + b"x" * (20 * 2**20))
    (tmp_path / "small.txt").write_text("found\n")
    async with session(tmp_path) as s:
        found = (await s.one("Grep", pattern="found")).result.content
        named = (await s.one("Grep", pattern="found", path="big.txt")).result.content
    assert found == str(tmp_path / "small.txt")
    assert named == f"No matches for 'found' in {tmp_path / 'big.txt'}."


async def test_a_long_line_full_of_matches_is_read_by_the_python_matcher(tmp_path: Path) -> None:
    # rg's JSON would list every one of the million matches: the Python matcher takes over.
    (tmp_path / "long.txt").write_text("x" * 2**20 + "\n")
    async with session(tmp_path) as s:
        done = await s.one("Grep", pattern="x", output_mode="content")
    assert done.result.content == f"{tmp_path / 'long.txt'}:1:{'x' * 500} [...]"


async def test_a_long_pattern_rg_refuses_is_matched_by_python(tmp_path: Path) -> None:
    # Python reads {,1} as {0,1}, rg refuses it, and its error quotes the pattern: more than
    # a pipe holds.
    (tmp_path / "a.txt").write_text("ab\n")
    pattern = "(?:" + "x" * 40_000 + ")?a{,1}b"
    assert search_rg.alike(pattern)
    async with session(tmp_path) as s:
        done = await s.one("Grep", pattern=pattern)
    assert done.result.content == str(tmp_path / "a.txt")


async def test_rg_runs_with_its_memory_capped(tmp_path: Path) -> None:
    rg = ripgrep.locate()
    assert rg is not None
    async with ripgrep.running(rg, ["--files", "--", "./"], str(tmp_path)) as run:
        limits = await anyio.Path(f"/proc/{run.process.pid}/limits").read_text()
    line = next(line for line in limits.split("\n") if line.startswith("Max data size"))
    assert line.split()[3:5] == [str(ripgrep.MAX_MEMORY)] * 2


async def test_an_ignore_file_that_never_ends_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile repository's .gitignore, a symlink to /dev/zero (git keeps symlinks): rg
    follows it and reads until its memory cap; the Python walk then answers, and it does not
    follow it, as git does not."""
    monkeypatch.setattr(ripgrep, "MAX_MEMORY", 64 * 2**20)  # the cap, reached sooner
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.txt").write_text("hello again\n")
    (tmp_path / "sub" / ".gitignore").symlink_to("/dev/zero")
    with anyio.fail_after(30):
        async with session(tmp_path) as s:
            content = (await s.one("Grep", pattern="hello", output_mode="content")).result
            listed = (await s.one("Glob", pattern="**/*.txt")).result
    assert content.content.split("\n") == [
        f"{tmp_path / 'a.txt'}:1:hello",
        f"{tmp_path / 'sub' / 'b.txt'}:1:hello again",
    ]
    assert sorted(listed.content.split("\n")) == [
        str(tmp_path / "a.txt"),
        str(tmp_path / "sub" / "b.txt"),
    ]


@pytest.mark.parametrize("kind", ["symlink", "fifo", "too big", "plain"])
def test_an_ignore_file_is_read_only_when_it_is_a_small_regular_file(
    tmp_path: Path, kind: str
) -> None:
    path = tmp_path / ".gitignore"
    if kind == "symlink":
        (tmp_path / "real").write_text("*.log\n")
        path.symlink_to(tmp_path / "real")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "too big":
        path.write_bytes(b"#" * (MAX_IGNORE_BYTES + 1))
    else:
        path.write_text("*.log\n")
    assert read_ignore_file(str(path)) == (b"*.log\n" if kind == "plain" else None)
