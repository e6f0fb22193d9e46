"""A session's sandbox: tried once, a private TMPDIR, and the arguments for each command.

Commands run under bubblewrap when the settings ask for it (the default) and bubblewrap works
here. Where it does not, commands run as they would without it, and the session is told once,
naming what is not enforced and why; ``legato doctor`` shows the same (``DescribeSandbox``).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING

import anyio

from actors.protocol import SandboxReport
from actors.tool_executor.process import INFO_FD
from actors.tool_executor.sandbox.blocked import LIMIT, ProjectFiles
from actors.tool_executor.sandbox.layout import UNCONFINED, Confinement, bwrap_args
from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.places import Skipped, layout, service_sockets
from actors.tool_executor.sandbox.probe import Trial, try_bwrap

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from actors.protocol import SandboxSettings
    from actors.tool_executor.sandbox.blocked import AskBlocked
    from actors.tool_executor.sandbox.layout import Layout

NOT_ENFORCED = (
    "Bash commands run unconfined: they can write outside the project, change .legato/ and "
    ".git/config, and read blocked files and credential folders such as ~/.ssh"
)
REMEDY_LINUX = (
    "Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on "
    "Ubuntu 24.04 an AppArmor profile for bwrap), or install bubblewrap (apt install "
    "bubblewrap); set sandbox.enabled to false in .legato/settings.json to silence this"
)


class Sandbox:
    """One session's confinement of commands. ``settings`` None: confinement is off (an
    executor started without the memory store, as in tests of other things)."""

    def __init__(
        self,
        settings: SandboxSettings | None,
        *,
        project: str,
        home: str,
        ask_blocked: AskBlocked,
        blocked_rules: bool,  # the project has blockedPaths entries: look for blocked files
        warn: Callable[[str], Awaitable[None]],
        bwrap: str | None = None,  # None: the wheel's, else PATH's
        env: Mapping[str, str] | None = None,  # where services listen; None: os.environ
    ) -> None:
        self._settings = settings
        self._services = service_sockets(os.environ if env is None else env, os.getuid())
        self._project = os.path.realpath(project)
        self._home = home
        self._ask_blocked = ask_blocked
        self._blocked_rules = blocked_rules
        self._warn = warn
        self._bwrap = bwrap if bwrap is not None else find_bwrap()
        self._files = ProjectFiles(self._project)
        self._lock = anyio.Lock()
        self._trial: Trial | None = None
        self._warned = False
        self._tmpdir: str | None = None
        self._skipped = Skipped()

    async def prefix(self, cwd: str) -> Confinement:
        """The argv that goes before ``bash -c command``, with the layout it enforces (what a
        failed command's refusals are judged against): ``UNCONFINED`` when commands run
        unconfined."""
        why_not = await self._why_not()
        if why_not is not None:
            if not self._warned and self._settings is not None and self._settings.enabled:
                self._warned = True
                await self._warn(f"{NOT_ENFORCED}: {why_not}")
            return UNCONFINED
        assert self._settings is not None and self._bwrap is not None  # _why_not said so
        async with self._lock:
            tmpdir = await self._make_tmpdir()
        blocked = await self._files.blocked(self._ask_blocked) if self._blocked_rules else []
        skipped = Skipped()
        settings = self._settings
        bwrap = self._bwrap

        def arguments() -> Confinement:
            plan = layout(
                settings,
                project=self._project,
                home=self._home,
                tmpdir=tmpdir,
                blocked=blocked,
                services=self._services,
                skipped=skipped,
            )
            args = bwrap_args(plan, os.path.realpath(cwd))
            return Confinement((bwrap, "--info-fd", INFO_FD, *args, "--"), plan)

        confinement = await anyio.to_thread.run_sync(arguments)
        self._skipped = skipped
        return confinement

    async def confining(self) -> bool:
        """Whether commands run confined. Once the trial is made (``warm`` starts it with the
        session) this answers without waiting, so it does not reorder the calls that ask."""
        settings = self._settings
        if settings is None or not settings.enabled:
            return False
        if self._trial is None:
            return await self._why_not() is None
        return self._trial.works

    async def warm(self) -> None:
        """Make the trial now, in the background of the session's start, so that the first
        command already knows whether it runs confined."""
        await self._why_not()

    async def take_warning(self) -> str | None:
        """The line that says commands run unconfined, for the session's start; from then on no
        command says it. None when they run confined, or when a command has said it already."""
        why_not = await self._why_not()
        if why_not is None or self._settings is None or self._warned:
            return None
        self._warned = True  # checked and set with no await between: one of the two says it
        if not self._settings.enabled:  # a cloned project's settings can turn it off: say so
            why_not += "; set it to true to confine them"
        return f"Bash commands run unconfined: {why_not}"

    async def describe(self, *, try_it: bool = True) -> SandboxReport:
        mechanism = self._mechanism()
        if not try_it and self._trial is None and self._bwrap is not None:
            enabled = self._settings is not None and self._settings.enabled
            if enabled and sys.platform.startswith("linux"):
                return SandboxReport(mechanism=mechanism, active=False, tried=False)
        why_not = await self._why_not()
        if why_not is not None:
            return SandboxReport(mechanism=mechanism, active=False, why_not=why_not)
        settings = self._settings
        assert settings is not None
        # What the settings name that cannot be applied, as the next command would find it.
        skipped = Skipped()
        tmpdir = self._tmpdir or tempfile.gettempdir()
        plan = await anyio.to_thread.run_sync(
            functools.partial(
                layout, settings, project=self._project, home=self._home, tmpdir=tmpdir,
                services=self._services, skipped=skipped,
            )
        )  # fmt: skip
        self._skipped = skipped
        return SandboxReport(mechanism=mechanism, active=True, enforces=self._enforces(plan))

    async def close(self) -> None:
        """Remove the session's TMPDIR and what commands left in it."""
        if self._tmpdir is not None:
            await anyio.to_thread.run_sync(
                functools.partial(shutil.rmtree, self._tmpdir, ignore_errors=True)
            )
            self._tmpdir = None

    async def _why_not(self) -> str | None:
        settings = self._settings
        if settings is None:
            return "the executor was started without the session's settings"
        if not settings.enabled:
            return "sandbox.enabled is false in .legato/settings.json"
        if sys.platform == "darwin":
            return "macOS's sandbox (sandbox-exec) is not supported yet"
        if not sys.platform.startswith("linux"):
            return f"there is no sandbox for {sys.platform} yet"
        if self._bwrap is None:
            return f"bubblewrap (bwrap) was not found. {REMEDY_LINUX}"
        async with self._lock:  # commands started together share the one trial
            if self._trial is None:
                self._trial = await try_bwrap(self._bwrap)
        if not self._trial.works:
            return f"{self._trial.reason}. {REMEDY_LINUX}"
        return None

    def _mechanism(self) -> str:
        if self._bwrap is None:
            return "bubblewrap (not found)"
        version = self._trial.version if self._trial is not None and self._trial.version else ""
        return f"{version or 'bubblewrap'} ({self._bwrap})"

    def _enforces(self, plan: Layout) -> tuple[str, ...]:
        settings = self._settings
        assert settings is not None
        writable = ", ".join(("the project", "a private TMPDIR", *settings.allow_write))
        read_only = ", ".join((".legato/", ".git/config", ".git/hooks/", *settings.read_only))
        lines = [
            f"writable: {writable}; everything else read-only",
            f"read-only inside the project: {read_only}",
            f"unreadable: {', '.join(settings.deny_read) or 'nothing listed'}",
            "unreadable: the project's files that blockedPaths block"
            if self._blocked_rules
            else "blockedPaths: no entries",
            "unreachable: the sockets of services outside the sandbox "
            f"({', '.join(plan.services) or 'none here'}); sandbox.allowUnixSockets lets one "
            "through",
            "network: allowed" if settings.network else "network: none (sandbox.network false)",
            "processes: a PID namespace of their own, ended with the command",
        ]
        if self._files.capped:
            lines.append(f"! blocked files past the first {LIMIT:,} entries are not hidden")
        lines += [f"! {note}" for note in self._skipped.notes]
        return tuple(lines)

    async def _make_tmpdir(self) -> str:
        if self._tmpdir is None:
            self._tmpdir = await anyio.to_thread.run_sync(_make_tmpdir)
        return self._tmpdir


def _make_tmpdir() -> str:
    return os.path.realpath(tempfile.mkdtemp(prefix="legato-tmp-"))  # mkdtemp makes it 0700
