"""``legato -p "... @shot.png"``: the image the prompt names reaches the model as an image
block after the prompt's text. Real ``legato``, a real PNG, the scripted server."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def test_at_path_of_an_image_in_a_headless_prompt_reaches_the_model(project: Project) -> None:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (64, 32), "green").save(out, format="PNG")
    (project.root / "shot.png").write_bytes(out.getvalue())
    with ScriptedServer([text("It is a green bar.")]) as server:
        done = project.legato(server.url, "-p", "what is wrong in @shot.png")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "It is a green bar."
    sent = requests[0].body["messages"][0]["content"]
    assert sent[0]["type"] == "text" and sent[0]["text"].startswith("what is wrong in @shot.png")
    assert [b["type"] for b in sent[1:]] == ["image"]
    assert sent[1]["source"]["media_type"] == "image/png"
