"""The refusal lines from output alone: the forms programs print a refused path in, the layout
as the judge, and the bounds on what a command's output can make the lines say."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.sandbox.layout import Layout
from actors.tool_executor.sandbox.refusals import MAX_PATHS, REMEDY, explain

if TYPE_CHECKING:
    from pathlib import Path

OUTSIDE = (
    "it is outside the places commands may write (the project, $TMPDIR and the folders in "
    "sandbox.allowWrite)"
)
GIT = "it is read-only to commands (git runs the programs its config and hooks name)"


@pytest.fixture
def project(tmp_path: Path) -> str:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return os.path.realpath(root)


def layout_for(project: str) -> Layout:
    return Layout(
        tmpdir="/tmp/legato-tmp-test",
        writable=(project, "/srv/cache"),
        read_only=(f"{project}/.git/config", f"{project}/.git/hooks"),
        sealed=((f"{project}/.legato", True),),
        hidden=((f"{project}/.env", False), ("/home/u/.ssh", True)),
        network=True,
        denied=("/home/u/.ssh",),
    )


def lines(project: str, output: str) -> list[str]:
    return explain(output, layout_for(project), project)


@pytest.mark.parametrize(
    ("output", "line"),
    [
        ("error: could not lock config file .git/config: Read-only file system", GIT),
        ("error: could not write config file .git/config: Device or resource busy", GIT),
        ("Error: EROFS: read-only file system, open '/x/y'", OUTSIDE),
        ("Error: EBUSY: resource busy or locked, rename 'a.tmp' -> '.git/config'", GIT),
        ("Error: EACCES: permission denied, open '.env'", "it is unreadable to commands "
         "(blockedPaths)"),
        ("Error: ENOENT: no such file or directory, open '/home/u/.ssh/id'", "/home/u/.ssh/ is "
         "unreadable to commands (sandbox.denyRead)"),
        ("mkdir: cannot create directory ‘.legato/skills’: Read-only file system",
         ".legato/ is read-only to commands (Legato's own settings)"),
        ('OSError: [Errno 16] Device or resource busy: "it\'s.tmp" -> \'.git/config\'', GIT),
        ("sed: couldn't open temporary file /etc/sedX1: Read-only file system", OUTSIDE),
    ],
)  # fmt: skip
def test_the_forms_programs_name_a_path_in(project: str, output: str, line: str) -> None:
    found = lines(project, output)
    assert len(found) == 2 and found[0].endswith(f": {line}.") and found[1] == REMEDY


def test_the_layout_decides_not_the_words(project: str) -> None:
    assert (
        lines(project, "touch: cannot touch '/tmp/legato-tmp-test/x': Read-only file system") == []
    )
    assert lines(project, "touch: cannot touch '/srv/cache/x': Read-only file system") == []
    assert lines(project, "cat: /etc/shadow: Permission denied") == []  # not hidden: not ours
    assert lines(project, "bash: /dev/tcp/x: Read-only file system") == []  # the sandbox's own
    # A project file that is a link out of the writable places is judged where it leads.
    os.symlink("/etc/hosts", f"{project}/hosts")
    (line, _) = lines(project, "bash: line 1: hosts: Read-only file system")
    assert line == f"The sandbox refused 'hosts': {OUTSIDE}."


def test_a_few_paths_at_most_each_once(project: str) -> None:
    output = "\n".join(f"touch: cannot touch '/x/{n}': Read-only file system" for n in range(9))
    found = lines(project, output + "\nbash: /x/0: Read-only file system")
    assert found[:MAX_PATHS] == [f"The sandbox refused '/x/{n}': {OUTSIDE}." for n in range(3)]
    assert found[MAX_PATHS:] == ["It refused 6 other paths too.", REMEDY]


def test_names_cannot_break_the_line_nor_the_quotes(project: str) -> None:
    hostile = "/x/a\x1b[2J\u202eb\u2028c'd\\e"
    (line, _) = lines(project, f"bash: line 1: {hostile}: Read-only file system")
    assert line == f"The sandbox refused '/x/a\\x1b[2J\\u202eb\\u2028c\\'d\\\\e': {OUTSIDE}."
    (long, _) = lines(project, f"bash: line 1: /{'y' * 5000}/z: Read-only file system")
    name = long.split("'")[1]
    assert len(name) == 119 and name == f"/{'y' * 58}…{'y' * 57}/z"


def test_a_hidden_service_socket_is_named_with_the_setting_that_opens_it(project: str) -> None:
    plan = Layout(
        tmpdir="/tmp/legato-tmp-test",
        writable=(project,),
        read_only=(),
        sealed=(),
        hidden=(("/run/user/1000", True), ("/run/docker.sock", False)),
        network=True,
        services=("/run/user/1000", "/run/docker.sock"),
    )
    said = (
        'socat: E connect(5, AF=1 "/run/docker.sock", 18): Connection refused\n'
        "dbus-send: /run/user/1000/bus: No such file or directory\n"
    )
    lines = explain(said, plan, project)
    assert lines[:2] == [
        "The sandbox refused '/run/docker.sock': it is where a service outside the sandbox "
        "listens, out of commands' reach (sandbox.allowUnixSockets lets a socket through).",
        "The sandbox refused '/run/user/1000/bus': /run/user/1000/ is where a service outside "
        "the sandbox listens, out of commands' reach (sandbox.allowUnixSockets lets a socket "
        "through).",
    ]
    assert lines[-1] == REMEDY
