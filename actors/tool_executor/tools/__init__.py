"""The tools, one module each, by the names the model calls them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.tool_executor.tools import (
    bash,
    edit,
    glob,
    grep,
    notebook_edit,
    read,
    task_output,
    task_stop,
    web_fetch,
    write,
)

if TYPE_CHECKING:
    from actors.tool_executor.context import Tool

TOOLS: dict[str, Tool[Any]] = {
    tool.name: tool
    for tool in (
        read.TOOL,
        write.TOOL,
        edit.TOOL,
        notebook_edit.TOOL,
        bash.TOOL,
        glob.TOOL,
        grep.TOOL,
        task_output.TOOL,
        task_stop.TOOL,
        web_fetch.TOOL,
    )
}
