"""The model client actor: answers ``StreamMessage`` with the API's answer as ``ModelEvent``s,
and ``DescribeProvider`` and ``ProbeApi`` for the commands that check a set-up.

httpx is imported when the actor starts, not when this module is imported, so that paths that
never talk to the model (``--version``, ``--help``) do not pay for it.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING

import anyio

from actors.protocol import DescribeProvider, GetContext, ModelClientMsg, ProbeApi, StreamMessage
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    import httpx

    from actors.model_client.providers.router import ProviderRouter
    from actors.protocol import GlobalConfig, MemoryStoreMsg
    from runtime import Address, Reply


class ModelClient(Actor[ModelClientMsg]):
    name = "model_client"
    # Subagents stream beside the main conversation and each other, over the one HTTP client
    # and its connection pool; each request holds no state of the actor's but the client.
    concurrent = True

    def __init__(
        self,
        memory: Address[MemoryStoreMsg],
        *,
        env: Mapping[str, str] | None = None,
        max_retries: int = 2,
        http: httpx.AsyncClient | None = None,
        read_timeout: float = 60.0,
        jitter: Callable[[], float] = random.random,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        connect_at_start: bool = True,
    ) -> None:
        super().__init__()
        self._memory = memory
        self._env: Mapping[str, str] = os.environ if env is None else env
        self._max_retries = max_retries
        self._given_http = http
        self._owned_http: httpx.AsyncClient | None = None
        self._read_timeout = read_timeout
        self._jitter = jitter
        self._sleep = sleep
        # A session connects at start, so its first request does not wait for the HTTP client
        # (loading the certificate store takes ~0.1 s). A command that may send nothing
        # (legato config) leaves it to the first request that needs it.
        self._connect_at_start = connect_at_start
        self._config: GlobalConfig | None = None
        self._router: ProviderRouter | None = None
        self._http: httpx.AsyncClient | None = None

    async def on_start(self) -> None:
        from actors.model_client.providers.router import ProviderRouter

        context = await self._memory.ask(GetContext())
        self._config = context.config
        # Each request goes to its model's provider: Anthropic, Bedrock or an OpenAI-compatible
        # server (providers/).
        self._router = ProviderRouter(
            self._env,
            context.config,
            max_retries=self._max_retries,
            read_timeout=self._read_timeout,
            jitter=self._jitter,
            sleep=self._sleep,
            tracer=self.tracer,
        )
        if self._connect_at_start:
            self._connected()

    def _connected(self) -> tuple[ProviderRouter, httpx.AsyncClient]:
        """The router, with the HTTP client every provider's requests go through."""
        if self._router is None:
            raise KernelError(f"{self.name} was asked before it started")
        if self._http is None:
            http = self._given_http
            if http is None:
                http = self._owned_http = self._make_http(self._router)
            self._router.connect(http)
            self._http = http
        return self._router, self._http

    def _make_http(self, router: ProviderRouter) -> httpx.AsyncClient:
        from actors.proxies import http_client

        # HTTP_PROXY / HTTPS_PROXY / NO_PROXY apply, from the environment this client was given.
        # A plain-http endpoint (a local model server) never does TLS, and redirects are
        # not followed, so loading the certificate store (~30 ms) would be wasted start-up.
        # (Not when a proxy is set: the hop to an https proxy must still be verified.)
        proxied = any(k.lower().endswith("_proxy") and v for k, v in self._env.items())
        plain = router.plain_http() and not proxied
        return http_client(self._env, verify=not plain)

    async def on_stop(self) -> None:
        # A client passed in belongs to the caller; only the one made here is closed here.
        if self._owned_http is not None:
            await self._owned_http.aclose()
            self._owned_http = None

    async def handle(self, msg: ModelClientMsg, reply: Reply) -> None:
        match msg:
            case StreamMessage(request=request):
                router, _ = self._connected()
                await router.stream(request, reply.sender(msg))
            case DescribeProvider(model=model):
                from actors.model_client.checks import describe

                if self._config is None:
                    raise KernelError(f"{self.name} was asked before it started")
                await reply.answer(msg, describe(model, self._env, self._config))
            case ProbeApi(model=model, timeout=timeout):
                from actors.model_client.checks import probe

                router, http = self._connected()
                await reply.answer(msg, await probe(router, http, model, timeout))
