"""The official Claude Agent SDK driving a real ``legato`` process (``cli_path``), against the
scripted model server: the SDK is the edge here, unchanged, as programs use it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions, Message, query

from tests.frontends.conftest import Project

if TYPE_CHECKING:
    from collections.abc import AsyncIterable

LEGATO = str(Path(sys.executable).with_name("legato"))


class Folder(Project):
    """A project folder and an empty home (tests/frontends), and the SDK's options for it."""

    def options(self, url: str, **fields: Any) -> ClaudeAgentOptions:
        """The SDK's options with ``cli_path`` pointing at Legato and its env at the server."""
        env = {
            "HOME": str(self.home),
            "ASSISTANT_BASE_URL": url,
            "ASSISTANT_API_KEY": "test-key",
            **fields.pop("env", {}),
        }
        return ClaudeAgentOptions(cli_path=LEGATO, cwd=str(self.root), env=env, **fields)


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Folder:
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    # The SDK passes its own environment on; a proxy of the machine's must not take loopback.
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    return Folder(Path(os.path.realpath(root)), home)


async def collect(
    prompt: str | AsyncIterable[dict[str, Any]], options: ClaudeAgentOptions
) -> list[Message]:
    return [message async for message in query(prompt=prompt, options=options)]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # ClaudeSDKClient.receive_response() leaves the SDK's own receive_messages() generators
    # unfinished by design (it stops at each result); under trio their collection warns. That is
    # the SDK's code, not Legato's: the warning is let through here, and only for it.
    for item in items:
        if item.path.parent == Path(__file__).parent:
            item.add_marker(
                pytest.mark.filterwarnings(
                    "ignore:Exception ignored in. <async_generator object "
                    ".*receive_messages:pytest.PytestUnraisableExceptionWarning"
                )
            )
