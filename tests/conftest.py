from __future__ import annotations

import gc
import inspect
import shutil
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from runtime import collector

if TYPE_CHECKING:
    from collections.abc import Iterator

NO_TMUX = pytest.mark.skip(reason="tmux is not installed (.ci/run installs it)")

# Property tests draw the same examples on every run, so a failure in CI is one anyone can
# reproduce; `--hypothesis-profile=random` explores new ones. No deadline: how long an example
# takes says how busy the machine is, not whether the code is right.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("random", derandomize=False, deadline=None, print_blob=True)
settings.load_profile("ci")


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


@pytest.fixture
def held_collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The cycle collector off and not yet released, as `legato` leaves it at its start; put
    back as it was afterwards."""
    monkeypatch.setattr(collector, "_released", False)
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()
