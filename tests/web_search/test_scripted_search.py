"""The scripted server plays the API's web search and refuses, as the API does, a request that
sends its search blocks back changed or asks for both domain lists."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from frontends.demo.scripted_api import web_search as searched

RESULTS = [("Title", "https://example.com/a", "1 day ago")]


def body(assistant: list[dict[str, Any]], tool: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "model": "m",
        "max_tokens": 10,
        "stream": True,
        "messages": [
            {"role": "user", "content": "search"},
            {"role": "assistant", "content": assistant},
        ],
        "tools": [tool or {"type": "web_search_20250305", "name": "web_search", "max_uses": 2}],
    }


def post(url: str, payload: dict[str, Any]) -> httpx.Response:
    headers = {"anthropic-version": "2023-06-01", "x-api-key": "k"}
    return httpx.post(f"{url}/v1/messages", json=payload, headers=headers)


def blocks() -> list[dict[str, Any]]:
    return copy.deepcopy([dict(b) for b in searched("q", RESULTS, answer="A.").blocks])


def test_blocks_sent_back_unchanged_are_accepted() -> None:
    with ScriptedServer([text("Ok.")]) as server:
        assert post(server.url, body(blocks())).status_code == 200


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda b: b[1]["content"][0].update(title="Other"),
            "content.1.content.0.encrypted_content",
        ),
        (lambda b: b[1]["content"][0].pop("page_age"), "content.1.content.0.encrypted_content"),
        (lambda b: b[2]["citations"][0].update(url="https://evil.test"), "encrypted_index"),
        (lambda b: b.pop(0), "does not contain a matching server_tool_use"),
    ],
)
def test_changed_search_blocks_get_a_400(change: Any, field: str) -> None:
    sent = blocks()
    change(sent)
    with ScriptedServer([text("Ok.")]) as server:
        answer = post(server.url, body(sent))
    assert answer.status_code == 400
    assert field in answer.json()["error"]["message"]


def test_both_domain_lists_get_a_400() -> None:
    tool = {
        "type": "web_search_20250305",
        "name": "web_search",
        "allowed_domains": ["a.com"],
        "blocked_domains": ["b.com"],
    }
    with ScriptedServer([text("Ok.")]) as server:
        answer = post(server.url, body(blocks(), tool))
    assert answer.status_code == 400
    assert "cannot both be specified" in answer.json()["error"]["message"]
