"""The command line itself: version, help, usage errors and their exit codes, start-up cost."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from actors.errors import MEANINGS
from frontends.cli import SUBCOMMANDS
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.interactive.slash_commands import COMMANDS
from frontends.startup.flags import SUBCOMMAND_HELP
from frontends.startup.version import __version__

REPO = Path(__file__).resolve().parents[2]
LEGATO = [sys.executable, "-m", "frontends.cli"]


def legato(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=cwd or REPO,
        timeout=30,
    )


def test_version_prints_the_version() -> None:
    done = legato("--version")
    assert done.returncode == 0
    assert done.stdout == f"legato {__version__}\n"


def test_version_imports_nothing_heavy() -> None:
    probe = (
        "import sys\n"
        "from frontends.cli import run\n"
        "run(['--version'])\n"
        "heavy = {'httpx', 'anyio', 'trio', 'rich', 'prompt_toolkit', 'msgspec', 'tree_sitter',"
        " 'yaml', 'actors', 'runtime'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_version_alone_builds_no_parser() -> None:
    """``legato --version`` on its own is answered before the flags are parsed: the ~15 ms of
    argparse, its help formatter (shutil, locale) and the help's command table are not paid."""
    probe = (
        "import sys\n"
        "from frontends.cli import run\n"
        "run(['--version'])\n"
        "unwanted = {'argparse', 'shutil', 'typing', 'contextlib', 'importlib.util', 'dataclasses',"
        " 'frontends.startup.flags', 'frontends.startup.launch', 'frontends.interactive'}\n"
        "print(sorted(unwanted & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert done.stdout.splitlines()[-1] == "[]", done.stderr


def test_a_session_does_not_import_what_only_other_tools_need() -> None:
    """httpx imports its command-line tool (click, pygments) when click is installed, and the
    MCP SDK installs click: 5 MB and 15 ms at every start, unless Legato stops it. Nor does a
    session load the MCP SDK or the regex package before it needs them, nor OpenTelemetry when
    no endpoint asks for export."""
    probe = (
        "import sys\n"
        "import frontends.session, frontends.headless.run, actors.model_client.client\n"
        "import frontends.startup.launch, actors.tool_executor.scheduler\n"
        "unwanted = {'click', 'pygments', 'mcp', 'regex', 'opentelemetry'}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in unwanted))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert done.stdout.splitlines()[-1] == "[]", done.stderr


def test_a_session_loads_the_shell_parser_only_for_a_command() -> None:
    """The permission broker's shell parser and its wrapper tables (~6 ms) are imported by the
    first command judged, not by a session that runs none."""
    probe = (
        "import sys\n"
        "import frontends.session, frontends.headless.run\n"
        "parsers = {'actors.permission_broker.shell', 'actors.permission_broker.wrappers'}\n"
        "print(sorted(parsers & set(sys.modules)))\n"
        "from actors.permission_broker import parse_command_line\n"
        "parse_command_line('ls')\n"
        "print(sorted(parsers & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    before, after = done.stdout.splitlines()[-2:]
    assert before == "[]", done.stderr
    assert after == "['actors.permission_broker.shell', 'actors.permission_broker.wrappers']"


def test_a_one_turn_answer_loads_nothing_only_tools_need(tmp_path: Path) -> None:
    """A headless answer that runs no tool does not import the permission policy, the glob
    engine its path rules are matched with, the file walk and its search, ``@path`` references,
    checkpoints, the sandbox's refusal patterns, a subagent's loop or difflib: none of them is on
    the way to the first request, even with path rules in the settings."""
    settings = tmp_path / ".legato" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissionMode": "custom", "allowedPaths": ["**"]}')
    later = [
        "actors.conductor.agent_loop",
        "actors.permission_broker.policy",
        "actors.permission_broker.rules",
        "actors.tool_executor.checkpoints",
        "actors.tool_executor.references",
        "actors.tool_executor.ripgrep",
        "actors.tool_executor.sandbox.refusals",
        "actors.tool_executor.search",
        "actors.tool_executor.search_rg",
        "actors.tool_executor.walk",
        "difflib",
        "wcmatch",
    ]
    probe = (
        "import sys\n"
        "from frontends.headless import run_headless\n"
        "from frontends.session_options import SessionOptions\n"
        f"options = SessionOptions(project_root={str(tmp_path)!r}, output_format='json')\n"
        "code = run_headless(options, prompt='hi')\n"
        f"print(code, sorted(set({later!r}) & set(sys.modules)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    with ScriptedServer([text("hi")]) as server:
        env.update(HOME=str(tmp_path), ASSISTANT_BASE_URL=server.url, ASSISTANT_API_KEY="k")
        done = subprocess.run(
            [sys.executable, "-c", probe],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=30,
        )
    assert done.stdout.splitlines()[-1] == "0 []", done.stderr


def test_help_lists_the_flags_and_exit_codes() -> None:
    done = legato("--help")
    assert done.returncode == 0
    for flag in ("--headless", "--model", "--permission-mode", "--output-format", "--demo"):
        assert flag in done.stdout
    said = " ".join(done.stdout.split())  # argparse wraps the epilog
    assert (
        "Exit codes: 0 ok, 1 run-time failure, 2 usage or configuration error, 3 a skill or "
        "pattern run whose every change was denied, 130 SIGINT, "
        "141 stdout's reader stopped reading, 143 SIGTERM." in said
    )


def test_help_lists_the_commands_besides_a_session_and_those_inside_one() -> None:
    done = legato("--help")
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    for name in SUBCOMMANDS:
        assert any(line.startswith(f"  legato {name} ") for line in lines), name
    for name in COMMANDS:
        assert any(line.startswith(f"  {name} ") for line in lines), name
    assert set(SUBCOMMAND_HELP) == set(SUBCOMMANDS)  # each described, none that is not there


def test_the_readme_lists_every_exit_code_and_no_other() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("### Exit codes", 1)[1].split("\n## ", 1)[0]
    listed = {int(row.split("|")[1]) for row in table.splitlines() if row[:3].strip("| ").isdigit()}
    assert listed == set(MEANINGS)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--permission-mode", "sometimes", "--headless", "x"], "invalid choice: 'sometimes'"),
        (["--output-format", "xml", "--headless", "x"], "invalid choice: 'xml'"),
        (["--max-turns", "0", "--headless", "x"], "'0' must be 1 or more"),
        (["--bogus"], "Legato has no flag --bogus"),
        (["/no/such/folder", "--headless", "x"], "is not a directory"),
        (["--headless", "  "], "--headless needs a prompt"),
    ],
)
def test_bad_usage_exits_2_with_a_clear_message(args: list[str], needle: str) -> None:
    done = legato(*args)
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr
    assert "→" in done.stderr  # every usage error carries a remedy


@pytest.mark.parametrize(
    ("prompt", "written"),
    [
        ("fix the bug", 'legato -p "fix the bug"'),
        ('say "hi" twice', """legato -p 'say "hi" twice'"""),
    ],
)
def test_a_prompt_where_the_project_goes_is_a_first_prompt_which_needs_a_terminal(
    tmp_path: Path, prompt: str, written: str
) -> None:
    # As the reference's `claude "query"`: the words start an interactive session, which a
    # pipe cannot hold; the remedy is the same prompt run headless.
    done = legato(prompt, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "legato: the interactive session needs a terminal (stdin and stdout are not one)\n"
        f"  → Run one prompt without a terminal with: {written}\n"
    )


def test_a_missing_folder_is_not_taken_for_a_prompt(tmp_path: Path) -> None:
    done = legato("no-such-folder", cwd=tmp_path)
    assert done.returncode == 2
    assert "--headless" not in done.stderr
    assert "Give the path of an existing project folder" in done.stderr


def test_unknown_model_is_a_usage_error_with_a_suggestion(tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path))
    done = subprocess.run(
        [
            sys.executable, "-c", "from frontends.cli import main; main()",
            str(tmp_path), "--model", "sonet", "--headless", "hi",
        ],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=30,
    )  # fmt: skip
    assert done.returncode == 2
    assert "unknown model 'sonet'" in done.stderr
    assert "Did you mean 'sonnet'?" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_closed_stdout_ends_any_command_as_sigpipe_would(tmp_path: Path) -> None:
    """`legato config | head -1`: the reader has gone before Legato writes; no traceback."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # every write to the pipe now fails with EPIPE
    try:
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", "config"],
            stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
            env=dict(os.environ, HOME=str(tmp_path)), timeout=30,
        )  # fmt: skip
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("given", "taken"), [("Auto", "auto"), ("PLAN", "plan"), ("acceptedits", "acceptEdits")]
)
def test_permission_modes_are_taken_in_any_case(given: str, taken: str) -> None:
    from frontends.startup.flags import parse

    assert parse(["--permission-mode", given]).permission_mode == taken


def test_a_mode_that_is_none_is_refused_with_the_list(tmp_path: Path) -> None:
    done = legato("--permission-mode", "sometimes", cwd=tmp_path)
    assert done.returncode == 2
    assert "invalid choice: 'sometimes'" in done.stderr
