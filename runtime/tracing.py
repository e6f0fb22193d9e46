"""The kernel's tracing hook: a session that wants to see its actors' work passes a ``Tracer``.

A tracer is any callable taking an event name and its fields. ``supervise(..., tracer=...)``
hands it to every actor it starts; the kernel reports each message an actor handles (by type
and time only: messages carry file contents and conversation text) and actors report their
own events through ``Actor.trace``. With no tracer (the default) nothing is built or called:
hot paths test ``Actor.tracer is None`` first. What a trace line may show, and what it must
hide, is the tracer's business, not the kernel's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Tracer = Callable[[str, Mapping[str, object]], None]
