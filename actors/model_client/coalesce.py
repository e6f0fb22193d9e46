"""Merging deltas that arrived together.

The network hands over bytes in chunks that may hold hundreds of events. Passing each delta
through the actors one by one would cost a scheduler round trip per token and let a fast stream
outrun the terminal; merging neighbours of the same kind and block keeps every character, in
order, and makes the work per chunk instead of per token.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import TextDelta, ThinkingDelta, ToolInputDelta

if TYPE_CHECKING:
    from actors.protocol import ModelEvent

_Delta = TextDelta | ThinkingDelta | ToolInputDelta


def coalesce(events: list[ModelEvent]) -> list[ModelEvent]:
    out: list[ModelEvent] = []
    pieces: list[str] = []  # the run of mergeable deltas being built
    run: _Delta | None = None

    def close_run() -> None:
        nonlocal run
        if run is not None:
            out.append(run if len(pieces) == 1 else _with_text(run, "".join(pieces)))
            pieces.clear()
            run = None

    for event in events:
        if isinstance(event, TextDelta | ThinkingDelta | ToolInputDelta):
            if run is not None and type(run) is type(event) and run.index == event.index:
                pieces.append(_text_of(event))
                continue
            close_run()
            run = event
            pieces.append(_text_of(event))
            continue
        close_run()
        out.append(event)
    close_run()
    return out


def _text_of(delta: _Delta) -> str:
    if isinstance(delta, TextDelta):
        return delta.text
    if isinstance(delta, ThinkingDelta):
        return delta.thinking
    return delta.partial_json


def _with_text(delta: _Delta, text: str) -> _Delta:
    if isinstance(delta, TextDelta):
        return TextDelta(delta.index, text)
    if isinstance(delta, ThinkingDelta):
        return ThinkingDelta(delta.index, text)
    return ToolInputDelta(delta.index, text)
