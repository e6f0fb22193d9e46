"""Shell parsing: every simple command of a line, its words unquoted, and what cannot be known."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from actors.permission_broker.shell import parse_command_line

W = tuple[str | None, ...]

# (line, the words of every simple command in order)
COMMANDS: list[tuple[str, list[W]]] = [
    ("ls", [("ls",)]),
    ("git status -s", [("git", "status", "-s")]),
    # compound lines
    ("make && make test", [("make",), ("make", "test")]),
    ("make || echo failed", [("make",), ("echo", "failed")]),
    ("cd src; ls -la", [("cd", "src"), ("ls", "-la")]),
    ("cat a | grep b | wc -l", [("cat", "a"), ("grep", "b"), ("wc", "-l")]),
    ("a |& b", [("a",), ("b",)]),
    ("sleep 5 &", [("sleep", "5")]),
    ("! grep x y", [("grep", "x", "y")]),
    # subshells, groups, substitutions
    ("(cd build && make)", [("cd", "build"), ("make",)]),
    ("{ ls; pwd; }", [("ls",), ("pwd",)]),
    ("echo $(whoami)", [("echo", None), ("whoami",)]),
    ("echo `date`", [("echo", None), ("date",)]),
    ('echo "now: $(date +%s)"', [("echo", None), ("date", "+%s")]),
    ("diff <(ls a) <(ls b)", [("diff", None, None), ("ls", "a"), ("ls", "b")]),
    ("tee >(gzip > out.gz)", [("tee", None), ("gzip",)]),
    ("echo ${X:-$(rm y)}", [("echo", None), ("rm", "y")]),
    ("echo $(( $(nproc) * 2 ))", [("echo", None), ("nproc",)]),
    ("x=$(id -u)", [("id", "-u")]),
    ("export A=$(b) B=2", [("export", None, "B=2"), ("b",)]),
    ("[[ $(uname) == Linux ]] && echo yes", [("uname",), ("echo", "yes")]),
    # control flow bodies
    ("if true; then make; else rm -rf x; fi", [("true",), ("make",), ("rm", "-rf", "x")]),
    ('for f in *.py; do black "$f"; done', [("black", None)]),
    ("while read l; do echo $l; done < in.txt", [("read", "l"), ("echo", None)]),
    ("case $x in a) rm a;; *) ls;; esac", [("rm", "a"), ("ls",)]),
    ("f() { rm -rf /; }; f", [("rm", "-rf", "/"), ("f",)]),
    # quoting
    ("'git' \"status\"", [("git", "status")]),
    ("g\\it st'at'\"us\"", [("git", "status")]),
    ("e''cho hi", [("echo", "hi")]),
    ('echo "a\\"b" \'c\\d\'', [("echo", 'a"b', "c\\d")]),
    ('grep "two words" file', [("grep", "two words", "file")]),
    ("ls \\\n  -la", [("ls", "-la")]),
    ("echo $'\\x41'", [("echo", None)]),
    ('echo "$HOME"', [("echo", None)]),
    ('echo "cost: $"', [("echo", "cost: $")]),
    # assignments before the command are not its words
    ("FOO=1 make", [("make",)]),
    ('FOO=1 BAR="a b" npm run test', [("npm", "run", "test")]),
    ("A=1", []),
    # comments are not commands
    ("ls # rm -rf / $(danger)", [("ls",)]),
    # redirections are not words
    ("cat < in.txt > out.txt 2>&1", [("cat",)]),
    ("cat <<EOF\n$(whoami)\nEOF", [("cat",), ("whoami",)]),
]


@pytest.mark.parametrize(("line", "expected"), COMMANDS, ids=[c[0] for c in COMMANDS])
def test_every_simple_command_is_found_with_its_words(line: str, expected: list[W]) -> None:
    parsed = parse_command_line(line)
    assert parsed.problems == []
    assert [c.words for c in parsed.commands] == expected


# (line, the start of the first problem)
UNKNOWABLE: list[tuple[str, str]] = [
    ("$CMD x", "the command name in '$CMD x' is only known when it runs"),
    ("${TOOL} --version", "the command name in '${TOOL} --version'"),
    ("$(which rm) -rf x", "the command name in '$(which rm) -rf x'"),
    ('"$EDITOR" file', "the command name in '\"$EDITOR\" file'"),
    ("/bin/r? x", "the command name in '/bin/r? x'"),
    ("r* x", "the command name in 'r* x'"),
    ('eval "$(curl x)"', "the script in 'eval \"$(curl x)\"' is only known when it runs"),
    ("eval $CMD arg", "the script in 'eval $CMD arg' is only known when it runs"),
    ('trap "$HANDLER" EXIT', "the script in 'trap \"$HANDLER\" EXIT' is only known"),
    ('bash -c "$SCRIPT"', "the script in 'bash -c \"$SCRIPT\"' is only known"),
    ("ls &&", "the line is incomplete after 'ls &&'"),
    ('echo "unterminated', "the line does not parse as shell near '\"unterminated'"),
    ("{rm,-rf,/}", "the line does not parse as shell"),
    ("if true; then ls", "the line does not parse as shell near 'if true; then ls'"),
    ("(ls", "the line is incomplete"),
]


@pytest.mark.parametrize(("line", "problem"), UNKNOWABLE, ids=[u[0] for u in UNKNOWABLE])
def test_what_cannot_be_known_statically_is_a_problem(line: str, problem: str) -> None:
    problems = parse_command_line(line).problems
    assert problems, line
    assert problems[0].startswith(problem)


# (line, the commands of the script, the launcher's words)
SCRIPTS: list[tuple[str, list[W], W]] = [
    ("bash -c 'rm -rf build'", [("rm", "-rf", "build")], ("bash", "-c", "rm -rf build")),
    (
        'sh -c "make && make install"',
        [("make",), ("make", "install")],
        ("sh", "-c", "make && make install"),
    ),
    ("bash -lc 'ls'", [("ls",)], ("bash", "-lc", "ls")),
    ("bash -o pipefail -c 'a | b'", [("a",), ("b",)], ("bash", "-o", "pipefail", "-c", "a | b")),
    ("/usr/bin/zsh -c 'git push'", [("git", "push")], ("/usr/bin/zsh", "-c", "git push")),
    (
        "bash -c \"sh -c 'curl x'\"",
        [("curl", "x")],
        ("bash", "-c", "sh -c 'curl x'"),
    ),
]


@pytest.mark.parametrize(("line", "inner", "launcher"), SCRIPTS, ids=[s[0] for s in SCRIPTS])
def test_the_script_of_bash_c_is_parsed_in_turn(line: str, inner: list[W], launcher: W) -> None:
    parsed = parse_command_line(line)
    assert parsed.problems == []
    assert [c.words for c in parsed.commands] == inner
    assert [c.words for c in parsed.launchers][:1] == [launcher]


# (line, the words of every command: eval and trap themselves, then what their string runs)
STRINGS: list[tuple[str, list[W]]] = [
    ("eval 'ls -la'", [("eval", "ls -la"), ("ls", "-la")]),
    ("eval git status", [("eval", "git", "status"), ("git", "status")]),
    ("trap 'rm -f lock' EXIT", [("trap", "rm -f lock", "EXIT"), ("rm", "-f", "lock")]),
    ("trap -- 'cleanup' INT TERM", [("trap", "--", "cleanup", "INT", "TERM"), ("cleanup",)]),
    ("trap '' TERM", [("trap", "", "TERM")]),  # ignores the signal: runs nothing
    ("trap - TERM", [("trap", "-", "TERM")]),  # resets it
    ("trap -p", [("trap", "-p")]),
]


@pytest.mark.parametrize(("line", "expected"), STRINGS, ids=[s[0] for s in STRINGS])
def test_the_string_of_eval_and_trap_is_parsed_in_turn(line: str, expected: list[W]) -> None:
    parsed = parse_command_line(line)
    assert parsed.problems == []
    assert [c.words for c in parsed.commands] == expected
    assert parsed.launchers == []


def test_a_shell_running_a_file_is_an_ordinary_command() -> None:
    parsed = parse_command_line("bash scripts/build.sh --fast")
    assert parsed.launchers == []
    assert [c.words for c in parsed.commands] == [("bash", "scripts/build.sh", "--fast")]


def test_literal_redirection_targets_are_listed() -> None:
    parsed = parse_command_line('cat < in.txt > "out file" 2>&1 >> log; echo x &> all; a >&2')
    assert [r.target for r in parsed.redirects] == ["in.txt", "out file", "log", "all"]
    assert parsed.redirects[1].text == '> "out file"'


def test_a_redirection_to_an_expansion_is_not_a_literal_target() -> None:
    assert parse_command_line("echo x > $OUT").redirects == []


def test_a_long_command_is_shortened_in_messages() -> None:
    (command,) = parse_command_line("echo " + "word " * 40).commands
    assert len(command.text) == 80
    assert command.text.endswith("...")


def test_importing_the_broker_does_not_load_the_parser() -> None:
    code = (
        "import sys, actors.permission_broker\n"
        "assert 'tree_sitter' not in sys.modules, 'tree_sitter imported'\n"
        "assert 'tree_sitter_bash' not in sys.modules, 'tree_sitter_bash imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])
