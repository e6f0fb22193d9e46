"""``@path`` of an image or a PDF: a block after the prompt's text, a line saying what it is,
the broker's checks as for text, and caps with a note past them."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

from actors.media import images
from actors.protocol import Attachment, AttachReferences, ListFiles
from tests.media.files import image, pdf
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.tool_executor.harness import Calls


async def attach(s: Calls, text: str) -> Attachment:
    return await s.executor.address.ask(AttachReferences(text=text))


async def test_images_and_pdfs_follow_the_text_in_the_order_named(tmp_path: Path) -> None:
    shot = image(800, 600)
    (tmp_path / "shot.png").write_bytes(shot)
    (tmp_path / "spec.pdf").write_bytes(pdf(["one", "two"]))
    (tmp_path / "notes.txt").write_text("hello\n")
    async with session(tmp_path) as s:
        done = await attach(s, "compare @spec.pdf with @shot.png and @notes.txt")
    assert done.attached == ("spec.pdf", "shot.png", "notes.txt")
    assert done.prompt == (
        "compare @spec.pdf with @shot.png and @notes.txt\n\n"
        'Referenced files:\n<file path="notes.txt">\nhello\n\n</file>\n\n'
        "[PDF #1: spec.pdf, pages 1-2 of 2]\n"
        "[Image #1: shot.png, 800x600, ~640 tokens]"
    )
    assert [block["type"] for block in done.blocks] == ["document", "image"]
    assert done.blocks[1]["source"]["data"] == base64.b64encode(shot).decode()
    assert done.notes == ()
    assert all(r.named_by_user and r.kind == "read" for r in s.broker.requests)


async def test_a_bad_image_is_a_note_and_the_prompt_still_goes(tmp_path: Path) -> None:
    (tmp_path / "cut.jpg").write_bytes(image(300, 200, "JPEG")[:500])
    (tmp_path / "locked.pdf").write_bytes(pdf(["x"], user_password=b"pw"))
    (tmp_path / "fine.gif").write_bytes(image(10, 10, "GIF"))
    async with session(tmp_path) as s:
        done = await attach(s, "look @cut.jpg @locked.pdf @fine.gif")
    assert done.attached == ("fine.gif",)
    assert done.notes[0].startswith("@cut.jpg was not attached: @cut.jpg could not be read")
    assert done.notes[1] == (
        "@locked.pdf was not attached: @locked.pdf is encrypted: it needs a password to open. "
        "Save a copy without the password and read that"
    )
    assert done.prompt.endswith("[Image #1: fine.gif, 10x10, ~1 token]")
    assert len(done.blocks) == 1


async def test_a_refused_image_is_never_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decoded: list[str] = []
    monkeypatch.setattr(images, "prepare", lambda data, *, name: decoded.append(name))
    (tmp_path / "secret.png").write_bytes(image(10, 10))
    async with session(tmp_path, deny=lambda request: "blocked") as s:
        done = await attach(s, "see @secret.png")
    assert done == Attachment(
        prompt="see @secret.png", notes=("@secret.png was not attached: blocked",)
    )
    assert decoded == []


async def test_caps_on_images_and_pages_leave_a_note(tmp_path: Path) -> None:
    for n in range(22):
        (tmp_path / f"i{n}.png").write_bytes(image(4, 4))
    (tmp_path / "long.pdf").write_bytes(pdf([f"p{n}" for n in range(1, 31)]))
    names = " ".join(f"@i{n}.png" for n in range(22))
    async with session(tmp_path) as s:
        done = await attach(s, f"{names} @long.pdf")
    assert len(done.blocks) == 21  # twenty images and the PDF's first twenty pages
    assert done.notes == (
        "@i20.png was not attached: a prompt takes at most 20 images",
        "@i21.png was not attached: a prompt takes at most 20 images",
        "@long.pdf: only pages 1-20 of 30 attached (the model can Read the rest)",
    )
    assert done.prompt.endswith(
        "[PDF #1: long.pdf, pages 1-20 of 30; Read it with pages '21-...' for the rest]"
    )


async def test_completion_offers_images_and_pdfs(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(image(4, 4))
    (tmp_path / "spec.pdf").write_bytes(pdf(["x"]))
    async with session(tmp_path) as s:
        offered = await s.executor.address.ask(ListFiles(limit=10))
    assert sorted(offered) == ["shot.png", "spec.pdf"]
