"""The control channel of ``--input-format stream-json``: requests Legato makes of the program
driving it (``can_use_tool``, ``hook_callback``) and the answers that come back on stdin.

Each request carries an id of its own; the answer names it. A request whose waiter is cancelled
(an interrupt, a signal) is withdrawn with ``control_cancel_request``. Once stdin has ended no
answer can come: every request still waiting, and every later one, fails at once with
``ControlClosed``, which the caller turns into a denial, never a hang.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from actors.errors import LegatoError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable


class ControlError(LegatoError):
    """The program answered a control request with an error, or never can."""


class ControlClosed(ControlError):
    """Stdin ended: nothing can answer a control request any more."""


class _Waiting:
    __slots__ = ("answer", "done", "error")

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.answer: dict[str, Any] = {}
        self.error: str | None = None


class ControlChannel:
    def __init__(self, write: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        self._write = write
        self._waiting: dict[str, _Waiting] = {}
        self._count = 0
        self._closed_because: str | None = None

    async def request(self, body: dict[str, Any]) -> dict[str, Any]:
        """Sends ``body`` (its ``subtype`` says what it asks) and waits for the answer's
        ``response`` object; raises ControlError with the program's error."""
        if self._closed_because is not None:
            raise ControlClosed(self._closed_because)
        self._count += 1
        request_id = f"legato_{self._count}"
        waiting = self._waiting[request_id] = _Waiting()
        try:
            await self._write(
                {"type": "control_request", "request_id": request_id, "request": body}
            )
            await waiting.done.wait()
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                await self._write({"type": "control_cancel_request", "request_id": request_id})
            raise
        finally:
            del self._waiting[request_id]
        if waiting.error is not None:
            raise ControlError(waiting.error)
        return waiting.answer

    def answered(self, response: Any) -> bool:
        """Hands a ``control_response``'s ``response`` object to the request it answers; False
        when it answers none that is waiting (unknown id, or not an object)."""
        if not isinstance(response, dict):
            return False
        waiting = self._waiting.get(str(response.get("request_id")))
        if waiting is None:
            return False
        if response.get("subtype") == "error":
            waiting.error = str(response.get("error") or "the program gave no reason")
        else:
            answer = response.get("response")
            waiting.answer = answer if isinstance(answer, dict) else {}
        waiting.done.set()
        return True

    def close(self, because: str) -> None:
        """No answer can come any more: every waiting request fails with ``because``."""
        self._closed_because = because
        for waiting in self._waiting.values():
            if not waiting.done.is_set():
                waiting.error = because
                waiting.done.set()
