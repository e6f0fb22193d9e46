"""One hook command as a process group: the event's JSON on stdin, its output kept small, and
its end made certain (``actors/process_groups.py``: SIGTERM, a grace, then SIGKILL of the whole
group), after a timeout and on cancellation alike."""

from __future__ import annotations

import contextlib
import subprocess
from typing import TYPE_CHECKING

import anyio

from actors import process_groups
from actors.credentials import without_credentials
from actors.output_caps import HeadTail
from actors.protocol import HookRun
from actors.telemetry import for_children

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from anyio.abc import ByteReceiveStream, ByteSendStream

    from actors.protocol import HookCommand

# Each of stdout and stderr keeps this much, its head and its tail.
OUTPUT_CAP = 64 * 1024
# How long to keep reading once the group is gone: a daemon that left it may hold a pipe.
DRAIN = 1.0
_READ = 65536


async def run_hook(
    hook: HookCommand,
    *,
    source: str,
    stdin: bytes,
    cwd: str,
    env: Mapping[str, str],
    secrets: Iterable[str | None] = (),
) -> HookRun:
    """Run ``bash -c hook.command`` in a new process group until it exits or its timeout passes;
    the group is gone when this returns or raises. A command that cannot start is a run with no
    exit code and the reason on stderr.

    The hook gets ``env`` without Legato's own credentials (a command's rule: those variables,
    and any holding one of their values or one of ``secrets``, the configured ``apiKey``): a
    hook is a project's or the user's program, and Legato's keys go to the model API alone."""
    started = anyio.current_time()
    try:
        # Shielded (it takes a moment): once the process exists, the cleanup below has its handle.
        with anyio.CancelScope(shield=True):
            process = await process_groups.start(
                ["bash", "-c", hook.command],
                cwd=cwd,
                env=for_children(without_credentials(env, secrets=secrets)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
    except OSError as exc:
        return HookRun(command=hook.command, source=source, exit_code=None, stderr=str(exc))
    assert process.stdin and process.stdout and process.stderr  # opened with PIPE
    out, err = HeadTail(OUTPUT_CAP), HeadTail(OUTPUT_CAP)
    ended = False  # once the group is gone its id may be reused: never signal it again
    code: int | None = None
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_feed, process.stdin, stdin)
            readers = anyio.Event(), anyio.Event()
            tasks.start_soon(_read, process.stdout, out, readers[0])
            tasks.start_soon(_read, process.stderr, err, readers[1])
            with anyio.move_on_after(hook.timeout):
                code = await process.wait()
            elapsed = anyio.current_time() - started
            await process_groups.stop(process, grace=process_groups.GRACE)
            ended = True
            with anyio.move_on_after(DRAIN):
                for done in readers:
                    await done.wait()
            tasks.cancel_scope.cancel()  # a pipe still held open, or stdin nobody reads
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            if not ended:  # the asker gave up: the user is waiting
                await process_groups.stop(process, grace=process_groups.INTERRUPT_GRACE)
            await process.aclose()
    return HookRun(
        command=hook.command,
        source=source,
        exit_code=code,
        stdout=out.text(),
        stderr=err.text(),
        timed_out=code is None,
        elapsed=elapsed,
    )


async def _feed(stream: ByteSendStream, data: bytes) -> None:
    # A hook may exit without reading its input, or read only part of it.
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
        await stream.send(data)
    with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await stream.aclose()


async def _read(stream: ByteReceiveStream, capture: HeadTail, done: anyio.Event) -> None:
    try:
        while True:
            capture.feed(await stream.receive(_READ))
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        done.set()
