"""Importing the MCP client costs nothing until an actor is made, and the actor imports the SDK
(most of a second) after its start, in a worker thread: the session's start never waits for it."""

from __future__ import annotations

import importlib
import subprocess
import threading
from typing import TYPE_CHECKING

import pytest

from actors.mcp_client import actor
from actors.protocol import ListMcpTools, McpToolListing
from tests.mcp_client.harness import PYTHON, TIME, TOY, running, text

if TYPE_CHECKING:
    from collections.abc import Iterator

SDK = "{'mcp', 'mcp_types', 'httpx2'}"
PROBE = f"import sys, actors.mcp_client; print(sorted({SDK} & {{*sys.modules}}))"


def test_the_package_does_not_import_the_sdk() -> None:
    out = subprocess.run([PYTHON, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out == "[]\n"


@pytest.fixture
def held_import(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The SDK's import, held in its worker thread until the test sets the event."""
    release = threading.Event()

    def import_sdk() -> None:
        release.wait()
        importlib.import_module(actor.CONNECTION_MODULE)

    monkeypatch.setattr(actor, "import_sdk", import_sdk)
    yield release
    release.set()  # also when the test failed: the thread must not wait forever


async def test_the_actor_starts_and_lists_its_servers_while_the_sdk_imports(
    held_import: threading.Event,
) -> None:
    # Entering ``running`` waits for on_start: it returned with the import still held.
    async with running(TIME, TOY) as client:
        listing = await client.address.ask(ListMcpTools())
        assert listing == McpToolListing(tools=(), connecting=("time", "toy"))
        held_import.set()
        result = await client.call("mcp__toy__shout", text="a", times=3)
        assert text(result) == "aaa"
        ready = await client.address.ask(ListMcpTools(wait=True))
    assert ready.connecting == ()
    assert {tool.server for tool in ready.tools} == {"time", "toy"}


async def test_a_session_that_ends_during_the_import_does_not_wait_for_it(
    held_import: threading.Event,
) -> None:
    async with running(TIME) as client:
        listing = await client.address.ask(ListMcpTools())
    assert listing.connecting == ("time",)
    assert not held_import.is_set()  # the actor stopped with the import still held
