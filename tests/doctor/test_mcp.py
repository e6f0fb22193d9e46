"""`legato doctor` starts each approved MCP server, reports it ready with its tools or failed
with the reason (a problem: exit 1), and leaves no process behind."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from frontends.commands.doctor import run_doctor

if TYPE_CHECKING:
    import pytest

TOY = Path(__file__).resolve().parents[1] / "mcp_client" / "toy_server.py"
# The toy server, leaving its process id in the file its first argument names.
TOY_WITH_PID = (
    "import os, pathlib, runpy, sys; pathlib.Path(sys.argv[1]).write_text(str(os.getpid())); "
    f"sys.argv = sys.argv[:1]; runpy.run_path({str(TOY)!r}, run_name='__main__')"
)
FAILING = (
    "import sys; print('first line', file=sys.stderr); "
    + "; ".join(f"print('line {n}', file=sys.stderr)" for n in range(2, 30))
    + "; print('the real reason: no token', file=sys.stderr); sys.exit(3)"
)


def _doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], servers: dict[str, object]
) -> tuple[int, str]:
    home = tmp_path / "home"
    config = home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": servers}))
    config.chmod(0o600)
    project = tmp_path / "project"
    project.mkdir()
    env = {"HOME": str(home), "PATH": os.environ["PATH"]}
    code = run_doctor([str(project), "--no-probe"], env=env)
    out = capsys.readouterr()
    return code, out.out


def _section(out: str) -> list[str]:
    return out.split("\nMCP servers\n")[1].split("\n\n")[0].splitlines()


def test_a_ready_server_is_listed_with_its_tools_and_stopped_afterwards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pid_file = tmp_path / "pid"
    toy = {"command": sys.executable, "args": ["-c", TOY_WITH_PID, str(pid_file)]}
    _, out = _doctor(tmp_path, capsys, {"toy": toy})
    lines = _section(out)
    assert len(lines) == 1
    assert lines[0].startswith(f"  toy ({tmp_path}/home/.config/legato/config.json): ready, ")
    assert "pid" in lines[0] and "crash" in lines[0]
    pid = int(pid_file.read_text())
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        pass  # gone, as it should be
    else:
        raise AssertionError(f"the MCP server {pid} outlived legato doctor")
    assert "the MCP server" not in out


def test_a_failed_server_is_a_problem_with_its_reason_bounded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _doctor(
        tmp_path, capsys, {"bad": {"command": sys.executable, "args": ["-c", FAILING]}}
    )
    lines = _section(out)
    assert lines[0] == f"  bad ({tmp_path}/home/.config/legato/config.json): failed"
    assert any("the real reason: no token" in line for line in lines)
    assert len(lines) <= 9  # the head line and at most 8 of the reason
    assert code == 1
    assert "  ✗ the MCP server 'bad' failed to start" in out
