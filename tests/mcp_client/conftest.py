from __future__ import annotations

import pytest

from actors.mcp_client import stdio


@pytest.fixture
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grace a server gets to exit once its stdin closes, and its group between SIGTERM and
    SIGKILL, made short: a server that never reads its stdin, or ignores SIGTERM, waits out the
    whole of it, and what the tests check is that it ends, not how long it was given."""
    monkeypatch.setattr(stdio, "GRACE", 0.1)
