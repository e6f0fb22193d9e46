"""Whether bubblewrap works here, found by running it once: ``bwrap ... true``.

It can be present and still fail: unprivileged user namespaces may be turned off (a sysctl, or
Ubuntu 24.04's AppArmor default, which allows them only to programs it names), or a container
may refuse the mounts. Only a trial says.
"""

from __future__ import annotations

import subprocess

import anyio
import msgspec

from actors import process_groups

# A working bwrap answers in milliseconds; a stuck one must not hold the first command long.
TRIAL_TIMEOUT = 5.0
# The namespaces and mounts every confined command uses: the trial asks for all of them.
TRIAL_ARGS = (
    "--unshare-pid",
    "--unshare-net",
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


class Trial(msgspec.Struct, frozen=True):
    works: bool
    version: str  # "bubblewrap 0.11.0", or "" when it did not say
    reason: str | None = None  # why it does not work, in words


async def try_bwrap(bwrap: str, *, named: str | None = None) -> Trial:
    """``named``: the bwrap to name in what it says, when ``bwrap`` is a private copy of it."""
    shown = named or bwrap
    try:
        with anyio.fail_after(TRIAL_TIMEOUT):
            version = await anyio.run_process([bwrap, "--version"], check=False)
            returncode, stderr = await _trial_run([bwrap, *TRIAL_ARGS, "true"])
    except TimeoutError:  # before OSError, whose subclass it is
        return Trial(False, "", f"{shown} did not answer within {TRIAL_TIMEOUT:.0f} s")
    except OSError as error:
        return Trial(False, "", f"{shown} could not be run: {error.strerror or error}")
    said = version.stdout.decode(errors="replace").strip() if version.returncode == 0 else ""
    if returncode == 0:
        return Trial(True, said)
    said_why = stderr.decode(errors="replace").strip().splitlines()
    detail = said_why[-1] if said_why else f"exit code {returncode}"
    return Trial(False, said, f"{shown} cannot make a sandbox here: {detail}")


async def _trial_run(argv: list[str]) -> tuple[int, bytes]:
    """``argv``'s exit code and what it said on stderr. In a process group of its own, ended
    whole when the trial is given up: bwrap's child waits on its parent to set it up, so killing
    bwrap alone on a timeout would leave that child waiting for good."""
    process = await process_groups.start(
        argv,
        cwd=None,
        env=None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stderr is not None
        said = b"".join([chunk async for chunk in process.stderr])
        return await process.wait(), said
    finally:
        if process.returncode is None:
            process_groups.kill(process)
            with anyio.CancelScope(shield=True), anyio.move_on_after(process_groups.KILLED):
                await process.wait()
