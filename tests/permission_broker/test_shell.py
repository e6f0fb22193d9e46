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
    ("echo $(( 4 * 2 ))", [("echo", None)]),
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
    ("echo $'\\x41\\n'", [("echo", "A\n")]),  # ANSI-C quoting is decoded
    ("$'\\x67it' push", [("git", "push")]),
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
    # bash evaluates the output as arithmetic: 'a[$(cmd)]' there runs cmd
    ("echo $(( $(nproc) * 2 ))", "'$(( $(nproc) * 2 ))' has bash evaluate a value as code"),
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


@pytest.mark.parametrize(
    "line", ["echo x > $OUT", "echo x > .en[v]", "echo x > *.log", "echo x > ~root/x", "a > {a,b}"]
)
def test_a_redirection_whose_target_is_only_known_at_run_time_has_no_target(line: str) -> None:
    (redirect,) = parse_command_line(line).redirects
    assert redirect.target is None


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


# ── redirections are file operations ────────────────────────────────────────────────────────

# (line, (target, reads, writes) of each file operation)
REDIRECTS: list[tuple[str, list[tuple[str | None, bool, bool]]]] = [
    ("cat < a > b >> c", [("a", True, False), ("b", False, True), ("c", False, True)]),
    (
        "x 2> d &> e &>> f >| g",
        [("d", False, True), ("e", False, True), ("f", False, True), ("g", False, True)],
    ),
    ("cat <> h", [("h", True, True)]),
    ("echo >& i", [("i", False, True)]),
    ("ls 2>&1 >&2 <&0 2>&- 3<&-", []),  # another descriptor, not a file
    ("cmd > >(tee log)", []),  # a pipe to a command, which is found like any other
    ("cat <<< hi; cat <<EOF\nx\nEOF", []),
    ("echo $(<.env)", [(".env", True, False)]),
    ("echo > ~/x > ~ > ~root/y", [("~/x", False, True), ("~", False, True), (None, False, True)]),
    ("find . -fprint list", [("list", False, True)]),
]


@pytest.mark.parametrize(("line", "expected"), REDIRECTS, ids=[r[0] for r in REDIRECTS])
def test_each_redirection_reads_or_writes_its_target(
    line: str, expected: list[tuple[str | None, bool, bool]]
) -> None:
    parsed = parse_command_line(line)
    assert parsed.problems == []
    assert [(r.target, r.reads, r.writes) for r in parsed.redirects] == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("cat > out .env", [("cat", ".env")]),
        ("ls >out -la && cat <in .env x", [("ls", "-la"), ("cat", ".env", "x")]),
        ("echo hi > out.txt rm -rf", [("echo", "hi", "rm", "-rf")]),
        ("> out rm -rf /", [("rm", "-rf", "/")]),
    ],
)
def test_words_after_a_redirection_target_are_the_commands_arguments(
    line: str, expected: list[W]
) -> None:
    assert [c.words for c in parse_command_line(line).commands] == expected


def test_a_change_of_folder_anywhere_in_the_line_is_noted() -> None:
    parsed = parse_command_line("echo x > a; cd src && pushd ../b; cd; builtin cd $X")
    assert parsed.changes_directory
    assert parsed.directories == ["src", "~"]
    assert not parse_command_line("ls > a").changes_directory


# ── variables the line sets ─────────────────────────────────────────────────────────────────


def test_variables_set_for_one_command_are_kept_with_it() -> None:
    (command,) = parse_command_line('FOO=1 BAR="$(x)" make -j2').commands[:1]
    assert command.words == ("make", "-j2")
    assert command.assignments == ("FOO", "BAR")


def test_variables_set_in_the_shell_are_listed_with_whether_they_are_exported() -> None:
    parsed = parse_command_line(
        "A=1; B=2 C=3; export D=4 E; declare -x F; local G; for H in x; do read -r I -a J; "
        "done; printf -v K x; L=1 > out"
    )
    assert [(a.name, a.exported) for a in parsed.assignments] == [
        ("A", False), ("B", False), ("C", False), ("D", True), ("E", True), ("F", True),
        ("G", False), ("H", False), ("I", False), ("J", False), ("K", False), ("L", False),
    ]  # fmt: skip
    assert not parsed.exports_all
    assert parse_command_line("set -ea; X=1").exports_all
    assert parse_command_line("set -o allexport").exports_all


# ── what a command runs from its words ──────────────────────────────────────────────────────


def _runs(line: str) -> list[tuple[int, W]]:
    """Each (offset, words) that the first command runs, depth first."""
    found: list[tuple[int, W]] = []
    stack = list(reversed(parse_command_line(line).commands[0].runs))
    while stack:
        run = stack.pop()
        found.append((run.offset, run.command.words))
        stack.extend(reversed(run.command.runs))
    return found


RUNS: list[tuple[str, list[tuple[int, W]]]] = [
    ("sudo -u bob make", [(3, ("make",))]),
    ("sudo -E A=1 make", [(3, ("make",))]),
    ("sudo -l", []),
    ("env -i A=1 B=2 make x", [(4, ("make", "x"))]),
    ("env -u A -- make", [(4, ("make",))]),
    (
        "nice -n 5 nohup timeout -s KILL 10 make",
        [
            (3, ("nohup", "timeout", "-s", "KILL", "10", "make")),
            (1, ("timeout", "-s", "KILL", "10", "make")),
            (4, ("make",)),
        ],
    ),
    ("nice -10 make", [(2, ("make",))]),
    ("command -v make", []),
    ("command -p make", [(2, ("make",))]),
    ("stdbuf -oL make", [(2, ("make",))]),
    ("time -p make", [(2, ("make",))]),
    ("chroot /srv make", [(2, ("make",))]),
    ("flock /tmp/lock make", [(2, ("make",))]),
    ("watch -n 1 -x make", [(4, ("make",))]),
    ("runuser -u bob -- make", [(4, ("make",))]),
    ("xargs -n1 -P4 grep x", [(3, ("grep", "x", None))]),  # input items are appended
    ("xargs -I{} cp {} dst", [(2, ("cp", None, "dst"))]),
    ("xargs -i cp {} dst", [(2, ("cp", None, "dst"))]),
    ("xargs", []),
    ("find . -name x -exec rm -f {} \\; -print", [(5, ("rm", "-f", None))]),
    ("find . -execdir mv {} x +", [(3, ("mv", None, "x", "+"))]),  # '+' ends it only after {}
    ("find . -ok a {} + -delete", [(3, ("a", None)), (6, ("rm",))]),
    ("uv run --frozen pytest -q", [(3, ("pytest", "-q"))]),
    ("uv -q run pytest", [(3, ("pytest",))]),
    ("npx -y eslint .", [(2, ("eslint", "."))]),
    ("poetry run -q pytest", [(3, ("pytest",))]),
    ("parallel -q gzip ::: a b", [(2, ("gzip",))]),
    ("git -C src status", []),  # not a wrapper
]


@pytest.mark.parametrize(("line", "expected"), RUNS, ids=[r[0] for r in RUNS])
def test_what_a_command_runs_from_its_words_is_kept_with_it(
    line: str, expected: list[tuple[int, W]]
) -> None:
    assert parse_command_line(line).problems == []
    assert _runs(line) == expected


# (line, every command found: the scripts that wrappers run are parsed like bash -c's)
WRAPPED_SCRIPTS: list[tuple[str, list[W]]] = [
    ("watch make test", [("watch", "make", "test"), ("make", "test")]),
    ("su -c 'make x' bob", [("su", "-c", "make x", "bob"), ("make", "x")]),
    ("flock l -c 'make'", [("flock", "l", "-c", "make"), ("make",)]),
    ("env -S 'A=1 make'", [("env", "-S", "A=1 make"), ("make",)]),
    ("parallel gzip {} ::: a", [("parallel", "gzip", "{}", ":::", "a"), ("gzip", "{}")]),
    ("npx -c 'make'", [("npx", "-c", "make"), ("make",)]),
]


@pytest.mark.parametrize(("line", "expected"), WRAPPED_SCRIPTS, ids=[w[0] for w in WRAPPED_SCRIPTS])
def test_the_script_a_wrapper_runs_is_parsed_in_turn(line: str, expected: list[W]) -> None:
    parsed = parse_command_line(line)
    assert parsed.problems == []
    assert [c.words for c in parsed.commands] == expected


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("sudo -Z x make", "cannot tell what 'sudo -Z x make' runs: its option '-Z' is not one"),
        ("timeout $T make", "cannot tell what 'timeout $T make' runs: a word before its command"),
        ("ls | parallel", "cannot tell what 'parallel' runs: it reads the commands it runs"),
        ("watch $X", "the script in 'watch $X' is only known when it runs"),
    ],
)
def test_a_wrapper_whose_command_cannot_be_located_is_a_problem(line: str, problem: str) -> None:
    problems = parse_command_line(line).problems
    assert problems
    assert problems[0].startswith(problem)


def test_words_that_expand_to_file_names_are_kept_as_patterns() -> None:
    (command,) = parse_command_line("cat *.py 'a*' src/{a,b}.txt x{1..2} \"$X\"/*").commands
    assert command.patterns == ("*.py", "src/{a,b}.txt", "x{1..2}")
