"""The SDK's streaming input with an image block: it reaches the model after the text, as
the SDK's documentation shows it sent, and is not echoed back to the program."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import ResultMessage

from frontends.demo.scripted_api import ScriptedServer, text
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from tests.sdk.conftest import Folder


def png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (50, 40), "blue").save(out, format="PNG")
    return out.getvalue()


async def test_an_image_block_from_the_sdk_reaches_the_model(folder: Folder) -> None:
    data = base64.b64encode(png()).decode()

    async def prompts() -> AsyncIterator[dict[str, Any]]:
        content = [
            {"type": "text", "text": "What colour is this?"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/png", "data": data},
            },
        ]
        yield {"type": "user", "message": {"role": "user", "content": content}}

    with ScriptedServer([text("Blue.")]) as server:
        messages = await collect(prompts(), folder.options(server.url))
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "Blue.", result
    sent = requests[0].body["messages"][0]["content"]
    assert [b["type"] for b in sent] == ["text", "image"]
    assert sent[1]["source"] == {"type": "base64", "media_type": "image/png", "data": data}
    assert not any(data in repr(m) for m in messages)
