"""A stdio MCP server as a process group, speaking JSON-RPC a line at a time.

This replaces the SDK's ``stdio_client`` for one reason: its shutdown signals the server's process
group only when the server outlives the closing of its stdin, so a server that exits then leaves
its children running (a wrapper that starts the real server, a server that started a helper). Here
the group is always ended: stdin closes, the server gets GRACE to exit by itself, then whatever
of the group still runs gets SIGTERM and, after GRACE more, SIGKILL (``actors/process_groups.py``,
where a zombie left in the group counts as ended). The server runs in a session of its own, so
the group is it and everything it starts, and the terminal's Ctrl+C never reaches it.

The streams are the SDK's transport streams (``SessionMessage`` items, an ``Exception`` for a line
that is not JSON-RPC), so ``ClientSession`` runs on them unchanged.
"""

from __future__ import annotations

import contextlib
import subprocess
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

from actors import process_groups

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Mapping, Sequence

    from anyio.abc import ObjectReceiveStream, ObjectSendStream, Process

# How long the server has to exit once its stdin closes, and its group between signals.
GRACE = 1.0
# The longest line kept waiting for its end: past it the server is taken to speak garbage, rather
# than letting one endless line fill Legato's memory.
MAX_LINE = 64 * 1024 * 1024
_POLL = 0.01
_QUIET = (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError)


@asynccontextmanager
async def stdio_transport(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None, stderr: IO[Any]
) -> AsyncIterator[tuple[ObjectReceiveStream[Any], ObjectSendStream[SessionMessage]]]:
    process = await process_groups.start(
        argv,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
    )
    # No await between the start and the ``try``: a cancellation there would leave the group.
    received, read = anyio.create_memory_object_stream[Any](0)
    write, to_send = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as pipes:
            pipes.start_soon(_read_lines, process, received)
            pipes.start_soon(_write_lines, process, to_send)
            try:
                yield read, write
            finally:
                pipes.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await end_group(process)
        for stream in (received, read, write, to_send):
            stream.close()


async def _read_lines(process: Process, received: ObjectSendStream[Any]) -> None:
    assert process.stdout is not None
    async with received:
        pending = b""
        with contextlib.suppress(*_QUIET):
            async for chunk in process.stdout:
                *lines, pending = (pending + chunk).split(b"\n")
                for line in lines:
                    if line.strip():
                        await received.send(_parse(line))
                if len(pending) > MAX_LINE:
                    await received.send(ValueError(f"a line longer than {MAX_LINE} bytes"))
                    return


def _parse(line: bytes) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # pydantic's ValidationError is one
        return exc


async def _write_lines(process: Process, to_send: ObjectReceiveStream[SessionMessage]) -> None:
    assert process.stdin is not None
    async with to_send:
        with contextlib.suppress(*_QUIET):
            async for message in to_send:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode() + b"\n")


async def end_group(process: Process) -> None:
    """Close stdin, give the server GRACE to exit, then end its whole group. Bounded."""
    if process.stdin is not None:
        with contextlib.suppress(*_QUIET):
            await process.stdin.aclose()
    await _exited(process, GRACE)
    # Whether or not the server exited, what it started may still run in its group.
    await process_groups.stop(process, grace=GRACE)
    with contextlib.suppress(*_QUIET), anyio.move_on_after(GRACE):
        await process.aclose()


async def _exited(process: Process, seconds: float) -> None:
    # Polls the return code: asyncio's ``wait`` also waits for the pipes' end, which a child
    # holding them would put off.
    with anyio.move_on_after(seconds):
        while process.returncode is None:  # noqa: ASYNC110
            await anyio.sleep(_POLL)
