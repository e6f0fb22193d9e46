"""Command rules: prefix matching of words, globs in entries, compound lines, blocked wins."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.command_rules import CommandEntry
from actors.permission_broker.rules import Rules
from actors.protocol import ProjectSettings

if TYPE_CHECKING:
    from pathlib import Path

ALLOWED = (
    "git status", "git diff", "ls", "sleep", "npm run *", "make", "grep", "echo", "cd", "find",
    "xargs", "sudo", "timeout 10 python", "uv run *",
)  # fmt: skip
BLOCKED = ("rm", "git push", "curl")


@pytest.fixture
def rules(tmp_path: Path) -> Rules:
    settings = ProjectSettings(
        allowed_commands=ALLOWED, blocked_commands=BLOCKED, blocked_paths=(".env", "secrets/")
    )
    return Rules(str(tmp_path), settings)


# (entry, words, matches)
ENTRY_MATCHES: list[tuple[str, tuple[str | None, ...], bool]] = [
    ("git status", ("git", "status"), True),
    ("git status", ("git", "status", "-s"), True),
    ("git status", ("git", "statusx"), False),
    ("git status", ("git", "push"), False),
    ("git status", ("git",), False),
    ("sleep", ("sleep", "5"), True),
    ("npm run *", ("npm", "run", "test"), True),
    ("npm run *", ("npm", "run", "test", "--watch"), True),
    ("npm run *", ("npm", "run"), False),
    ("npm run *", ("npm", "install"), False),
    ("npm run t*", ("npm", "run", "test"), True),
    ("npm run t*", ("npm", "run", "build"), False),
    ("git *", ("git", "a b"), True),  # one word, quoted: * stays within it
    ('grep "two words"', ("grep", "two words", "f"), True),
    ('grep "two words"', ("grep", "two", "words"), False),
    ("git status", ("git", None), False),  # an unknown word matches no allowed entry
    ("", ("anything",), False),  # an empty entry matches nothing
    ("rm.", ("rmx",), False),  # entries are literal but for *
]


@pytest.mark.parametrize(("entry", "words", "expected"), ENTRY_MATCHES)
def test_an_entry_matches_commands_whose_words_begin_with_its_words(
    entry: str, words: tuple[str | None, ...], expected: bool
) -> None:
    assert CommandEntry.parse(entry).matches(words) is expected


# (blocked entry, words, blocks): every spelling that runs what the entry names
ENTRY_BLOCKS: list[tuple[str, tuple[str | None, ...], bool]] = [
    ("git push", ("git", "push", "origin"), True),
    ("git push", ("/usr/bin/git", "push"), True),
    ("git push", ("git", "-C", ".", "push"), True),
    ("git push", ("git", "-c", "a=b", "--no-pager", "--git-dir=x", "push"), True),
    ("git push", ("git", "--unknown-flag", "push"), True),  # errs on the side of blocking
    ("git push", ("git", "-C", "push", "status"), True),  # even where 'push' is a folder
    ("git push", ("git", "stash", "push"), False),  # another subcommand
    ("git push", ("git", "commit", "-m", "push"), False),  # a value past the subcommand
    ("git push", ("git", "log", "push"), False),
    ("git push", ("git",), False),
    ("git push --force", ("git", "push", "origin", "main", "--force"), True),
    ("git push --force", ("git", "push", "--force-with-lease"), False),
    ("rm -rf /", ("rm", "-rf", "--", "/"), True),
    ("rm -rf /", ("rm", "-r", "-f", "/"), False),  # entries name options as written
    ("npm publish", ("npm", "--tag", "beta", "publish"), True),
    ("docker compose down", ("docker", "compose", "-f", "x.yml", "down"), True),
    ("git push", ("git", None, "push"), False),  # might be: could_block says so
]


@pytest.mark.parametrize(("entry", "words", "expected"), ENTRY_BLOCKS)
def test_a_blocked_entry_matches_every_spelling_of_what_it_names(
    entry: str, words: tuple[str | None, ...], expected: bool
) -> None:
    assert CommandEntry.parse(entry).blocks(words) is expected


def test_a_word_known_only_at_run_time_could_be_what_an_entry_names() -> None:
    entry = CommandEntry.parse("git push")
    assert entry.could_block(("git", None, "origin"))
    assert entry.could_block(("git", None, "push"))
    assert not entry.could_block(("git", "log", None))


# (line, verdict, reason)
JUDGEMENTS: list[tuple[str, str, str]] = [
    # allowed: every simple command is covered
    ("git status", "allowed", "allowed by allowedCommands entry 'git status'"),
    ("git status -s", "allowed", "allowed by allowedCommands entry 'git status'"),
    ("'git' \"status\"", "allowed", "allowed by allowedCommands entry 'git status'"),
    ("LANG=C make", "allowed", "allowed by allowedCommands entry 'make'"),
    ("sleep 5 && ls", "allowed", "allowed by allowedCommands entries 'sleep', 'ls'"),
    ("npm run test | grep ok", "allowed", "allowed by allowedCommands entries 'npm run *', 'grep'"),
    ("(cd src && make) || echo no", "allowed", "allowed by allowedCommands entries 'cd', 'make'"),
    ("echo $(git diff)", "allowed", "allowed by allowedCommands entries 'echo', 'git diff'"),
    ("bash -c 'make && ls'", "allowed", "allowed by allowedCommands entries 'make', 'ls'"),
    ("ls > listing.txt", "allowed", "allowed by allowedCommands entry 'ls'"),
    ("make $TARGET", "allowed", "allowed by allowedCommands entry 'make'"),
    # unlisted: names the first command that is not covered
    ("curlx example.com", "unlisted", "'curlx example.com' is not in allowedCommands"),
    ("git statusx", "unlisted", "'git statusx' is not in allowedCommands"),
    ("git log", "unlisted", "'git log' is not in allowedCommands"),
    ("ls && python x.py", "unlisted", "'python x.py' is not in allowedCommands"),
    ("ls | wc -l", "unlisted", "'wc -l' is not in allowedCommands"),
    ("echo $(whoami)", "unlisted", "'whoami' is not in allowedCommands"),
    ("echo `hostname`", "unlisted", "'hostname' is not in allowedCommands"),
    ("diff <(ls) <(env)", "unlisted", "'diff <(ls) <(env)' is not in allowedCommands"),
    ("if make; then npm publish; fi", "unlisted", "'npm publish' is not in allowedCommands"),
    ("{ ls; python; }", "unlisted", "'python' is not in allowedCommands"),
    ("python $SCRIPT", "unlisted", "'python $SCRIPT' is not in allowedCommands"),
    ("bash -c 'ls; python'", "unlisted", "'python' is not in allowedCommands"),
    ("bash build.sh", "unlisted", "'bash build.sh' is not in allowedCommands"),
    ("eval ls", "unlisted", "'eval ls' is not in allowedCommands"),  # eval itself needs allowing
    ("./ls", "unlisted", "'./ls' is not in allowedCommands"),
    ("A=1", "unlisted", "the line runs no command that the rules can name"),
    # global options are left out for allowed entries; what a command runs must be allowed too
    ("git --no-pager diff", "allowed", "allowed by allowedCommands entry 'git diff'"),
    ("git -C src -p status", "allowed", "allowed by allowedCommands entry 'git status'"),
    ("find . -exec grep -l x {} +", "allowed", "allowed by allowedCommands entries 'find', 'grep'"),
    (
        "find . -exec python x {} \\;",
        "unlisted",
        "'python x {}', run by 'find . -exec python x {} \\;', is not in allowedCommands",
    ),
    ("ls | xargs grep x", "allowed", "allowed by allowedCommands entries 'ls', 'xargs', 'grep'"),
    ("ls | xargs python", "unlisted", "'python', run by 'xargs python', is not in"),
    ("sudo -u bob make", "allowed", "allowed by allowedCommands entries 'sudo', 'make'"),
    ("sudo python x", "unlisted", "'python x', run by 'sudo python x', is not in"),
    ("timeout 10 python x.py", "allowed", "allowed by allowedCommands entry 'timeout 10 python'"),
    ("timeout 10 ruby x", "unlisted", "'timeout 10 ruby x' is not in allowedCommands"),
    ("uv run --frozen ruby x", "allowed", "allowed by allowedCommands entry 'uv run *'"),
    ("sudo bash -c 'make'", "allowed", "allowed by allowedCommands entries 'sudo', 'make'"),
    ("> notes.txt", "unlisted", "the line runs no command that the rules can name"),
    # blocked wins over allowed, in any part of the line
    ("rm -rf build", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm -rf build')"),
    ("ls && rm x", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm x')"),
    ("ls | curl -d @- x", "blocked", "blocked by blockedCommands entry 'curl' (command 'curl"),
    ("echo $(rm x)", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm x')"),
    ("(cd a; rm b)", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm b')"),
    ("git push origin", "blocked", "blocked by blockedCommands entry 'git push'"),
    ("git -C . --no-pager push", "blocked", "blocked by blockedCommands entry 'git push'"),
    (
        "find . -exec rm {} +",
        "blocked",
        "blocked by blockedCommands entry 'rm' (command 'rm {}', run by",
    ),
    ("find . -delete", "blocked", "blocked by blockedCommands entry 'rm' (command '-delete,"),
    ("uv -q run rm x", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm x', run"),
    ("'r'm x", "blocked", "blocked by blockedCommands entry 'rm'"),
    ("/bin/rm x", "blocked", "blocked by blockedCommands entry 'rm' (command '/bin/rm x')"),
    ("sudo rm -rf /", "blocked", "blocked by blockedCommands entry 'rm' (command 'sudo rm -rf /')"),
    ("find . | xargs rm", "blocked", "blocked by blockedCommands entry 'rm'"),
    ("env FOO=1 git push", "blocked", "blocked by blockedCommands entry 'git push'"),
    ("bash -c 'rm -rf /'", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm -rf /')"),
    ("sh -c \"bash -c 'curl x'\"", "blocked", "blocked by blockedCommands entry 'curl'"),
    ("trap 'rm -f lock' EXIT", "blocked", "blocked by blockedCommands entry 'rm' (command 'rm -f"),
    ("eval 'git push'", "blocked", "blocked by blockedCommands entry 'git push'"),
    ("ls &&", "unknowable", "the line is incomplete after 'ls &&'"),
    ("rm -rf / &&", "blocked", "blocked by blockedCommands entry 'rm'"),  # broken, still blocked
    ("cat > .env", "blocked", "blocked by blockedPaths entry '.env' (redirection '> .env')"),
    ("ls > secrets/out", "blocked", "blocked by blockedPaths entry 'secrets/' (redirection"),
    ("cat < ./secrets/key", "blocked", "blocked by blockedPaths entry 'secrets/'"),
    # unknowable: a person has to decide
    ("$CMD status", "unknowable", "the command name in '$CMD status' is only known when it runs"),
    ("eval $X", "unknowable", "the script in 'eval $X' is only known when it runs"),
    ("ls; `echo rm` x", "unknowable", "the command name in '`echo rm` x'"),
    ("git $SUB origin", "unknowable", "'git $SUB origin' might run 'git push', which"),
    ("sudo $TOOL x", "unknowable", "'sudo $TOOL x' might run 'rm', which blockedCommands"),
    ('sh -c "$X"', "unknowable", "the script in 'sh -c \"$X\"' is only known when it runs"),
    ("find . -exec $X {} +", "unknowable", "'… {}', run by 'find . -exec $X {} +' might run"),
    ("sudo -Z x make", "unknowable", "cannot tell what 'sudo -Z x make' runs: its option '-Z'"),
    # risky: a person must decide whatever the entries say
    ("FOO=1 make", "risky", "'FOO=1 make' sets the environment variable 'FOO', which can make"),
    ("sudo GIT_DIR=x git status", "risky", "'git status', run by 'sudo GIT_DIR=x git status'"),
    ("export GIT_DIR=x; git status", "risky", "'export GIT_DIR=x' sets the variable 'GIT_DIR'"),
    ("git -c core.pager=x status", "risky", "'git -c core.pager=x status' can run a program"),
    ("git -C . grep -Ox y", "risky", "'git -C . grep -Ox y' can run a program that the line"),
    ("git submodule foreach make", "risky", "'git submodule foreach make' can run a program"),
]


@pytest.mark.parametrize(("line", "verdict", "reason"), JUDGEMENTS, ids=[j[0] for j in JUDGEMENTS])
def test_a_command_line_is_judged_by_each_simple_command(
    rules: Rules, line: str, verdict: str, reason: str
) -> None:
    judgement = rules.judge_command(line)
    assert (judgement.verdict, judgement.reason[: len(reason)]) == (verdict, reason)


def test_the_first_unlisted_command_is_named_for_suggestions(rules: Rules) -> None:
    judgement = rules.judge_command("ls && python -m pytest")
    assert judgement.unlisted is not None
    assert judgement.unlisted.words == ("python", "-m", "pytest")
