"""An image from the person's clipboard, for Ctrl+V (Alt+V) in the terminal.

Read here, in the frontend, and not by the tool executor: it is the person's own clipboard,
taken at their keypress, not a file of the project the model asks for, so no permission rule
applies. The system's clipboard tool is found on PATH once; it runs for at most ``TIMEOUT``
seconds and ``MAX_BYTES`` of output, in its own process group, killed past either.
"""

from __future__ import annotations

import contextlib
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


# The tools that put text on the clipboard, by system, first found wins.
_WRITERS: tuple[tuple[str, ...], ...] = (
    ("pbcopy",),
    ("wl-copy",),
    ("xclip", "-selection", "clipboard"),
    ("xsel", "--clipboard", "--input"),
)


def writer() -> tuple[str, ...] | None:
    """The command that takes text for the clipboard on stdin, for this system; None if none.
    wl-copy only under Wayland and xclip/xsel only with an X display: elsewhere they fail."""
    for argv in _WRITERS:
        if argv[0] == "pbcopy" and sys.platform != "darwin":
            continue
        if argv[0] == "wl-copy" and not os.environ.get("WAYLAND_DISPLAY"):
            continue
        if argv[0] in ("xclip", "xsel") and not os.environ.get("DISPLAY"):
            continue
        found = shutil.which(argv[0])
        if found is not None:
            return (found, *argv[1:])
    return None


async def write_text(text: str) -> str | None:
    """Put ``text`` on the clipboard with the system's tool; its name, or None when there is
    none (the caller then sends the terminal an OSC 52). Raises MediaUnreadable when it fails."""
    argv = writer()
    if argv is None:
        return None
    name = os.path.basename(argv[0])
    process = await process_groups.start(
        argv, cwd=None, env=None, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        with anyio.move_on_after(TIMEOUT) as waited:
            assert process.stdin is not None
            # A tool that ends before it has read everything failed: its exit code says so.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await process.stdin.send(text.encode())
            await process.stdin.aclose()
            await process.wait()
        if waited.cancelled_caught:
            raise MediaUnreadable(
                f"{name} did not take the text within {TIMEOUT:g} seconds",
                remedy="Check that a display is running, or save to a file: /export <file>",
            )
    finally:
        with anyio.CancelScope(shield=True):
            # wl-copy and xclip stay to serve the clipboard: their group is left running
            # only when they were told the text and ended their own foreground part.
            if process.returncode is None:
                await process_groups.stop(process, grace=0.5)
    if process.returncode != 0:
        raise MediaUnreadable(
            f"{name} failed (exit code {process.returncode})",
            remedy="Save to a file instead: /export <file>",
        )
    return name


def osc52(text: str) -> str:
    """The terminal's own clipboard write: most terminals take it, some only when allowed."""
    import base64

    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\x07"
