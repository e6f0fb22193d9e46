"""How the settings' domain lists and a call's combine: a project only narrows, a call stays
within the settings, and the API's one-list-at-a-time rule is met or refused clearly."""

from __future__ import annotations

import pytest

from actors.conductor.search_results import combined, domain_list, search_domains
from actors.errors import ToolFailure
from actors.protocol import WebSearchSettings as Settings


def test_a_project_narrows_the_users_settings_and_never_widens_them() -> None:
    user = Settings(max_uses=3, allowed_domains=("python.org",), blocked_domains=("a.com",))
    project = Settings(
        max_uses=8, allowed_domains=("docs.python.org", "evil.test"), blocked_domains=("b.com",)
    )
    assert combined(user, project) == Settings(
        max_uses=3, allowed_domains=("docs.python.org",), blocked_domains=("a.com", "b.com")
    )
    # A project list wholly outside the user's leaves the user's.
    only_evil = Settings(allowed_domains=("evil.test",))
    assert combined(user, only_evil).allowed_domains == ("python.org",)


def test_a_call_searches_within_the_settings_allow_list() -> None:
    settings = Settings(allowed_domains=("python.org",), blocked_domains=("pinterest.com",))
    # The block lies outside every allowed domain: it is dropped, never sent with the allow list.
    assert search_domains(settings, (), ()) == (("python.org",), ())
    assert search_domains(settings, ("docs.python.org",), ()) == (("docs.python.org",), ())
    with pytest.raises(ToolFailure, match=r"evilpython\.org is outside the domains"):
        search_domains(settings, ("evilpython.org",), ())


def test_a_block_inside_an_allowed_domain_is_refused_clearly() -> None:
    settings = Settings(blocked_domains=("ads.python.org",))
    with pytest.raises(
        ToolFailure, match=r"block ads\.python\.org, inside the allowed python\.org"
    ):
        search_domains(settings, ("python.org",), ())
    assert search_domains(settings, (), ("spam.com",)) == ((), ("ads.python.org", "spam.com"))


@pytest.mark.parametrize(
    "entry",
    [
        "https://python.org",
        "python.org:443",
        "user@python.org",
        "localhost",
        "py thon.org",
        "",
        "a\x1b.com",
    ],
)
def test_a_domain_that_is_not_a_host_name_is_refused(entry: str) -> None:
    with pytest.raises(ToolFailure, match="is not a domain name"):
        domain_list([entry], "allowed_domains")


def test_domains_are_compared_without_case() -> None:
    assert domain_list(["Docs.Python.org", "docs.python.org"], "allowed_domains") == (
        "docs.python.org",
    )


def test_a_malformed_domain_in_the_settings_stops_the_search() -> None:
    settings = Settings(blocked_domains=("https://pinterest.com",))
    with pytest.raises(ToolFailure, match=r"webSearch\.blockedDomains in the settings"):
        search_domains(settings, (), ())
