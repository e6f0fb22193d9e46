"""Images and PDFs in the person's prompt: they follow the text in the user message, go out
once per request unchanged, stay in the session file, count by their tokens, and survive
compaction as a line in the summary. Real loopback HTTP, the real session."""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING, Any

import anyio

from actors.conductor import compaction
from actors.media import images, pdf
from actors.protocol import Compact, GetConversation, Message, RunPrompt, TaskLedger
from frontends.demo.scripted_api import ScriptedServer, text
from runtime import supervise
from tests.cancellation.harness import conversation_problems
from tests.sessions.test_conductor import open_session

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import Block


def png(width: int, height: int) -> bytes:
    from PIL import Image

    # Noise, so the PNG is large: a count by bytes would be far off.
    image = Image.frombytes("RGB", (width, height), os.urandom(width * height * 3))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def a_pdf(pages: int) -> bytes:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument.new()
    for _ in range(pages):
        document.new_page(200, 200)
    out = io.BytesIO()
    document.save(out)
    document.close()
    return out.getvalue()


def bare(message: dict[str, Any]) -> list[dict[str, Any]]:
    """A message's blocks without the prompt-caching marks, which move from turn to turn."""
    return [{k: v for k, v in b.items() if k != "cache_control"} for b in message["content"]]


def kinds(message: dict[str, Any]) -> list[str]:
    return [block["type"] for block in message["content"]]


async def test_image_follows_the_text_once_and_is_sent_again_on_resume(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    shot = images.prepare(png(64, 48), name="[Image #1]").block
    with ScriptedServer([text("a red square"), text("still red")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="what is this?", blocks=(shot,)))
            await conductor.ask(RunPrompt(text="and now?"))
        first, second = (r.body["messages"] for r in server.requests)
    assert kinds(first[0]) == ["text", "image"]
    assert bare(first[0])[1] == shot  # as prepared: not re-encoded on the way
    assert bare(second[0]) == bare(first[0])  # the next request carries it again, once, unchanged
    assert sum(kinds(m).count("image") for m in second) == 1
    with ScriptedServer([text("yes")]) as server:
        resumed = open_session(root, home, server.url, resume=session.id)
        async with supervise(resumed.actors):
            await resumed.conductor.address.ask(RunPrompt(text="once more"))
        body = server.requests[0].body["messages"]
    assert bare(body[0]) == bare(first[0])


async def test_a_prompt_of_only_an_image_has_no_empty_text(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    shot = images.prepare(png(8, 8), name="[Image #1]").block
    with ScriptedServer([text("a tiny image")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            outcome = await session.conductor.address.ask(RunPrompt(text="", blocks=(shot,)))
        assert outcome.subtype == "success"
        assert kinds(server.requests[0].body["messages"][0]) == ["image"]


async def test_compaction_keeps_a_recent_image_and_names_a_summarised_one(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    old = images.prepare(png(32, 32), name="[Image #1]").block
    new = images.prepare(png(16, 16), name="[Image #2]").block
    summary = "## Summary\nlooked at a chart\n## Decisions\n## Open steps\n"
    with ScriptedServer([text("one"), text("two"), text(summary), text("three")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="first", blocks=(old,)))
            await conductor.ask(RunPrompt(text="second", blocks=(new,)))
            await conductor.ask(Compact())
            messages = await conductor.ask(GetConversation())
            await conductor.ask(RunPrompt(text="third"))
    assert conversation_problems(messages) == []
    head = messages[0].content
    # /compact keeps only the last answer: both prompts' images were summarised.
    assert "held 2 images;" in head[0]["text"]
    assert old not in head and new not in head
    # The summary request itself showed the model both images, once each.
    asked = server.requests[2].body["messages"]
    assert sum(kinds(m).count("image") for m in asked) == 2
    # An image in a kept turn stays where it was.
    kept = [Message("user", [{"type": "text", "text": "see"}, new])]
    assert new in compaction.compacted("s", TaskLedger(), kept)[0].content


def test_an_image_and_a_pdf_count_by_their_tokens_not_their_base64() -> None:
    shot = images.prepare(png(400, 300), name="[Image #1]")
    document: Block = {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": ""},
    }
    document["source"]["data"] = __import__("base64").b64encode(a_pdf(3)).decode()
    words = [{"type": "text", "text": "look"}]
    plain = compaction.estimate_tokens([Message("user", words)])
    with_image = compaction.estimate_tokens([Message("user", [*words, shot.block])])
    assert len(shot.block["source"]["data"]) // 4 > 50_000  # a count by bytes would be huge
    assert with_image - plain in range(shot.tokens, shot.tokens + 30)
    assert shot.tokens == images.tokens_for(400, 300) == 160
    with_pdf = compaction.estimate_tokens([Message("user", [*words, document])])
    assert with_pdf - plain in range(3 * compaction.PAGE_TOKENS, 3 * compaction.PAGE_TOKENS + 30)
    # Inside a tool result too (a Read of an image).
    result: Block = {"type": "tool_result", "tool_use_id": "t", "content": [shot.block]}
    assert compaction.estimate_tokens([Message("user", [result])]) < 300
    assert pdf.is_pdf(a_pdf(1))


def test_image_size_is_read_from_every_kind_of_header() -> None:
    from PIL import Image

    from actors.conductor.media_size import image_size

    for kind in ("PNG", "GIF", "WEBP", "JPEG"):
        out = io.BytesIO()
        Image.new("RGB", (123, 45)).save(out, format=kind)
        data = __import__("base64").b64encode(out.getvalue()).decode()
        assert image_size(data) == (123, 45), kind
    assert image_size("not base64 at all!") is None
    unknown: Block = {"type": "image", "source": {"type": "base64", "data": "AAAA"}}
    assert compaction.media_tokens(unknown) == compaction.IMAGE_TOKENS
