"""The UI actor: puts session events in front of a person or a pipeline.

The actor owns ordering (events are shown in the order they were sent) and nothing else; how
they look is a ``Renderer``'s business, and each frontend brings its own (headless text, json
and stream-json now; the interactive terminal later).
"""

from __future__ import annotations

from actors.ui.actor import QuestionsActor, Renderer, UiActor

__all__ = ["QuestionsActor", "Renderer", "UiActor"]
