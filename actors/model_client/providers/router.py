"""One client per provider, made when first needed, each request sent to its model's provider."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from actors.model_client.client import MessagesClient
from actors.model_client.providers import Provider, endpoint_for, provider_for
from actors.model_client.providers.bedrock import BedrockClient
from actors.model_client.providers.openai import OpenAIClient
from actors.proxies import proxy_for
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Mapping

    import httpx

    from actors.model_client.client import Emit
    from actors.protocol import GlobalConfig, MessageFinished, ModelRequest


class ProviderRouter:
    def __init__(
        self,
        env: Mapping[str, str],
        config: GlobalConfig,
        **options: Any,  # MessagesClient's: max_retries, read_timeout, jitter, sleep, tracer
    ) -> None:
        self._http: httpx.AsyncClient | None = None
        self._env = env
        self._config = config
        self._options = options
        self._clients: dict[Provider, MessagesClient] = {}

    def connect(self, http_client: httpx.AsyncClient) -> None:
        """The HTTP client every provider's requests go through (one pool, one proxy setup)."""
        self._http = http_client

    def provider(self, model: str) -> Provider:
        return provider_for(model, self._env)

    def client_for(self, model: str) -> MessagesClient:
        if self._http is None:
            raise KernelError("the provider router has no HTTP client yet")
        provider = self.provider(model)
        client = self._clients.get(provider)
        if client is None:
            endpoint = endpoint_for(provider, self._env, self._config)
            endpoint = replace(endpoint, proxy=proxy_for(endpoint.base_url, self._env))
            tracer = self._options.get("tracer")
            if tracer is not None:
                # Named api_key, the value is a secret for the tracer to hide from here on.
                fields = {"name": provider, "url": endpoint.base_url, "api_key": endpoint.api_key}
                tracer("provider", fields)
            match provider:
                case "openai":
                    client = OpenAIClient(self._http, endpoint, **self._options)
                case "bedrock":
                    client = BedrockClient(self._http, endpoint, env=self._env, **self._options)
                case _:
                    client = MessagesClient(self._http, endpoint, **self._options)
            self._clients[provider] = client
        return client

    def plain_http(self) -> bool:
        """True when every address this session may use is plain http (no TLS to set up)."""
        claude = provider_for("", self._env)  # Anthropic or Bedrock, whichever Claude goes to
        urls = (
            endpoint_for(claude, self._env, self._config).base_url,
            endpoint_for("openai", self._env, self._config).base_url,
        )
        return all(url.startswith("http://") for url in urls)

    async def stream(self, request: ModelRequest, emit: Emit) -> MessageFinished:
        return await self.client_for(request.model).stream(request, emit)
