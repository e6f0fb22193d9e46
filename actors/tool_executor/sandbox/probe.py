"""Whether bubblewrap works here, found by running it once: ``bwrap ... true``.

It can be present and still fail: unprivileged user namespaces may be turned off (a sysctl, or
Ubuntu 24.04's AppArmor default, which allows them only to programs it names), or a container
may refuse the mounts. Only a trial says.
"""

from __future__ import annotations

import subprocess

import anyio
import msgspec

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
            ran = await anyio.run_process(
                [bwrap, *TRIAL_ARGS, "true"], check=False, stdin=subprocess.DEVNULL
            )
    except TimeoutError:  # before OSError, whose subclass it is
        return Trial(False, "", f"{shown} did not answer within {TRIAL_TIMEOUT:.0f} s")
    except OSError as error:
        return Trial(False, "", f"{shown} could not be run: {error.strerror or error}")
    said = version.stdout.decode(errors="replace").strip() if version.returncode == 0 else ""
    if ran.returncode == 0:
        return Trial(True, said)
    said_why = ran.stderr.decode(errors="replace").strip().splitlines()
    detail = said_why[-1] if said_why else f"exit code {ran.returncode}"
    return Trial(False, said, f"{shown} cannot make a sandbox here: {detail}")
