"""`legato doctor` against real loopback servers: the probe's verdicts, credentials named and
never shown, proxies with passwords masked, missing tools, and their remedies."""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import threading
from typing import TYPE_CHECKING

from actors.errors import REMEDY_API_KEY, REMEDY_COMMAND, REMEDY_NETWORK
from frontends.commands.doctor import run_doctor
from frontends.demo.scripted_api import ScriptedServer

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

KEY = "sk-doctor-test-key-0001"


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def doctor(tmp_path: Path, capsys: pytest.CaptureFixture[str], **env: str) -> tuple[int, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {"HOME": str(home), "PATH": os.environ["PATH"]}
    code = run_doctor([str(tmp_path)], env=base | env)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_healthy_setup_has_no_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer([], api_key=KEY) as server:
        url = server.url
        code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY, ASSISTANT_BASE_URL=url)
        assert len(server.requests) == 1  # the probe, which used no step
    assert code == 0, out
    assert f"POST {url}/v1/messages -> HTTP 400: reachable, credentials accepted" in out
    assert f"Anthropic API at {url} with the key from ASSISTANT_API_KEY" in out
    assert "No problems found." in out
    assert KEY not in out


def test_a_wrong_key_gets_the_key_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer([], api_key=KEY) as server:
        code, out = doctor(
            tmp_path, capsys, ASSISTANT_API_KEY="sk-wrong-key-99", ASSISTANT_BASE_URL=server.url
        )
    assert code == 1
    assert "refused the credentials (HTTP 401)" in out
    assert f"→ {REMEDY_API_KEY}" in out
    assert "sk-wrong-key-99" not in out


def test_no_key_at_all_is_one_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = doctor(tmp_path, capsys, ASSISTANT_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    assert code == 1
    # The credentials check and the probe both meet it; it is listed once.
    assert problems(out) == [
        "✗ No API key is set: ASSISTANT_API_KEY, apiKey in ~/.config/legato/config.json and "
        "ANTHROPIC_API_KEY are all empty",
        "→ Set ASSISTANT_API_KEY to your API key: export ASSISTANT_API_KEY=<your key>",
    ]


def test_bedrock_without_a_region_is_one_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = doctor(
        tmp_path, capsys, CLOUD_ACCESS_KEY_ID="AKID", CLOUD_SECRET_ACCESS_KEY="secret"
    )
    assert code == 1
    assert problems(out) == [
        "✗ CLOUD_ACCESS_KEY_ID is set, so Amazon Bedrock is used, but CLOUD_REGION is empty",
        "→ Set CLOUD_REGION to the Bedrock region, e.g. export CLOUD_REGION=us-east-1",
    ]


def test_a_wrong_key_from_anthropic_api_key_sends_the_user_to_that_variable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedServer([], api_key=KEY) as server:
        code, out = doctor(
            tmp_path, capsys, ANTHROPIC_API_KEY="sk-wrong-key-98", ASSISTANT_BASE_URL=server.url
        )
    assert code == 1
    assert problems(out)[1] == (
        "→ Run 'echo $ANTHROPIC_API_KEY' to check the key, then set it again (or set "
        "ASSISTANT_API_KEY or apiKey in ~/.config/legato/config.json, which are used before it)"
    )


def test_a_proxy_that_refuses_is_named_as_the_failing_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proxy = f"http://127.0.0.1:{closed_port()}"
    code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY, HTTPS_PROXY=proxy)
    assert code == 1
    assert problems(out) == [
        "✗ Could not reach the API at https://api.anthropic.com/v1/messages: the proxy "
        f"{proxy} refused the connection (set by HTTPS_PROXY)",
        f"→ Check that the proxy at {proxy} is running and HTTPS_PROXY names it "
        "(echo $HTTPS_PROXY); unset HTTPS_PROXY to connect directly",
    ]


def test_a_proxy_that_refuses_the_tunnel_is_named_with_its_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        proxy = f"http://127.0.0.1:{listener.getsockname()[1]}"

        def refuse() -> None:  # one CONNECT, answered as a proxy that forbids it
            connection, _ = listener.accept()
            with connection:
                connection.recv(65536)
                connection.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")

        answering = threading.Thread(target=refuse)
        answering.start()
        code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY, HTTPS_PROXY=proxy)
        answering.join()
    assert code == 1
    assert problems(out)[0] == (
        "✗ Could not reach the API at https://api.anthropic.com/v1/messages: the proxy "
        f"{proxy} (set by HTTPS_PROXY) would not open a tunnel: 403 Forbidden"
    )


def problems(out: str) -> list[str]:
    """The lines under "Problems", stripped."""
    return [line.strip() for line in out.split("\nProblems\n", 1)[1].splitlines() if line]


def test_an_unreachable_api_gets_the_network_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY, ASSISTANT_BASE_URL=url)
    assert code == 1
    # The system's words for it, not the async connect's "All connection attempts failed".
    refused = f"[Errno {errno.ECONNREFUSED}] {os.strerror(errno.ECONNREFUSED)}"
    assert f"  Could not reach the API at {url}/v1/messages: {refused}\n" in out
    assert f"→ {REMEDY_NETWORK}" in out


def test_proxies_are_shown_without_their_password(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = doctor(
        tmp_path,
        capsys,
        ASSISTANT_API_KEY=KEY,
        HTTPS_PROXY="http://alice:s3cret@proxy.example:3128",
        no_proxy="localhost,127.0.0.1",
    )
    assert "HTTPS_PROXY=http://alice:***@proxy.example:3128" in out
    assert "NO_PROXY=localhost,127.0.0.1" in out
    assert "s3cret" not in out


def test_a_missing_bash_gets_the_command_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    with ScriptedServer([], api_key=KEY) as server:
        code, out = doctor(
            tmp_path, capsys, ASSISTANT_API_KEY=KEY, ASSISTANT_BASE_URL=server.url, PATH=str(empty)
        )
    assert code == 1
    assert "bash     not found" in out
    assert "✗ bash was not found on PATH" in out
    assert f"→ {REMEDY_COMMAND}" in out
    # Grep and Glob's rg is the one installed beside Legato, whatever PATH holds.
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    assert f"search   {beside}  (Grep, Glob and @path completion;" in out


def test_a_broken_settings_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / ".legato").mkdir()
    (tmp_path / ".legato" / "settings.json").write_text('{"model": 3}')
    code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY)
    assert code == 2
    assert "field 'model': must be a model alias" in out


def test_the_debug_log_location_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = doctor(
        tmp_path,
        capsys,
        ASSISTANT_LOG="debug",
        ASSISTANT_API_KEY=KEY,
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert f"on: sessions write {tmp_path}/home/.legato/logs/legato-" in out


def test_a_key_from_the_config_file_is_named_and_its_permissions_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "home" / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"apiKey": KEY}))
    config.chmod(0o644)
    with ScriptedServer([], api_key=KEY) as server:
        code, out = doctor(tmp_path, capsys, ASSISTANT_BASE_URL=server.url)
    assert code == 0, out
    assert "with the key from apiKey in ~/.config/legato/config.json" in out
    assert f"! {config} holds apiKey and other users can read it; run: chmod 600 {config}" in out
    assert KEY not in out


def test_bedrock_credentials_are_probed_with_a_signed_request(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from actors.model_client.providers.bedrock import REMEDY_CLOUD
    from tests.providers.test_bedrock import SECRET, Bedrock, cloud_env

    server = Bedrock([])
    with server.server:
        good, out = doctor(tmp_path, capsys, **cloud_env(server.server.url))
        bad, bad_out = doctor(
            tmp_path, capsys, **cloud_env(server.server.url, CLOUD_SECRET_ACCESS_KEY="wrong")
        )
    assert good == 0, out
    assert "Amazon Bedrock with CLOUD_ACCESS_KEY_ID and CLOUD_SECRET_ACCESS_KEY" in out
    assert "/invoke-with-response-stream -> HTTP 200: reachable" in out
    assert bad == 1
    assert f"→ {REMEDY_CLOUD}" in bad_out
    assert SECRET not in out + bad_out
