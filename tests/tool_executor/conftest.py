"""Fixtures of the sandbox's tests: a loopback server to reach, a bwrap that fails, a kernel
without Landlock."""

from __future__ import annotations

import socket
import threading
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.sandbox import landlock
from tests.tool_executor.sandbox_setup import failing_bwrap as make_failing_bwrap

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def loopback() -> Iterator[int]:
    """A server on this machine's loopback that accepts connections, for as long as the test:
    its port."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


@pytest.fixture
def failing_bwrap(tmp_path: Path) -> str:
    """A bwrap that fails as one does where user namespaces are turned off: the session falls
    back to Landlock where the kernel has it."""
    return make_failing_bwrap(tmp_path / "bin")


@pytest.fixture
def no_landlock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's Landlock probe finds none, as on a kernel built without it."""
    monkeypatch.setattr(landlock, "abi", lambda: 0)
