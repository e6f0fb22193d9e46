"""Headless output: ``text``, ``json`` and ``stream-json`` (documented in docs/headless.md),
and which renderer writes each.

text         the assistant's words stream to stdout as they arrive; tool activity, retries and
             errors go to stderr, so ``legato --headless ... > answer.txt`` keeps only the answer
             (frontends/headless/render_text.py).
json         nothing until the end, then one result object shaped like Claude Code's
             (frontends/headless/render_json.py).
stream-json  one JSON object per line: ``system`` (init), ``stream_event`` (each delta, in the
             Messages API's own event shape), ``assistant`` (each finished message), ``user``
             (each tool result), ``system`` (retries, notices), then the ``result`` object.
             A subagent's lines carry ``parent_tool_use_id``: the id of its Agent call
             (frontends/headless/render_stream_json.py).
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

from frontends.headless.render_json import JsonRenderer
from frontends.headless.render_stream_json import StreamJsonRenderer
from frontends.headless.render_text import TextRenderer

if TYPE_CHECKING:
    from frontends.headless.render import HeadlessRenderer


def renderer_for(
    output_format: str,
    stdout: IO[str],
    stderr: IO[str],
    session_id: str,
    *,
    partial: bool = False,
    root: str = "",
) -> HeadlessRenderer:
    if output_format == "json":
        return JsonRenderer(stdout, stderr)
    if output_format == "stream-json":
        return StreamJsonRenderer(stdout, stderr, session_id, partial=partial)
    return TextRenderer(stdout, stderr, root=root)
