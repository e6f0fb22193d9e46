"""The reference's flags on a real ``legato -p``, against the scripted server: each one does what
the reference's documentation says, or is refused by name (exit 2, no traceback)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import anyio
import msgspec
import pytest

from actors.protocol import GetContext, PermissionRule
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import memory_store
from frontends.session_options import from_flags
from frontends.startup.checks import BYPASS_WARNING, check_session_flags
from frontends.startup.flags import parse
from frontends.startup.words import place_words
from runtime import supervise
from tests.frontends.compat import REPO, legato, system_text, usage_error

if TYPE_CHECKING:
    from pathlib import Path

    from tests.frontends.conftest import Project


# ── the system prompt, the tools, the model, the turns ───────────────────────────────────────


def test_append_system_prompt_and_tools_reach_the_request(project: Project) -> None:
    with ScriptedServer([text("ok")]) as server:
        done = legato(
            project,
            server.url,
            "-p",
            "hi",
            "--append-system-prompt",
            "Answer in French.",
            "--tools",
            "Read,Grep",
            "--model",
            "haiku",
        )
        body = server.requests[0].body
    assert done.returncode == 0, done.stderr
    assert system_text(body).rstrip().endswith("Answer in French.")
    assert "You are Legato" in system_text(body)
    assert {tool["name"] for tool in body["tools"]} == {"Read", "Grep"}
    assert "haiku" in body["model"]


def test_system_prompt_file_replaces_the_system_prompt(project: Project) -> None:
    prompt = project.write("persona.txt", "You review SQL and nothing else.")
    with ScriptedServer([text("ok")]) as server:
        done = legato(project, server.url, "-p", "hi", "--system-prompt-file", str(prompt))
        body = server.requests[0].body
    assert done.returncode == 0, done.stderr
    assert system_text(body).startswith("You review SQL and nothing else.")
    assert "You are Legato" not in system_text(body)


def test_both_system_prompts_are_refused_naming_both(project: Project) -> None:
    prompt = project.write("persona.txt", "x")
    done = legato(
        project,
        "http://127.0.0.1:9",
        "-p",
        "hi",
        "--system-prompt",
        "y",
        "--system-prompt-file",
        str(prompt),
    )
    usage_error(done, "--system-prompt and --system-prompt-file")


def test_max_turns_ends_the_run(project: Project) -> None:
    steps = [tool_calls([call("Glob", {"pattern": "*"})]), text("never reached")]
    with ScriptedServer(steps) as server:
        done = legato(
            project, server.url, "-p", "look", "--max-turns", "1", "--output-format", "json"
        )
    assert json.loads(done.stdout)["subtype"] == "error_max_turns"


# ── permission modes ──────────────────────────────────────────────────────────────────────


def write_step(project: Project) -> list[Any]:
    target = project.root / "made.txt"
    return [tool_calls([call("Write", {"file_path": str(target), "content": "x\n"})]), text("done")]


@pytest.mark.parametrize("mode", ["acceptEdits", "auto", "AcceptEdits"])
def test_the_references_mode_names_work_headless(project: Project, mode: str) -> None:
    with ScriptedServer(write_step(project)) as server:
        done = legato(project, server.url, "-p", "make it", "--permission-mode", mode)
    assert done.returncode == 0, done.stderr
    assert (project.root / "made.txt").read_text() == "x\n"


@pytest.mark.parametrize("mode", ["default", "manual", "ask", "dontAsk"])
def test_the_asking_modes_deny_the_write_headless(project: Project, mode: str) -> None:
    with ScriptedServer(write_step(project)) as server:
        done = legato(project, server.url, "-p", "make it", "--permission-mode", mode)
    assert done.returncode == 0, done.stderr
    assert not (project.root / "made.txt").exists()


@pytest.mark.parametrize(
    "flags", [["--dangerously-skip-permissions"], ["--permission-mode", "bypassPermissions"]]
)
def test_bypass_writes_without_asking_and_warns(project: Project, flags: list[str]) -> None:
    with ScriptedServer(write_step(project)) as server:
        done = legato(project, server.url, "-p", "make it", *flags, env={"IS_SANDBOX": "1"})
    assert done.returncode == 0, done.stderr
    assert (project.root / "made.txt").read_text() == "x\n"
    assert BYPASS_WARNING.split(":")[0] in done.stderr


def test_bypass_still_denies_what_only_a_person_may_allow(project: Project) -> None:
    outside = project.home / "outside.txt"
    steps = [tool_calls([call("Write", {"file_path": str(outside), "content": "x"})]), text("ok")]
    with ScriptedServer(steps) as server:
        done = legato(
            project, server.url, "-p", "go", "--dangerously-skip-permissions",
            env={"IS_SANDBOX": "1"},
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert not outside.exists()


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="the refusal is of root"
)
def test_bypass_is_refused_as_root_outside_a_sandbox(project: Project) -> None:
    env = {key: value for key, value in project.env("http://127.0.0.1:9").items()}
    env.pop("IS_SANDBOX", None)
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", "-p", "x",
         "--dangerously-skip-permissions"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=project.root,
        env={**env, "PYTHONPATH": str(REPO)}, timeout=60,
    )  # fmt: skip
    usage_error(done, "--dangerously-skip-permissions is refused when running as root")


def test_skip_permissions_with_another_mode_is_refused(project: Project) -> None:
    done = legato(
        project, "http://127.0.0.1:9", "-p", "x", "--dangerously-skip-permissions",
        "--permission-mode", "plan", env={"IS_SANDBOX": "1"},
    )  # fmt: skip
    usage_error(done, "--permission-mode plan was given too")


# ── rules and settings from the flags ────────────────────────────────────────────────────────


def checked(argv: list[str], root: Path) -> Any:
    args = parse(argv)
    assert place_words(args) is None
    assert check_session_flags(args) is None
    return from_flags(args, str(root), None)


def test_allowed_and_disallowed_tools_become_rules_named_by_their_flag(tmp_path: Path) -> None:
    options = checked(
        [
            "-p", "hi",
            "--allowedTools", "Bash(git status:*)", "Read,Grep",
            "--disallowedTools", "Bash(rm *) WebFetch",
            "--allowed-tools", "mcp__github",
        ],
        tmp_path,
    )  # fmt: skip
    assert [
        (rule.behavior, rule.text, rule.source, rule.anchor)
        for rule in options.overrides.permission_rules
    ] == [
        ("allow", "Bash(git status:*)", "--allowedTools", str(tmp_path)),
        ("allow", "Read", "--allowedTools", str(tmp_path)),
        ("allow", "Grep", "--allowedTools", str(tmp_path)),
        ("allow", "mcp__github", "--allowedTools", str(tmp_path)),
        ("deny", "Bash(rm *)", "--disallowedTools", str(tmp_path)),
        ("deny", "WebFetch", "--disallowedTools", str(tmp_path)),
    ]
    assert options.overrides.allowed_commands == () and options.overrides.allowed_tools == ()


def test_settings_flags_are_handed_on_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "team.json").write_text("{}")
    monkeypatch.chdir(tmp_path)
    options = checked(
        ["--settings", "team.json", "--settings", '{"model": "haiku"}', "-p", "x"], tmp_path
    )
    # A file by its absolute path: read later, it is the one the person named here.
    assert options.overrides.settings_flags == (str(tmp_path / "team.json"), '{"model": "haiku"}')


def test_a_flag_rule_reaches_the_sessions_rules(project: Project) -> None:
    options = checked(["-p", "x", "--allowedTools", "Bash(git status:*)"], project.root)
    options = msgspec.structs.replace(options, home=str(project.home))

    async def rules() -> tuple[PermissionRule, ...]:
        memory = memory_store(options)
        async with supervise([memory]):
            context = await memory.address.ask(GetContext())
        return context.permission_rules

    found = anyio.run(rules, backend="trio")
    assert [(r.behavior, r.text, r.source) for r in found if r.source.startswith("--")] == [
        ("allow", "Bash(git status:*)", "--allowedTools")
    ]


def test_an_allowed_command_runs_headless_and_a_denied_one_does_not(project: Project) -> None:
    # `touch` changes a file, so ask mode would ask (headless: deny) without the flag's rule.
    steps = [
        tool_calls([call("Bash", {"command": "touch by-flag.txt"})]),
        tool_calls([call("Bash", {"command": "touch denied.txt"})]),
        text("ran"),
    ]
    with ScriptedServer(steps) as server:
        done = legato(
            project, server.url, "-p", "run it", "--allowedTools", "Bash(touch by-flag.txt)",
            "--disallowedTools", "Bash(touch denied.txt)", "--permission-mode", "auto",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (project.root / "by-flag.txt").exists()
    assert not (project.root / "denied.txt").exists()


# ── refusals ──────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["--betas", "interleaved-thinking"], ["--betas"]),
        (["--bare"], ["--bare"]),
        (["--effort", "ultra"], ["--effort 'ultra' is not an effort level", "xhigh"]),
        (["--model", "haiku", "--effort", "high"], ["haiku does not take", "--effort high"]),
        (["--model", "haiku", "--thinking", "adaptive"], ["haiku", "--thinking adaptive"]),
        (["--model", "openai:qwen", "--max-thinking-tokens", "2048"], ["openai:qwen"]),
        (["--model", "opus", "--max-thinking-tokens", "200000"], ["128000"]),
        (["--max-thinking-tokens", "100"], ["--max-thinking-tokens '100'", "1024"]),
        (["--max-thinking-tokens", "2_048"], ["--max-thinking-tokens '2_048'", "whole number"]),
        (["--max-thinking-tokens", "２０４８"], ["--max-thinking-tokens '２０４８'", "1024"]),
        (["--max-thinking-tokens", "9" * 5000], ["--max-thinking-tokens '999", "1024"]),
        (["--thinking", "adaptive", "--max-thinking-tokens", "4096"], ["both"]),
        (["--thinking-display", "summarized"], ["--thinking-display", "thinking is not on"]),
        (["--frobnicate"], ["--frobnicate"]),
        (["--allowedTools", "Bash(git status"], ["--allowedTools", "'Bash(git status'"]),
        (["--disallowedTools", "Read)"], ["--disallowedTools", "'Read)'"]),
        (["--allowedTools", "Read", "fix the bug"], ["--allowedTools: 'fix' is not a rule"]),
        (["--tools", "Read,Gr!ep"], ["--tools", "'Gr!ep'"]),
        (["--add-dir", "/no/such/folder"], ["--add-dir /no/such/folder"]),
        (["--permission-mode", "yolo"], ["--permission-mode", "yolo"]),
        (["--max-turns", "0"], ["--max-turns", "'0'"]),
        (["--model", "gpt-9"], ["gpt-9"]),
        (["--system-prompt-file", "/no/such/file"], ["--system-prompt-file /no/such/file"]),
        (["--settings", "missing.json"], ["--settings missing.json: no such file"]),
        (["--system-prompt-file", "/dev/zero"], ["--system-prompt-file /dev/zero"]),
    ],
)
def test_a_bad_or_unsupported_flag_is_refused_by_name(
    project: Project, args: list[str], needles: list[str]
) -> None:
    usage_error(legato(project, "http://127.0.0.1:9", *args, "-p", "x"), *needles)


def test_a_prompt_after_a_rule_flag_is_named_as_such_not_said_to_be_missing(
    project: Project,
) -> None:
    # As in the reference, the flag takes every word after it; what the person hears is why.
    done = legato(
        project, "http://127.0.0.1:9", "-p", "--allowedTools", "Bash(git diff:*)", "show the diff"
    )
    usage_error(done, "--allowedTools: 'show' is not a rule", "a prompt goes before the flag")
    assert "needs a prompt" not in done.stderr


def test_mcp_config_servers_run_for_a_print_run(project: Project) -> None:
    given = {
        "mcpServers": {
            "clock": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            }
        }
    }
    # A project server of the same name, never approved: the flag's entry wins, and with
    # --strict-mcp-config the project's others are not even listed.
    project.write(".mcp.json", json.dumps({"mcpServers": {"clock": {"command": "false"}}}))
    steps = [
        tool_calls([call("mcp__clock__get_current_time", {"timezone": "UTC"})]),
        text("It is now."),
    ]
    with ScriptedServer(steps) as server:
        done = legato(
            project, server.url, "-p", "what time is it?", "--mcp-config", json.dumps(given),
            "--strict-mcp-config", "--dangerously-skip-permissions", env={"IS_SANDBOX": "1"},
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    result = json.dumps(requests[-1].body["messages"][-1])
    assert "UTC" in result and "not approved" not in result, result


def test_a_bare_name_in_disallowed_tools_takes_the_tool_away(project: Project) -> None:
    with ScriptedServer([text("ok")]) as server:
        done = legato(project, server.url, "-p", "hi", "--disallowedTools", "Write,Agent")
        offered = {tool["name"] for tool in server.requests[0].body["tools"]}
    assert done.returncode == 0, done.stderr
    assert "Read" in offered and not {"Write", "Agent"} & offered


def test_bypass_turned_off_in_the_users_settings_refuses_the_flag(project: Project) -> None:
    claude = project.home / ".claude" / "settings.json"
    claude.parent.mkdir(parents=True, exist_ok=True)
    claude.write_text('{\n  "permissions": {"disableBypassPermissionsMode": "disable"}\n}\n')
    done = legato(
        project, "http://127.0.0.1:9", "-p", "x", "--dangerously-skip-permissions",
        env={"IS_SANDBOX": "1"},
    )  # fmt: skip
    usage_error(
        done,
        f"{claude}:2: field 'permissions.disableBypassPermissionsMode': the bypassPermissions "
        "mode (chosen by --permission-mode) is disabled here",
    )
