"""What ``legato config`` and ``legato doctor`` ask the model client: where a model's requests
would go and with which credentials (``DescribeProvider``), and whether that API answers
(``ProbeApi``).

The probe sends a Messages request with no messages, prepared by the provider's own client
exactly as a session's request is: the API checks the credentials before the body, so HTTP 400
means "reachable, credentials accepted" and costs nothing; 401/403 means they were refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx

from actors.errors import LegatoError
from actors.model_client.http import connection_error, no_key_error
from actors.model_client.providers import credentials, endpoint_for, provider_for
from actors.model_client.providers.bedrock import (
    botocore_installed,
    botocore_missing,
    region_missing,
)
from actors.protocol import Finding, ModelRequest, ProbeReport, ProviderReport

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.model_client.providers.router import ProviderRouter
    from actors.protocol import GlobalConfig


def describe(model: str, env: Mapping[str, str], config: GlobalConfig) -> ProviderReport:
    provider = provider_for(model, env)
    endpoint = endpoint_for(provider, env, config)
    # The same errors a request would meet, so that doctor's probe, meeting them too, repeats
    # nothing (it lists a problem once).
    errors: list[LegatoError] = []
    if provider == "anthropic" and endpoint.api_key is None:
        errors.append(no_key_error())
    if provider == "bedrock":
        missing_region = region_missing(env)
        if missing_region is not None:
            errors.append(missing_region)
        if not botocore_installed():
            errors.append(botocore_missing())
    problems = [finding(error) for error in errors]
    return ProviderReport(
        provider=provider,
        base_url=endpoint.base_url,
        credentials=tuple(credentials(model, env, config)),
        problems=tuple(problems),
        # The Messages API's server-side web search: Anthropic's own API has it; Bedrock does
        # not serve that tool, and an OpenAI-compatible endpoint has no such tool at all.
        web_search=provider == "anthropic",
    )


async def probe(
    router: ProviderRouter, http: httpx.AsyncClient, model: str, http_timeout: float
) -> ProbeReport:
    """POST an empty Messages request to ``model``'s API and judge the answer."""
    request = ModelRequest(model=model, max_tokens=1, messages=[])
    try:
        url, body, headers = router.client_for(model).prepare(request)
    except LegatoError as error:
        return ProbeReport(f"not probed: {error.message}", finding(error))
    try:
        response = await http.post(url, content=body, headers=headers, timeout=http_timeout)
    except httpx.HTTPError as error:
        failure = connection_error(router.client_for(model).endpoint, url, error)
        return ProbeReport(failure.message, finding(failure))
    status = response.status_code
    line = f"POST {url} -> HTTP {status}"
    if status in (401, 403):
        # The remedy a request would get: it names where the key came from.
        refused = router.client_for(model).status_failure(status, response.headers, b"")
        remedy = refused.remedy or ""
        return ProbeReport(
            f"{line}: the credentials were refused",
            Finding(f"the API at {url} refused the credentials (HTTP {status})", remedy),
        )
    if status == 404:
        return ProbeReport(
            f"{line}: no such address",
            Finding(
                f"{url} does not exist (HTTP 404)",
                "Check ASSISTANT_BASE_URL (or OPENAI_BASE_URL); unset it to use the default",
            ),
        )
    if status >= 500:
        return ProbeReport(
            f"{line}: the API is having trouble",
            Finding(f"the API at {url} answered HTTP {status}", "Try again shortly"),
        )
    return ProbeReport(f"{line}: reachable, credentials accepted")


def finding(error: LegatoError) -> Finding:
    return Finding(error.message, error.remedy or "")
