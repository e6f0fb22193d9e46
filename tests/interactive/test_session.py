"""Whole sessions in-process: pipe input, a terminal output written to a string, the real
actors and the scripted server. Covers what the tmux tests do not: @path, /model, /fast,
/clear, did-you-mean, Plan Mode and the theme."""

from __future__ import annotations

import io
import json
import re
from typing import TYPE_CHECKING, Any

import anyio
import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from actors.conductor.prompt import PLAN_MODE_NOTE
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.interactive.app import InteractiveSession, history_file
from frontends.interactive.prompt_turn import PLAN_APPROVED
from frontends.session_options import SessionOptions

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping
    from pathlib import Path

    from prompt_toolkit.input import PipeInput

    from frontends.demo.scripted_api import Script

pytestmark = pytest.mark.anyio
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[>=]")
ENTER, SHIFT_TAB = "\r", "\x1b[Z"


class Live:
    def __init__(self, session: InteractiveSession, pipe: PipeInput, out: io.StringIO) -> None:
        self.session = session
        self.pipe = pipe
        self.out = out

    def text(self) -> str:
        return ANSI.sub("", self.out.getvalue())

    async def until(self, condition: Callable[[], bool]) -> None:
        with anyio.fail_after(10):
            while True:
                if condition():
                    return
                await anyio.sleep(0.005)

    async def mode(self, wanted: str) -> None:
        await self.until(lambda: self.session.status.mode == wanted)

    async def shown_times(self, wanted: str, times: int) -> None:
        await self.until(lambda: self.text().count(wanted) == times)

    async def shown(self, wanted: str) -> None:
        await self.until(lambda: wanted in self.text())

    async def shown_wrapped(self, wanted: str) -> None:
        """``wanted`` shown, wherever the terminal broke its lines (its spaces may be line
        ends, and line ends may have spaces around them)."""
        await self.until(lambda: " ".join(wanted.split()) in " ".join(self.text().split()))

    async def submit(self, line: str) -> None:
        await self.until(lambda: self.session.screen.app.is_running)
        self.pipe.send_text(line + ENTER)

    async def idle(self) -> None:
        await self.until(lambda: self.session.screen.busy is None)


def system_text(body: dict[str, Any]) -> str:
    system = body["system"]
    return system if isinstance(system, str) else "".join(b["text"] for b in system)


def bodies(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.requests]


async def run(
    folders: tuple[Path, Path],
    steps: Script,
    *,
    theme: str = "dark",
    env: Mapping[str, str] | None = None,  # besides the server's address, a key and PATH
    config: Mapping[str, Any] | None = None,  # more of the global config
) -> AsyncIterator[tuple[Live, ScriptedServer]]:
    root, home = folders
    (home / ".config" / "legato").mkdir(parents=True, exist_ok=True)
    settings = {"theme": theme, **(config or {})}
    (home / ".config" / "legato" / "config.json").write_text(json.dumps(settings))
    out = io.StringIO()
    output = Vt100_Output(
        out, lambda: Size(rows=40, columns=100), term="xterm-256color", enable_cpr=False
    )
    with ScriptedServer(steps) as server, create_pipe_input() as pipe:
        base = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "PATH": "/usr/bin:/bin"}
        options = SessionOptions(project_root=str(root), env=base | dict(env or {}), home=str(home))
        session = InteractiveSession(options, input=pipe, output=output)
        live = Live(session, pipe, out)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(session.run)
            yield live, server
            await live.submit("/quit")


async def test_at_path_attaches_the_file_named_and_asks_only_outside_the_project(
    folders: tuple[Path, Path],
) -> None:
    # Naming a file inside the project is the person's yes (no question); one outside it is
    # put to them like any read. Asking first for the inside file was the old behaviour.
    (folders[0] / "notes.txt").write_text("the secret is 42\n")
    outside = folders[1] / "diary.txt"
    outside.write_text("dear diary\n")
    async for live, server in run(folders, [text("It says 42."), text("Not shown.")]):
        await live.submit("what does @notes.txt say?")
        await live.shown("It says 42.")
        prompt = bodies(server)[0]["messages"][0]["content"][0]["text"]
        assert prompt.startswith("what does @notes.txt say?")
        assert "the secret is 42" in prompt
        await live.idle()
        await live.submit(f"and now @{outside}?")
        await live.shown("requested by Read")
        await live.submit("n")
        # Where the note wraps depends on the path's length, so on the temporary folder's.
        await live.shown_wrapped("was not attached: the user denied it")
        await live.shown("Not shown.")
        prompt = bodies(server)[1]["messages"][-1]["content"][0]["text"]
        assert prompt == f"and now @{outside}?"


async def test_model_fast_clear_and_a_typo(folders: tuple[Path, Path]) -> None:
    steps = [text("one"), text("two"), text("three")]
    async for live, server in run(folders, steps):
        await live.submit("/modle")
        await live.shown("Did you mean /model?")
        await live.submit("/model")
        await live.shown("Current model: sonnet (claude-sonnet-4-6)")
        await live.submit("/model gpt")
        await live.shown("unknown model 'gpt'")
        await live.submit("/fast")
        await live.shown("sonnet has no fast mode")
        await live.submit("/model opus")
        await live.shown("Model set to opus (claude-opus-4-6).")
        await live.submit("hello")
        await live.shown("one")
        await live.idle()
        await live.submit("again")
        await live.shown("two")
        await live.idle()
        await live.submit("/clear")
        await live.shown("Conversation cleared")
        await live.submit("fresh")
        await live.shown("three")
        first, second, third = bodies(server)
        assert first["model"] == "claude-opus-4-6" and first["speed"] == "fast"
        assert len(second["messages"]) == 3
        assert len(third["messages"]) == 1
        await live.submit("/cost")
        await live.shown("Total cost:")


async def test_plan_mode_plans_then_the_confirmed_plan_is_executed(
    folders: tuple[Path, Path],
) -> None:
    target = folders[0] / "a.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"})]),
        text("1. Write a.txt"),
        text("Done."),
    ]
    async for live, server in run(folders, steps):
        live.pipe.send_text(SHIFT_TAB + SHIFT_TAB)
        await live.mode("plan")
        await live.submit("make a.txt")
        await live.shown("Execute this plan?")
        assert not target.exists()  # the write was refused
        await live.submit("y")
        await live.shown("Done.")
        planning, after_refusal, executing = bodies(server)
        assert PLAN_MODE_NOTE in system_text(planning)
        refusal = after_refusal["messages"][-1]["content"][0]
        assert refusal["is_error"] and "plan mode" in refusal["content"]
        assert PLAN_MODE_NOTE not in system_text(executing)
        assert executing["messages"][-1]["content"][0]["text"] == PLAN_APPROVED
        assert live.session.status.mode == "ask"


async def test_the_light_theme_changes_the_colours(folders: tuple[Path, Path]) -> None:
    async for live, _ in run(folders, [], theme="light"):
        await live.shown("/help for commands")
        assert "\x1b[1;34m✻ Legato" in live.out.getvalue()  # blue accent (dark: cyan)


async def test_parallel_calls_are_asked_one_at_a_time(folders: tuple[Path, Path]) -> None:
    steps = [
        tool_calls(
            [call("Bash", {"command": "echo alpha"}), call("Bash", {"command": "printf beta"})]
        ),
        text("Both ran."),
    ]
    async for live, server in run(folders, steps):
        await live.submit("run both")
        await live.shown_times("requested by Bash", 1)
        assert live.session.screen._question is not None
        await live.submit("y")
        await live.shown_times("requested by Bash", 2)
        # The approved call ran and is shown while the second question is still open.
        await live.shown("✓ Bash(echo alpha)")
        assert live.session.screen._question is not None
        await live.submit("y")
        await live.shown("Both ran.")
        results = bodies(server)[1]["messages"][-1]["content"]
        assert [r["content"].strip() for r in results] == ["alpha", "beta"]


async def test_skills_run_in_session_and_help_lists_them(folders: tuple[Path, Path]) -> None:
    async for live, server in run(folders, [text("Reviewed.")]):
        await live.submit("/help")
        await live.shown("Patterns (run one: /<name> <required> [optional]):")
        await live.shown("/review")
        await live.submit("/reviwe")
        await live.shown("Did you mean /review?")
        await live.submit("/review")
        await live.shown("Reviewed.")
        prompt = bodies(server)[0]["messages"][0]["content"][0]["text"]
        assert prompt.startswith("Run the skill /review")


async def test_history_is_kept_per_project_across_sessions(folders: tuple[Path, Path]) -> None:
    root, home = folders
    async for live, _ in run(folders, []):
        await live.submit("/cost")
        await live.shown("Total cost:")
    path = history_file(str(home), str(root))
    assert path.startswith(str(home / ".local" / "state" / "legato" / "history"))
    assert history_file(str(home), str(root / "other")) != path
    history = FileHistory(path)
    assert list(history.load_history_strings()) == ["/quit", "/cost"]  # newest first


async def test_ctrl_v_pastes_the_clipboards_image_and_deleting_its_token_drops_it(
    folders: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from frontends.interactive import clipboard
    from tests.interactive.test_clipboard import fake_xclip, png_file

    tools = folders[1] / "tools"
    tools.mkdir()
    fake_xclip(tools, f'exec /bin/cat "{png_file(tools)}"')
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    clipboard.reader.cache_clear()
    async for live, server in run(folders, [text("A red box."), text("Nothing attached.")]):
        screen = live.session.screen
        await live.until(lambda: screen.app.is_running)  # noqa: B023 (awaited at once)
        live.pipe.send_text("what is this? \x16")
        await live.until(lambda: "[Image #1]" in screen.buffer.text)  # noqa: B023
        live.pipe.send_text(ENTER)
        await live.shown("A red box.")
        first = bodies(server)[0]["messages"][0]["content"]
        assert [b["type"] for b in first] == ["text", "image"]
        assert first[0]["text"] == "what is this? [Image #1]"
        await live.idle()
        live.pipe.send_text("and now \x1bv")  # Alt+V
        await live.until(lambda: "[Image #2]" in screen.buffer.text)  # noqa: B023
        live.pipe.send_text("\x7f" * len("[Image #2]") + ENTER)  # the token deleted
        await live.shown("Nothing attached.")
        last = bodies(server)[1]["messages"][-1]["content"]
        assert [b["type"] for b in last] == ["text"]
    clipboard.reader.cache_clear()


async def test_a_pasted_path_of_an_image_becomes_its_token_and_is_attached_as_at_path(
    folders: tuple[Path, Path],
) -> None:
    from tests.interactive.test_clipboard import png_file

    shots = folders[0] / "my shots"
    shots.mkdir()
    shot = png_file(shots)
    paper = shots / "a paper.pdf"
    paper.write_bytes(b"%PDF-1.4\n%%EOF\n")

    def paste(text: str) -> str:
        return f"\x1b[200~{text}\x1b[201~"

    async for live, server in run(folders, [text("Seen."), text("Plain.")]):
        screen = live.session.screen
        await live.until(lambda: screen.app.is_running)  # noqa: B023 (awaited at once)
        live.pipe.send_text("look at " + paste(f"'{shot}'") + " and ")
        live.pipe.send_text(paste(str(paper).replace(" ", "\\ ")))
        await live.until(lambda: screen.buffer.text == "look at [Image #1] and [PDF #1]")  # noqa: B023
        live.pipe.send_text(ENTER)
        await live.shown("Seen.")
        await live.idle()
        # Both files went to the executor as @path references do (and were judged there).
        content = bodies(server)[0]["messages"][0]["content"]
        assert content[0]["text"].startswith("look at [Image #1] and [PDF #1]")
        # Attached as an image block once @path takes images; refused as binary before.
        shown = " ".join(live.text().split())
        assert "image" in [b["type"] for b in content] or "a binary file" in shown, shown
        assert live.session.pasted_files == {"[Image #1]": str(shot), "[PDF #1]": str(paper)}
        live.pipe.send_text(paste("not/a/file.png") + ENTER)  # not a file: the text itself
        await live.shown("Plain.")
        assert bodies(server)[1]["messages"][-1]["content"][0]["text"] == "not/a/file.png"
