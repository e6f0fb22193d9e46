"""Driving a real ``legato`` in a real terminal: tmux runs it, tests type and read the screen.

Each terminal has its own tmux server (``tmux -L <unique name>``), killed on close, so tests
never share state. Reading the screen polls ``capture-pane`` until a deadline; no fixed sleeps.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TMUX = shutil.which("tmux")
DEADLINE = 20.0
EXITED = "LEGATO-EXITED:"


class Terminal:
    def __init__(self, *, width: int = 100, height: int = 40) -> None:
        assert TMUX is not None
        self.socket = f"legato-test-{uuid.uuid4().hex[:12]}"
        self.width = width
        self.height = height

    def tmux(self, *args: str) -> str:
        assert TMUX is not None
        done = subprocess.run(
            [TMUX, "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
        if done.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def start(self, project: Path, env: Mapping[str, str], *args: str) -> None:
        python = shlex.quote(sys.executable)
        # The tty's settings before and after, to check that Legato put them back.
        command = (
            f"cd {shlex.quote(REPO)} && stty -g > {shlex.quote(self.stty_file('before'))} && "
            f"{python} -c 'from frontends.cli import main; main()' "
            f"{shlex.quote(str(project))} {' '.join(shlex.quote(a) for a in args)}; "
            f"code=$?; stty -g > {shlex.quote(self.stty_file('after'))}; "
            f"echo {EXITED}$code; exec sleep 600"
        )
        env_args = [f"{k}={v}" for k, v in env.items()]
        self.tmux(
            "new-session", "-d", "-x", str(self.width), "-y", str(self.height),
            "-s", "legato", "env", "-i", *env_args, "TERM=xterm-256color", "sh", "-c", command,
        )  # fmt: skip

    def stty_file(self, when: str) -> str:
        return os.path.join(tempfile.gettempdir(), f"{self.socket}-{when}.stty")

    def stty(self, when: str) -> str:
        with open(self.stty_file(when)) as file:
            return file.read().strip()

    def pane_pid(self) -> int:
        return int(self.tmux("display-message", "-p", "-t", "legato", "#{pane_pid}").strip())

    def close(self) -> None:
        for when in ("before", "after"):
            with contextlib.suppress(OSError):
                os.unlink(self.stty_file(when))
        assert TMUX is not None
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=10)

    def keys(self, *keys: str) -> None:
        """tmux key names: "Enter", "Escape", "BTab", "C-c", "C-d"."""
        self.tmux("send-keys", "-t", "legato", *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "legato", "-l", text)

    def submit(self, text: str) -> None:
        self.type(text)
        self.keys("Enter")

    def screen(self) -> str:
        """What is visible plus the scrollback above it."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-1000", "-t", "legato")

    def styled(self) -> str:
        """``screen()`` with the colours, as SGR escape sequences."""
        return self.tmux("capture-pane", "-p", "-e", "-J", "-S", "-1000", "-t", "legato")

    def visible(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "legato")

    def wait_for(
        self,
        wanted: str | Callable[[str], bool],
        *,
        timeout: float = DEADLINE,
        visible: bool = False,
    ) -> str:
        check = wanted if callable(wanted) else (lambda screen: wanted in screen)
        deadline = time.monotonic() + timeout
        while True:
            screen = self.visible() if visible else self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {wanted!r}; the screen:\n{screen}")
            time.sleep(0.02)  # polling interval, not synchronisation: the deadline decides

    def exit_code(self, *, timeout: float = DEADLINE) -> int:
        screen = self.wait_for(EXITED, timeout=timeout)
        line = next(line for line in screen.splitlines() if line.startswith(EXITED))
        return int(line.removeprefix(EXITED))

    def status_line(self) -> str:
        lines = [line for line in self.visible().splitlines() if line.strip()]
        return lines[-1] if lines else ""


def processes_with(marker: str) -> list[int]:
    """Ids of live processes whose command line holds ``marker`` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                cmdline = file.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as file:
                state = file.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z" and int(entry) != os.getpid():
            found.append(int(entry))
    return found
