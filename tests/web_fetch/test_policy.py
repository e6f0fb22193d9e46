"""WebFetch with the real permission broker and its rules, as a session wires them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.tool_executor.harness import with_policy

if TYPE_CHECKING:
    from pathlib import Path

    from tests.web_fetch.conftest import Site


async def test_a_rule_naming_the_host_allows_it_and_nothing_else(
    tmp_path: Path, site: Site
) -> None:
    async with with_policy(tmp_path, permissions={"allow": ["WebFetch(domain:127.0.0.1)"]}) as s:
        named = await s.one("WebFetch", url=site.url("/plain"), prompt="x")
        other = await s.one("WebFetch", url=site.url("/to-localhost"), prompt="x")
    assert not named.result.is_error, named.result.content
    assert "line one" in named.result.content
    # localhost is loopback too, but no rule names it: headless, it is refused.
    assert other.result.is_error
    assert [path for path, _ in site.seen] == ["/plain", "/to-localhost"]
