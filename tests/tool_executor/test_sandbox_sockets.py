"""Services outside the sandbox cannot be reached through their Unix sockets.

A socket on a read-only mount still takes connections, and `--unshare-net` does not cut Unix
sockets that have a path, so without this a confined command could ask the session bus to
start a program outside the sandbox, or the docker daemon for a container that mounts /. The
places where services listen are hidden like credential folders, unless
``sandbox.allowUnixSockets`` names them.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import threading
from typing import TYPE_CHECKING

import pytest

from actors.protocol import DescribeSandbox, SandboxSettings
from actors.tool_executor.sandbox.layout import bwrap_args
from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.places import layout, service_sockets
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

CONNECT = """
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print(path, s.recv(100).decode().strip())
    except OSError as error:
        print(path, type(error).__name__)
"""


def test_the_places_come_from_the_runtime_folder_the_agent_and_the_bus() -> None:
    env = {
        "XDG_RUNTIME_DIR": "/run/user/1000",
        "SSH_AUTH_SOCK": "/tmp/ssh-abc/agent.7",
        "DBUS_SESSION_BUS_ADDRESS": "unix:path=/var/bus/b,guid=1;unix:abstract=/tmp/dbus-x",
    }
    places = service_sockets(env, 1000)
    assert places[0] == "/run/user/1000"
    moved = service_sockets({"XDG_RUNTIME_DIR": "/tmp/xdg-1"}, 1000)
    assert moved[:2] == ("/tmp/xdg-1", "/run/user/1000")  # the bus may still be in /run/user
    assert {"/tmp/ssh-abc/agent.7", "/var/bus/b", "/run/docker.sock"} <= set(places)
    assert not any("abstract" in place or "dbus-x" in place for place in places)
    assert service_sockets({"SSH_AUTH_SOCK": "relative"}, 7)[0] == "/run/user/7"
    assert "relative" not in service_sockets({"SSH_AUTH_SOCK": "relative"}, 7)


class Listening:
    """Unix sockets that answer each connection with a word, in a thread."""

    def __init__(self, *paths: Path) -> None:
        self._sockets = []
        for path in paths:
            server = socket.socket(socket.AF_UNIX)
            server.bind(str(path))
            server.listen()
            server.settimeout(0.05)
            self._sockets.append(server)
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._done.is_set():
            for server in self._sockets:
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                conn.sendall(b"reached\n")
                conn.close()

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        for server in self._sockets:
            server.close()


@pytest.fixture
def places(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A project, and a runtime folder beside it with two services listening."""
    project, run = tmp_path / "project", tmp_path / "run"
    project.mkdir()
    run.mkdir()
    listening = Listening(run / "bus", run / "docker.sock")
    yield project.resolve(), run.resolve()
    listening.close()


def confined(project: Path, settings: SandboxSettings, services: list[str], *paths: Path) -> str:
    bwrap = find_bwrap()
    assert bwrap is not None
    plan = layout(
        settings, project=str(project), home=str(project), tmpdir=str(project), services=services
    )
    # The services' own hiding, alone: the private /tmp would hide this runtime folder anyway
    # (test_sandbox_home.py shows that).
    plan = dataclasses.replace(plan, private=(), kept=())
    argv = [bwrap, *bwrap_args(plan, str(project)), "--", "python3", "-c", CONNECT]
    ran = subprocess.run(
        [*argv, *map(str, paths)], capture_output=True, text=True, check=False, timeout=30
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


@needs_bwrap
def test_a_service_is_reached_unconfined_and_not_from_the_sandbox(
    places: tuple[Path, Path],
) -> None:
    project, run = places
    bus, docker = run / "bus", run / "docker.sock"
    outside = subprocess.run(
        ["python3", "-c", CONNECT, str(bus)], capture_output=True, text=True, check=True
    ).stdout
    assert outside == f"{bus} reached\n"
    # No network either: --unshare-net alone does not cut a socket that has a path.
    inside = confined(project, SandboxSettings(network=False), [str(run)], bus, docker)
    assert inside == f"{bus} FileNotFoundError\n{docker} FileNotFoundError\n"


@needs_bwrap
def test_a_socket_file_itself_is_made_unreachable(places: tuple[Path, Path]) -> None:
    project, run = places
    bus = run / "bus"
    inside = confined(project, SandboxSettings(), [str(bus)], bus, run / "docker.sock")
    assert inside == f"{bus} ConnectionRefusedError\n{run / 'docker.sock'} reached\n"


@needs_bwrap
def test_allow_unix_sockets_lets_one_through_and_keeps_the_rest_hidden(
    places: tuple[Path, Path],
) -> None:
    project, run = places
    bus, docker = run / "bus", run / "docker.sock"
    one = SandboxSettings(allow_unix_sockets=(str(docker),))
    assert confined(project, one, [str(run)], bus, docker) == (
        f"{bus} FileNotFoundError\n{docker} reached\n"
    )
    every = SandboxSettings(allow_unix_sockets=(str(run),))
    assert confined(project, every, [str(run)], bus, docker) == (
        f"{bus} reached\n{docker} reached\n"
    )


def test_a_service_folder_that_holds_the_project_is_left_alone(tmp_path: Path) -> None:
    """A project kept inside the runtime folder (or a socket folder the user writes in) stays
    the user's: hiding it would hide the project."""
    project = tmp_path / "run" / "project"
    project.mkdir(parents=True)
    plan = layout(
        SandboxSettings(deny_read=()),
        project=str(project),
        home=str(tmp_path),
        tmpdir=str(tmp_path),
        services=[str(tmp_path / "run"), str(tmp_path / "missing.sock")],
    )
    assert (plan.hidden, plan.services) == ((), ())


def test_the_runtime_folder_is_among_the_defaults() -> None:
    assert service_sockets({}, os.getuid())[0] == f"/run/user/{os.getuid()}"


@needs_bwrap
async def test_a_sessions_commands_cannot_reach_the_users_runtime_folder(tmp_path: Path) -> None:
    """Through the real executor: the runtime folder the session's environment names is
    hidden, and the doctor's lines say so; sandbox.allowUnixSockets opens one socket."""
    run = tmp_path / "run"
    run.mkdir()
    listening = Listening(run / "bus", run / "docker.sock")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(run)}
    command = f"python3 -c '{CONNECT}' {run / 'bus'} {run / 'docker.sock'}"
    try:
        project = tmp_path / "project"
        project.mkdir()
        async with with_policy(project, answers=["y"], env=env) as s:
            hidden = await s.one("Bash", command=command)
            report = await s.executor.address.ask(DescribeSandbox())
        other = tmp_path / "other"
        other.mkdir()
        allowed = {"allowUnixSockets": [str(run / "docker.sock")]}
        async with with_policy(other, answers=["y"], env=env, sandbox=allowed) as s:
            opened = await s.one("Bash", command=command)
    finally:
        listening.close()
    bus, docker = run.resolve() / "bus", run.resolve() / "docker.sock"
    assert hidden.result.content == f"{bus} FileNotFoundError\n{docker} FileNotFoundError"
    assert any(str(run.resolve()) in line and "unreachable" in line for line in report.enforces)
    assert opened.result.content == f"{bus} FileNotFoundError\n{docker} reached"
