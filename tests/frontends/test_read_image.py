"""A real ``legato -p`` reads a photo: the model's next request carries it as an image block
within the API's limits, after the line that says its size and cost, which the person sees."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING

from PIL import Image

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.media.files import image

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def test_a_read_photo_reaches_the_model_as_an_image(project: Project) -> None:
    photo = project.root / "photo.jpg"
    photo.write_bytes(image(3000, 2000, "JPEG"))
    project.settings(allowedPaths=["/*.jpg"])
    steps = [tool_calls([call("Read", {"file_path": str(photo)})]), text("A red and blue photo.")]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "-p", "what is in photo.jpg?")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "A red and blue photo."
    # The person sees what the model got and its cost, with the call's line.
    assert "Read(photo.jpg)" in done.stderr
    assert ": Image 1341x894 px (scaled from 3000x2000), about 1,599 tokens." in done.stderr
    (result,) = [
        block
        for block in requests[1].body["messages"][-1]["content"]
        if block["type"] == "tool_result"
    ]
    words, picture = result["content"]
    assert words == {
        "type": "text",
        "text": "Image 1341x894 px (scaled from 3000x2000), about 1,599 tokens.",
    }
    assert picture["type"] == "image"
    assert picture["source"]["media_type"] == "image/jpeg"
    sent = Image.open(io.BytesIO(base64.b64decode(picture["source"]["data"])))
    assert sent.format == "JPEG" and sent.size == (1341, 894)
