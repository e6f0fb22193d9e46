"""The long-run benchmark runs: a few prompts of its schedule, every tool doing its work (it
stops on a refused call), compaction coming round, and the memory table printed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from benchmarks.longrun import drive

if TYPE_CHECKING:
    import pytest


async def test_a_few_prompts_of_the_long_run(capsys: pytest.CaptureFixture[str]) -> None:
    await drive(prompts=6, every=3, trace=False)
    out = capsys.readouterr().out
    found = re.search(r"6 prompts, 30 model turns, (\d+) compactions", out)
    assert found and int(found.group(1)) >= 1, out
    assert re.search(r"\| 6 \| \d+\.\d MB \| \d+\.\d MB \|", out), out
    assert "growth after warm-up" in out
