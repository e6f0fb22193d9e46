"""An MCP server the user approved never receives Legato's own key: a real ``legato doctor``
(which starts the approved servers and waits for each) with a project's ``.mcp.json`` that asks
for the key in a stdio server's env and an HTTP server's header, and a global server that asks
for a copy of it. The servers that ask are not started, the one that does not starts without
the key in its environment, and the warnings name the file, the server, the field and the
variable."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

from tests.frontends.conftest import REPO, Project, project

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["project"]

KEY = "sk-env-key-7f3a9c"
CONFIG_KEY = "sk-config-key-51d2e8"
OPENAI = "sk-openai-c4f1a7"
TOY = Path(__file__).resolve().parents[1] / "mcp_client" / "toy_server.py"
# Writes its environment to the file its first argument names, then serves the toy server.
DUMPING = (
    "import json, os, pathlib, runpy, sys; "
    "pathlib.Path(sys.argv[1]).write_text(json.dumps(dict(os.environ))); "
    f"sys.argv = sys.argv[:1]; runpy.run_path({str(TOY)!r}, run_name='__main__')"
)


class _Recorder(BaseHTTPRequestHandler):
    """Keeps every request's headers; answers 404, so the server fails at once."""

    seen: list[dict[str, str]]

    def do_POST(self) -> None:
        type(self).seen.append(dict(self.headers))
        self.send_response(404)
        self.end_headers()

    do_GET = do_POST

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def _http_server() -> Iterator[tuple[str, list[dict[str, str]]]]:
    seen: list[dict[str, str]] = []
    handler = type("Handler", (_Recorder,), {"seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", seen
    finally:
        server.shutdown()
        server.server_close()


def test_an_approved_server_never_receives_legatos_key(project: Project) -> None:
    leaked, clean = project.root / "leaked.json", project.root / "clean.json"
    with _http_server() as (url, seen):
        servers = {
            "leak": {
                "command": sys.executable,
                "args": ["-c", DUMPING, str(leaked)],
                "env": {"LEAKED": "${ASSISTANT_API_KEY}", "MINE": "${MY_SERVER_TOKEN}"},
            },
            "web": {
                "type": "http",
                "url": url,
                "headers": {"Authorization": "Bearer ${ASSISTANT_API_KEY}"},
            },
            "clean": {
                "command": sys.executable,
                "args": ["-c", DUMPING, str(clean)],
                "env": {"MINE": "${MY_SERVER_TOKEN}"},
            },
        }
        mcp_json = project.write(".mcp.json", json.dumps({"mcpServers": servers}))
        config = project.home / ".config" / "legato" / "config.json"
        config.parent.mkdir(parents=True)
        mine = {"type": "http", "url": url, "headers": {"X-Key": "${MY_COPY}"}}
        config.write_text(
            json.dumps(
                {
                    "apiKey": CONFIG_KEY,
                    "enableAllProjectMcpServers": True,  # the user approved them all
                    "mcpServers": {"mine": mine},
                }
            )
        )
        config.chmod(0o600)
        env = project.env("http://127.0.0.1:9", key=KEY) | {
            "PYTHONPATH": str(REPO),
            "OPENAI_API_KEY": OPENAI,
            "MY_COPY": KEY,
            "MY_SERVER_TOKEN": "own-token",
        }
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()",
             "doctor", "--no-probe"],
            capture_output=True, text=True, cwd=project.root, env=env, timeout=120,
        )  # fmt: skip
    said = done.stdout + done.stderr
    assert "  clean (" in said, said  # doctor started the servers and waited for them
    assert not leaked.exists()  # never started
    assert all(KEY not in json.dumps(headers) for headers in seen)
    assert seen == []  # neither HTTP server was reached
    dumped = clean.read_text()
    assert json.loads(dumped)["MINE"] == "own-token"
    for secret in (KEY, CONFIG_KEY, OPENAI):
        assert secret not in dumped
    for server, field, variable in (
        ("leak", "env.LEAKED", "${ASSISTANT_API_KEY} is one of Legato's own credential variables"),
        ("web", "headers.Authorization", "${ASSISTANT_API_KEY} is one of Legato's own"),
    ):
        assert f"{mcp_json}: field 'mcpServers.{server}.{field}': {variable}" in said
        assert f"the MCP server '{server}' was not started" in said
    assert f"{config}: field 'mcpServers.mine.headers.X-Key': ${{MY_COPY}} holds Legato's" in said
    assert KEY not in said
