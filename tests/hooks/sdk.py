"""A stand-in for the frontend's ``invoke``: the Agent SDK's answers to hook callbacks, scripted
per callback id, and every call it got."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from actors.protocol import HookCommand, HookGroup

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from actors.protocol import HookEvent

# What a callback does: answers this (whatever it is: hostile answers are tested), raises it,
# or awaits it (a coroutine function: sleeps, waits for cancellation...).
Behaviour = object


@dataclass
class FakeSdk:
    answers: dict[str, Behaviour] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, Any], str | None]] = field(default_factory=list)
    cancelled_at: float | None = None  # when a pending callback was cancelled (virtual time)

    async def __call__(
        self, callback: str, payload: dict[str, Any], tool_use_id: str | None
    ) -> dict[str, Any]:
        self.calls.append((callback, payload, tool_use_id))
        behaviour = self.answers.get(callback, {})
        if isinstance(behaviour, BaseException):
            raise behaviour
        if callable(behaviour):
            waits: Callable[[], Awaitable[Any]] = behaviour
            try:
                answer: Any = await waits()
            except anyio.get_cancelled_exc_class():
                self.cancelled_at = anyio.current_time()
                raise
            return answer  # type: ignore[no-any-return]
        return behaviour  # type: ignore[return-value]  # hostile answers on purpose


def callbacks(
    event: HookEvent,
    *ids: str,
    matcher: str = "",
    timeout: float = 30.0,
    block_on_failure: bool = False,
) -> HookGroup:
    """A group of SDK callbacks, as ``read_sdk_hooks`` makes them."""
    hooks = tuple(
        HookCommand(
            command=f"Agent SDK callback {callback}",
            timeout=timeout,
            callback=callback,
            block_on_failure=block_on_failure,
        )
        for callback in ids
    )
    return HookGroup(
        event=event, matcher=matcher, hooks=hooks, source="the Agent SDK's hooks option"
    )
