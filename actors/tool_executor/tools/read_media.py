"""Read of the files that are not text: an image, a PDF and a notebook, told apart by their
first bytes (a notebook by its name and its JSON), each read whole within a cap and decoded in a
worker thread.

A cancelled Read returns at once: the decoding thread is abandoned and finishes on its own
(nothing it makes is kept), so Esc never waits for a large photo or PDF.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

import anyio
import msgspec

from actors.counts import counted
from actors.errors import MediaUnreadable
from actors.media import images, pdf
from actors.tool_executor import notebooks
from actors.tool_executor.context import ToolOutcome

if TYPE_CHECKING:
    from actors.protocol import Block

IMAGE_MAX_BYTES = 30 * 1024 * 1024  # a camera's JPEG of 50 megapixels is well under this
PDF_MAX_BYTES = 100 * 1024 * 1024
NOTEBOOK_MAX_BYTES = 32 * 1024 * 1024  # parsed whole; past it the notebook is read as text
NOTEBOOK_IMAGES = 4  # output images one Read of a notebook sends; each costs up to ~1,600 tokens

Kind = Literal["image", "pdf", "notebook"]


class Whole(msgspec.Struct, frozen=True):
    """A file read whole to be decoded: what kind it is and its bytes."""

    kind: Kind
    data: bytes
    notebook: Any = None  # a notebook's parsed JSON

    @property
    def kind_in_words(self) -> str:
        return {"image": "an image", "pdf": "a PDF", "notebook": "a notebook"}[self.kind]


def kind_of(head: bytes, name: str) -> Kind | None:
    """What the first bytes say the file is; None: text (or binary), for the line reader."""
    if images.sniff(head) is not None:
        return "image"
    if pdf.is_pdf(head):
        return "pdf"
    if name.lower().endswith(".ipynb") and head.lstrip()[:1] == b"{":
        return "notebook"
    return None


def read_whole(file: BinaryIO, kind: Kind, shown: str) -> Whole | None:
    """The rest of ``file`` (at its start), refused before it is read past the cap; None for a
    notebook too big to parse, which is then read as text."""
    cap = {"image": IMAGE_MAX_BYTES, "pdf": PDF_MAX_BYTES, "notebook": NOTEBOOK_MAX_BYTES}[kind]
    data = file.read(cap + 1)  # the size fstat gave may have grown since
    if kind == "notebook":
        # A file named .ipynb that is not a notebook (broken JSON, a half-written save) is
        # shown as its text, so the model can see what is wrong and fix it with Edit.
        try:
            parsed = json.loads(data) if len(data) <= cap else None
        except (ValueError, RecursionError):
            return None
        return Whole(kind, data, parsed) if notebooks.is_notebook(parsed) else None
    if len(data) <= cap:
        return Whole(kind, data)
    what = "an image" if kind == "image" else "a PDF"
    raise MediaUnreadable(
        f"{shown} is {what} over {cap // (1024 * 1024)} MB, more than Read takes",
        remedy="Make a smaller copy (scale the image down, or split the PDF) and read that",
    )


async def give(whole: Whole, shown: str, pages: str | None) -> tuple[ToolOutcome, str]:
    """What the model gets for ``whole``, and the line the person sees with the call."""
    if whole.kind == "notebook":
        decode = functools.partial(_notebook, whole.notebook, shown)
    else:
        decode = functools.partial(_image if whole.kind == "image" else _pdf, whole.data, shown)
    return await anyio.to_thread.run_sync(decode, pages, abandon_on_cancel=True)


def _image(data: bytes, shown: str, pages: str | None) -> tuple[ToolOutcome, str]:
    ready = images.prepare(data, name=shown)
    line = ready.describe()
    return ToolOutcome(f"{line}.", images=(ready.block,)), line


def _pdf(data: bytes, shown: str, pages: str | None) -> tuple[ToolOutcome, str]:
    picked = pdf.read_pages(data, name=shown, pages=pages, documents=True)
    one = picked.first == picked.last
    which = f"page {picked.first}" if one else f"pages {picked.first}-{picked.last}"
    line = f"PDF, {which} of {picked.total}"
    words = [f"{line}."]
    if picked.note:
        words.append(f"({picked.note}.)")
    if picked.block is None:  # over the API's size for one document: the pages' text instead
        words.append(picked.text)
        return ToolOutcome("\n".join(words)), line
    return ToolOutcome("\n".join(words), images=(picked.block,)), line


def _notebook(
    notebook: notebooks.Notebook, shown: str, pages: str | None
) -> tuple[ToolOutcome, str]:
    text, pictures = notebooks.render(notebook, shown, NOTEBOOK_IMAGES)
    blocks: list[Block] = []
    tokens = 0
    for number, (_media_type, encoded) in enumerate(pictures, start=1):
        try:
            raw = base64.b64decode(encoded, validate=True)
            ready = images.prepare(raw, name=f"output image {number}")
        except binascii.Error:
            text += f"\n(Output image {number} could not be sent: it is not valid base64.)"
            continue
        except MediaUnreadable as error:
            text += f"\n(Output image {number} could not be sent: {error.message}.)"
            continue
        blocks.append(ready.block)
        tokens += ready.tokens
    line = f"Notebook, {counted(len(notebook['cells']), 'cell')}"
    if blocks:
        line += f", {counted(len(blocks), 'image')} (about {tokens:,} tokens)"
    return ToolOutcome(text, images=tuple(blocks)), line
