"""The words of ``legato [PROJECT] [PROMPT]``, ``-p`` with piped stdin, ``-c`` and ``-r``, on a
real ``legato`` against the scripted server; and every flag listed in ``--help`` and the README."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, text
from tests.frontends.compat import REPO, first_prompt, legato, usage_error

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


# ── -p and the words ──────────────────────────────────────────────────────────────────────


def test_print_takes_the_prompt_as_its_word(project: Project) -> None:
    with ScriptedServer([text("Forty-two.")]) as server:
        done = legato(project, server.url, "-p", "what is the answer?")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Forty-two."
    assert first_prompt(requests[0].body).strip() == "what is the answer?"


def test_the_prompt_may_come_after_the_flags_and_the_project_before_it(project: Project) -> None:
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "--print", "--output-format", "json", "say ok")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "ok"
    assert first_prompt(requests[0].body).strip() == "say ok"


def test_piped_stdin_is_added_after_the_prompt(project: Project) -> None:
    log = "ERROR disk full\nERROR disk still full\n"
    with ScriptedServer([text("The disk is full.")]) as server:
        done = legato(project, server.url, "-p", "explain", stdin=log)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert first_prompt(requests[0].body).strip() == f"explain\n\n{log}".strip()


def test_piped_stdin_alone_is_the_prompt(project: Project) -> None:
    with ScriptedServer([text("hi")]) as server:
        done = legato(project, server.url, "-p", stdin="say hi\n")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert first_prompt(requests[0].body).strip() == "say hi"


def test_print_without_a_prompt_is_a_usage_error(project: Project) -> None:
    usage_error(legato(project, "http://127.0.0.1:9", "-p"), "-p needs a prompt")


def test_stdin_that_is_not_text_is_refused(project: Project) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", "-p", "explain"],
        input=b"\xff\xfe binary",
        capture_output=True,
        cwd=project.root,
        env={**project.env("http://127.0.0.1:9"), "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    assert done.returncode == 2
    assert b"stdin is not UTF-8 text" in done.stderr and b"Traceback" not in done.stderr


def test_a_folder_given_to_print_as_its_one_word_is_said_to_be_the_prompt(
    project: Project,
) -> None:
    (project.root / "src").mkdir()
    with ScriptedServer([text("a folder name")]) as server:
        done = legato(project, server.url, "-p", "src")
    assert done.returncode == 0, done.stderr
    assert "'src' is taken as the prompt" in done.stderr


def test_three_words_are_refused(project: Project) -> None:
    usage_error(
        legato(project, "http://127.0.0.1:9", "-p", "fix", "the", "bug"),
        "3 words were given",
    )


# ── -c and -r ─────────────────────────────────────────────────────────────────────────────


def test_continue_and_resume_go_on_with_a_saved_session(project: Project) -> None:
    steps = [text("Noted: blue."), text("Blue."), text("Still blue.")]
    with ScriptedServer(steps) as server:
        first = legato(project, server.url, "-p", "remember blue", "--output-format", "json")
        assert first.returncode == 0, first.stderr
        session_id = json.loads(first.stdout)["session_id"]
        again = legato(project, server.url, "-c", "-p", "which colour?")
        resumed = legato(project, server.url, "-r", session_id, "-p", "and now?")
        requests = server.requests
    assert (again.returncode, resumed.returncode) == (0, 0), again.stderr + resumed.stderr
    said = [first_prompt(request.body) for request in requests]
    assert "remember blue" in said[1] and "remember blue" in said[2]
    assert len(requests[1].body["messages"]) == 3  # the saved exchange, then the new prompt


def test_print_runs_a_skill_as_headless_does(project: Project) -> None:
    project.write(
        ".legato/skills/greet.md",
        "---\nname: greet\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n",
    )
    with ScriptedServer([text("Hello, Ada.")]) as server:
        done = legato(project, server.url, "-p", "/greet Ada")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "Say hello to Ada." in first_prompt(requests[0].body)


def test_help_and_the_readme_list_every_flag() -> None:
    import argparse

    from frontends.startup.flags import build_parser

    shown = [
        option
        for action in build_parser()._actions
        if action.help != argparse.SUPPRESS
        for option in action.option_strings
        if option not in ("-h", "--help")
    ]
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", "--help"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )  # fmt: skip
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert [option for option in shown if option not in done.stdout] == []
    assert [option for option in shown if f"`{option}" not in readme] == []
