"""The actor kernel: typed inboxes, request/reply and streamed replies, and a supervisor.

It knows nothing about coding assistants; ``actors/`` builds Legato on top of it.
"""

from __future__ import annotations

from runtime.actor import Actor
from runtime.collector import release_collector
from runtime.errors import ActorCrashed, ActorGone, KernelError
from runtime.mailbox import Address, Reply
from runtime.messages import Ask, Streamed
from runtime.supervisor import Supervision, first_error, supervise
from runtime.tracing import Tracer

__all__ = [
    "Actor",
    "ActorCrashed",
    "ActorGone",
    "Address",
    "Ask",
    "KernelError",
    "Reply",
    "Streamed",
    "Supervision",
    "Tracer",
    "first_error",
    "release_collector",
    "supervise",
]
