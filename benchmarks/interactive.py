"""Benchmarks of the interactive terminal, printed as a table for docs/performance.md.

    .venv/bin/python -m benchmarks.interactive

render throughput   TurnView fed a long markdown answer token by token, with the screen's work
                    per frame (finished text taken, live part rendered) at 20 frames a second
                    of stream time: how many tokens a second the rendering can take.
per-token cost      a 2,000-line answer: time per token over its first and its last 10%.
keystroke echo      a real legato in tmux against the scripted server: a key is sent while an
                    answer streams at ~5,000 tokens/s, then while two commands print output;
                    the time until the key shows in tmux's screen (capture-pane polled).
"""

from __future__ import annotations

import io
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from rich.console import Console

from actors.protocol import BlockFinished, TextDelta
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.interactive.screen import FRAME_RATE
from frontends.interactive.theme import DARK
from frontends.interactive.view import TurnView

REPO = Path(__file__).resolve().parent.parent
FRAME_TOKENS = 5_000 // FRAME_RATE  # tokens between two frames at 5,000 tokens/s


def markdown_answer(lines: int) -> str:
    """A mixed answer: paragraphs, lists and code, ``lines`` lines long."""
    out: list[str] = []
    while len(out) < lines:
        n = len(out)
        out += [f"Paragraph {n} explains **why** the `change` matters, in a few plain words."]
        out += ["", f"- item {n} with some text", f"- another item {n}", ""]
        out += ["```python", f"def f{n}(x):", "    return x * 2  # double", "```", ""]
    return "\n".join(out[:lines]) + "\n"


def tokens(source: str) -> list[str]:
    """~4 characters a token, like the real thing, newlines kept."""
    return [source[i : i + 4] for i in range(0, len(source), 4)]


def feed(pieces: list[str]) -> list[float]:
    """Seconds spent on each frame's worth of tokens (events applied, frame drawn)."""
    console = Console(file=io.StringIO(), width=100, force_terminal=True, color_system="truecolor")
    console.push_theme(DARK.rich_theme())
    view = TurnView(console, DARK)
    frames: list[float] = []
    for start in range(0, len(pieces), FRAME_TOKENS):
        began = time.perf_counter()
        for piece in pieces[start : start + FRAME_TOKENS]:
            view.apply(TextDelta(0, piece))
        view.take_printed()
        view.live()
        frames.append(time.perf_counter() - began)
    view.apply(BlockFinished(0, {"type": "text", "text": ""}))
    view.take_printed()
    return frames


def bench_render() -> list[str]:
    rows = []
    answer = tokens(markdown_answer(2_000))
    frames = feed(answer)
    rate = len(answer) / sum(frames)
    rows.append(
        f"| render throughput, 2,000-line markdown answer | {rate:,.0f} tokens/s | >= 5,000 |"
    )
    tenth = max(1, len(frames) // 10)
    start = statistics.median(frames[:tenth]) / FRAME_TOKENS * 1e6
    end = statistics.median(frames[-tenth:]) / FRAME_TOKENS * 1e6
    rows.append(
        f"| per-token cost, mixed 2,000-line answer: first 10% / last 10% | "
        f"{start:.1f} µs / {end:.1f} µs | end <= start |"
    )
    for name, source in (
        ("one 2,000-line code block", "```python\n" + "x = compute(1, 2)  # c\n" * 2_000),
        ("one 2,000-line paragraph", "word " * 8 + "\n" + ("more words in a line\n" * 2_000)),
        ("one 100,000-word line", "word " * 100_000),
    ):
        frames = feed(tokens(source))
        tenth = max(1, len(frames) // 10)
        start = statistics.median(frames[:tenth]) / FRAME_TOKENS * 1e6
        end = statistics.median(frames[-tenth:]) / FRAME_TOKENS * 1e6
        rows.append(
            f"| per-token cost, {name}: first 10% / last 10% | "
            f"{start:.1f} µs / {end:.1f} µs | end <= start |"
        )
    return rows


class Tmux:
    def __init__(self) -> None:
        self.socket = f"legato-bench-{uuid.uuid4().hex[:8]}"

    def __call__(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True, text=True, check=True,
        ).stdout  # fmt: skip

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "b")

    def wait(self, wanted: str, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while wanted not in self.screen():
            if time.monotonic() > deadline:
                raise SystemExit(f"timed out waiting for {wanted!r}:\n{self.screen()}")
            time.sleep(0.01)


def echo_latencies(tmux: Tmux, count: int, letter: str) -> list[float]:
    """Type ``count`` letters one by one; seconds from send-keys until each is on screen."""
    out = []
    for n in range(1, count + 1):
        began = time.perf_counter()
        tmux("send-keys", "-t", "b", "-l", letter)
        while True:
            prompt = [line for line in tmux.screen().splitlines() if line.startswith("› ")]
            if prompt and prompt[-1].count(letter) >= n:
                break
            time.sleep(0.002)  # polling spawns tmux: leave the CPU to what is measured
        out.append(time.perf_counter() - began)
        time.sleep(0.02)
    return out


def bench_echo() -> list[str]:
    words = " ".join(f"word{i}" for i in range(30_000))
    loop = "for i in $(seq 1 3000); do echo output line $i; sleep 0.001; done"
    steps = [
        # ~5,000 words a second or more, then two commands printing side by side
        tool_calls(
            [call("Bash", {"command": loop}), call("Bash", {"command": loop})],
            text=words,
            chunk_words=3,  # the server's own limit is ~2,000 events a second
            delay=0.0002,
        ),
        text("done"),
    ]
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(steps) as server:
        root, home = Path(tmp, "p"), Path(tmp, "h")
        root.mkdir()
        (root / ".legato").mkdir()
        (root / ".legato" / "settings.json").write_text(
            json.dumps(
                {"permissionMode": "custom", "allowedCommands": ["for", "seq", "echo", "sleep"]}
            )
        )
        home.mkdir()
        env = [f"HOME={home}", f"ASSISTANT_BASE_URL={server.url}", "ASSISTANT_API_KEY=k",
               f"PATH={os.environ['PATH']}", "LANG=C.UTF-8", "TERM=xterm-256color"]  # fmt: skip
        command = (
            f"cd {shlex.quote(str(REPO))} && {shlex.quote(sys.executable)} -c "
            f"'from frontends.cli import main; main()' {shlex.quote(str(root))}"
        )
        tmux = Tmux()
        try:
            tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "b", "env", "-i", *env,
                 "sh", "-c", command)  # fmt: skip
            tmux.wait("tokens")
            idle = echo_latencies(tmux, 40, "i")
            tmux("send-keys", "-t", "b", "C-u")  # clear the line
            tmux("send-keys", "-t", "b", "-l", "go")
            tmux("send-keys", "-t", "b", "Enter")
            began = time.perf_counter()
            tmux.wait("word2")
            streaming = echo_latencies(tmux, 40, "q")
            tmux.wait("word29999")
            rate = 30_000 / (time.perf_counter() - began)
            tmux.wait("output line")
            tools = echo_latencies(tmux, 40, "z")
            tmux("send-keys", "-t", "b", "C-c")
        finally:
            subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)
    rows = [f"| answer shown in the terminal during that test | {rate:,.0f} tokens/s | ~5,000 |"]
    cases = (
        ("idle (the floor: tmux and polling)", idle),
        ("an answer streams", streaming),
        ("two commands print", tools),
    )
    for name, values in cases:
        ms = sorted(v * 1000 for v in values)
        p95 = ms[int(len(ms) * 0.95) - 1]
        rows.append(
            f"| keystroke echo while {name} (40 keys) | median {statistics.median(ms):.0f} ms, "
            f"p95 {p95:.0f} ms, max {ms[-1]:.0f} ms | < 50 ms |"
        )
    return rows


def main() -> None:
    print("| benchmark | figure | target |\n|---|---|---|")
    for row in bench_render():
        print(row, flush=True)
    for row in bench_echo():
        print(row, flush=True)


if __name__ == "__main__":
    main()
