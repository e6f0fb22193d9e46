"""Deltas that arrive together are merged without losing or reordering a character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from actors.model_client.coalesce import coalesce
from actors.protocol import (
    BlockFinished,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolUseStarted,
)


def test_neighbours_of_one_kind_and_block_merge_and_nothing_else_does() -> None:
    events: list[ModelEvent] = [
        ThinkingDelta(0, "a"),
        ThinkingDelta(0, "b"),
        BlockFinished(0, {"type": "thinking"}),
        TextDelta(1, "Hel"),
        TextDelta(1, "lo"),
        TextDelta(2, "!"),
        ToolUseStarted(3, "t", "Bash"),
        ToolInputDelta(3, '{"a"'),
        ToolInputDelta(3, ": 1}"),
    ]
    assert coalesce(events) == [
        ThinkingDelta(0, "ab"),
        BlockFinished(0, {"type": "thinking"}),
        TextDelta(1, "Hello"),
        TextDelta(2, "!"),
        ToolUseStarted(3, "t", "Bash"),
        ToolInputDelta(3, '{"a": 1}'),
    ]


deltas = st.one_of(
    st.builds(TextDelta, st.integers(0, 2), st.text(max_size=5)),
    st.builds(ThinkingDelta, st.integers(0, 2), st.text(max_size=5)),
    st.builds(ToolInputDelta, st.integers(0, 2), st.text(max_size=5)),
)


@given(st.lists(deltas, max_size=30))
def test_merging_keeps_every_character_of_every_block_in_order(events: list[ModelEvent]) -> None:
    def text_by_block(items: list[ModelEvent]) -> dict[tuple[type, int], str]:
        out: dict[tuple[type, int], str] = {}
        for item in items:
            assert isinstance(item, TextDelta | ThinkingDelta | ToolInputDelta)
            piece = (
                item.text if isinstance(item, TextDelta)
                else item.thinking if isinstance(item, ThinkingDelta)
                else item.partial_json
            )  # fmt: skip
            out[(type(item), item.index)] = out.get((type(item), item.index), "") + piece
        return out

    merged = coalesce(events)
    assert text_by_block(merged) == text_by_block(events)
    assert len(merged) <= len(events)
