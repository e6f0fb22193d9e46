"""Bash commands under Landlock, the fallback where bubblewrap cannot run, through the real
executor, broker and memory store. A bwrap that fails as one does where user namespaces are
turned off makes each session fall back; a person answers yes to every question, so each
command reaches the kernel."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.protocol import DescribeSandbox, Notice
from actors.tool_executor.sandbox import landlock
from actors.tool_executor.sandbox.landlock import make_launcher
from actors.tool_executor.sandbox.places import DEVICES
from actors.tool_executor.sandbox.session import PARTLY_ENFORCED, REMEDY_LINUX
from tests.tool_executor.harness import Person, with_policy
from tests.tool_executor.sandbox_setup import needs_landlock
from tests.tool_executor.test_sandbox_home import CONNECT

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.tool_executor.harness import PolicySession

pytestmark = needs_landlock

SECRET = "SECRET-5b1e"
YES = ["y"] * 50
IDENTITY = "-c user.name=t -c user.email=t@example.com"


def under_landlock(root: Path, bwrap: str, **settings: Any) -> Any:
    return with_policy(root, mode="ask", answers=YES, bwrap=bwrap, **settings)


async def run(s: PolicySession, command: str) -> tuple[str, bool]:
    done = await s.one("Bash", command=command)
    return done.result.content, done.result.is_error


def home_of(root: Path) -> Path:
    return root.parent / f"{root.name}-home"  # the home with_policy gives the memory store


def project_in(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


async def test_writing_outside_the_project_fails(tmp_path: Path, failing_bwrap: str) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    beside = tmp_path / "beside.txt"
    in_tmp = anyio.Path(tempfile.gettempdir()) / f"legato-landlock-test-{uuid.uuid4().hex}"
    async with under_landlock(project, failing_bwrap) as s:
        for command in (
            f"echo x >> {home}/.bashrc",
            f"echo x > {beside}",
            f"echo x > {in_tmp}",
            f"mkdir {tmp_path}/folder",
            f"rm {home}/.bashrc",
        ):
            output, failed = await run(s, command)
            assert failed and "Permission denied" in output, (command, output)
        report = await s.executor.address.ask(DescribeSandbox())
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert not beside.exists() and not await in_tmp.exists()
    assert not (tmp_path / "folder").exists()
    assert report.active and report.mechanism == f"landlock (ABI {landlock.abi()})"


async def test_the_project_the_tmpdir_and_git_work(tmp_path: Path, failing_bwrap: str) -> None:
    project = project_in(tmp_path)
    (project / "a.txt").write_text("one\n")
    async with under_landlock(project, failing_bwrap) as s:
        made, made_failed = await run(s, "mkdir -p d/e && echo hi > d/e/f && cat d/e/f")
        tmp, tmp_failed = await run(
            s, 'echo "$TMPDIR"; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; stat -c %a "$TMPDIR"'
        )
        gitted, git_failed = await run(
            s,
            f"git init -q && git add -A && git {IDENTITY} commit -qm first && "
            f"git checkout -q -b other && echo two >> a.txt && "
            f"git {IDENTITY} commit -qam second && git checkout -q - && "
            "git log --oneline --all | wc -l && cat a.txt",
        )
        moved, move_failed = await run(s, 'mv d/e/f "$TMPDIR/f" && mv "$TMPDIR/f" g && cat g')
        devices, devices_failed = await run(s, "echo x > /dev/null && echo y >&2 && echo ok")
    assert (made, made_failed) == ("hi", False)
    assert not tmp_failed and tmp.splitlines()[1:] == ["t", "700"]
    assert (gitted, git_failed) == ("2\none", False)
    assert (moved, move_failed) == ("hi", False)
    assert (devices, devices_failed) == ("y\nok", False)


async def test_a_command_holds_no_ruleset_and_exits_as_it_would_unconfined(
    tmp_path: Path, failing_bwrap: str
) -> None:
    descriptors = "python3 -c \"import os; print(sorted(os.listdir('/proc/self/fd')))\""
    async with under_landlock(tmp_path, failing_bwrap) as s:
        held, _ = await run(s, descriptors)
        exited, _ = await run(s, "exit 130")
        killed, _ = await run(s, "echo before; kill -KILL $$")
    # Its standard three, and the one listing them: the session's ruleset is not among them,
    # so a command cannot add rules to the next command's ruleset.
    assert held == "['0', '1', '2', '3']"
    assert exited == "Exit code 130"  # its own code: the launcher became the shell
    assert killed.startswith("before\nKilled by SIGKILL after ")


async def test_allow_write_folders_are_writable_whatever_their_names(
    tmp_path: Path, failing_bwrap: str
) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    odd = "-x \"quoted\" 'and'\nnewline"
    for name in ("cache", odd):
        (home / name).mkdir(parents=True)
    settings = {"allowWrite": ["~/cache", f"~/{odd}"]}
    # Into each folder of the home (the odd name is found, not written out), then the home;
    # not Legato's own folder there (the trust record the harness keeps), which stays closed.
    write = (
        'python3 -c "import os, sys; home = sys.argv[1]; '
        "[open(os.path.join(home, name, 'w'), 'w').write('w') for name in os.listdir(home) "
        "if name != '.legato']\""
    )
    async with under_landlock(project, failing_bwrap, sandbox=settings) as s:
        output, failed = await run(s, f"{write} {home}")
        beside, beside_failed = await run(s, f"python3 -c \"open('{home}/w', 'w')\"")
    assert not failed, output
    assert (home / "cache" / "w").read_text() == "w"
    assert (home / odd / "w").read_text() == "w"
    assert beside_failed and "PermissionError" in beside and not (home / "w").exists()


@pytest.fixture
def udp_listener() -> Iterator[socket.socket]:
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.settimeout(5)
    yield listener
    listener.close()


@pytest.mark.parametrize("network", [True, False])
async def test_network_false_refuses_tcp_but_not_udp(
    tmp_path: Path, failing_bwrap: str, loopback: int, udp_listener: socket.socket, network: bool
) -> None:
    connect = (
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {loopback}), 2); "
        "print('connected')\""
    )
    serve = "python3 -c \"import socket; socket.create_server(('127.0.0.1', 0)); print('bound')\""
    udp_port = udp_listener.getsockname()[1]
    datagram = (
        'python3 -c "import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)'
        f".sendto(b'out', ('127.0.0.1', {udp_port}))\""
    )
    async with under_landlock(tmp_path, failing_bwrap, sandbox={"network": network}) as s:
        connected, connect_failed = await run(s, connect)
        bound, bind_failed = await run(s, serve)
        _, udp_failed = await run(s, datagram)
        report = await s.executor.address.ask(DescribeSandbox())
    if network:
        assert (connected, connect_failed, bound, bind_failed) == (
            "connected",
            False,
            "bound",
            False,
        )
    else:
        assert connect_failed and "PermissionError" in connected
        assert bind_failed and "PermissionError" in bound
        assert "network: TCP (bind and connect)" in " ".join(report.enforces)
        assert any("UDP and Unix sockets" in line for line in report.not_enforced)
    # UDP is not Landlock's to refuse, as the report says.
    assert not udp_failed and udp_listener.recv(16) == b"out"


async def test_credential_folders_are_unreadable_the_rest_is_not(
    tmp_path: Path, failing_bwrap: str
) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    (home / ".config" / "legato").mkdir(parents=True)
    (home / ".config" / "legato" / "secret.txt").write_text(SECRET)
    (home / ".config" / "tool.conf").write_text("readable")
    (home / "notes.txt").write_text("readable")
    (project / "link").symlink_to(home / ".ssh" / "id_ed25519")
    async with under_landlock(project, failing_bwrap) as s:
        secrets, _ = await run(
            s,
            f"cat {home}/.ssh/id_ed25519; cat {home}/.netrc; "
            f"cat {home}/.config/legato/secret.txt; cat link",
        )
        listed, _ = await run(s, f"ls -A {home}/.ssh")
        others, others_failed = await run(
            s, f"cat {home}/notes.txt {home}/.config/tool.conf && ls /usr/bin/env"
        )
        terminals, _ = await run(
            s, "python3 -c \"import os; os.open('/dev/pts/ptmx', os.O_RDONLY | os.O_NOCTTY)\""
        )
    assert SECRET not in secrets and secrets.count("Permission denied") == 4, secrets
    assert listed == "id_ed25519"  # names can be listed, as the report says
    assert (others, others_failed) == ("readablereadable/usr/bin/env", False)
    assert "PermissionError" in terminals


async def test_an_entry_added_beside_an_unreadable_one_is_readable_from_the_next_command(
    tmp_path: Path, failing_bwrap: str
) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    (home / ".ssh").mkdir(parents=True)

    def settle(seconds_ago: int) -> None:
        """The home's mtime, long enough ago to be trusted, as on a real machine."""
        then = os.stat(home).st_mtime - seconds_ago
        os.utime(home, (then, then))

    settle(100)
    async with under_landlock(project, failing_bwrap) as s:
        before, before_failed = await run(s, f"cat {home}/later.txt")
        (home / "later.txt").write_text("later")
        settle(50)
        after, after_failed = await run(s, f"cat {home}/later.txt")
        (home / "later.txt").unlink()  # replaced, as an editor saves: another file, same name
        (home / "later.txt").write_text("again")
        again, _ = await run(s, f"cat {home}/later.txt")
    assert before_failed and "No such file" in before
    assert (after, after_failed) == ("later", False)
    assert again == "again"


async def test_what_it_does_not_enforce_it_says_and_does_not(
    tmp_path: Path, failing_bwrap: str
) -> None:
    await anyio.run_process(["git", "init", "-q"], cwd=tmp_path)
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / "secrets").mkdir()
    ui = Person([])
    settings: dict[str, Any] = {
        "blockedPaths": [".env"],
        "sandbox": {"denyRead": ["~/.ssh", "secrets"]},
    }
    async with with_policy(tmp_path, answers=YES, bwrap=failing_bwrap, ui=ui, **settings) as s:
        read, _ = await run(s, "python3 -c \"print(open('.e' + 'nv').read())\"")
        _, config_failed = await run(s, "git config core.editor true")
        report = await s.executor.address.ask(DescribeSandbox())
        await run(s, "true")
    assert read == SECRET  # a blocked file inside the project stays readable
    assert not config_failed  # and .git/config writable
    not_enforced = "\n".join(report.not_enforced)
    read_only = "read-only inside the project (.legato/, .claude/, .mcp.json, git's config, "
    assert read_only in not_enforced
    assert "the project's files that blockedPaths block: readable" in not_enforced
    assert f"denyRead {tmp_path}/secrets: readable, inside the writable {tmp_path}" in not_enforced
    assert "no PID namespace" in not_enforced
    assert report.why_not is not None and report.why_not.startswith("Why not bubblewrap: ")
    assert failing_bwrap in report.why_not and report.why_not.endswith(REMEDY_LINUX)
    (notice,) = [event for event in ui.shown if isinstance(event, Notice)]  # once, not twice
    assert notice.level == "warning"
    assert notice.text.startswith(f"{PARTLY_ENFORCED}. Not enforced: read-only inside the project")
    assert "blockedPaths block: readable" in notice.text and failing_bwrap in notice.text
    assert notice.text.endswith(REMEDY_LINUX)


async def test_it_does_not_count_as_confined_for_auto_allow(
    tmp_path: Path, failing_bwrap: str
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    offline = {"network": False}
    async with with_policy(tmp_path, mode="auto", bwrap=failing_bwrap, sandbox=offline) as s:
        done = await s.one("Bash", command="wc -l a.txt")
    # Under bubblewrap this runs unasked (test_sandbox_questions.py); headless, asking denies.
    assert done.result.denied


async def test_leaving_it_still_needs_a_person(tmp_path: Path, failing_bwrap: str) -> None:
    project = project_in(tmp_path)
    beside = tmp_path / "beside.txt"
    command = f"touch {beside}"
    allowed: dict[str, Any] = {"allowedCommands": ["touch"]}
    async with with_policy(project, mode="auto", bwrap=failing_bwrap, **allowed) as s:
        headless = await s.one("Bash", command=command, dangerouslyDisableSandbox=True)
    assert headless.result.denied and not beside.exists()
    assert "outside the sandbox needs a person's approval" in headless.result.content
    async with with_policy(
        project, mode="auto", answers=["y"], bwrap=failing_bwrap, **allowed
    ) as s:
        confined = await s.one("Bash", command=command)
        escaped = await s.one("Bash", command=command, dangerouslyDisableSandbox=True)
        assert s.person is not None and len(s.person.asked) == 1
    assert confined.result.is_error and "Permission denied" in confined.result.content
    assert not escaped.result.is_error and beside.exists()


@pytest.fixture
def abi(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> int:
    """The kernel's ABI as the session finds it, lowered to the parameter: the ruleset then
    asks only for what that ABI knows, as on an older kernel."""
    version: int = request.param
    monkeypatch.setattr(landlock, "abi", lambda: version)
    return version


@pytest.mark.parametrize("abi", [3, 4], indirect=True)
async def test_an_abi_before_4_leaves_tcp_open_and_says_so(
    tmp_path: Path, failing_bwrap: str, loopback: int, abi: int
) -> None:
    connect = f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {loopback}))\""
    async with under_landlock(tmp_path, failing_bwrap, sandbox={"network": False}) as s:
        _, failed = await run(s, connect)
        report = await s.executor.address.ask(DescribeSandbox())
    assert report.mechanism == f"landlock (ABI {abi})"
    said = "network: open; refusing TCP needs Landlock ABI 4, this kernel has 3"
    assert (failed, said in report.not_enforced) == (abi == 4, abi == 3)


@pytest.mark.parametrize("abi", [2, 3], indirect=True)
async def test_an_abi_before_3_leaves_truncation_open_and_says_so(
    tmp_path: Path, failing_bwrap: str, abi: int
) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    home.mkdir()
    (home / ".bashrc").write_text("# mine\n")
    async with under_landlock(project, failing_bwrap) as s:
        await run(s, f"python3 -c \"import os; os.truncate('{home}/.bashrc', 0)\"")
        report = await s.executor.address.ask(DescribeSandbox())
    truncated = (home / ".bashrc").read_text() == ""
    said = "files outside the writable places can be truncated (ABI 2 < 3)"
    assert (truncated, said in report.not_enforced) == (abi == 2, abi == 2)


@pytest.mark.parametrize("abi", [1, 2], indirect=True)
async def test_abi_1_cannot_move_a_file_into_another_folder(
    tmp_path: Path, failing_bwrap: str, abi: int
) -> None:
    move = "mkdir -p a b && touch a/f && python3 -c \"import os; os.rename('a/f', 'b/f')\""
    async with under_landlock(tmp_path, failing_bwrap) as s:
        output, failed = await run(s, move)
        report = await s.executor.address.ask(DescribeSandbox())
    assert failed == (abi == 1), output
    said = "! moving or linking a file into another folder fails (ABI 1 < 2)"
    assert (said in report.enforces) == (abi == 1)
    if abi == 1:
        assert "Invalid cross-device link" in output


@pytest.mark.parametrize("abi", [5, 6], indirect=True)
async def test_from_abi_6_a_command_cannot_signal_other_processes(
    tmp_path: Path, failing_bwrap: str, abi: int
) -> None:
    async with await anyio.open_process(["sleep", "30"]) as other:
        async with under_landlock(tmp_path, failing_bwrap) as s:
            output, failed = await run(s, f"kill -STOP {other.pid} && kill -CONT {other.pid}")
            report = await s.executor.address.ask(DescribeSandbox())
        other.kill()
    assert failed == (abi == 6), output
    own = "processes: signals reach only the command's own processes"
    assert (own in report.enforces) == (abi == 6)
    assert ("signals reach any of your processes (ABI 5 < 6)" in str(report.not_enforced)) == (
        abi == 5
    )


@pytest.mark.parametrize(
    ("version", "fs", "net", "scoped", "attr"),
    [
        (1, (1 << 13) - 1, 0, 0, 8),
        (2, (1 << 14) - 1, 0, 0, 8),  # REFER
        (3, (1 << 15) - 1, 0, 0, 8),  # TRUNCATE
        (4, (1 << 15) - 1, 0b11, 0, 16),  # TCP bind and connect
        (5, (1 << 16) - 1, 0b11, 0, 16),  # IOCTL_DEV
        (6, (1 << 16) - 1, 0b11, 0b11, 24),  # abstract Unix sockets, signals
        (7, (1 << 16) - 1, 0b11, 0b11, 24),
        (9, (1 << 16) - 1, 0b11, 0b11, 24),  # a newer kernel: what this code knows
    ],
)
def test_a_ruleset_asks_only_for_what_the_abi_knows(
    version: int, fs: int, net: int, scoped: int, attr: int
) -> None:
    assert landlock.handled(version, network=False) == (fs, net, scoped)
    assert landlock.handled(version, network=True) == (fs, 0, scoped)
    assert len(landlock.ruleset_attr(version, fs, net, scoped)) == attr


def test_a_path_gone_since_is_skipped_and_rights_follow_the_abi(tmp_path: Path) -> None:
    """The ruleset straight, without a session: missing places are skipped, not fatal."""
    version = landlock.abi()
    plan = landlock.Plan(
        (str(tmp_path / "gone"), str(tmp_path), *DEVICES), (str(tmp_path / "none"),), True
    )
    ruleset = landlock.build(version, plan)
    launcher = make_launcher()
    try:
        ran = subprocess.run(
            [*launcher.argv(ruleset), "sh", "-c", "echo in > in && echo out > ../out"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            pass_fds=(ruleset,),
        )
    finally:
        os.close(ruleset)
        launcher.remove()
    assert ran.returncode != 0 and "Permission denied" in ran.stderr
    assert (tmp_path / "in").read_text() == "in\n"
    assert not (tmp_path.parent / "out").exists()


def imports(
    cwd: Path, python: str, *argv: str
) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules a ``python -I -S`` run imports, as ``-X importtime`` lists them."""
    ran = subprocess.run(
        [python, "-I", "-S", "-X", "importtime", *argv],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
    )
    lines = [line for line in ran.stderr.splitlines() if line.startswith("import time:")]
    return {line.split("|")[-1].strip() for line in lines[1:]}, ran


def test_the_launcher_imports_next_to_nothing_and_fails_closed(tmp_path: Path) -> None:
    launcher = make_launcher()
    try:
        interpreter, _ = imports(tmp_path, launcher.python, "-c", "pass")
        # Descriptor 999 is no ruleset: Landlock refuses, and the command must not run.
        modules, ran = imports(
            tmp_path, launcher.python, launcher.code, "999", "--", "touch", "ran"
        )
    finally:
        launcher.remove()
    assert modules - interpreter == {"_ctypes", "__future__"}
    assert ran.returncode == 126
    assert "the command did not run: Bad file descriptor" in ran.stderr
    assert not (tmp_path / "ran").exists()


def test_a_session_under_bubblewrap_does_not_load_the_fallback() -> None:
    code = (
        "import sys, actors.tool_executor\n"
        "loaded = {'actors.tool_executor.sandbox.landlock', '_ctypes', 'py_compile'}\n"
        "assert not loaded & set(sys.modules), loaded & set(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])


async def test_the_token_stores_and_the_limits_hold_under_landlock(
    tmp_path: Path, failing_bwrap: str
) -> None:
    project = project_in(tmp_path)
    home = home_of(project)
    for store in (".config/gh/hosts.yml", ".git-credentials", ".npmrc"):
        (home / store).parent.mkdir(parents=True, exist_ok=True)
        (home / store).write_text(SECRET)
    grab = "b = bytearray({} * 1024 * 1024); print('took', len(b) >> 20)"
    env = {**os.environ, "TMUX": "/tmp/tmux-0/default,1,0", "STY": "1.pts-0.h"}
    settings = {"denyRead": [], "maxMemoryMB": 256}
    async with with_policy(
        project, answers=YES, bwrap=failing_bwrap, env=env, sandbox=settings
    ) as s:
        tokens, tokens_failed = await run(
            s, f"cat {home}/.config/gh/hosts.yml {home}/.git-credentials {home}/.npmrc"
        )
        big, big_failed = await run(s, f'{sys.executable} -c "{grab.format(512)}"')
        small, _ = await run(s, f'{sys.executable} -c "{grab.format(64)}"')
        names, _ = await run(s, 'echo "[$TMUX][$STY]"')
        report = await s.executor.address.ask(DescribeSandbox())
    assert tokens_failed and SECRET not in tokens
    assert big_failed and "MemoryError" in big
    assert small == "took 64"
    assert names == "[][]"
    assert any(line.startswith("a private /tmp: Landlock cannot") for line in report.not_enforced)


async def test_from_abi_6_an_abstract_socket_outside_is_unreachable_with_the_network_on(
    tmp_path: Path, failing_bwrap: str
) -> None:
    if landlock.abi() < 6:
        pytest.skip("Landlock's scope of abstract sockets needs ABI 6")
    root = project_in(tmp_path)
    (root / "connect.py").write_text(CONNECT)
    name = f"@legato-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(name.encode().replace(b"@", b"\0", 1))
        server.listen(1)
        async with under_landlock(root, failing_bwrap) as s:
            output, _ = await run(s, f"python3 connect.py {name}")
    assert output.startswith("refused:"), output
