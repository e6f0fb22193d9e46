"""Images and PDFs for an OpenAI-compatible server: images as data-URL parts of a user message
(those a tool gave right after the tool messages), PDFs as their pages' text."""

from __future__ import annotations

import base64

from actors.media.images import prepare
from actors.media.pdf import read_pages
from actors.model_client.providers.openai import convert_message
from actors.protocol import Message
from tests.media.files import image, pdf


def _document(data: bytes) -> dict[str, object]:
    encoded = base64.b64encode(data).decode()
    return {
        "type": "document",
        "source": {"type": "base64", "media_type": "application/pdf", "data": encoded},
    }


def test_a_tools_image_follows_its_result_and_a_pdf_becomes_text() -> None:
    shot = prepare(image(20, 10), name="shot.png").block
    spec = read_pages(pdf(["alpha", "beta"]), name="s", pages=None, documents=True).block
    assert spec is not None
    message = Message(
        "user",
        [
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "text", "text": "Image 20x10 px."}, shot],
            },
            {
                "type": "tool_result",
                "tool_use_id": "t2",
                "content": [{"type": "text", "text": "PDF, pages 1-2 of 2."}, spec],
            },
        ],
    )
    url = f"data:image/png;base64,{shot['source']['data']}"
    assert convert_message(message) == [
        {"role": "tool", "tool_call_id": "t1", "content": "Image 20x10 px."},
        {
            "role": "tool",
            "tool_call_id": "t2",
            "content": "PDF, pages 1-2 of 2.\n(A PDF of 2 pages, as text; pages 1-2)\n"
            "--- page 1 ---\nalpha\n\n--- page 2 ---\nbeta",
        },
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "The image(s) from tool call t1:"},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        },
    ]


def test_a_prompts_image_and_pdf_keep_their_order() -> None:
    shot = prepare(image(20, 10, "JPEG"), name="shot.jpg").block
    message = Message(
        "user",
        [{"type": "text", "text": "compare"}, _document(pdf(["one"])), shot],
    )
    (user,) = convert_message(message)
    assert user["content"][0] == {"type": "text", "text": "compare"}
    assert user["content"][1]["text"].endswith("--- page 1 ---\none")
    assert user["content"][2]["image_url"]["url"].startswith("data:image/jpeg;base64,")


def test_a_broken_document_is_said_not_raised() -> None:
    message = Message("user", [{"type": "text", "text": "hi"}, _document(b"%PDF-1.4 junk")])
    (user,) = convert_message(message)
    assert user["content"] == (
        "hi\n(the PDF could not be read as a PDF: Failed to load document (PDFium: Data format "
        "error).)"
    )
