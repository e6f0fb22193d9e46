from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from tests.interactive.terminal import Terminal

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def anyio_backend() -> str:
    # prompt_toolkit runs on asyncio; so do the screen's unit tests.
    return "asyncio"


@pytest.fixture
def terminal(request: pytest.FixtureRequest) -> Iterator[Terminal]:
    # The marker is what skips a test where tmux is missing (tests/conftest.py).
    if request.node.get_closest_marker("tmux") is None:
        pytest.fail("a test that drives tmux is marked with pytest.mark.tmux")
    term = Terminal()
    try:
        yield term
    finally:
        term.close()


@pytest.fixture
def folders(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root.resolve(), home


def session_env(home: Path, base_url: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH")}
    keep.setdefault("LANG", "C.UTF-8")
    return {**keep, "HOME": str(home), "ASSISTANT_BASE_URL": base_url, "ASSISTANT_API_KEY": "k"}
