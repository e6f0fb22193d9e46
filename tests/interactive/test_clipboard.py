"""The clipboard's image, read through a fake clipboard tool on PATH: a real process that
prints a PNG the test made, hangs, floods, or prints text."""

from __future__ import annotations

import io
import os
import stat
from typing import TYPE_CHECKING

import pytest

from actors.errors import MediaUnreadable
from frontends.interactive import clipboard

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty folder as the whole PATH, for the test to put a fake xclip in."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    clipboard.reader.cache_clear()
    yield tmp_path
    clipboard.reader.cache_clear()


def fake_xclip(folder: Path, body: str) -> None:
    script = folder / "xclip"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)


def png_file(folder: Path) -> Path:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (30, 20), "red").save(out, format="PNG")
    path = folder / "shot.png"
    path.write_bytes(out.getvalue())
    return path


async def test_an_image_on_the_clipboard_is_made_ready(tools: Path) -> None:
    shot = png_file(tools)
    asked = "-selection clipboard -t image/png -o"
    fake_xclip(tools, f'[ "$*" = "{asked}" ] && exec /bin/cat "{shot}"')
    prepared = await clipboard.read_image("[Image #1]")
    assert (prepared.width, prepared.height) == (30, 20)
    assert prepared.block["source"]["media_type"] == "image/png"


async def test_no_tool_names_the_one_to_install(tools: Path) -> None:
    with pytest.raises(clipboard.NoImage) as caught:
        await clipboard.read_image("[Image #1]")
    assert caught.value.remedy == "Install xclip to paste images"


async def test_text_on_the_clipboard_is_no_image(tools: Path) -> None:
    fake_xclip(tools, "echo 'just some words'")
    with pytest.raises(clipboard.NoImage, match="holds no image"):
        await clipboard.read_image("[Image #1]")


async def test_a_tool_that_hangs_is_killed(tools: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clipboard, "TIMEOUT", 0.2)
    pid_file = tools / "pid"
    fake_xclip(tools, f"echo $$ > {pid_file}; exec /bin/sleep 60")
    with pytest.raises(clipboard.NoImage, match="did not answer"):
        await clipboard.read_image("[Image #1]")
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


async def test_a_tool_that_floods_is_stopped(tools: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clipboard, "MAX_BYTES", 100_000)
    fake_xclip(tools, "exec /bin/cat /dev/zero")
    with pytest.raises(clipboard.NoImage, match="more than"):
        await clipboard.read_image("[Image #1]")


async def test_text_goes_to_the_clipboard_tool_and_its_name_is_said(
    tools: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    copied = tools / "copied"
    fake_xclip(tools, f'[ "$*" = "-selection clipboard" ] && exec /bin/cat > "{copied}"')
    assert await clipboard.write_text("# Chat\n\nhi\n") == "xclip"
    assert copied.read_text() == "# Chat\n\nhi\n"


async def test_without_a_display_or_a_tool_the_terminal_is_asked(
    tools: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_xclip(tools, "exit 0")
    monkeypatch.delenv("DISPLAY", raising=False)  # xclip cannot work without one
    assert await clipboard.write_text("hi") is None
    assert clipboard.osc52("hi") == "\x1b]52;c;aGk=\x07"


async def test_a_failing_tool_is_said(tools: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISPLAY", ":0")
    fake_xclip(tools, "exit 3")  # without reading what it was given
    with pytest.raises(MediaUnreadable, match="xclip failed"):
        await clipboard.write_text("hi")
