"""Read of images, PDFs and notebooks: what the model gets, what the person sees, the caps, and
that the path rules come first."""

from __future__ import annotations

import base64
import json
import os
import threading
from typing import TYPE_CHECKING, Any

import anyio

from actors.media import images
from actors.media import pdf as pdf_module
from actors.protocol import InterruptTools, RunTools, ToolFinished, ToolOutput, ToolStarted
from actors.tool_executor.tools import read_media
from tests.media.files import declaring, image, pdf
from tests.tool_executor.harness import call, session, with_policy

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from actors.protocol import ToolEvent


def _output(events: list[ToolEvent]) -> str:
    return "".join(event.text for event in events if isinstance(event, ToolOutput))


def _finished(events: list[ToolEvent]) -> ToolFinished:
    (done,) = [event for event in events if isinstance(event, ToolFinished)]
    return done


async def test_an_image_is_given_to_the_model_with_its_size_and_cost(tmp_path: Path) -> None:
    data = image(800, 600)
    # Named .txt: the bytes decide, not the extension.
    (tmp_path / "shot.txt").write_bytes(data)
    read = call("Read", file_path=str(tmp_path / "shot.txt"))
    async with session(tmp_path) as s:
        events = await s.events(read)
    result = _finished(events).result
    assert not result.is_error
    assert result.content == "Image 800x600 px, about 640 tokens."
    assert result.images == (
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(data).decode(),
            },
        },
    )
    assert _output(events) == "Image 800x600 px, about 640 tokens\n"
    assert result.block()["content"][0] == {"type": "text", "text": result.content}


async def test_a_pdf_is_a_document_with_a_page_range(tmp_path: Path) -> None:
    (tmp_path / "spec.pdf").write_bytes(pdf([f"page{n}" for n in range(1, 31)]))
    async with session(tmp_path) as s:
        first = await s.one("Read", file_path=str(tmp_path / "spec.pdf"))
        later = await s.one("Read", file_path=str(tmp_path / "spec.pdf"), pages="25-26")
        past = await s.one("Read", file_path=str(tmp_path / "spec.pdf"), pages="40")
        text = await s.one("Read", file_path=str(tmp_path / "spec.pdf"), offset=2, pages="x")
    assert first.result.content == (
        "PDF, pages 1-20 of 30.\n(Pages 1-20 of 30; read the rest with pages '21-30'.)"
    )
    assert [block["type"] for block in first.result.images] == ["document"]
    assert later.result.content == "PDF, pages 25-26 of 30."
    assert past.result.is_error
    assert past.result.content.startswith("pages '40' is not within the document's 30 pages")
    assert text.result.is_error and "pages 'x' is not a page range" in text.result.content


async def test_pages_on_a_text_file_says_what_to_use(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    (tmp_path / "a.png").write_bytes(image(4, 4))
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(tmp_path / "a.txt"), pages="1-2")
        picture = await s.one("Read", file_path=str(tmp_path / "a.png"), pages="1")
    assert done.result.is_error
    assert done.result.content.startswith(f"pages is for PDFs; {tmp_path / 'a.txt'} is text")
    assert picture.result.content.startswith(f"pages is for PDFs; {tmp_path / 'a.png'} is an image")


def _notebook(**extra: Any) -> dict[str, Any]:
    picture = base64.b64encode(image(40, 30)).decode()
    return {
        "cells": [
            {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "x"]},
            {
                "cell_type": "code",
                "id": "plot",
                "execution_count": 3,
                "metadata": {},
                "source": "print(1)\n1/0",
                "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                    {"output_type": "display_data", "data": {"image/png": picture}, "metadata": {}},
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "division by zero",
                        "traceback": ["\x1b[0;31mZeroDivisionError\x1b[0m: division by zero"],
                    },
                ],
            },
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
        **extra,
    }


async def test_a_notebook_shows_its_cells_outputs_and_images(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(_notebook(), indent=1))
    read = call("Read", file_path=str(path))
    async with session(tmp_path) as s:
        events = await s.events(read)
    result = _finished(events).result
    assert result.content == (
        "Notebook nb.ipynb: 2 cells (python)\n\n"
        '<cell id="intro" type="markdown">\n# Title\nx\n</cell>\n\n'
        '<cell id="plot" type="code" execution_count="3">\nprint(1)\n1/0\n'
        "<output>\n1\n</output>\n"
        "<output>[image 1 follows]</output>\n"
        "<output>\nZeroDivisionError: division by zero\n</output>\n</cell>"
    ).replace("nb.ipynb", str(path))
    assert [block["source"]["media_type"] for block in result.images] == ["image/png"]
    assert _output(events) == "Notebook, 2 cells, 1 image (about 2 tokens)\n"


async def test_many_output_images_are_capped_with_a_note(tmp_path: Path) -> None:
    picture = base64.b64encode(image(10, 10)).decode()
    output = {"output_type": "display_data", "data": {"image/png": picture}, "metadata": {}}
    cell = {"cell_type": "code", "metadata": {}, "source": "", "outputs": [output] * 6}
    path = tmp_path / "many.ipynb"
    path.write_text(
        json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    )
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path))
    assert len(done.result.images) == read_media.NOTEBOOK_IMAGES
    assert '<cell id="cell-0" type="code">' in done.result.content
    assert done.result.content.endswith("(2 more output images left out; at most 4 a Read.)")


async def test_a_broken_notebook_is_shown_as_text(tmp_path: Path) -> None:
    path = tmp_path / "half.ipynb"
    path.write_text('{\n "cells": [\n')
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path))
    assert done.result.content == '     1\t{\n     2\t "cells": ['


async def test_bad_files_get_clear_messages_and_the_next_read_works(tmp_path: Path) -> None:
    (tmp_path / "cut.jpg").write_bytes(image(300, 200, "JPEG")[:600])
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.7\nnot really")
    (tmp_path / "locked.pdf").write_bytes(pdf(["secret"], user_password=b"pw"))
    (tmp_path / "huge.png").write_bytes(image(1, 1))
    os.truncate(tmp_path / "huge.png", 31 * 1024 * 1024)  # sparse: no 31 MB is written
    (tmp_path / "fine.png").write_bytes(image(20, 10))
    async with session(tmp_path) as s:
        cut = await s.one("Read", file_path=str(tmp_path / "cut.jpg"))
        broken = await s.one("Read", file_path=str(tmp_path / "broken.pdf"))
        locked = await s.one("Read", file_path=str(tmp_path / "locked.pdf"))
        huge = await s.one("Read", file_path=str(tmp_path / "huge.png"))
        fine = await s.one("Read", file_path=str(tmp_path / "fine.png"))
    assert cut.result.is_error
    assert cut.result.content.startswith(f"{tmp_path / 'cut.jpg'} could not be read as an image")
    assert broken.result.is_error and "could not be read as a PDF" in broken.result.content
    assert locked.result.is_error and "is encrypted" in locked.result.content
    assert huge.result.content.startswith(f"{tmp_path / 'huge.png'} is an image over 30 MB")
    assert "→ Check that the file is a whole" in cut.result.content
    assert "→ Make a smaller copy" in huge.result.content
    assert not fine.result.is_error and len(fine.result.images) == 1


async def test_a_refused_read_never_decodes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[str] = []
    prepare = images.prepare

    def counted(data: bytes, *, name: str) -> images.Prepared:
        decoded.append(name)
        return prepare(data, name=name)

    monkeypatch.setattr(images, "prepare", counted)
    (tmp_path / "secret.png").write_bytes(image(20, 10))
    (tmp_path / "open.png").write_bytes(image(20, 10))

    def deny(request: Any) -> str | None:
        return "the path is blocked" if request.paths[0].endswith("secret.png") else None

    async with session(tmp_path, deny=deny) as s:
        refused = await s.one("Read", file_path=str(tmp_path / "secret.png"))
        allowed = await s.one("Read", file_path=str(tmp_path / "open.png"))
    assert refused.result.denied and refused.result.images == ()
    assert refused.result.content == "Permission denied: the path is blocked"
    assert not allowed.result.is_error
    assert decoded == [str(tmp_path / "open.png")]


async def test_a_fifo_is_refused_as_before(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.png")
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(tmp_path / "pipe.png"))
    assert done.result.is_error and "not a regular file" in done.result.content


async def test_an_interrupted_read_returns_without_waiting_for_the_decoder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()

    def stuck(data: bytes, *, name: str) -> images.Prepared:
        entered.set()
        release.wait()
        raise AssertionError("the decoder's result is never used")

    monkeypatch.setattr(images, "prepare", stuck)
    (tmp_path / "big.png").write_bytes(image(20, 10))
    read = call("Read", file_path=str(tmp_path / "big.png"))
    events: list[ToolEvent] = []
    try:
        async with session(tmp_path) as s:
            with anyio.fail_after(10):  # the decoder would wait for ever
                async with s.executor.address.stream(RunTools(calls=(read,))) as stream:
                    async for event in stream:
                        events.append(event)
                        if isinstance(event, ToolStarted):
                            await anyio.to_thread.run_sync(entered.wait)
                            await s.executor.address.tell(InterruptTools(ids=(read.id,)))
    finally:
        release.set()
    done = _finished(events)
    assert done.result.is_error and done.result.images == ()
    assert "interrupted" in done.result.content.lower()


async def test_a_huge_cell_or_output_is_cut_with_a_note(tmp_path: Path) -> None:
    output = {"output_type": "stream", "name": "stdout", "text": "y" * 6_000}
    cell = {"cell_type": "code", "metadata": {}, "source": "x" * 60_000, "outputs": [output]}
    path = tmp_path / "big.ipynb"
    path.write_text(
        json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 4})
    )
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path))
    assert "x" * 50_000 + "\n... (10,000 characters more)" in done.result.content
    assert "y" * 5_000 + "\n... (1,000 characters more)\n</output>" in done.result.content
    assert len(done.result.content) < 60_000


async def test_blocked_paths_keep_a_bomb_from_the_decoder(tmp_path: Path) -> None:
    # A few bytes declaring 50,000 x 50,000 px: decoded, it would be refused or worse. The
    # real broker's blockedPaths decide first, and the decoder never opens it.
    (tmp_path / "secrets").mkdir()
    bomb = tmp_path / "secrets" / "bomb.png"
    bomb.write_bytes(declaring(50_000, 50_000))
    (tmp_path / "shot.png").write_bytes(image(8, 8))
    async with with_policy(tmp_path, mode="auto", blockedPaths=["secrets/"]) as s:
        blocked = await s.one("Read", file_path=str(bomb))
        fine = await s.one("Read", file_path=str(tmp_path / "shot.png"))
        unblocked_bomb = tmp_path / "bomb.png"
        bomb.rename(unblocked_bomb)
        refused = await s.one("Read", file_path=str(unblocked_bomb))
    assert blocked.result.denied and "blockedPaths" in blocked.result.content
    assert "pixels" not in blocked.result.content
    assert not fine.result.is_error and len(fine.result.images) == 1
    assert "declares more pixels than Legato decodes" in refused.result.content


async def test_a_pdf_over_the_document_size_is_its_text_read_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Past the API's size for one document the pages go as text; the PDF is opened once for
    # that (a 100 MB PDF is not parsed twice).
    (tmp_path / "big.pdf").write_bytes(pdf(["first page", "second page"]))
    monkeypatch.setattr(pdf_module, "MAX_BYTES", 100)
    reads: list[bool] = []
    real = pdf_module.read_pages

    def counted_read(data: bytes, **fields: Any) -> pdf_module.Pages:
        reads.append(fields["documents"])
        return real(data, **fields)

    monkeypatch.setattr(pdf_module, "read_pages", counted_read)
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(tmp_path / "big.pdf"))
    assert done.result.content == (
        "PDF, pages 1-2 of 2.\n--- page 1 ---\nfirst page\n\n--- page 2 ---\nsecond page"
    )
    assert done.result.images == ()
    assert reads == [True]
