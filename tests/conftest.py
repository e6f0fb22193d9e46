from __future__ import annotations

import inspect

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Async tests run under trio unless they ask for anyio's backends explicitly."""
    for item in items:
        function = getattr(item, "function", None)
        if (
            function is not None
            and inspect.iscoroutinefunction(function)
            and item.get_closest_marker("anyio") is None
            and item.get_closest_marker("trio") is None
        ):
            item.add_marker(pytest.mark.trio)
