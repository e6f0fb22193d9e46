"""A handler's reply is typed by its request: mypy refuses an answer of the wrong type.

The caller's side (``ask(msg: Ask[R]) -> R``) was always typed; this checks the handler's side,
by running mypy itself on a handler that answers wrongly and one that answers rightly.
"""

from __future__ import annotations

import sys
import textwrap
from typing import TYPE_CHECKING

from mypy import api

if TYPE_CHECKING:
    from pathlib import Path

HANDLER = """
from __future__ import annotations

from runtime import Actor, Ask, Reply, Streamed


class Add(Ask[int], frozen=True, tag=True):
    a: int


class Count(Streamed[int], frozen=True, tag=True):
    upto: int


class Calc(Actor[Add | Count]):
    async def handle(self, msg: Add | Count, reply: Reply) -> None:
        match msg:
            case Add():
                await reply.answer(msg, {add})
            case Count():
                await reply.sender(msg)({item})
"""


def check(tmp_path: Path, add: str, item: str) -> tuple[str, int]:
    module = tmp_path / "handler.py"
    module.write_text(textwrap.dedent(HANDLER.format(add=add, item=item)))
    limit = sys.getrecursionlimit()
    try:
        out, _, status = api.run(["--strict", "--no-incremental", str(module)])
    finally:
        sys.setrecursionlimit(limit)  # mypy raises it for its own run, and leaves it raised
    return out, status


def test_mypy_refuses_a_reply_of_the_wrong_type(tmp_path: Path) -> None:
    out, status = check(tmp_path, add='"three"', item='"four"')
    assert status == 1
    assert "handler.py:19: error" in out  # the answer to Add
    assert 'handler.py:21: error: Argument 1 has incompatible type "str"; expected "int"' in out


def test_mypy_accepts_replies_of_the_promised_type(tmp_path: Path) -> None:
    out, status = check(tmp_path, add="msg.a + 1", item="msg.upto")
    assert status == 0, out
