"""Errors raised by the actor kernel.

    KernelError
     ├── ActorGone       the actor's inbox is closed, or it stopped before replying
     └── ActorCrashed    an actor's own task raised; the supervisor ends the session with it

The kernel knows nothing of the application, so these carry no user remedy; the frontends
translate them (an ``ActorCrashed`` whose cause is the application's own error shows that
error's message and remedy).
"""

from __future__ import annotations


class KernelError(Exception):
    """Root of the kernel's errors."""


class ActorGone(KernelError):
    """A message was sent to an actor that can no longer answer it."""

    def __init__(self, actor: str) -> None:
        super().__init__(f"actor {actor!r} is not running")
        self.actor = actor


class ActorCrashed(KernelError):
    """An actor's task failed; ``__cause__`` holds what it raised."""

    def __init__(self, actor: str, cause: BaseException) -> None:
        super().__init__(f"actor {actor!r} crashed: {type(cause).__name__}: {cause}")
        self.actor = actor
        self.cause = cause
