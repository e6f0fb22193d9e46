"""WebFetch: a web page read for the model, and the answer to its prompt over the page.

The fetch itself (the address guard, redirects, caps and the cache) is ``web/``; the page is
given to the session's fast model with the prompt when there is one, else its text, within a
budget. The permission is asked before each connection, per host (``ctx.check("fetch")``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import ToolFailure
from actors.tool_executor.context import Tool, ToolOutcome
from actors.tool_executor.schemas import WebFetchInput
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import Usage
    from actors.tool_executor.context import CallContext


async def run(args: WebFetchInput, ctx: CallContext) -> ToolOutcome:
    from actors.tool_executor.web.answer import BUDGET, headline, result, within_budget

    if ctx.web is None:
        raise ToolFailure("WebFetch is not available in this session.")

    async def check(url: str, host: str, local_address: str | None) -> None:
        await ctx.check("fetch", url=url, host=host, local_address=local_address)

    page = await ctx.web.get(args.url, check)
    # Shown under the call: "200 OK · 12.3 KB · 0.4 s", "· from the cache" when it was.
    await ctx.emit(headline(page) + "\n")
    notes: list[str] = []
    spent: tuple[tuple[str, Usage], ...] = ()
    if ctx.web.summarise is not None:
        text, note = within_budget(page.text, BUDGET)
        answer = await ctx.web.summarise(page.url, text, args.prompt)
        spent = answer.spent
        if answer.text is not None:
            return ToolOutcome(result(page, answer.text, [note] if note else []), spent=spent)
        if answer.failure is not None:
            notes.append(
                f"(The fast model could not answer: {answer.failure}. The page's text follows.)"
            )
    text, note = within_budget(page.text)
    if note:
        notes.append(note)
    return ToolOutcome(result(page, text, notes), spent=spent)


TOOL = Tool(
    name="WebFetch",
    description=(
        "Fetch an http(s) URL and answer prompt from the page (HTML, text, JSON, PDF). "
        "Cached 15 min."
    ),
    input_type=WebFetchInput,
    run=run,
    summary=lambda args, root: escape_controls(args.url, newlines=True),
    access=lambda args, root: None,
    read_only=True,
)
