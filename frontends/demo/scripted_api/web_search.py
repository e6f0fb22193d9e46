"""The Messages API's server-side web search, as the scripted server plays it.

``web_search(...)`` makes a step that streams what the API sends when the model searches: a
``server_tool_use`` block (the query), its ``web_search_tool_result`` (the results, or an error
code) and, unless the step pauses, a text answer citing them. Each result carries
``encrypted_content`` and each citation ``encrypted_index``, derived from the block they are
in (``seal``), so that ``check_search_blocks`` can refuse, with a 400 as the API does, a request
that sends these blocks back changed: a client must keep them exactly as they came.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from frontends.demo.scripted_api.steps import Step, _build

RESULT_TYPE = "web_search_tool_result"
ERROR_CODES = frozenset(
    {"max_uses_exceeded", "too_many_requests", "invalid_input", "query_too_long", "unavailable"}
)


class Invalid(Exception):
    """What the API would answer with a 400 (the validator turns it into its own)."""


def seal(tool_use_id: str, fields: Mapping[str, Any]) -> str:
    """A stand-in for the API's encrypted content: a digest of the result it belongs to."""
    plain = {k: v for k, v in fields.items() if k not in ("encrypted_content", "encrypted_index")}
    data = msgspec.json.encode([tool_use_id, sorted(plain.items())])
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def web_search(
    query: str,
    results: Sequence[tuple[str, str, str | None]] = (),
    *,
    answer: str | None = None,
    error_code: str | None = None,
    stop_reason: str | None = None,
    id: str | None = None,
    usage: Mapping[str, int] | None = None,
) -> Step:
    """One search as the API streams it: ``results`` are (title, url, page age); ``answer``
    cites every result; ``error_code`` instead of results; ``stop_reason`` "pause_turn" for a
    search loop the API paused (then no answer is sent unless given)."""
    tool_id = id or "srvtoolu_" + hashlib.sha256(query.encode()).hexdigest()[:24]
    content: list[dict[str, Any]] | dict[str, Any]
    if error_code is not None:
        content = {"type": "web_search_tool_result_error", "error_code": error_code}
    else:
        content = []
        for title, url, age in results:
            item: dict[str, Any] = {"type": "web_search_result", "title": title, "url": url}
            if age is not None:
                item["page_age"] = age
            item["encrypted_content"] = seal(tool_id, item)
            content.append(item)
    blocks: list[dict[str, Any]] = [
        {"type": "server_tool_use", "id": tool_id, "name": "web_search", "input": {"query": query}},
        {"type": RESULT_TYPE, "tool_use_id": tool_id, "content": content},
    ]
    if answer is not None:
        citations = []
        for title, url, _ in results:
            citation = {"type": "web_search_result_location", "url": url, "title": title}
            citation["cited_text"] = title
            citation["encrypted_index"] = seal(tool_id, citation)
            citations.append(citation)
        blocks.append({"type": "text", "text": answer, "citations": citations})
    reason = stop_reason or "end_turn"
    return _build(blocks=tuple(blocks), stop_reason=reason, usage=usage)


def check_search_tool(tool: Mapping[str, Any], path: str) -> None:
    """The web search tool's own fields, as the API checks them."""
    if "allowed_domains" in tool and "blocked_domains" in tool:
        raise Invalid(f"{path}: allowed_domains and blocked_domains cannot both be specified")
    uses = tool.get("max_uses")
    if uses is not None and (not isinstance(uses, int) or uses < 1):
        raise Invalid(f"{path}.max_uses: Input should be greater than or equal to 1")


def check_search_blocks(content: Sequence[Any], path: str) -> None:
    """An assistant message's search blocks are as the server sent them: each result with its
    ``server_tool_use`` before it in the message, its sealed fields unchanged."""
    uses: set[str] = set()
    searched: set[str] = set()  # the searches whose results are in the message so far
    for number, block in enumerate(content):
        if not isinstance(block, Mapping):
            continue
        where = f"{path}.content.{number}"
        if block.get("type") == "server_tool_use":
            uses.add(str(block.get("id")))
        elif block.get("type") == RESULT_TYPE:
            tool_id = str(block.get("tool_use_id"))
            if tool_id not in uses:
                raise Invalid(
                    f"{where}: web_search_tool_result block(s) provided when previous message "
                    "does not contain a matching server_tool_use"
                )
            _check_results(block.get("content"), tool_id, where)
            searched.add(tool_id)
        elif block.get("type") == "text" and block.get("citations"):
            _check_citations(block["citations"], searched, where)


def _check_results(results: Any, tool_id: str, where: str) -> None:
    if isinstance(results, Mapping):
        if results.get("error_code") not in ERROR_CODES:
            raise Invalid(f"{where}.content.error_code: not a web search error code")
        return
    if not isinstance(results, list):
        raise Invalid(f"{where}.content: Input should be a valid list")
    for number, item in enumerate(results):
        if not isinstance(item, Mapping) or item.get("encrypted_content") != seal(tool_id, item):
            raise Invalid(
                f"{where}.content.{number}.encrypted_content: the search result was changed; "
                "send web search results back exactly as they were received"
            )


def _check_citations(citations: Any, searched: set[str], where: str) -> None:
    for number, citation in enumerate(citations if isinstance(citations, list) else ()):
        if not isinstance(citation, Mapping):
            continue
        if citation.get("type") != "web_search_result_location":
            continue
        index = citation.get("encrypted_index")
        if not any(index == seal(tool_id, citation) for tool_id in searched):
            raise Invalid(
                f"{where}.citations.{number}.encrypted_index: the citation was changed; send it "
                "back exactly as it was received"
            )
