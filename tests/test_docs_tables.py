"""The table of actors and messages in docs/architecture.md is the one the protocol gives today."""

from __future__ import annotations

from actors.protocol import ToolExecutorMsg
from tests.docs_tables import DOC, REGENERATE, inboxes, render, table


def test_the_architecture_doc_holds_the_table_the_protocol_gives() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert render(text) == text, (
        f"the table of actors and messages in {DOC.name} is stale: run `{REGENERATE}`"
    )


def test_every_inbox_union_is_found_with_all_its_members() -> None:
    found = dict(inboxes())
    assert found["tool executor"] == ToolExecutorMsg.__args__
    assert {"conductor", "model client", "memory store", "ui", "hook runner"} <= found.keys()


def test_a_row_says_how_the_message_is_answered() -> None:
    rows = table().splitlines()
    stream = "stream of `ToolStarted \\| ToolOutput \\| ToolFinished`"
    assert any(row.startswith(f"| tool executor | `RunTools` | {stream} |") for row in rows)
    tell = "| tool executor | `InterruptTools` | nothing (tell) |"
    assert any(row.startswith(tell) for row in rows)
