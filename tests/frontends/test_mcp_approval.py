"""A project's .mcp.json server runs only once the user has approved its entry as written.

A hostile repository's server, which would leave a marker file if it ever started, is met by
``legato -p``, ``legato doctor`` and ``legato mcp list``: none starts it. Once approved it
runs; once its entry changes it does not. In a ``-p`` run, a witness server of the user's own
config, started beside it, says when the evil one would have written. Real ``legato``
processes, the scripted model server, and the toy MCP server of tests/mcp_client.
"""

from __future__ import annotations

import json
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.frontends.conftest import Project

TOY = Path(__file__).resolve().parents[1] / "mcp_client" / "toy_server.py"
# Leaves the marker named by its first argument, then serves the toy server's tools.
EVIL = (
    "import pathlib, runpy, sys; pathlib.Path(sys.argv[1]).write_text('ran'); "
    "sys.argv = sys.argv[:1]; runpy.run_path(sys.argv_toy, run_name='__main__')"
)
# A model's Bash call that waits for the witness's marker, then for the evil one: "found" as soon
# as it is there, "absent" once ``sys.argv[3]`` seconds have passed since the witness wrote.
WAIT = """import pathlib, sys, time
marker, witness = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
deadline = time.monotonic() + 60
while not witness.exists():
    if time.monotonic() > deadline:
        print("no witness")
        sys.exit(0)
    time.sleep(0.02)
deadline = time.monotonic() + float(sys.argv[3])
while time.monotonic() < deadline:
    if marker.exists():
        print("found")
        sys.exit(0)
    time.sleep(0.02)
print("absent")
"""
# Once the witness has written, an approved evil server, started by the same loop and doing the
# same work first, has had its moment: what is not there this much later was never started.
AFTER_WITNESS = 0.5


def _entry(marker: Path, *extra: str) -> dict[str, object]:
    code = EVIL.replace("sys.argv_toy", repr(str(TOY)))
    return {"command": sys.executable, "args": ["-c", code, str(marker), *extra]}


def _hostile(project: Project, marker: Path, *extra: str) -> Path:
    entry = _entry(marker, *extra)
    return project.write(".mcp.json", json.dumps({"mcpServers": {"evil": entry}}))


@contextmanager
def _witness(project: Project) -> Iterator[Path]:
    """A server of the global config (the user's own, so it needs no approval) that leaves its
    marker as the evil one would: proof that the session started its servers. Configured for
    the ``with`` block only, so that the other commands meet the evil server alone."""
    marker = project.root / "witnessed"
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"mcpServers": {"witness": _entry(marker)}}))
    try:
        yield marker
    finally:
        config.unlink()
        marker.unlink(missing_ok=True)


def _run(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    """``legato ARGS`` run in the project, as a user would (no model request is made)."""
    env = project.env("http://127.0.0.1:9")
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", *args],
        capture_output=True,
        text=True,
        cwd=project.root,
        env=env,
        timeout=120,
    )


def _waited(project: Project, marker: Path, seconds: float) -> tuple[str, str]:
    """A headless run whose model waits for the witness, then for the marker; what the wait
    printed, and stderr."""
    wait = project.write("wait.py", WAIT)
    with _witness(project) as witness:
        command = f"python3 {wait} {marker} {witness} {seconds}"
        steps = [tool_calls([call("Bash", {"command": command})]), text("Done.")]
        with ScriptedServer(steps) as server:
            done = project.legato(server.url, "--headless", "wait", "--output-format", "json")
            requests = server.requests
    assert done.returncode == 0, done.stderr
    result = requests[1].body["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    return str(result["content"]).strip(), done.stderr


def test_a_hostile_server_runs_only_once_approved_and_not_once_changed(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["python3"])
    marker = project.root / "pwned"
    mcp_json = _hostile(project, marker)

    listed = _run(project, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert f"  evil  stdio  {sys.executable} -c " in listed.stdout
    assert f"({mcp_json})  not approved" in listed.stdout
    said, stderr = _waited(project, marker, AFTER_WITNESS)
    assert said == "absent"
    assert (
        f"legato: MCP server 'evil' ({mcp_json}) is not approved, so it was not started. "
        "Read what it runs with 'legato mcp list', then approve it: 'legato mcp approve evil'"
    ) in stderr.splitlines()
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): not approved, not started" in doctor.stdout
    assert not marker.exists()

    approved = _run(project, "mcp", "approve", "evil")
    assert approved.returncode == 0, approved.stderr
    assert f"  evil  stdio  {sys.executable} -c " in approved.stdout
    assert "Approved evil: the next session here starts it." in approved.stdout
    assert not marker.exists()  # approving starts nothing
    said, stderr = _waited(project, marker, 60)
    assert said == "found"
    assert "evil" not in stderr
    marker.unlink()
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): ready, " in doctor.stdout
    assert "pid" in doctor.stdout
    assert marker.exists()
    marker.unlink()

    _hostile(project, marker, "--changed")  # the same name, another entry
    listed = _run(project, "mcp", "list")
    assert f"({mcp_json})  not approved" in listed.stdout
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): not approved, not started" in doctor.stdout
    said, _ = _waited(project, marker, AFTER_WITNESS)
    assert said == "absent"
    assert not marker.exists()


def test_revoking_an_approval_stops_the_next_start(project: Project) -> None:
    marker = project.root / "pwned"
    mcp_json = _hostile(project, marker)
    assert _run(project, "mcp", "approve", "--all").returncode == 0
    revoked = _run(project, "mcp", "revoke", "evil")
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stdout == "Revoked evil: the next session here does not start it.\n"
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): not approved, not started" in doctor.stdout
    assert not marker.exists()


def test_the_project_settings_cannot_trust_its_own_servers(project: Project) -> None:
    marker = project.root / "pwned"
    mcp_json = _hostile(project, marker)
    project.settings(enableAllProjectMcpServers=True)
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): not approved, not started" in doctor.stdout
    assert "'enableAllProjectMcpServers' is ignored here; it belongs in the global" in (
        doctor.stdout
    )
    assert not marker.exists()


def test_the_global_config_can_trust_every_project_server(project: Project) -> None:
    marker = project.root / "pwned"
    mcp_json = _hostile(project, marker)
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"enableAllProjectMcpServers": True}))
    doctor = _run(project, "doctor", "--no-probe")
    assert f"  evil ({mcp_json}): ready, " in doctor.stdout
    assert marker.exists()


def test_an_unknown_name_exits_2_listing_the_known_ones(project: Project) -> None:
    _hostile(project, project.root / "pwned")
    done = _run(project, "mcp", "approve", "evil", "nope")
    assert done.returncode == 2
    assert "no MCP server named 'nope' (the known ones: evil)" in done.stderr
    assert "Approving" not in done.stdout
    listed = _run(project, "mcp", "list")
    assert "not approved" in listed.stdout  # nothing was recorded
    assert _run(project, "mcp", "revoke", "nope").returncode == 2
    assert _run(project, "mcp", "approve").returncode == 2  # neither names nor --all


def test_approving_shows_each_values_variable_never_a_value(project: Project) -> None:
    env = {"TOKEN": "s3cret-value", "GH": "Bearer ${GH_TOKEN:-none}"}
    entry = {"command": "srv", "args": ["--x"], "env": env}
    project.write(".mcp.json", json.dumps({"mcpServers": {"tok": entry}}))
    done = _run(project, "mcp", "approve", "tok")
    assert done.returncode == 0, done.stderr
    assert "s3cret-value" not in done.stdout
    assert "    env TOKEN=(value hidden)" in done.stdout
    assert "    env GH=Bearer ${GH_TOKEN:-none}" in done.stdout
