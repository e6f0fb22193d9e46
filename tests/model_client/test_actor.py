"""The actor end to end: supervised, configured by the memory store, on trio and asyncio."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from actors.errors import AuthenticationError, ConnectionFailed, RequestRejected
from actors.model_client import ModelClient
from actors.protocol import (
    GetContext,
    GlobalConfig,
    MemoryStoreMsg,
    Message,
    MessageFinished,
    ModelEvent,
    ModelRequest,
    ProjectContext,
    ProjectSettings,
    StreamMessage,
    TextDelta,
)
from frontends.demo.scripted_api import ScriptedServer, error, text
from runtime import Actor, Reply, supervise

KEY = "sk-ant-test-actor-SECRET"
ASK = StreamMessage(
    request=ModelRequest(
        model="claude-sonnet-4-6",
        max_tokens=128,
        messages=[Message("user", [{"type": "text", "text": "hi"}])],
    )
)


class FakeMemory(Actor[MemoryStoreMsg]):
    name = "memory_store"

    def __init__(self, api_key: str | None) -> None:
        super().__init__()
        self.api_key = api_key

    async def handle(self, msg: MemoryStoreMsg, reply: Reply) -> None:
        match msg:
            case GetContext():
                await reply.answer(
                    msg,
                    ProjectContext(
                        project_root="/project",
                        config=GlobalConfig(api_key=self.api_key),
                        settings=ProjectSettings(),
                        model="claude-sonnet-4-6",
                        permission_mode="ask",
                    ),
                )


async def collect(client: ModelClient) -> list[ModelEvent]:
    async with client.address.stream(ASK) as events:
        return [event async for event in events]


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["trio", "asyncio"])
async def test_streams_a_message_with_the_key_from_the_config(anyio_backend: str) -> None:
    with ScriptedServer([text("Hello from the server.")], api_key=KEY) as server:
        memory = FakeMemory(KEY)
        client = ModelClient(memory.address, env={"ASSISTANT_BASE_URL": f"{server.url}/v1/"})
        async with supervise([memory, client]):
            events = await collect(client)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello from the server."
    finished = events[-1]
    assert isinstance(finished, MessageFinished)
    assert finished.message.content == [{"type": "text", "text": "Hello from the server."}]
    assert server.requests[0].path == "/v1/messages"
    assert KEY not in repr(client)


async def test_the_environment_key_wins_over_the_config() -> None:
    with ScriptedServer([text("ok")], api_key=KEY) as server:
        memory = FakeMemory("sk-ant-stale-config-key")
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": KEY}
        client = ModelClient(memory.address, env=env)
        async with supervise([memory, client]):
            assert isinstance((await collect(client))[-1], MessageFinished)


async def test_a_failure_reaches_the_caller_and_the_actor_lives_on() -> None:
    with ScriptedServer([error(400, message="max_tokens: too large"), text("ok")]) as server:
        memory = FakeMemory(KEY)
        client = ModelClient(memory.address, env={"ASSISTANT_BASE_URL": server.url})
        async with supervise([memory, client]):
            with pytest.raises(RequestRejected, match="max_tokens: too large"):
                await collect(client)
            assert isinstance((await collect(client))[-1], MessageFinished)


async def test_without_any_key_the_first_request_says_so() -> None:
    memory = FakeMemory(None)
    client = ModelClient(memory.address, env={"ASSISTANT_BASE_URL": "http://127.0.0.1:9"})
    async with supervise([memory, client]):
        with pytest.raises(AuthenticationError, match="No API key is set"):
            await collect(client)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["trio", "asyncio"])
async def test_leaving_the_stream_early_cancels_the_request(anyio_backend: str) -> None:
    slow = text(" ".join(["word"] * 40), delay=0.2)  # 8 s if it were played to the end
    with ScriptedServer([slow, text("next")]) as server:
        memory = FakeMemory(KEY)
        client = ModelClient(memory.address, env={"ASSISTANT_BASE_URL": server.url})
        async with supervise([memory, client]):
            async with client.address.stream(ASK) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        break
            # The actor handles one message at a time: this answer comes quickly only if the
            # abandoned request's handler was cancelled.
            with anyio.fail_after(3):
                assert isinstance((await collect(client))[-1], MessageFinished)


async def test_the_proxy_of_the_sessions_environment_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead_proxy = f"http://127.0.0.1:{sock.getsockname()[1]}"
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy", "HTTP_PROXY"):
        monkeypatch.delenv(name, raising=False)
    waits: list[float] = []

    async def no_wait(seconds: float) -> None:
        waits.append(seconds)

    with ScriptedServer([text("unreachable through the proxy")]) as server:
        memory = FakeMemory(KEY)
        env = {"ASSISTANT_BASE_URL": server.url, "HTTP_PROXY": dead_proxy}
        client = ModelClient(memory.address, env=env, sleep=no_wait)
        async with supervise([memory, client]):
            with pytest.raises(ConnectionFailed, match=server.url):
                await collect(client)
        assert server.requests == []  # everything went to the (dead) proxy
    assert len(waits) == 2


async def test_a_proxy_only_in_the_process_environment_is_not_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # legato --demo gives its session an environment without the proxy variables: the
    # process's own must not send the loopback request to the proxy anyway.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{sock.getsockname()[1]}")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedServer([text("straight to the server")]) as server:
        memory = FakeMemory(KEY)
        client = ModelClient(memory.address, env={"ASSISTANT_BASE_URL": server.url})
        async with supervise([memory, client]):
            events = await collect(client)
        assert len(server.requests) == 1
    assert isinstance(events[-1], MessageFinished)


def test_importing_the_package_does_not_import_httpx() -> None:
    code = "import sys, actors.model_client; print('httpx' in sys.modules)"
    root = Path(__file__).parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "False"
