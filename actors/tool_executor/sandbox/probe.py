"""Whether a mechanism works here, found by running it once: ``bwrap ... true``, and where
that fails, ``true`` under Landlock.

bubblewrap can be present and still fail: unprivileged user namespaces may be turned off (a
sysctl, or Ubuntu 24.04's AppArmor default, which allows them only to programs it names), or a
container may refuse the mounts. Landlock can be built into the kernel and turned off at boot,
or refused by a container's seccomp filter. Only a trial says.
"""

from __future__ import annotations

import os
import py_compile
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass

import anyio

from actors.tool_executor.sandbox import landlock, launcher

# A working mechanism answers in milliseconds; a stuck one must not hold the first command long.
TRIAL_TIMEOUT = 5.0
# The namespaces and mounts every confined command uses: the trial asks for all of them.
TRIAL_ARGS = (
    "--unshare-pid",
    "--unshare-net",
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
)


@dataclass(frozen=True, slots=True)
class Trial:
    works: bool
    version: str  # "bubblewrap 0.11.0", or "" when it did not say
    reason: str | None = None  # why it does not work, in words


async def try_bwrap(bwrap: str) -> Trial:
    try:
        with anyio.fail_after(TRIAL_TIMEOUT):
            version = await anyio.run_process([bwrap, "--version"], check=False)
            ran = await anyio.run_process(
                [bwrap, *TRIAL_ARGS, "true"], check=False, stdin=subprocess.DEVNULL
            )
    except OSError as error:
        return Trial(False, "", f"{bwrap} could not be run: {error.strerror or error}")
    except TimeoutError:
        return Trial(False, "", f"{bwrap} did not answer within {TRIAL_TIMEOUT:.0f} s")
    said = version.stdout.decode(errors="replace").strip() if version.returncode == 0 else ""
    if ran.returncode == 0:
        return Trial(True, said)
    said_why = ran.stderr.decode(errors="replace").strip().splitlines()
    detail = said_why[-1] if said_why else f"exit code {ran.returncode}"
    return Trial(False, said, f"{bwrap} cannot make a sandbox here: {detail}")


@dataclass(frozen=True, slots=True)
class Launcher:
    """``launcher.py`` compiled once for the session, in a folder of its own that commands
    cannot write: started from bytecode, it is not compiled again before every command (about
    1 ms of its cost here). The interpreter by its real path, outside a virtual environment
    that may lie in the writable project; ``-S`` needs nothing from the environment's
    site-packages."""

    python: str
    code: str

    def argv(self, ruleset: int) -> tuple[str, ...]:
        """What runs the launcher with ``ruleset``, before the command."""
        return (self.python, "-I", "-S", self.code, str(ruleset), "--")

    def remove(self) -> None:
        shutil.rmtree(os.path.dirname(self.code), ignore_errors=True)


def make_launcher() -> Launcher:
    folder = tempfile.mkdtemp(prefix="legato-launcher-")  # mode 700
    code = os.path.join(folder, "launcher.pyc")
    try:
        py_compile.compile(os.path.realpath(launcher.__file__), cfile=code, doraise=True)
    except (OSError, py_compile.PyCompileError):
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Launcher(os.path.realpath(sys.executable), code)


@dataclass(frozen=True, slots=True)
class LandlockTrial:
    works: bool
    version: int  # the kernel's Landlock ABI; 0: none
    reason: str | None = None  # why it does not work, in words
    launcher: Launcher | None = None  # when it works


async def try_landlock() -> LandlockTrial:
    """The kernel's ABI, then the launcher run once with ``true`` under a ruleset."""
    version = landlock.abi()
    if version < 1:
        return LandlockTrial(False, 0, "is not in this kernel, or is turned off")
    try:
        prepared = await anyio.to_thread.run_sync(make_launcher)
    except (OSError, py_compile.PyCompileError) as error:
        return LandlockTrial(False, version, f"could not prepare its launcher: {error}")
    try:
        said = await _run_once(version, prepared)
    except BaseException:  # cancelled: the session is ending
        prepared.remove()
        raise
    if said is None:
        return LandlockTrial(True, version, launcher=prepared)
    await anyio.to_thread.run_sync(prepared.remove)
    return LandlockTrial(False, version, said)


async def _run_once(version: int, prepared: Launcher) -> str | None:
    """Why ``true`` does not run under a ruleset; None when it does."""
    try:
        ruleset = await anyio.to_thread.run_sync(
            landlock.build, version, landlock.Plan((), (), False)
        )
    except OSError as error:
        return f"refused a ruleset: {error.strerror}"
    try:
        with anyio.fail_after(TRIAL_TIMEOUT):
            ran = await anyio.run_process(
                [*prepared.argv(ruleset), "true"],
                check=False,
                stdin=subprocess.DEVNULL,
                pass_fds=(ruleset,),
            )
    except OSError as error:
        return f"could not start its launcher: {error.strerror or error}"
    except TimeoutError:
        return f"its launcher did not end within {TRIAL_TIMEOUT:.0f} s"
    finally:
        os.close(ruleset)
    if ran.returncode == 0:
        return None
    said = ran.stderr.decode(errors="replace").strip().splitlines()
    return f"failed its trial: {said[-1] if said else f'exit code {ran.returncode}'}"
