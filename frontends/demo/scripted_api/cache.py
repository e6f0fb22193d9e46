"""The API's prompt cache, as the scripted server plays it, so cache usage can be measured.

Like the real API: a block marked with ``cache_control`` ends a cacheable prefix (rendered in
the order tools, system, messages); a request reads the longest prefix, ending at a marked
block or up to ``LOOKBACK`` blocks before one, that an earlier request wrote, and writes the
prefixes up to its own marks. Prefixes shorter than ``MIN_TOKENS`` are not cached. The usage
then splits the input into ``cache_read_input_tokens``, ``cache_creation_input_tokens`` and
the uncached rest, ``input_tokens``. A request without marks is all uncached input.
"""

from __future__ import annotations

import hashlib
import threading
from typing import TYPE_CHECKING, Any

import msgspec

from frontends.demo.scripted_api.sse import count_input_tokens, estimate_tokens

if TYPE_CHECKING:
    from collections.abc import Mapping

MIN_TOKENS = 1024  # the smallest cacheable prompt of Sonnet and Opus
LOOKBACK = 20  # block boundaries the API checks before each breakpoint


class PromptCache:
    def __init__(self) -> None:
        self._written: set[bytes] = set()
        self._lock = threading.Lock()  # requests are served on several threads

    def account(self, body: Mapping[str, Any]) -> tuple[int, int, int]:
        """``(input_tokens, cache_creation_input_tokens, cache_read_input_tokens)``."""
        total = count_input_tokens(body)
        hashes: list[bytes] = []
        tokens: list[int] = []
        marks: list[int] = []
        running = hashlib.sha256()
        counted = 0
        for block, marked in _blocks(body):
            running.update(msgspec.json.encode(block))
            counted += estimate_tokens(msgspec.json.encode(block).decode())
            hashes.append(running.copy().digest())
            tokens.append(counted)
            if marked:
                marks.append(len(hashes) - 1)
        if not marks:
            return total, 0, 0
        with self._lock:
            read = 0
            for mark in marks:
                for index in range(mark, max(-1, mark - LOOKBACK - 1), -1):
                    if hashes[index] in self._written:
                        read = max(read, tokens[index])
                        break
            for mark in marks:
                if tokens[mark] >= MIN_TOKENS:
                    self._written.add(hashes[mark])
        last = tokens[marks[-1]]
        created = last - read if last >= MIN_TOKENS else 0
        read, created = min(read, total), min(created, total - min(read, total))
        return total - read - created, created, read


def _blocks(body: Mapping[str, Any]) -> list[tuple[Any, bool]]:
    """Every block of the prompt, in cache order, without its mark; and whether it had one."""
    found: list[tuple[Any, bool]] = []

    def add(block: Any, prefix: str = "") -> None:
        if isinstance(block, dict):
            plain = {k: v for k, v in block.items() if k != "cache_control"}
            found.append(([prefix, plain], "cache_control" in block))
        else:
            found.append(([prefix, block], False))

    for tool in body.get("tools") or []:
        add(tool, "tool")
    system = body.get("system")
    if isinstance(system, str):
        add({"type": "text", "text": system}, "system")
    elif isinstance(system, list):
        for block in system:
            add(block, "system")
    for message in body.get("messages") or []:
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        for number, block in enumerate(blocks or []):
            add(block, message.get("role", "") if number == 0 else "")
    return found
