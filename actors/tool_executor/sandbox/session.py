"""A session's sandbox: tried once, a private TMPDIR, and what confines each command.

Commands run under bubblewrap when the settings ask for it (the default) and bubblewrap works
here. Where it does not, on Linux, they run under Landlock (``landlock.py``), which holds what a
command may write and part of what it may read and reach; the session is told once what that
leaves unenforced, and why bubblewrap could not run. Where neither works, commands run as they
would without a sandbox, and the session is told once, naming what is not enforced and why.
``legato doctor`` shows the same (``DescribeSandbox``).
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, Literal

import anyio
import msgspec

from actors.places import leaves_project
from actors.protocol import SandboxReport
from actors.tool_executor.process import INFO_FD, UNCONFINED, Confinement
from actors.tool_executor.sandbox.blocked import LIMIT, ProjectFiles
from actors.tool_executor.sandbox.git_places import pin, unpin
from actors.tool_executor.sandbox.layout import bwrap_args
from actors.tool_executor.sandbox.limits import limits
from actors.tool_executor.sandbox.locate import find_bwrap, kept_apart
from actors.tool_executor.sandbox.places import (
    Skipped,
    expand,
    layout,
    service_sockets,
    within,
)
from actors.tool_executor.sandbox.probe import Trial, try_bwrap
from actors.tool_executor.sandbox.words import (
    abstract_sockets,
    bubblewrap_enforces,
    landlock_enforces,
    landlock_not_enforced,
    seatbelt_enforces,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from actors.protocol import SandboxSettings
    from actors.tool_executor.context import Confining
    from actors.tool_executor.process import Limits
    from actors.tool_executor.sandbox.blocked import AskBlocked
    from actors.tool_executor.sandbox.landlock import LandlockTrial, Rulesets
    from actors.tool_executor.sandbox.layout import Layout

NOT_ENFORCED = (
    "Bash commands run unconfined: they can write outside the project, change .legato/ and "
    ".git/config, and read blocked files and credential folders such as ~/.ssh"
)
PARTLY_ENFORCED = "Bash commands run under Landlock, which enforces only part of the sandbox"
REMEDY_LINUX = (
    "Allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on "
    "Ubuntu 24.04 an AppArmor profile for bwrap), or install bubblewrap (apt install "
    "bubblewrap); set sandbox.enabled to false in .legato/settings.json to silence this"
)
REMEDY_MACOS = (
    "Run Legato outside any other sandbox (sandbox-exec cannot be nested), or set "
    "sandbox.enabled to false in .legato/settings.json to silence this"
)
_CONFINING: dict[str | None, Confining] = {
    "bubblewrap": "full",
    "landlock": "partial",
    "seatbelt": "full",
    None: "none",
}


class _Found(msgspec.Struct, frozen=True):
    """What the session's commands run under, found once."""

    # None: nothing, they run unconfined. seatbelt: macOS's sandbox-exec.
    mechanism: Literal["bubblewrap", "landlock", "seatbelt"] | None
    why_not: str | None = None  # why not bubblewrap, with the remedy; and why not Landlock


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
        runs: Sequence[str] = (),  # files of the project that hooks and MCP servers run
        mcp_sealed: bool = False,  # a missing .mcp.json must not be created
    ) -> None:
        self._runs = tuple(runs)
        self._mcp_sealed = mcp_sealed
        self._pinned: list[str] = []  # commondir files written for bubblewrap (git_places.py)
        self._settings = settings
        self._services = service_sockets(os.environ if env is None else env, os.getuid())
        self._project = os.path.realpath(project)
        self._home = home
        self._ask_blocked = ask_blocked
        self._blocked_rules = blocked_rules
        self._warn = warn
        self._bwrap = bwrap if bwrap is not None else find_bwrap()
        self._bwrap_named = self._bwrap  # as found, to name it: _bwrap may become a copy
        self._bwrap_copy: str | None = None  # the private folder of a bwrap kept apart
        self._files = ProjectFiles(self._project)
        self._lock = anyio.Lock()
        self._found: _Found | None = None
        self._trial: Trial | None = None
        self._landlock: LandlockTrial | None = None
        self._rulesets: Rulesets | None = None
        self._warned = False
        self._tmpdir: str | None = None
        self._skipped = Skipped()
        # Landlock's scope of abstract sockets, applied inside bubblewrap (scope.py): tried
        # before the first confined command, not as the session starts, where its interpreter
        # would compete with the start for the machine's cores.
        self._scope: int | None = None
        self._scope_tried = False
        self._scope_lock = anyio.Lock()

    async def confinement(self, cwd: str) -> Confinement:
        """What a command starting in ``cwd`` runs under: nothing when commands run unconfined."""
        found = await self._find()
        if found.mechanism is None:
            if not self._warned and self._settings is not None and self._settings.enabled:
                self._warned = True
                await self._warn(f"{NOT_ENFORCED}: {found.why_not}")
            return UNCONFINED
        async with self._lock:
            tmpdir = await self._make_tmpdir()
        if found.mechanism == "landlock":
            return await self._under_landlock(tmpdir, found)
        blocked = await self._files.blocked(self._ask_blocked) if self._blocked_rules else []
        if found.mechanism == "bubblewrap":
            await self._try_scope()
        skipped = Skipped()
        bwrap = self._bwrap

        def arguments() -> Confinement:
            if found.mechanism == "bubblewrap":
                self._pinned += pin(os.path.join(self._project, ".git"))
            plan = self._layout(tmpdir, skipped, blocked)
            # The refusals of a failed command are judged against ``plan``.
            if found.mechanism == "seatbelt":
                from actors.tool_executor.sandbox.seatbelt import SANDBOX_EXEC, seatbelt_args

                return Confinement((SANDBOX_EXEC, *seatbelt_args(plan)), layout=plan)
            assert bwrap is not None  # bubblewrap was found, and works
            assert self._settings is not None  # else nothing was found to confine with
            args = bwrap_args(plan, os.path.realpath(cwd))
            fds: tuple[int, ...] = ()
            scoped: tuple[str, ...] = ()
            if self._scope is not None and plan.network:  # a network of its own cuts them
                from actors.tool_executor.sandbox.scope import (
                    hidden_launcher,
                    outside_listeners,
                    scoped_argv,
                )

                # Only while something outside listens on one; where the launcher is hidden
                # it could not run: the doctor says.
                if outside_listeners() and hidden_launcher(plan) is None:
                    fds = (os.dup(self._scope),)  # the command's copy; run_group closes it
                    scoped = scoped_argv(fds[0])
            return Confinement(
                (bwrap, "--info-fd", INFO_FD, *args, "--", *scoped),
                fds=fds,
                parent=True,
                layout=plan,
                limits=limits(self._settings, namespaced=True),
            )

        confinement = await anyio.to_thread.run_sync(arguments)
        self._skipped = skipped
        return confinement

    async def _under_landlock(self, tmpdir: str, found: _Found) -> Confinement:
        rulesets = self._rulesets
        assert rulesets is not None  # Landlock's trial passed
        if not self._warned:
            warning = await self._partial_warning(tmpdir, found)
            if not self._warned:
                self._warned = True
                await self._warn(warning)
        skipped = Skipped()
        from actors.tool_executor.sandbox.landlock import plan  # loaded by _try already

        settings = self._settings
        assert settings is not None  # Landlock's trial ran for these settings

        def borrow() -> tuple[int, Limits, tuple[str, ...]]:
            shown = self._layout(tmpdir, skipped)
            fd = rulesets.borrow(plan(shown))
            return fd, limits(settings, namespaced=False), self._watched(shown)

        fd, within_limits, watched = await anyio.to_thread.run_sync(borrow)
        self._skipped = skipped
        assert self._landlock is not None and self._landlock.launcher is not None
        launcher = self._landlock.launcher
        return Confinement(
            argv=launcher.argv(fd),
            env=(("TMPDIR", tmpdir),),
            fds=(fd,),
            limits=within_limits,
            watched=watched,
        )

    def _watched(self, shown: Layout) -> tuple[str, ...]:
        """What Landlock leaves writable that bubblewrap keeps read-only inside the project,
        but Legato's own environment (a .venv, too big to copy each time)."""
        kept = (*shown.read_only, *(path for path, _ in shown.sealed))
        own = os.path.realpath(sys.prefix)
        return tuple(
            path
            for path in kept
            if within(path, self._project) and not within(path, own) and not within(own, path)
        )

    async def confining(self) -> Confining:
        """How far commands run confined. Once the trial is made (``warm`` starts it with the
        session) this answers without waiting, so it does not reorder the calls that ask."""
        settings = self._settings
        if settings is None or not settings.enabled:
            return "none"
        found = self._found if self._found is not None else await self._find()
        return _CONFINING[found.mechanism]

    async def take_warning(self) -> str | None:
        """The line that says commands run unconfined, or only in part, for the session's
        start; from then on no command says it. None when they run confined, or when a command
        has said it already."""
        found = await self._find()
        settings = self._settings
        if found.mechanism in ("bubblewrap", "seatbelt") or settings is None or self._warned:
            return None
        if found.mechanism == "landlock":
            async with self._lock:
                tmpdir = await self._make_tmpdir()
            warning = await self._partial_warning(tmpdir, found)
        else:
            warning = f"Bash commands run unconfined: {found.why_not}"
            if not settings.enabled:  # a cloned project's settings can turn it off: say so
                warning += "; set it to true to confine them"
        if self._warned:
            return None
        self._warned = True  # checked and set with no await between: one of the two says it
        return warning

    async def _partial_warning(self, tmpdir: str, found: _Found) -> str:
        shown = await anyio.to_thread.run_sync(self._layout, tmpdir, Skipped())
        gaps = "; ".join(self._not_enforced(shown))
        return f"{PARTLY_ENFORCED}. Not enforced: {gaps}. {found.why_not}"

    async def warm(self) -> None:
        """Make the trial now, in the background of the session's start, so that the first
        command already knows whether it runs confined."""
        await self._find()

    async def describe(self, *, try_it: bool = True) -> SandboxReport:
        if not try_it and self._found is None:
            enabled = self._settings is not None and self._settings.enabled
            if enabled and sys.platform.startswith("linux"):
                return SandboxReport(mechanism=self._mechanism(), active=False, tried=False)
        found = await self._find()
        mechanism = self._mechanism()
        if found.mechanism is None:
            return SandboxReport(mechanism=mechanism, active=False, why_not=found.why_not)
        if not try_it and found.mechanism in ("bubblewrap", "seatbelt"):
            # A run's result says only whether commands ran confined, and by what: the list of
            # what the layout enforces (~15 ms to lay out) is for legato doctor.
            return SandboxReport(mechanism=mechanism, active=True)
        # What the settings name that cannot be applied, as the next command would find it.
        skipped = Skipped()
        tmpdir = self._tmpdir or tempfile.gettempdir()
        shown = await anyio.to_thread.run_sync(self._layout, tmpdir, skipped)
        self._skipped = skipped
        if found.mechanism == "bubblewrap":
            await self._try_scope()
        if found.mechanism in ("bubblewrap", "seatbelt"):
            return SandboxReport(mechanism=mechanism, active=True, enforces=self._enforces(shown))
        return SandboxReport(
            mechanism=mechanism,
            active=True,
            enforces=self._landlock_enforces(shown),
            not_enforced=tuple(self._not_enforced(shown)),
            why_not=found.why_not,
        )

    async def close(self) -> None:
        """Remove the session's TMPDIR and what commands left in it."""
        if self._rulesets is not None:
            self._rulesets.close()
        if self._scope is not None:
            os.close(self._scope)
            self._scope = None
        if self._landlock is not None and self._landlock.launcher is not None:
            await anyio.to_thread.run_sync(self._landlock.launcher.remove)
        for folder in (self._tmpdir, self._bwrap_copy):
            if folder is not None:
                await anyio.to_thread.run_sync(
                    functools.partial(shutil.rmtree, folder, ignore_errors=True)
                )
        self._tmpdir = self._bwrap_copy = None
        pinned, self._pinned = self._pinned, []
        await anyio.to_thread.run_sync(unpin, pinned)

    def _writable(self, path: str) -> bool:
        """Whether ``path`` lies where confined commands may write."""
        assert self._settings is not None
        real = os.path.realpath(path)
        places = [self._project]
        places += [
            expand(entry, self._project, self._home)
            for entry in self._settings.allow_write
            if leaves_project(entry, self._project, self._home) is None
        ]
        return any(within(real, place) for place in places)

    async def _find(self) -> _Found:
        if self._found is None:
            async with self._lock:  # commands started together share the one trial
                if self._found is None:
                    self._found = await self._try()
        return self._found

    async def _try(self) -> _Found:
        settings = self._settings
        if settings is None:
            return _Found(None, "the executor was started without the session's settings")
        if not settings.enabled:
            return _Found(None, "sandbox.enabled is false in .legato/settings.json")
        if sys.platform == "darwin":
            # Loaded only on macOS; sandbox-exec is the system's, never one found on PATH.
            from actors.tool_executor.sandbox.seatbelt import SANDBOX_EXEC, try_seatbelt

            self._trial = await try_seatbelt(SANDBOX_EXEC)
            if self._trial.works:
                return _Found("seatbelt")
            return _Found(None, f"{self._trial.reason}. {REMEDY_MACOS}")
        if not sys.platform.startswith("linux"):
            return _Found(None, f"there is no sandbox for {sys.platform} yet")
        if self._bwrap is None:
            bwrap_failed = "bubblewrap (bwrap) was not found"
        else:
            bwrap = named = self._bwrap
            if self._writable(bwrap):
                bwrap, self._bwrap_copy = await anyio.to_thread.run_sync(kept_apart, bwrap)
                self._bwrap = bwrap
            self._trial = await try_bwrap(bwrap, named=named)
            if self._trial.works:
                return _Found("bubblewrap")
            bwrap_failed = str(self._trial.reason)
        # Loaded only where bubblewrap cannot run: it brings _ctypes and py_compile, which a
        # session under bubblewrap need not pay for as it starts.
        from actors.tool_executor.sandbox.landlock import Rulesets, try_landlock

        self._landlock = await try_landlock()
        if self._landlock.works:
            self._rulesets = Rulesets(self._landlock.version)
            return _Found("landlock", f"Why not bubblewrap: {bwrap_failed}. {REMEDY_LINUX}")
        return _Found(
            None, f"{bwrap_failed}; the fallback, Landlock, {self._landlock.reason}. {REMEDY_LINUX}"
        )

    def _layout(
        self, tmpdir: str, skipped: Skipped, blocked: list[tuple[str, bool]] | None = None
    ) -> Layout:
        assert self._settings is not None
        return layout(
            self._settings,
            project=self._project,
            home=self._home,
            tmpdir=tmpdir,
            blocked=blocked or (),
            services=self._services,
            own=(sys.prefix,),
            seen=(_launcher_source(),),
            skipped=skipped,
            runs=self._runs,
            mcp_sealed=self._mcp_sealed,
        )

    def _mechanism(self) -> str:
        if self._found is not None and self._found.mechanism == "seatbelt":
            from actors.tool_executor.sandbox.seatbelt import SANDBOX_EXEC

            version = self._trial.version if self._trial is not None else ""
            return f"{version or 'sandbox-exec'} ({SANDBOX_EXEC})"
        if self._found is not None and self._found.mechanism == "landlock":
            assert self._landlock is not None
            return f"landlock (ABI {self._landlock.version})"
        if self._bwrap is None:
            return "bubblewrap (not found)"
        version = self._trial.version if self._trial is not None and self._trial.version else ""
        copy = ", run from a private copy" if self._bwrap_copy is not None else ""
        return f"{version or 'bubblewrap'} ({self._bwrap_named}{copy})"

    def _landlock_enforces(self, shown: Layout) -> tuple[str, ...]:
        assert self._settings is not None and self._landlock is not None
        lines = landlock_enforces(self._landlock.version, self._settings, shown, home=self._home)
        return (*lines, *(f"! {note}" for note in self._skipped.notes))

    def _not_enforced(self, shown: Layout) -> list[str]:
        assert self._settings is not None and self._landlock is not None
        return landlock_not_enforced(
            self._landlock.version, self._settings, shown, blocked_rules=self._blocked_rules
        )

    def _enforces(self, shown: Layout) -> tuple[str, ...]:
        assert self._settings is not None and self._found is not None
        lines = bubblewrap_enforces(
            self._settings, shown, blocked_rules=self._blocked_rules, home=self._home
        )
        if self._found.mechanism == "seatbelt":
            lines = seatbelt_enforces(lines)
        else:
            hidden = None
            if self._scope is not None:
                from actors.tool_executor.sandbox.scope import hidden_launcher

                hidden = hidden_launcher(shown)
            scoped = self._scope is not None and hidden is None
            lines.append(abstract_sockets(scoped=scoped, network=shown.network, hidden=hidden))
        if self._files.capped:
            lines.append(f"! blocked files past the first {LIMIT:,} entries are not hidden")
        lines += [f"! {note}" for note in self._skipped.notes]
        return tuple(lines)

    async def _try_scope(self) -> None:
        """Try the scope once, under bubblewrap: a concurrent caller waits for the one trial."""
        async with self._scope_lock:
            if not self._scope_tried and self._bwrap is not None:
                self._scope = await anyio.to_thread.run_sync(_try_scope, self._bwrap)
                self._scope_tried = True

    async def _make_tmpdir(self) -> str:
        if self._tmpdir is None:
            self._tmpdir = await anyio.to_thread.run_sync(_make_tmpdir)
        return self._tmpdir


def _launcher_source() -> str:
    # The launcher module's file, beside this one: named without importing it (ctypes).
    return os.path.realpath(os.path.join(os.path.dirname(__file__), "launcher.py"))


def _try_scope(bwrap: str) -> int | None:
    # Imported in the worker thread: it loads _ctypes, which the event loop need not wait for.
    from actors.tool_executor.sandbox.scope import try_scope

    return try_scope(bwrap)


def _make_tmpdir() -> str:
    return os.path.realpath(tempfile.mkdtemp(prefix="legato-tmp-"))  # mkdtemp makes it 0700
