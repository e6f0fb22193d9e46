"""A sub-folder's instruction files, given to the model with the result of the call that
worked there (``actors/instructions/nested.py`` finds and reads them).

Here, between the calls' results and the conversation, so that every call counts whoever
answered it (the executor, an MCP server, a subagent) and each conversation, the main one and
each subagent's, is told once.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

import anyio.to_thread
import msgspec

from actors.instructions import NestedGuides, blocked_rule
from actors.instructions.nested import as_text
from actors.protocol import Notice

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from actors.conductor.display import Display
    from actors.protocol import ProjectContext, ToolCall, ToolResult


def nested_guides(context: ProjectContext) -> Callable[[], NestedGuides]:
    """A new conversation's ``NestedGuides``, under the same rules as the files at start."""
    home = context.home or os.path.expanduser("~")
    return functools.partial(
        NestedGuides,
        context.project_root,
        home,
        blocked=blocked_rule(
            context.settings, context.project_root, home, context.permission_rules
        ),
        approved=frozenset(context.approved_imports),
        loaded=[guide.path for guide in context.guides],
    )


async def with_guides(
    guides: NestedGuides, calls: Sequence[ToolCall], results: list[ToolResult], display: Display
) -> list[ToolResult]:
    """The results, each followed by the files of the folders its call first worked in. A call
    that failed or was denied did not work there."""
    out: list[ToolResult] = []
    for call, result in zip(calls, results, strict=True):
        folders = [] if result.is_error or result.denied else guides.folders([call.input])
        if not folders:
            out.append(result)
            continue
        warnings: list[str] = []
        files = await anyio.to_thread.run_sync(guides.load, folders, warnings)
        for warning in warnings:
            await display.show(Notice("warning", warning))
        if files:
            content = f"{result.content}\n\n{as_text(files)}" if result.content else as_text(files)
            result = msgspec.structs.replace(result, content=content)
        out.append(result)
    return out
