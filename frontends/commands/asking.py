"""The commands that are not a session (``legato config``, ``doctor``, ``permissions``) ask
the actors that own what they report: started under the supervisor, asked, stopped.

They run on asyncio. The actors are backend-neutral (their tests run on both), and these
commands ask a few questions and leave: importing trio would be a third of their start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from actors.errors import LegatoError
from runtime import ActorCrashed, supervise

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from runtime import Actor

T = TypeVar("T")


def ask_actors(actors: Sequence[Actor[Any]], questions: Callable[[], Awaitable[T]]) -> T:
    """Start ``actors`` in order, await ``questions()``, stop them; returns its answer.

    An actor that cannot start for a reason the user can fix (an invalid settings file, a
    project path that is no folder) raises that ``LegatoError`` itself, as an answer would.
    """

    async def asked() -> T:
        async with supervise(actors):
            return await questions()

    try:
        return anyio.run(asked, backend="asyncio")
    except ActorCrashed as crash:
        if isinstance(crash.cause, LegatoError):
            raise crash.cause from None
        raise
