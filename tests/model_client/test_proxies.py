"""Proxy routes read from the session's environment, with the meaning httpx and curl give them."""

from __future__ import annotations

import pytest

from actors.proxies import Proxy, proxy_for, proxy_routes


def test_each_scheme_gets_its_proxy_and_a_bare_host_is_http() -> None:
    env = {"HTTPS_PROXY": "proxy.corp:3128", "HTTP_PROXY": "http://p:80", "PATH": "/bin"}
    assert proxy_routes(env) == {"http://": "http://p:80", "https://": "http://proxy.corp:3128"}


def test_lower_case_wins_over_upper_case() -> None:
    env = {"https_proxy": "http://lower:1", "HTTPS_PROXY": "http://upper:2"}
    assert proxy_routes(env) == {"https://": "http://lower:1"}
    assert proxy_routes(dict(reversed(env.items()))) == {"https://": "http://lower:1"}


@pytest.mark.parametrize(
    ("entry", "pattern"),
    [
        ("localhost", "all://localhost"),
        ("127.0.0.1", "all://127.0.0.1"),
        ("::1", "all://[::1]"),
        (".example.com", "all://*.example.com"),
        ("example.com", "all://*example.com"),
        ("http://internal:8080", "http://internal:8080"),
    ],
)
def test_no_proxy_hosts_go_direct(entry: str, pattern: str) -> None:
    routes = proxy_routes({"ALL_PROXY": "http://p:1", "NO_PROXY": f" {entry} ,"})
    assert routes == {"all://": "http://p:1", pattern: None}


def test_no_proxy_star_sends_everything_direct_and_empty_values_are_no_proxy() -> None:
    assert proxy_routes({"HTTPS_PROXY": "http://p:1", "no_proxy": "a.com,*"}) == {}
    assert proxy_routes({"HTTPS_PROXY": "", "NO_PROXY": ""}) == {}


@pytest.mark.parametrize(
    ("url", "env", "proxy"),
    [
        ("https://api.example/v1", {"HTTPS_PROXY": "p:1"}, Proxy("HTTPS_PROXY", "http://p:1")),
        ("http://api.example/v1", {"HTTPS_PROXY": "http://p:1"}, None),
        ("http://api.example/v1", {"all_proxy": "http://a:2"}, Proxy("all_proxy", "http://a:2")),
        # The scheme's own variable comes before ALL_PROXY, NO_PROXY's hosts before both.
        (
            "https://api.example",
            {"ALL_PROXY": "http://a:2", "HTTPS_PROXY": "http://p:1"},
            Proxy("HTTPS_PROXY", "http://p:1"),
        ),
        ("https://api.example", {"HTTPS_PROXY": "http://p:1", "NO_PROXY": ".example"}, None),
        ("https://api.example", {"HTTPS_PROXY": "http://p:1", "NO_PROXY": "api.example"}, None),
        ("http://127.0.0.1:5", {"ALL_PROXY": "http://p:1", "NO_PROXY": "127.0.0.1"}, None),
    ],
)
def test_the_proxy_a_request_goes_through_is_named_with_its_variable(
    url: str, env: dict[str, str], proxy: Proxy | None
) -> None:
    assert proxy_for(url, env) == proxy


def test_a_proxy_password_is_kept_out_of_its_name() -> None:
    proxy = Proxy("HTTPS_PROXY", "http://alice:s3cret@proxy.corp:3128")
    assert str(proxy) == "http://alice:***@proxy.corp:3128"
