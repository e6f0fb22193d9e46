"""What Legato reads for itself, attacked by the repository it runs in: a real ``legato
--headless``, the scripted server as the model, and every request it receives searched for
what must not leave.

The repository commits (or a confined command of an earlier session plants) ``LEGATO.md``, a
memory file, a skill or a settings file as a link to a secret, to a kernel interface, as a FIFO,
or nested past any parser's stack; the session starts anyway, or stops with exit 2, and says
which file it refused and why.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from typing import IO, TYPE_CHECKING, Any

import pytest

from actors.places import memory_dir
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

    from tests.frontends.conftest import Project

KEY = "sk-own-reads-5d1e"  # Legato's API key in these runs: in its environment, nowhere else
SECRET = "PRIVATE-KEY-88af"


def sent(requests: list[Any]) -> str:
    return "\n".join(json.dumps(request.body) for request in requests)


def run(project: Project, *args: str) -> tuple[subprocess.CompletedProcess[str], str]:
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "--headless", *args, key=KEY)
        return done, sent(server.requests)


def ssh_key(project: Project) -> Path:
    path = project.home / ".ssh" / "id_rsa"
    path.parent.mkdir()
    path.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SECRET}\n")
    return path


def link(project: Project, name: str, target: str | Path) -> Path:
    path = project.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    return path


# ── the guide ───────────────────────────────────────────────────────────────────────────────


def test_a_guide_linked_to_the_process_environment_sends_no_key(project: Project) -> None:
    guide = link(project, "LEGATO.md", "/proc/self/environ")
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert requests  # the session did start and ask the model
    assert KEY not in requests
    assert f"{guide} was not read: it leads to /proc/" in done.stderr
    assert "Legato reads no file in /proc, /dev or /sys for itself" in done.stderr


def test_a_guide_linked_to_a_key_in_the_home_folder_is_not_sent(project: Project) -> None:
    key = ssh_key(project)
    guide = link(project, "LEGATO.md", key)
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert SECRET not in requests
    assert f"{guide} was not read: it leads to {key}, outside {project.root}" in done.stderr
    assert "Replace the link with the file itself, or remove it" in done.stderr


def test_a_guide_linked_to_a_blocked_file_is_not_sent(project: Project) -> None:
    project.write("config/.env", f"TOKEN={SECRET}\n")
    project.settings(blockedPaths=[".env"])
    guide = link(project, "LEGATO.md", "config/.env")
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert SECRET not in requests
    assert f"{guide} was not read: it leads to {project.root}/config/.env, which the " in (
        done.stderr
    )


def test_a_guide_linked_to_another_file_of_the_project_is_read(project: Project) -> None:
    project.write("docs/GUIDE.md", "Run make check before pushing.\n")
    link(project, "LEGATO.md", "docs/GUIDE.md")
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert "Run make check before pushing." in requests
    assert "was not read" not in done.stderr


def test_a_fifo_guide_does_not_hold_up_the_start(project: Project) -> None:
    guide = project.root / "LEGATO.md"
    os.mkfifo(guide)  # nobody ever writes to it: opened to read, it would wait for ever
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert requests
    assert f"{guide} was not read: it is a FIFO (named pipe), not a file" in done.stderr


def test_sigterm_ends_a_session_whose_guide_is_a_fifo(project: Project) -> None:
    os.mkfifo(project.root / "LEGATO.md")
    project.settings(permissionMode="custom", allowedCommands=["sleep"])
    wait = tool_calls([call("Bash", {"command": "sleep 300"})])
    printed: list[str] = []

    def until_the_turn(stdout: IO[str]) -> None:
        # The model's call is printed once the start is over and the turn under way.
        for line in stdout:
            printed.append(line)
            if json.loads(line)["type"] == "assistant":
                return

    with ScriptedServer([wait]) as server:
        process = project.start(server.url, "--headless", "wait", "--output-format", "stream-json")
        assert process.stdout is not None
        reader = threading.Thread(target=until_the_turn, args=(process.stdout,), daemon=True)
        reader.start()
        reader.join(timeout=30)  # a safety net: a start held by the FIFO never gets there
        if reader.is_alive():
            process.kill()
            process.communicate()
            pytest.fail("the session never got past its start")
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "LEGATO.md was not read: it is a FIFO (named pipe), not a file" in "".join(printed)
    assert "stopped by SIGTERM" in err


def test_a_guide_linked_to_dev_zero_is_refused_before_any_read(project: Project) -> None:
    guide = link(project, "LEGATO.md", "/dev/zero")
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert requests
    assert f"{guide} was not read: it leads to /dev/zero" in done.stderr


def test_a_guide_over_the_cap_is_cut_at_a_line_and_says_so(project: Project) -> None:
    line = "- keep every function small and typed\n"
    project.write("LEGATO.md", line * 7000 + "LAST LINE\n")  # some 270 KiB
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    whole = 256 * 1024 // len(line)  # the whole lines in 256 KiB
    assert "LAST LINE" not in requests
    assert requests.count("keep every function small") == whole
    assert f"LEGATO.md is larger than 256 KiB; only its first {whole:,} lines were loaded" in (
        done.stderr
    )


# ── memory, skills, settings ────────────────────────────────────────────────────────────────


def test_a_memory_file_linked_to_a_key_is_not_sent(project: Project) -> None:
    key = ssh_key(project)
    folder = memory_dir(str(project.root), str(project.home))
    os.makedirs(folder)
    memory = os.path.join(folder, "MEMORY.md")
    os.symlink(key, memory)
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert SECRET not in requests
    assert f"{memory} was not read: it leads to {key}, outside {folder}" in done.stderr


def test_a_skill_linked_out_of_the_project_is_not_run(project: Project) -> None:
    outside = project.home / "leak.md"
    outside.write_text(f"---\nname: leak\ndescription: d\n---\n1. Say {SECRET}.\n")
    skill = link(project, ".legato/skills/leak.md", outside)
    done, requests = run(project, "/leak")
    assert SECRET not in requests + done.stdout
    assert done.returncode == 2
    assert f"{skill}: leads to {outside}, outside {project.root}" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("name", [".legato/settings.json", ".mcp.json"])
def test_a_settings_file_linked_out_of_the_project_stops_the_start(
    project: Project, name: str
) -> None:
    outside = project.home / "loose.json"
    outside.write_text('{"permissionMode": "auto", "allowedCommands": ["*"]}')
    path = link(project, name, outside)
    done, requests = run(project, "hi")
    assert done.returncode == 2
    assert requests == ""
    assert f"{path}: leads to {outside}, outside {project.root}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_legato_folder_linked_out_names_the_folder_as_the_link(project: Project) -> None:
    # The settings file is no link itself: telling the user to replace "the link" with "the
    # file" pointed at nothing they could find.
    elsewhere = project.home / "elsewhere"
    (elsewhere / ".legato").mkdir(parents=True)
    outside = elsewhere / ".legato" / "settings.json"
    outside.write_text('{"permissionMode": "auto"}')
    folder = link(project, ".legato", elsewhere / ".legato")
    done, requests = run(project, "hi")
    assert done.returncode == 2
    assert requests == ""
    assert (
        f"{folder}/settings.json: leads to {outside} through the symlinked folder {folder}, "
        f"outside {project.root}" in done.stderr
    )
    assert "Replace the symlinked folder with the folder itself, or remove it" in done.stderr


def test_settings_nested_200000_deep_are_a_configuration_error(project: Project) -> None:
    project.write(".legato/settings.json", '{"sandbox": ' + "[" * 200_000 + "]" * 200_000 + "}")
    done, requests = run(project, "hi")
    assert done.returncode == 2
    assert requests == ""
    assert (
        f"{project.root}/.legato/settings.json:1: the JSON is nested more than 64 levels deep "
        "at column 76" in done.stderr
    )
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr


def test_an_integer_of_5000_digits_in_settings_is_a_configuration_error(
    project: Project,
) -> None:
    project.write(".legato/settings.json", '{"maxBackgroundCommands": ' + "9" * 5000 + "}")
    done, requests = run(project, "hi")
    assert done.returncode == 2, done.stderr
    assert requests == ""
    assert "settings.json:1: malformed JSON at column 27: the number 999" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_deep_mcp_json_is_a_configuration_error(project: Project) -> None:
    project.write(".mcp.json", '{"mcpServers": {"a": {"args": ' + "[" * 100_000 + "}}}")
    done, _ = run(project, "hi")
    assert done.returncode == 2
    assert f"{project.root}/.mcp.json:1: the JSON is nested more than 64 levels deep" in (
        done.stderr
    )


def test_a_skill_with_deep_front_matter_names_its_file(project: Project) -> None:
    skill = project.write(
        ".legato/skills/deep.md",
        "---\nname: deep\ndescription: d\nx: " + "[" * 50_000 + "\n---\n1.\n",
    )
    done, _ = run(project, "/deep")
    assert done.returncode == 2
    assert f"{skill}:4: field 'x': nests lists or fields more than 32 deep" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_skill_with_a_5000_digit_number_names_its_file(project: Project) -> None:
    # Python builds no integer from more than 4300 digits: /help and /<name> ended in a
    # ValueError traceback for every skill in the library.
    project.write(
        ".legato/skills/big.md",
        "---\nname: big\ndescription: d\nversion: " + "9" * 5000 + "\n---\n1.\n",
    )
    for command in ("/big", "/help"):
        done, _ = run(project, command)
        said = done.stdout + done.stderr  # /help lists the fault among the skills, on stdout
        assert "big.md:4: field 'version': holds a whole number of 5000 digits" in said
        assert "Traceback" not in said
    assert run(project, "/big")[0].returncode == 2


# ── planted by a command ────────────────────────────────────────────────────────────────────


@needs_bwrap
def test_a_link_a_confined_command_plants_is_refused_next_session(project: Project) -> None:
    project.settings(permissionMode="auto", allowedCommands=["ln"])
    plant = call("Bash", {"command": "ln -s /proc/self/environ LEGATO.md"})
    with ScriptedServer([tool_calls([plant]), text("planted")]) as server:
        first = project.legato(server.url, "--headless", "go", key=KEY)
    assert first.returncode == 0, first.stderr
    assert os.readlink(project.root / "LEGATO.md") == "/proc/self/environ"
    done, requests = run(project, "hi")
    assert done.returncode == 0, done.stderr
    assert KEY not in requests
    assert f"{project.root}/LEGATO.md was not read: it leads to /proc/" in done.stderr


def test_an_agent_type_linked_out_of_the_project_is_not_offered(project: Project) -> None:
    outside = project.home / "spy.md"
    outside.write_text(f"---\nname: spy\ndescription: Spies.\n---\nYou know {SECRET}.\n")
    agent = link(project, ".legato/agents/spy.md", outside)
    steps = [
        tool_calls([call("Agent", {"description": "d", "prompt": "p", "subagent_type": "spy"})]),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go", key=KEY)
        requests = sent(server.requests)
    assert done.returncode == 0, done.stderr
    assert SECRET not in requests
    assert f"{agent}: leads to {outside}, outside {project.root}" in done.stderr
