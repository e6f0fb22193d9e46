"""WebFetch's fetch and page parts against a real server on loopback: what each kind of page
becomes, redirects, and the caps."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.errors import FetchFailed, PermissionDenied
from actors.tool_executor.web.fetch import Limits
from actors.tool_executor.web.pages import WebPages
from tests.web_fetch.checks import Checks

if TYPE_CHECKING:
    import trio.testing

    from tests.web_fetch.conftest import Site


async def test_html_becomes_markdown_without_scripts_or_chrome(site: Site) -> None:
    page = await WebPages({}).get(site.url("/page"), Checks())
    assert page.kind == "html"
    assert page.status == 200
    assert "# Installing" in page.text
    assert "[the docs](/docs)" in page.text
    assert "| Version | Python |" in page.text
    assert "```\nimport thing\nthing.run()\n```" in page.text
    for chrome in ("SCRIPTED", "color:red", "NAVIGATION", "SITE HEADER", "SIDEBAR", "FOOTER"):
        assert chrome not in page.text


async def test_text_json_pdf_and_gzip_come_as_text(site: Site) -> None:
    pages = WebPages({})
    assert (await pages.get(site.url("/plain"), Checks())).text == "line one\nline two\n"
    assert (await pages.get(site.url("/data.json"), Checks())).text == '{"name": "thing", "n": 2}'
    pdf = await pages.get(site.url("/notes.pdf"), Checks())
    assert (pdf.kind, pdf.text) == ("pdf", "--- page 1 ---\nRelease notes for thing 2.0")
    assert (await pages.get(site.url("/gzip"), Checks())).text == "squeezed text\n"


async def test_redirects_are_followed_and_each_hop_is_asked(site: Site) -> None:
    checks = Checks()
    page = await WebPages({}).get(site.url("/hop1"), checks)
    assert page.url == site.url("/plain")
    assert checks.asked == [
        (site.url(path), "127.0.0.1", "127.0.0.1") for path in ("/hop1", "/hop2", "/plain")
    ]


async def test_no_cookie_credential_or_api_key_is_sent(site: Site) -> None:
    env = {"ASSISTANT_API_KEY": "sk-legato-SECRET", "ANTHROPIC_API_KEY": "sk-ant-SECRET"}
    await WebPages(env).get(site.url("/hop1"), Checks())
    assert [path for path, _ in site.seen] == ["/hop1", "/hop2", "/plain"]
    for _, headers in site.seen:
        names = {name.lower() for name in headers}
        assert not names & {"cookie", "authorization", "proxy-authorization", "x-api-key"}
        assert "SECRET" not in repr(headers)
        assert headers["User-Agent"].startswith("Legato-WebFetch/")


async def test_a_url_with_credentials_or_another_scheme_is_refused(site: Site) -> None:
    pages = WebPages({})
    with pytest.raises(FetchFailed, match="user name or password"):
        await pages.get(f"http://user:pass@127.0.0.1:{site.port}/plain", Checks())
    for url in ("file:///etc/passwd", "ftp://example.com/", "gopher://x/", "/relative"):
        with pytest.raises(FetchFailed, match="must be an http or https URL"):
            await pages.get(url, Checks())
    assert site.seen == []


async def test_a_redirect_loop_says_so(site: Site) -> None:
    with pytest.raises(FetchFailed, match="Redirect loop"):
        await WebPages({}).get(site.url("/loop"), Checks())


async def test_more_than_the_redirect_cap_is_refused(site: Site) -> None:
    with pytest.raises(FetchFailed, match="More than 1 redirects"):
        await WebPages({}, limits=Limits(redirects=1)).get(site.url("/hop1"), Checks())
    assert [path for path, _ in site.seen] == ["/hop1", "/hop2"]


async def test_loopback_is_refused_without_a_rule_naming_the_host(site: Site) -> None:
    checks = Checks(named=())
    with pytest.raises(PermissionDenied, match=r"127\.0\.0\.1 is on this machine"):
        await WebPages({}).get(site.url("/plain"), checks)
    assert site.seen == []  # refused before any connection


async def test_a_redirect_to_localhost_or_the_metadata_service_is_refused(site: Site) -> None:
    checks = Checks()
    with pytest.raises(PermissionDenied, match="localhost is on this machine"):
        await WebPages({}).get(site.url("/to-localhost"), checks)
    assert checks.asked[-1][1:] in {("localhost", "127.0.0.1"), ("localhost", "::1")}
    with pytest.raises(PermissionDenied, match=r"169\.254\.169\.254 is on this machine"):
        await WebPages({}).get(site.url("/to-metadata"), checks)
    assert [path for path, _ in site.seen] == ["/to-localhost", "/to-metadata"]


async def test_a_host_that_turns_local_after_the_check_is_refused(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DNS rebinding: the permission's lookup answered a public address, the connection's
    # lookup answers loopback. The connection holds to what the permission was given for.
    from actors.tool_executor.web import fetch

    async def public(host: str, port: int) -> tuple[str, ...]:
        return ("93.184.215.14",)

    monkeypatch.setattr(fetch, "resolve", public)
    checks = Checks(named=())
    with pytest.raises(FetchFailed, match=r"resolved to 127\.0\.0\.1, an address on this machine"):
        await WebPages({}).get(site.url("/plain"), checks)
    assert checks.asked == [(site.url("/plain"), "127.0.0.1", None)]
    assert site.seen == []


async def test_a_5_gb_body_is_refused_before_it_is_read(site: Site) -> None:
    with pytest.raises(FetchFailed, match=r"is 5\.0 GB; WebFetch reads at most 10\.0 MB"):
        await WebPages({}).get(site.url("/huge"), Checks())


# httpx's response stream is a chain of async generators; leaving it at the cap closes the
# outer one and the connection (``response.aclose``), and leaves the inner generators, already
# finished with, to the collector, which trio reports as a ResourceWarning.
LEFT_EARLY = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


@LEFT_EARLY
async def test_an_endless_body_stops_at_the_cap_and_says_so(site: Site) -> None:
    page = await WebPages({}, limits=Limits(body=1 << 20)).get(site.url("/endless"), Checks())
    assert page.cut
    assert page.size == 1 << 20
    assert page.text.startswith("all work and no play\n")


@LEFT_EARLY
async def test_a_gzip_bomb_is_inflated_no_further_than_the_cap(site: Site) -> None:
    page = await WebPages({}, limits=Limits(body=1 << 20)).get(site.url("/bomb"), Checks())
    assert (page.cut, page.size) == (True, 1 << 20)


async def test_binary_served_as_html_and_other_types_are_refused(site: Site) -> None:
    with pytest.raises(FetchFailed, match="served as text/html but holds binary data"):
        await WebPages({}).get(site.url("/binary"), Checks())
    with pytest.raises(FetchFailed, match="is image/png, not a page WebFetch can read"):
        await WebPages({}).get(site.url("/image"), Checks())


async def test_an_error_status_is_a_failure_naming_it(site: Site) -> None:
    with pytest.raises(FetchFailed, match="answered 404 Not Found"):
        await WebPages({}).get(site.url("/missing"), Checks())


async def test_a_page_fetched_again_comes_from_the_cache_but_is_asked_again(site: Site) -> None:
    pages = WebPages({})
    checks = Checks()
    first = await pages.get(site.url("/hop1"), checks)
    again = await pages.get(site.url("/hop1"), checks)
    assert (first.cached, again.cached, again.text) == (False, True, first.text)
    assert len(site.seen) == 3  # the second came from the cache
    assert len(checks.asked) == 6  # every hop asked again
    with pytest.raises(PermissionDenied):
        await pages.get(site.url("/hop1"), Checks(named=()))


async def test_through_a_proxy_the_target_is_still_judged_and_asked(site: Site) -> None:
    # Nothing listens on port 1: the page can only come through the proxy.
    env = {"HTTP_PROXY": site.base}
    target = "http://127.0.0.1:1/plain"
    checks = Checks()
    page = await WebPages(env).get(target, checks)
    assert page.text == "line one\nline two\n"
    assert checks.asked == [(target, "127.0.0.1", "127.0.0.1")]
    assert [path for path, _ in site.seen] == [target]
    with pytest.raises(PermissionDenied):
        await WebPages(env).get("http://localhost:1/plain", Checks(named=()))
    assert len(site.seen) == 1  # refused before the proxy was asked


async def test_the_cache_keeps_a_page_15_minutes(
    site: Site, mock_clock: trio.testing.MockClock
) -> None:
    pages = WebPages({})
    await pages.get(site.url("/plain"), Checks())
    mock_clock.jump(15 * 60)
    assert (await pages.get(site.url("/plain"), Checks())).cached
    mock_clock.jump(1)
    assert not (await pages.get(site.url("/plain"), Checks())).cached
    assert len(site.seen) == 2


async def test_the_cache_drops_the_least_recently_used_page_past_its_size(site: Site) -> None:
    pages = WebPages({}, capacity=40)  # two pages of 18 and 25 bytes do not fit together
    await pages.get(site.url("/plain"), Checks())
    await pages.get(site.url("/data.json"), Checks())
    assert (await pages.get(site.url("/data.json"), Checks())).cached
    assert not (await pages.get(site.url("/plain"), Checks())).cached
