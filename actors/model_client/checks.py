"""What ``legato config`` and ``legato doctor`` ask the model client: where a model's requests
would go and with which credentials (``DescribeProvider``), and whether that API answers
(``ProbeApi``).

The probe sends a Messages request with no messages, prepared by the provider's own client
exactly as a session's request is: the API checks the credentials before the body, so HTTP 400
means "reachable, credentials accepted" and costs nothing; 401/403 means they were refused.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import httpx

from actors.errors import REMEDY_API_KEY, REMEDY_NETWORK, LegatoError
from actors.model_client.providers import credentials, endpoint_for, provider_for
from actors.model_client.providers.bedrock import (
    REGION,
    REMEDY_CLOUD,
    botocore_installed,
    botocore_missing,
)
from actors.protocol import Finding, ModelRequest, ProbeReport, ProviderReport

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.model_client.providers.router import ProviderRouter
    from actors.protocol import GlobalConfig


def describe(model: str, env: Mapping[str, str], config: GlobalConfig) -> ProviderReport:
    provider = provider_for(model, env)
    endpoint = endpoint_for(provider, env, config)
    problems: list[Finding] = []
    if provider == "anthropic" and endpoint.api_key is None:
        remedy = f"{REMEDY_API_KEY} (export ASSISTANT_API_KEY=...)"
        problems.append(Finding("no API key is set", remedy))
    if provider == "bedrock":
        if not (env.get(REGION) or "").strip():
            problems.append(Finding(f"{REGION} is not set", f"Set {REGION}, e.g. us-east-1"))
        if not botocore_installed():
            missing = botocore_missing()
            problems.append(Finding(missing.message, missing.remedy or ""))
    return ProviderReport(
        provider=provider,
        base_url=endpoint.base_url,
        credentials=tuple(credentials(model, env, config)),
        problems=tuple(problems),
    )


async def probe(
    router: ProviderRouter, http: httpx.AsyncClient, model: str, http_timeout: float
) -> ProbeReport:
    """POST an empty Messages request to ``model``'s API and judge the answer."""
    request = ModelRequest(model=model, max_tokens=1, messages=[])
    try:
        url, body, headers = router.client_for(model).prepare(request)
    except LegatoError as error:
        problem = Finding(error.message, error.remedy or "")
        return ProbeReport(f"not probed: {error.message}", problem)
    try:
        response = await http.post(url, content=body, headers=headers, timeout=http_timeout)
    except httpx.HTTPError as error:
        unreachable = f"cannot reach {url}: {_reason(error)}"
        return ProbeReport(unreachable, Finding(unreachable, REMEDY_NETWORK))
    status = response.status_code
    line = f"POST {url} -> HTTP {status}"
    if status in (401, 403):
        remedy = REMEDY_CLOUD if router.provider(model) == "bedrock" else REMEDY_API_KEY
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


def _reason(error: httpx.HTTPError) -> str:
    """Why a connection failed, as the system says it ("[Errno 111] Connection refused"): an
    async connect wraps that in words of its own ("All connection attempts failed")."""
    causes: list[BaseException] = [error]
    seen: set[int] = set()
    while causes:
        cause = causes.pop(0)
        if id(cause) in seen:
            continue
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno is not None and cause.errno > 0:
            return f"[Errno {cause.errno}] {os.strerror(cause.errno)}"
        if isinstance(cause, BaseExceptionGroup):
            causes += cause.exceptions
        causes += [c for c in (cause.__cause__, cause.__context__) if c is not None]
    return str(error) or type(error).__name__
