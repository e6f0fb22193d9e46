"""``/permissions`` in a session: the mode and rules, and the broker's verdicts in the mode the
session is in now (Shift+Tab changes them), asked by message."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.interactive.test_session import SHIFT_TAB, Live, run

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


class Shown:
    """Waits for text on the screen as words, since the screen wraps long lines."""

    def __init__(self, live: Live) -> None:
        self.live = live

    async def __call__(self, wanted: str) -> None:
        words = " ".join(wanted.split())
        await self.live.until(lambda: words in " ".join(self.live.text().split()))


async def test_permissions_shows_the_rules_and_explains_in_the_current_mode(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    (root / ".legato").mkdir()
    settings = root / ".legato" / "settings.json"
    settings.write_text(json.dumps({"allowedPaths": ["src/**"], "blockedPaths": ["/.env"]}))
    (root / "README.md").write_text("hi\n")
    (root / ".env").write_text("KEY=1\n")
    async for live, _ in run(folders, []):
        shown = Shown(live)
        await live.submit("/permissions")
        await shown(f"Rules from {settings}:")
        await shown("  allowedPaths     'src/**'")
        await shown("  blockedCommands  (none)")
        await live.submit("/permissions explain README.md")
        await shown(
            "read    README.md  asks     'README.md' is not in allowedPaths (headless: denied)"
        )
        await live.submit("/permissions explain .env")
        await shown(
            "edit    .env  denied   blocked by blockedPaths entry '/.env' (path '.env') in "
            f"{settings}"
        )
        live.pipe.send_text(SHIFT_TAB)
        await live.mode("auto")
        await live.submit("/permissions explain README.md")
        await shown("Mode: auto (this session's)")
        await shown(
            "edit    README.md  allowed  writing inside the project is accepted in auto-accept mode"
        )
        await live.submit("/permissions explain")
        await shown("/permissions explain: not a form it takes")
