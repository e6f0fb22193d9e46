"""What a confined command reaches besides the project, tried as an attacker would: the home
folder's token stores, Legato's own folders, the terminal multiplexer's server, other sessions'
files in /tmp, and the machine's processes and memory. Real executor, broker, memory store and
bubblewrap; a real tmux server on a socket of the test's own."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.protocol import DescribeSandbox
from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.scope import outside_listeners
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.tool_executor.harness import PolicySession

pytestmark = needs_bwrap

SECRET = "SECRET-c41d"
YES = ["y"] * 50
# Where tools keep their tokens, as a fake home holds them.
TOKEN_STORES = (
    ".config/gh/hosts.yml",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".cargo/credentials.toml",
    ".config/hub",
    ".terraform.d/credentials.tfrc.json",
    ".local/share/keyrings/login.keyring",
    ".mozilla/firefox/profile/cookies.sqlite",
    ".config/google-chrome/Default/Cookies",
    ".claude.json",
    ".claude/.credentials.json",
    ".config/legato/config.json",
    ".legato/projects/x/memory/MEMORY.md",
    # Other assistants' and model hubs' keys, and the clouds and CLIs not named above.
    ".codex/auth.json",
    ".gemini/oauth_creds.json",
    ".config/github-copilot/apps.json",
    ".aider.conf.yml",
    ".cache/huggingface/token",
    ".cache/huggingface/stored_tokens",
    ".huggingface/token",
    ".config/configstore/firebase-tools.json",
    ".oci/config",
    ".ibmcloud/config.json",
    ".fly/config.yml",
    ".s3cfg",
    ".config/rclone/rclone.conf",
    ".databrickscfg",
    # Shell history: tokens typed on a command line (export GITHUB_TOKEN=...).
    ".bash_history",
    ".zsh_history",
    ".local/share/fish/fish_history",
)


def confined(root: Path, **settings: Any) -> Any:
    return with_policy(root, mode="ask", answers=YES, **settings)


async def run(s: PolicySession, command: str) -> tuple[str, bool]:
    done = await s.one("Bash", command=command)
    return done.result.content, done.result.is_error


def project_and_home(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    home = tmp_path / "project-home"  # the home with_policy gives the memory store
    home.mkdir(exist_ok=True)
    return project, home


def plant(home: Path) -> None:
    for store in TOKEN_STORES:
        (home / store).parent.mkdir(parents=True, exist_ok=True)
        (home / store).write_text(json.dumps({"apiKey": SECRET}))  # JSON: Legato reads one
        (home / store).chmod(0o600)
    (home / ".gitconfig").write_text("[user]\n\tname = t\n")
    (home / ".cache/huggingface/hub").mkdir(parents=True)
    (home / ".cache/huggingface/hub/model").write_text("weights\n")


async def test_the_token_stores_of_the_home_folder_are_unreadable(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    plant(home)
    async with confined(project) as s:
        seen = [await run(s, f"cat {home / store}") for store in TOKEN_STORES]
        gitconfig, gitconfig_failed = await run(s, f"cat {home}/.gitconfig")
        cached = await run(s, f"cat {home}/.cache/huggingface/hub/model")
        report = await s.executor.address.ask(DescribeSandbox())
    for store, (output, failed) in zip(TOKEN_STORES, seen, strict=True):
        assert failed and SECRET not in output, store
    # The rest of the home stays readable: toolchains read their settings there.
    assert (gitconfig, gitconfig_failed) == ("[user]\n\tname = t", False)
    assert cached == ("weights", False)  # a model hub's cache, beside its hidden token
    said = "\n".join(report.enforces)
    assert "~/.config/gh" in said and "~/.git-credentials" in said and "~/.npmrc" in said


async def test_an_empty_deny_list_does_not_expose_legato_nor_the_defaults(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    plant(home)
    async with confined(project, sandbox={"denyRead": []}) as s:
        legato, legato_failed = await run(s, f"cat {home}/.config/legato/config.json")
        gh, gh_failed = await run(s, f"cat {home}/.config/gh/hosts.yml")
    assert legato_failed and SECRET not in legato
    assert gh_failed and SECRET not in gh


async def test_a_link_to_legatos_folder_named_in_allow_write_stays_unwritable(
    tmp_path: Path,
) -> None:
    project, home = project_and_home(tmp_path)
    config = home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text("{}")
    async with confined(project, sandbox={"allowWrite": ["cache"]}) as s:
        # Made after the settings were checked: the layout looks again, through the link.
        (project / "cache").symlink_to(config.parent)
        hook = json.dumps({"hooks": {"SessionStart": [{"command": "touch ~/PWNED"}]}})
        output, failed = await run(s, f"echo '{hook}' > cache/config.json")
        report = await s.executor.address.ask(DescribeSandbox())
    assert failed, output
    assert config.read_text() == "{}"
    assert any("allowWrite 'cache': not writable" in line for line in report.enforces)


# Connects to an abstract socket (no path: no mount hides it) and prints what it read.
CONNECT = """import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1].encode().replace(b"@", b"\\0", 1))
except OSError as error:
    print("refused:", error.strerror)
else:
    print("reached:", s.recv(64).decode())
"""


OWN = """import socket, subprocess, sys
address = sys.argv[1].encode().replace(b"@", b"\\0", 1)
server = socket.socket(socket.AF_UNIX)
server.bind(address)
server.listen(1)
child = subprocess.Popen([sys.executable, "connect.py", sys.argv[1]])
peer, _ = server.accept()
peer.sendall(b"its own")
child.wait()
"""


async def test_a_service_on_an_abstract_socket_cannot_be_reached(tmp_path: Path) -> None:
    """X servers (Xwayland included) and older session buses listen in the abstract namespace,
    which a mount cannot hide and which is shared while commands have the network."""
    project, _ = project_and_home(tmp_path)
    (project / "connect.py").write_text(CONNECT)
    name = f"@legato-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(name.encode().replace(b"@", b"\0", 1))
        server.listen(1)
        server.setblocking(False)

        async def answer() -> None:
            while True:
                await anyio.wait_readable(server)
                peer, _ = server.accept()
                with peer:
                    peer.sendall(b"a keystroke into your terminal")

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer)
            async with confined(project) as s:
                output, _ = await run(s, f"python3 connect.py {name}")
                # An abstract socket the command makes itself still works: its own
                # processes talk to each other (a test server, a language server).
                (project / "own.py").write_text(OWN)
                own, _ = await run(s, f"python3 own.py {name}-own")
                report = await s.executor.address.ask(DescribeSandbox())
            tasks.cancel_scope.cancel()
    assert output.startswith("refused:"), output
    assert own == "reached: its own"
    assert any(line.startswith("unreachable: abstract Unix sockets") for line in report.enforces)


def test_the_scope_runs_while_something_outside_listens_on_an_abstract_socket(
    tmp_path: Path,
) -> None:
    """The scope's interpreter costs each command some milliseconds: it runs only while a
    socket of the machine listens on an abstract address (the table the kernel keeps)."""
    head = "Num       RefCount Protocol Flags    Type St Inode Path\n"
    table = tmp_path / "unix"
    table.write_text(
        head
        + "0000000000000000: 00000002 00000000 00010000 0001 01 11 /run/user/1000/bus\n"
        + "0000000000000000: 00000003 00000000 00000000 0001 03 12 @/tmp/.X11-unix/X0\n"
    )
    # A listening socket with a path, and an abstract one that only connected: nothing to cut.
    assert not outside_listeners(str(table))
    table.write_text(
        head + "0000000000000000: 00000002 00000000 00010000 0001 01 13 @/tmp/.X11-unix/X0\n"
    )
    assert outside_listeners(str(table))
    assert outside_listeners(str(tmp_path / "missing"))  # unreadable: keep the scope
    name = f"@legato-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(name.encode().replace(b"@", b"\0", 1))
        server.listen(1)
        assert outside_listeners()  # the machine's own table


PYTHON = os.path.realpath(sys.executable)


async def test_where_legatos_interpreter_is_hidden_commands_run_without_the_scope(
    tmp_path: Path,
) -> None:
    """A denyRead folder that holds Legato's interpreter: the launcher cannot run inside, so
    commands run as before, and the doctor says abstract sockets stay reachable."""
    project, _ = project_and_home(tmp_path)
    async with confined(project, sandbox={"denyRead": [os.path.dirname(PYTHON)]}) as s:
        output, failed = await run(s, "echo ran")
        report = await s.executor.address.ask(DescribeSandbox())
    assert (output, failed) == ("ran", False)
    said = "\n".join(report.enforces)
    assert "! abstract Unix sockets outside the command (X servers, some buses) stay" in said
    assert f"Legato's {PYTHON} is hidden from commands" in said


@pytest.fixture(params=["tmp", "home"])
def tmux_server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A tmux server of the test's own, never the user's: on a socket under /tmp, or in the
    home folder (as TMUX_TMPDIR can put it), where only $TMUX says where it is."""
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    folder = tmp_path / "tmux" if request.param == "tmp" else tmp_path / "project-home" / ".tmux"
    folder.mkdir(mode=0o700, parents=True)
    socket = folder / "default"
    start = [tmux, "-S", str(socket), "-f", "/dev/null", "new-session", "-d", "-s", "t"]
    subprocess.run(start, check=True, env={**os.environ, "TMUX": ""})
    try:
        yield socket
    finally:
        subprocess.run([tmux, "-S", str(socket), "kill-server"], check=False)


async def test_the_tmux_server_cannot_be_reached_from_a_command(
    tmp_path: Path, tmux_server: Path
) -> None:
    project, _ = project_and_home(tmp_path)
    pwned = tmp_path / "PWNED"
    # Reachable from outside the sandbox: the server runs what it is sent.
    await anyio.run_process(["tmux", "-S", str(tmux_server), "run-shell", "true"])
    env = {**os.environ, "TMUX": f"{tmux_server},1,0", "TMUX_PANE": "%0", "STY": "1.pts-0.h"}
    async with with_policy(project, mode="ask", answers=YES, env=env) as s:
        sent, sent_failed = await run(s, f"tmux -S {tmux_server} run-shell 'touch {pwned}'")
        names, _ = await run(s, 'echo "[$TMUX][$TMUX_PANE][$STY]"')
    assert sent_failed, sent
    assert not pwned.exists()
    assert names == "[][][]"


async def test_another_sessions_files_in_tmp_are_invisible(tmp_path: Path) -> None:
    project, _ = project_and_home(tmp_path)
    other = tempfile.mkdtemp(prefix="legato-tmp-")  # another session's TMPDIR
    shared = await anyio.Path(tempfile.gettempdir()).resolve()
    try:
        (Path(other) / "notes").write_text(SECRET)
        async with confined(project) as s:
            output, failed = await run(s, f"cat {other}/notes")
            listed, _ = await run(s, "ls -A /tmp")
            ours, ours_failed = await run(s, 'echo mine > "$TMPDIR/x" && cat "$TMPDIR/x"')
            written, written_failed = await run(s, f"echo x > /tmp/legato-{uuid.uuid4().hex}")
    finally:
        shutil.rmtree(other)
    assert failed and SECRET not in output
    # The model is told why.
    assert f"{shared} is private to each command" in output
    assert Path(other).name not in listed
    assert (ours, ours_failed) == ("mine", False)  # the session's own TMPDIR still works
    assert written_failed and "Read-only file system" in written


# Forks until the kernel says no, each child waiting on a pipe that the parent then closes:
# bounded (at most 400) however the limit is set, and nothing is left behind.
FORK_BOMB = """
import os
read, write = os.pipe()
children = 0
try:
    while children < 400:
        if os.fork() == 0:
            os.close(write)
            os.read(read, 1)
            os._exit(0)
        children += 1
except OSError as error:
    print("refused", error.errno)
os.close(write)
print("children", children)
"""


@pytest.fixture
def unprivileged() -> Iterator[tuple[Path, str | None]]:
    """A project a user other than root can enter, and the bwrap to give the session: run as
    that user when the tests run as root, whose processes the kernel never limits (uid 0 is
    exempt from RLIMIT_NPROC: docs/security.md says so)."""
    folder = Path(tempfile.mkdtemp(prefix="legato-unprivileged-"))
    try:
        project = folder / "project"
        project.mkdir()
        folder.chmod(0o755)
        project.chmod(0o777)
        bwrap = None
        if os.geteuid() == 0:
            setpriv, real = shutil.which("setpriv"), find_bwrap()
            if setpriv is None or real is None:
                pytest.skip("running as root, and setpriv is not here to run bwrap as nobody")
            bwrap = str(folder / "bwrap-as-nobody")
            with open(bwrap, "w") as file:
                file.write(
                    f"#!/bin/sh\nexec {setpriv} --reuid=65534 --regid=65534 --clear-groups "
                    f'{real} "$@"\n'
                )
            os.chmod(bwrap, 0o755)
        yield project, bwrap
    finally:
        shutil.rmtree(folder)


async def test_a_fork_bomb_stops_at_the_process_limit_and_the_session_goes_on(
    unprivileged: tuple[Path, str | None],
) -> None:
    project, bwrap = unprivileged
    (project / "bomb.py").write_text(FORK_BOMB)
    settings = {"maxProcesses": 32}
    async with with_policy(project, answers=YES, bwrap=bwrap, sandbox=settings) as s:
        output, _ = await run(s, "/usr/bin/env python3 bomb.py")
        after, after_failed = await run(s, "echo still here")
    lines = dict(line.split(" ", 1) for line in output.splitlines())
    assert lines["refused"] == "11", output  # EAGAIN: the limit, not the loop's bound
    assert int(lines["children"]) < 32
    assert (after, after_failed) == ("still here", False)


async def test_a_process_cannot_take_more_memory_than_the_limit(tmp_path: Path) -> None:
    project, _ = project_and_home(tmp_path)
    grab = "b = bytearray({} * 1024 * 1024); print('took', len(b) >> 20)"
    async with confined(project, sandbox={"maxMemoryMB": 256}) as s:
        big, big_failed = await run(s, f'{sys.executable} -c "{grab.format(512)}"')
        small, small_failed = await run(s, f'{sys.executable} -c "{grab.format(64)}"')
        # Files in memory, which no process's limit counts: /dev/shm is as big as the limit,
        # and /dev takes no file.
        shm, shm_failed = await run(s, "head -c 300M /dev/zero > /dev/shm/big")
        dev, dev_failed = await run(s, "head -c 1M /dev/zero > /dev/big")
        report = await s.executor.address.ask(DescribeSandbox())
    assert big_failed and "MemoryError" in big
    assert (small, small_failed) == ("took 64", False)
    assert shm_failed and "No space left on device" in shm
    assert dev_failed and "Read-only file system" in dev
    assert "limits: 1024 processes" in "\n".join(report.enforces)
    assert "256 MiB of data memory per process" in "\n".join(report.enforces)


async def test_a_command_cannot_unmount_what_hides_a_folder(tmp_path: Path) -> None:
    # Run by root, bubblewrap would leave the command every capability, CAP_SYS_ADMIN with them.
    project, home = project_and_home(tmp_path)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    async with confined(project) as s:
        output, failed = await run(s, f"umount {home}/.ssh; cat {home}/.ssh/id_ed25519")
    assert failed and SECRET not in output
