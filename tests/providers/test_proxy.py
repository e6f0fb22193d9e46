"""HTTP_PROXY, HTTPS_PROXY and NO_PROXY, honoured by a real `legato` run through a real
forwarding proxy on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from frontends.demo.scripted_api import ScriptedServer, text
from tests.providers.forwarding_proxy import ForwardingProxy

REPO = Path(__file__).resolve().parents[2]


def legato(tmp_path: Path, base_url: str, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "home").mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    clean.update(HOME=str(tmp_path / "home"), ASSISTANT_BASE_URL=base_url, ASSISTANT_API_KEY="k")
    clean.update(env)
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "from frontends.cli import main; main()",
            str(tmp_path),
            "--headless",
            "hi",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=clean,
        timeout=60,
    )


def test_requests_go_through_http_proxy(tmp_path: Path) -> None:
    with ScriptedServer([text("Hello through the proxy.")]) as server, ForwardingProxy() as proxy:
        done = legato(tmp_path, server.url, HTTP_PROXY=proxy.url)
        url = server.url
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello through the proxy."
    assert proxy.seen == [f"POST {url}/v1/messages"]


def test_lower_case_proxy_variables_work_too(tmp_path: Path) -> None:
    with ScriptedServer([text("ok")]) as server, ForwardingProxy() as proxy:
        done = legato(tmp_path, server.url, http_proxy=proxy.url)
    assert done.returncode == 0, done.stderr
    assert len(proxy.seen) == 1


def test_no_proxy_bypasses_the_proxy(tmp_path: Path) -> None:
    with ScriptedServer([text("direct")]) as server, ForwardingProxy() as proxy:
        done = legato(tmp_path, server.url, HTTP_PROXY=proxy.url, NO_PROXY="127.0.0.1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "direct"
    assert proxy.seen == []


def test_https_proxy_is_used_for_https_addresses_only(tmp_path: Path) -> None:
    with ScriptedServer([text("plain"), text("never")]) as server, ForwardingProxy() as proxy:
        # An http:// address does not use HTTPS_PROXY: the run goes direct.
        direct = legato(tmp_path, server.url, HTTPS_PROXY=proxy.url)
        assert direct.returncode == 0, direct.stderr
        assert proxy.seen == []
        # An https:// address tunnels through it (CONNECT), here refused.
        host = server.url.removeprefix("http://")
        tunnelled = legato(tmp_path, f"https://{host}", HTTPS_PROXY=proxy.url)
    assert tunnelled.returncode == 1
    assert proxy.seen
    assert set(proxy.seen) == {f"CONNECT {host}"}
    assert "HTTPS_PROXY" in tunnelled.stderr
