"""Which API answers a request, and with which credentials.

    openai:<model>            an OpenAI-compatible server (OPENAI_BASE_URL): local models
    CLOUD_ACCESS_KEY_ID set   Amazon Bedrock, signed with the cloud credentials
    otherwise                 the Anthropic Messages API (ASSISTANT_BASE_URL), with the API key

The choice is made per request, so ``/model`` can move between a local model and Claude.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.model_client.endpoint import resolve_endpoint
from actors.model_client.providers.bedrock import (
    ACCESS_KEY,
    REGION,
    SECRET_KEY,
    bedrock_endpoint,
    bedrock_selected,
)
from actors.model_client.providers.openai import PREFIX as OPENAI_PREFIX
from actors.model_client.providers.openai import openai_endpoint
from actors.protocol import Provider

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.model_client.endpoint import Endpoint
    from actors.protocol import GlobalConfig

__all__ = ["OPENAI_PREFIX", "Provider", "credentials", "endpoint_for", "provider_for"]


def provider_for(model: str, env: Mapping[str, str]) -> Provider:
    if model.startswith(OPENAI_PREFIX):
        return "openai"
    if bedrock_selected(env):
        return "bedrock"
    return "anthropic"


def endpoint_for(provider: Provider, env: Mapping[str, str], config: GlobalConfig) -> Endpoint:
    match provider:
        case "openai":
            return openai_endpoint(env)
        case "bedrock":
            return bedrock_endpoint(env)
        case _:
            return resolve_endpoint(env, config)


def credentials(model: str, env: Mapping[str, str], config: GlobalConfig) -> list[str]:
    """In words, which credentials a request for ``model`` would use: names, never values."""
    provider = provider_for(model, env)
    endpoint = endpoint_for(provider, env, config)
    if provider == "bedrock":
        region = (env.get(REGION) or "").strip() or "not set"
        lines = [f"Amazon Bedrock with {ACCESS_KEY} and {SECRET_KEY}, region {region}"]
        anthropic = resolve_endpoint(env, config)
        if anthropic.key_source:
            lines.append(f"{anthropic.key_source} is set but unused while {ACCESS_KEY} is set")
        return lines
    if provider == "openai":
        key = "OPENAI_API_KEY" if endpoint.api_key else "no key (OPENAI_API_KEY is not set)"
        return [f"OpenAI-compatible server at {endpoint.base_url} with {key}"]
    if endpoint.key_source is None:
        return ["Anthropic API: no API key found (ASSISTANT_API_KEY, apiKey, ANTHROPIC_API_KEY)"]
    return [f"Anthropic API at {endpoint.base_url} with the key from {endpoint.key_source}"]
