"""A command's ``!`cmd``` lines, run before its prompt goes, each output put in its place.

The reference runs them itself and sends the model the text with their output. Here each is a
Bash call sent to the session's tool executor, like a call of the model's: the permission
broker decides it (a question in the terminal; in a headless run, refused unless a rule allows
it), it runs sandboxed as any command does, and the person sees it run. A command that does not
run leaves a line saying why, so the model knows what it lacks. One at a time, in the file's
order: a later line may rely on an earlier one's effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import SHELL_MARK, RunTools, Show, ToolCall, ToolFinished

if TYPE_CHECKING:
    from actors.protocol import SkillPrompt, ToolExecutorMsg, UiMsg
    from runtime import Address


async def run_shell_lines(
    command: SkillPrompt, text: str, tools: Address[ToolExecutorMsg], ui: Address[UiMsg]
) -> str:
    """``text`` (the command's prompt, its ``@path`` names already attached) with each mark
    replaced by the output of its line, or by why it did not run."""
    for number, line in enumerate(command.shell, 1):
        call = ToolCall(id=f"{command.name}_line_{number}", name="Bash", input={"command": line})
        finished: ToolFinished | None = None
        async with tools.stream(RunTools(calls=(call,))) as events:
            async for event in events:
                if isinstance(event, ToolFinished):
                    finished = event
                else:  # an executor without the UI's address sends its progress here
                    await ui.tell(Show(event))
        if finished is None:  # the executor always answers each call; never met
            output = f"(`{line}` did not run)"
        else:
            await ui.tell(Show(finished))
            result = finished.result
            output = (
                f"(`{line}` did not run: {result.content})" if result.is_error else result.content
            )
        text = text.replace(f"{SHELL_MARK}{number}{SHELL_MARK}", output.rstrip("\n"), 1)
    return text
