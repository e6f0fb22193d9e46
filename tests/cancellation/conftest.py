from __future__ import annotations

import pytest

from actors import process_groups
from tests.frontends.conftest import project

__all__ = ["project", "short_grace"]


@pytest.fixture
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The graces between SIGTERM and SIGKILL that a group gets when its command ends and when
    it is interrupted, made short: a scripted child that ignores SIGTERM waits out the whole of
    one at every call's end, and what the tests check is that it is gone, not how long it was
    given."""
    monkeypatch.setattr(process_groups, "GRACE", 0.05)
    monkeypatch.setattr(process_groups, "INTERRUPT_GRACE", 0.02)
