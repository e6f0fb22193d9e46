"""Message bases that tell the kernel how a message is answered.

A plain ``msgspec.Struct`` is fire-and-forget (``Address.tell``). ``Ask[R]`` wants exactly one
reply of type ``R`` (``Address.ask``); ``Streamed[R]`` is answered by any number of ``R`` items
(``Address.stream``). The type parameter is what makes the caller's side typed.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

R = TypeVar("R")


class Ask(msgspec.Struct, Generic[R], frozen=True, kw_only=True):
    """A request answered by exactly one ``R``."""


class Streamed(msgspec.Struct, Generic[R], frozen=True, kw_only=True):
    """A request answered by a stream of ``R`` items, ended by the handler returning."""
