"""`legato doctor` against real loopback servers: the probe's verdicts, credentials named and
never shown, proxies with passwords masked, missing tools, and their remedies."""

from __future__ import annotations

import errno
import json
import os
import socket
from typing import TYPE_CHECKING

from actors.errors import REMEDY_API_KEY, REMEDY_COMMAND, REMEDY_NETWORK
from frontends.demo.scripted_api import ScriptedServer
from frontends.doctor import run_doctor

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


def test_no_key_at_all_is_a_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = doctor(tmp_path, capsys, ASSISTANT_BASE_URL=f"http://127.0.0.1:{closed_port()}")
    assert code == 1
    assert "✗ no API key is set" in out
    assert REMEDY_API_KEY in out


def test_an_unreachable_api_gets_the_network_remedy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    code, out = doctor(tmp_path, capsys, ASSISTANT_API_KEY=KEY, ASSISTANT_BASE_URL=url)
    assert code == 1
    # The system's words for it, not the async connect's "All connection attempts failed".
    refused = f"[Errno {errno.ECONNREFUSED}] {os.strerror(errno.ECONNREFUSED)}"
    assert f"  cannot reach {url}/v1/messages: {refused}\n" in out
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
