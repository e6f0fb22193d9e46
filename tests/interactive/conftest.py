from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.interactive.terminal import Terminal

if TYPE_CHECKING:
    from collections.abc import Iterator


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
def folders() -> Iterator[tuple[Path, Path]]:
    # A short folder of its own rather than `tmp_path`, whose length grows with the test's name,
    # the run's number and the xdist worker: where the screen wraps a path shown in full must
    # not depend on those.
    with tempfile.TemporaryDirectory(prefix="legato-", ignore_cleanup_errors=True) as folder:
        root = Path(folder) / "project"
        home = Path(folder) / "home"
        root.mkdir()
        home.mkdir()
        yield root.resolve(), home


def session_env(home: Path, base_url: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "PYTHONPATH")}
    keep.setdefault("LANG", "C.UTF-8")
    return {**keep, "HOME": str(home), "ASSISTANT_BASE_URL": base_url, "ASSISTANT_API_KEY": "k"}
