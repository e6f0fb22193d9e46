"""The model client actor: answers ``StreamMessage`` with the API's answer as ``ModelEvent``s.

httpx is imported when the actor starts, not when this module is imported, so that paths that
never talk to the model (``--version``, ``--help``) do not pay for it.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING

import anyio

from actors.protocol import GetContext, ModelClientMsg, StreamMessage
from runtime import Actor, KernelError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    import httpx

    from actors.model_client.providers.router import ProviderRouter
    from actors.protocol import MemoryStoreMsg
    from runtime import Address, Reply


class ModelClient(Actor[ModelClientMsg]):
    name = "model_client"

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
        self._client: ProviderRouter | None = None

    async def on_start(self) -> None:
        import httpx

        from actors.model_client.providers.router import ProviderRouter

        context = await self._memory.ask(GetContext())
        # Each request goes to its model's provider: Anthropic, Bedrock or an OpenAI-compatible
        # server (providers/).
        router = ProviderRouter(
            self._env,
            context.config,
            max_retries=self._max_retries,
            read_timeout=self._read_timeout,
            jitter=self._jitter,
            sleep=self._sleep,
            tracer=self.tracer,
        )
        http = self._given_http
        if http is None:
            # trust_env: HTTP_PROXY / HTTPS_PROXY / NO_PROXY apply (spec 5, "Proxy").
            # A plain-http endpoint (a local model server) never does TLS, and redirects are
            # not followed, so loading the certificate store (~30 ms) would be wasted start-up.
            # (Not when a proxy is set: the hop to an https proxy must still be verified.)
            proxied = any(k.lower().endswith("_proxy") and v for k, v in self._env.items())
            plain = router.plain_http() and not proxied
            http = self._owned_http = httpx.AsyncClient(trust_env=True, verify=not plain)
        router.connect(http)
        self._client = router

    async def on_stop(self) -> None:
        # A client passed in belongs to the caller; only the one made here is closed here.
        if self._owned_http is not None:
            await self._owned_http.aclose()
            self._owned_http = None

    async def handle(self, msg: ModelClientMsg, reply: Reply) -> None:
        match msg:
            case StreamMessage(request=request):
                if self._client is None:
                    raise KernelError(f"{self.name} got {type(msg).__name__} before it started")
                await self._client.stream(request, reply.sender(msg))
