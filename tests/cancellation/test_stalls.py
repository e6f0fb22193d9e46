"""A model stream that stalls is retried, then fails clearly; the wait is configurable.

``--stream-timeout SECONDS`` (or ``ASSISTANT_STREAM_TIMEOUT``) is how long the answer may send
nothing before the attempt is abandoned: retried while nothing of the answer has been shown,
otherwise reported. Tested against the scripted server holding its events back (``delay``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    import subprocess

    from tests.frontends.conftest import Project

STALLED = text("this answer never comes", delay=5.0)  # the first event, then 5 s of nothing


def legato_with(
    project: Project, base_url: str, extra_env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return project.legato(base_url, *args, env=extra_env)


def test_a_stalled_answer_is_retried_and_the_retry_answers(project: Project) -> None:
    with ScriptedServer([STALLED, text("Recovered answer.")]) as server:
        done = project.legato(server.url, "--headless", "hello", "--stream-timeout", "0.3")
        assert len(server.requests) == 2
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Recovered answer."
    assert "no answer for 0.3 s; retrying in" in done.stderr


def test_a_stream_that_keeps_stalling_ends_in_a_clear_error(project: Project) -> None:
    with ScriptedServer([STALLED, STALLED, STALLED]) as server:
        env_done = legato_with(
            project, server.url, {"ASSISTANT_STREAM_TIMEOUT": "0.2"}, "--headless", "hello"
        )
        assert len(server.requests) == 3  # the first try and two retries
    assert env_done.returncode == 1
    assert "\nlegato: " in f"\n{env_done.stderr}"
    assert "went silent: no answer for 0.2 s" in env_done.stderr
    assert "raise --stream-timeout" in env_done.stderr  # the remedy fits a stall
    assert "Traceback" not in env_done.stderr


def test_a_bad_stream_timeout_is_a_usage_error(project: Project) -> None:
    flag = project.legato("http://127.0.0.1:9", "--headless", "hi", "--stream-timeout", "soon")
    assert flag.returncode == 2
    assert "--stream-timeout: 'soon' is not a number of seconds" in flag.stderr
    env = legato_with(
        project, "http://127.0.0.1:9", {"ASSISTANT_STREAM_TIMEOUT": "-1"}, "--headless", "hi"
    )
    assert env.returncode == 2
    assert "ASSISTANT_STREAM_TIMEOUT: '-1' must be a number of seconds above 0" in env.stderr
    assert "export ASSISTANT_STREAM_TIMEOUT=120" in env.stderr
