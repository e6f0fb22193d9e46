"""The interactive terminal session: ``legato`` and ``legato <project_path>``.

app.py              the session: actors, screen, the banner, the prompt loop
command_dispatch.py what a typed line does: !cmd, #text, the slash commands, a skill's /name
prompt_turn.py      a prompt run as a turn (Esc stops it), and Plan Mode's end
session_switch.py   /resume: the session on the screen swapped for a saved one
questions.py        a yes or no, or one of a few typed choices, put to the person
watchers.py         the tasks beside the loop: the app, completions, signals, background lines
pastes.py           pasted images and files as [Image #N] tokens in the input
surface.py          the session as !cmd, #text and /export see it
screen.py           prompt_toolkit: input, keys, live part, status line, questions
view.py             rich: what a turn looks like (markdown, tools, diffs, prompts)
transcript_render.py  rich's markdown, code and diffs as the transcript draws them
running_call.py     a tool call while it runs: its clock and its output's tail
request_words.py    a permission request's header and target, in words
markdown_stream.py  cutting the streamed answer into finished blocks
renderer.py         the UI actor's renderer: events to the view, questions to the screen
status.py           model, modes, tokens and cost
status_command.py   the statusLine command: the user's script in place of the status line
slash_commands.py   /help, /clear, /quit, /model, /fast, /cost, /undo, /compact, /permissions
completion.py       /command and fuzzy @path completion
rewind.py           /rewind and Esc Esc: the prompts to pick, what to restore, the prompt back
picker.py           a list to pick one row from (Up, Down, Enter, a number; Esc cancels)
theme.py            dark and light colours
terminal.py         the tty restored on the way out, whatever happens
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from frontends.session_options import SessionOptions


def run_interactive(options: SessionOptions) -> int:
    """Runs a session until /quit, Ctrl-D or a double Ctrl-C; returns the exit code."""
    import sys

    if not (sys.stdin is not None and sys.stdin.isatty() and sys.stdout.isatty()):
        from actors.errors import UsageError
        from frontends.errors_out import report
        from frontends.startup.words import quoted

        prompt = '"<prompt>"' if options.initial_prompt is None else quoted(options.initial_prompt)
        return report(
            UsageError(
                "the interactive session needs a terminal (stdin and stdout are not one)",
                remedy=f"Run one prompt without a terminal with: legato -p {prompt}",
            )
        )
    import os

    from frontends.commands.trust_command import ask_at_start

    # Before the session's actors load the settings, so that a yes applies to this session.
    env = os.environ if options.env is None else options.env
    ask_at_start(options.project_root, env=env, home=options.home)
    import anyio

    from frontends.interactive.app import run_session
    from frontends.interactive.terminal import restored_terminal

    with restored_terminal():
        # prompt_toolkit runs on asyncio; the actors do not mind which loop they are on.
        return anyio.run(
            lambda: run_session(options),
            backend="asyncio",
        )
