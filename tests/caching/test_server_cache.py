"""The scripted server's prompt cache: marked prefixes are written, then read back."""

from __future__ import annotations

from typing import Any

from frontends.demo.scripted_api.cache import PromptCache
from frontends.demo.scripted_api.sse import count_input_tokens

MARK = {"type": "ephemeral"}
SYSTEM = [{"type": "text", "text": "You are a careful assistant. " * 200, "cache_control": MARK}]


def body(*texts: str, marked: bool = True) -> dict[str, Any]:
    messages = []
    for number, text in enumerate(texts):
        block: dict[str, Any] = {"type": "text", "text": text}
        if marked and number == len(texts) - 1:
            block["cache_control"] = MARK
        messages.append({"role": "user" if number % 2 == 0 else "assistant", "content": [block]})
    system = SYSTEM if marked else [{"type": "text", "text": SYSTEM[0]["text"]}]
    return {"model": "m", "max_tokens": 10, "system": system, "messages": messages}


def test_the_second_request_reads_what_the_first_wrote() -> None:
    cache = PromptCache()
    first = body("hello")
    uncached, created, read = cache.account(first)
    assert read == 0 and created > 1024
    assert uncached + created == count_input_tokens(first)
    second = body("hello", "hi there", "and now?")
    uncached, created, read = cache.account(second)
    assert read > 1024  # system and the first message, from the cache
    assert created > 0  # the new turn, written for the next request
    assert uncached + created + read == count_input_tokens(second)


def test_without_marks_everything_is_uncached_input() -> None:
    cache = PromptCache()
    cache.account(body("hello", marked=False))
    again = body("hello", marked=False)
    assert cache.account(again) == (count_input_tokens(again), 0, 0)


def test_a_prefix_below_the_minimum_is_not_cached() -> None:
    cache = PromptCache()
    small = {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": MARK}]}
        ],
    }
    assert cache.account(small)[1:] == (0, 0)
    assert cache.account(small)[1:] == (0, 0)
