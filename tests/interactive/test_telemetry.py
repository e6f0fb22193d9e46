"""Telemetry from the interactive terminal (tmux): a prompt and a ``!cmd`` are exported, an
inherited TRACEPARENT (the shell's, not a caller's) is not made the session's parent, the
command gets its own span's context, and nothing of the exporter lands on the screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import folders, session_env, terminal
from tests.otlp_sink import Sink

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux
READY = "tokens · $"
__all__ = ["folders", "terminal"]
AMBIENT = "00-11111111111111111111111111111111-2222222222222222-01"


def test_a_terminal_session_exports_its_own_trace(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    seen = root / "traceparent"
    with Sink() as sink, ScriptedServer([text("Hello there.")]) as server:
        env = session_env(home, server.url) | {
            "OTEL_EXPORTER_OTLP_ENDPOINT": sink.url,
            "TRACEPARENT": AMBIENT,
        }
        terminal.start(root, env)
        terminal.wait_for(READY, visible=True)
        terminal.submit(f"!echo $TRACEPARENT > {seen}")
        terminal.wait_for("✓ ! echo")
        terminal.submit("hi")
        terminal.wait_for("Hello there.")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
        screen = terminal.screen()
    assert "Traceback" not in screen and "export" not in screen.lower()
    spans = {span.name: span for span in sink.spans()}
    prompt, tool = spans["legato.interaction"], spans["legato.tool"]
    # The shell's TRACEPARENT is ignored: the prompt starts a trace of its own.
    assert prompt.parent_span_id == b"" and prompt.trace_id.hex() != AMBIENT.split("-")[1]
    assert spans["legato.llm_request"].parent_span_id == prompt.span_id
    # The command ran in its own call's span.
    version, trace_id, span_id, _flags = seen.read_text().strip().split("-")
    assert (version, trace_id, span_id) == ("00", tool.trace_id.hex(), tool.span_id.hex())
