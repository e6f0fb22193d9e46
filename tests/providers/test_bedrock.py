"""Amazon Bedrock end to end on loopback: the client signs with botocore, the server verifies with
an independent SigV4 implementation and answers in AWS event-stream frames built by hand."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import httpx
import pytest

from actors.errors import AuthenticationError, StreamFailed
from actors.model_client.providers import credentials, provider_for
from actors.model_client.providers.bedrock import REMEDY_CLOUD
from actors.model_client.providers.router import ProviderRouter
from actors.protocol import (
    GlobalConfig,
    Message,
    MessageFinished,
    ModelEvent,
    ModelRequest,
    TextDelta,
    Usage,
)
from tests.providers import eventstream
from tests.providers.loopback import Loopback, Request, Response
from tests.providers.sigv4 import verify

if TYPE_CHECKING:
    from collections.abc import Iterator

ACCESS = "AKIDEXAMPLE0000"
SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
REGION = "eu-west-3"
HELLO = [Message("user", [{"type": "text", "text": "hi"}])]


class Bedrock:
    """A loopback Bedrock: verifies each request's signature, then plays ``frames``."""

    def __init__(self, frames: list[bytes], *, split: int = 7) -> None:
        self.frames = frames
        self.split = split
        self.problems: list[str] = []
        self.server = Loopback(self.answer)

    def answer(self, request: Request) -> Response:
        problem = verify(
            request, access_key=ACCESS, secret=SECRET, region=REGION, service="bedrock"
        )
        if problem:
            self.problems.append(problem)
            body = json.dumps({"message": f"The request signature is wrong: {problem}"}).encode()
            headers = {
                "content-type": "application/json",
                "x-amzn-ErrorType": "InvalidSignatureException:http://internal",
            }
            return Response(403, headers, [body])
        data = b"".join(self.frames)
        # Bytes cut at odd places: the decoder must buffer partial frames.
        pieces = [data[i : i + self.split] for i in range(0, len(data), self.split)]
        return Response(200, {"content-type": "application/vnd.amazon.eventstream"}, pieces)


@pytest.fixture
def bedrock() -> Iterator[Bedrock]:
    server = Bedrock(
        [eventstream.chunk(e) for e in eventstream.answer_events("Hello from Bedrock")]
    )
    with server.server:
        yield server


def cloud_env(url: str, **extra: str) -> dict[str, str]:
    return {
        "CLOUD_ACCESS_KEY_ID": ACCESS,
        "CLOUD_SECRET_ACCESS_KEY": SECRET,
        "CLOUD_REGION": REGION,
        "ASSISTANT_BEDROCK_URL": url,
        "ASSISTANT_API_KEY": "sk-unused",
        **extra,
    }


async def stream(
    env: dict[str, str], model: str = "haiku", speed: str | None = None
) -> list[ModelEvent]:
    events: list[ModelEvent] = []

    async def emit(event: ModelEvent) -> None:
        events.append(event)

    async with httpx.AsyncClient(trust_env=False) as http:
        router = ProviderRouter(env, GlobalConfig(), max_retries=0)
        router.connect(http)
        request = ModelRequest(model=model, max_tokens=64, messages=HELLO, speed=speed)  # type: ignore[arg-type]
        await router.stream(request, emit)
    return events


async def test_a_signed_request_streams_the_answer(bedrock: Bedrock) -> None:
    events = await stream(cloud_env(bedrock.server.url))
    assert bedrock.problems == []
    [sent] = bedrock.server.requests
    assert (
        sent.path == "/model/anthropic.claude-haiku-4-5-20251001-v1%3A0/invoke-with-response-stream"
    )
    body = json.loads(sent.body)
    assert body["anthropic_version"] == "bedrock-2023-05-31"
    assert "model" not in body and "stream" not in body and "anthropic_beta" not in body
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]
    assert "x-api-key" not in sent.headers  # the Anthropic key is not sent to AWS
    assert TextDelta(0, "Hello from Bedrock") in events
    block = {"type": "text", "text": "Hello from Bedrock"}
    assert events[-1] == MessageFinished(Message("assistant", [block]), "end_turn", Usage(9, 3))


async def test_a_wrong_secret_is_rejected_with_the_cloud_remedy(bedrock: Bedrock) -> None:
    env = cloud_env(bedrock.server.url, CLOUD_SECRET_ACCESS_KEY="not-the-secret")
    with pytest.raises(AuthenticationError) as info:
        await stream(env)
    assert bedrock.problems == ["the signature does not match"]
    assert "InvalidSignatureException" in info.value.message
    assert info.value.remedy == REMEDY_CLOUD
    assert "not-the-secret" not in info.value.describe()


async def test_a_session_token_is_sent_and_signed(bedrock: Bedrock) -> None:
    await stream(cloud_env(bedrock.server.url, CLOUD_SESSION_TOKEN="token-123"))
    assert bedrock.problems == []
    [sent] = bedrock.server.requests
    assert sent.headers["x-amz-security-token"] == "token-123"
    assert "x-amz-security-token" in sent.headers["authorization"]


async def test_fast_mode_and_inference_profiles(bedrock: Bedrock) -> None:
    await stream(cloud_env(bedrock.server.url, CLOUD_MODEL_PREFIX="global"), "opus", "fast")
    assert bedrock.problems == []
    [sent] = bedrock.server.requests
    assert sent.path == "/model/global.anthropic.claude-opus-4-6-v1/invoke-with-response-stream"
    assert json.loads(sent.body)["anthropic_beta"] == ["fast-mode-2026-02-01"]


def test_the_verifier_rejects_a_tampered_body() -> None:
    """The check above could pass by accepting anything; it does not."""
    seen: list[Request] = []

    def answer(request: Request) -> Response:
        seen.append(request)
        return Response(500, {}, [])

    from actors.model_client.providers.bedrock import BedrockClient, bedrock_endpoint

    env = cloud_env("http://127.0.0.1:9")
    unused = httpx.AsyncClient(trust_env=False)  # prepare() sends nothing
    client = BedrockClient(unused, bedrock_endpoint(env), env=env)
    url, body, headers = client.prepare(ModelRequest(model="sonnet", max_tokens=8, messages=HELLO))
    path = url.removeprefix("http://127.0.0.1:9")
    lower = {k.lower(): v for k, v in headers.items()} | {"host": "127.0.0.1:9"}
    good = Request("POST", path, lower, body)
    assert verify(good, access_key=ACCESS, secret=SECRET, region=REGION, service="bedrock") == ""
    tampered = Request("POST", path, lower, body.replace(b"hi", b"ho"))
    assert verify(tampered, access_key=ACCESS, secret=SECRET, region=REGION, service="bedrock")
    assert verify(good, access_key=ACCESS, secret=SECRET, region="us-east-1", service="bedrock")
    unsigned_host = Request("POST", path, lower | {"host": "evil:9"}, body)
    assert verify(unsigned_host, access_key=ACCESS, secret=SECRET, region=REGION, service="bedrock")


async def test_an_exception_frame_is_a_stream_failure() -> None:
    events = eventstream.answer_events("partial")
    frames = [eventstream.chunk(e) for e in events[:3]]
    frames.append(eventstream.exception("throttlingException", "Too many tokens"))
    server = Bedrock(frames)
    with server.server, pytest.raises(StreamFailed, match="throttlingException: Too many tokens"):
        await stream(cloud_env(server.server.url))


async def test_a_corrupt_frame_is_a_stream_failure() -> None:
    good = eventstream.chunk(eventstream.answer_events("x")[0])
    corrupt = good[:-1] + bytes([good[-1] ^ 0xFF])  # the message checksum no longer matches
    server = Bedrock([corrupt])
    with server.server, pytest.raises(StreamFailed, match="event-stream frame"):
        await stream(cloud_env(server.server.url))


async def test_without_a_region_the_message_names_the_variable() -> None:
    env = cloud_env("http://127.0.0.1:9")
    del env["CLOUD_REGION"]
    with pytest.raises(AuthenticationError, match="CLOUD_REGION is empty"):
        await stream(env)


def test_cloud_credentials_select_bedrock_and_are_named_not_shown() -> None:
    env = cloud_env("http://x")
    assert provider_for("sonnet", env) == "bedrock"
    assert provider_for("openai:llama3", env) == "openai"
    assert provider_for("sonnet", {"ASSISTANT_API_KEY": "k"}) == "anthropic"
    lines = credentials("sonnet", env, GlobalConfig())
    assert lines[0] == (
        f"Amazon Bedrock with CLOUD_ACCESS_KEY_ID and CLOUD_SECRET_ACCESS_KEY, region {REGION}"
    )
    assert "ASSISTANT_API_KEY is set but unused" in lines[1]
    assert all(SECRET not in line and ACCESS not in line for line in lines)
