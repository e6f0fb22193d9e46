"""An image from the person's clipboard, for Ctrl+V (Alt+V) in the terminal.

Read here, in the frontend, and not by the tool executor: it is the person's own clipboard,
taken at their keypress, not a file of the project the model asks for, so no permission rule
applies. The system's clipboard tool is found on PATH once; it runs for at most ``TIMEOUT``
seconds and ``MAX_BYTES`` of output, in its own process group, killed past either.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys

import anyio

from actors import process_groups
from actors.errors import MediaUnreadable
from actors.media import images

TIMEOUT = 3.0  # seconds: a clipboard tool that hangs (no display) must not hold the prompt
MAX_BYTES = 32 * 1024 * 1024  # a screenshot of a large screen fits many times over


class NoImage(MediaUnreadable):
    """No clipboard tool, nothing image-like on the clipboard, or the tool failed."""


@functools.cache
def reader() -> tuple[str, ...] | None:
    """The command that prints the clipboard's image as PNG, for this system; None if none."""
    choices: list[tuple[str, ...]]
    if sys.platform == "darwin":
        choices = [("pngpaste", "-")]
    elif os.environ.get("WAYLAND_DISPLAY"):
        choices = [("wl-paste", "--no-newline", "--type", "image/png")]
    else:
        choices = []
    choices.append(("xclip", "-selection", "clipboard", "-t", "image/png", "-o"))
    for argv in choices:
        found = shutil.which(argv[0])
        if found is not None:
            return (found, *argv[1:])
    return None


def install_hint() -> str:
    if sys.platform == "darwin":
        return "Install pngpaste (brew install pngpaste) to paste images"
    if os.environ.get("WAYLAND_DISPLAY"):
        return "Install wl-clipboard (wl-paste) to paste images"
    return "Install xclip to paste images"


async def read_image(name: str) -> images.Prepared:
    """The clipboard's image, made ready as ``name`` (``[Image #1]``). Raises NoImage."""
    argv = reader()
    if argv is None:
        raise NoImage("No clipboard tool was found", remedy=install_hint())
    data = bytearray()
    process = await process_groups.start(
        argv, cwd=None, env=None, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        with anyio.move_on_after(TIMEOUT) as waited:
            assert process.stdout is not None
            async for chunk in process.stdout:
                data += chunk
                if len(data) > MAX_BYTES:
                    raise NoImage(
                        f"The clipboard holds more than {MAX_BYTES // 2**20} MB",
                        remedy="Save the image to a file and paste its path instead",
                    )
            await process.wait()
        if waited.cancelled_caught:
            raise NoImage(
                f"{os.path.basename(argv[0])} did not answer within {TIMEOUT:g} seconds",
                remedy="Check that a display is running, or paste the image's path instead",
            )
    finally:
        with anyio.CancelScope(shield=True):
            await process_groups.stop(process, grace=0.5)
    if process.returncode != 0 or not images.sniff(bytes(data[:16])):
        raise NoImage(
            "The clipboard holds no image",
            remedy="Copy an image (or take a screenshot to the clipboard) and press Ctrl+V again",
        )
    return images.prepare(bytes(data), name=name)
