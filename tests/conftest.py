from __future__ import annotations

import inspect
import shutil

import pytest

NO_TMUX = pytest.mark.skip(reason="tmux is not installed (.ci/run installs it)")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Async tests run under trio unless they ask for anyio's backends explicitly; tests marked
    ``tmux`` are skipped where tmux is missing."""
    tmux_missing = shutil.which("tmux") is None
    for item in items:
        if tmux_missing and item.get_closest_marker("tmux") is not None:
            item.add_marker(NO_TMUX)
        function = getattr(item, "function", None)
        if (
            function is not None
            and inspect.iscoroutinefunction(function)
            and item.get_closest_marker("anyio") is None
            and item.get_closest_marker("trio") is None
        ):
            item.add_marker(pytest.mark.trio)
