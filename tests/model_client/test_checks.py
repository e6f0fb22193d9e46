"""What `legato config` and `legato doctor` ask the model client, by message: where a model's
requests would go, with which credentials and what stands in the way, and the probe."""

from __future__ import annotations

from actors.model_client import ModelClient
from actors.protocol import DescribeProvider, Finding, ProbeApi, ProbeReport, ProviderReport
from frontends.demo.scripted_api import ScriptedServer
from runtime import supervise
from tests.model_client.test_actor import FakeMemory

KEY = "sk-ant-test-checks-SECRET"


async def describe(model: str, env: dict[str, str], key: str | None = None) -> ProviderReport:
    memory = FakeMemory(key)
    client = ModelClient(memory.address, env=env, connect_at_start=False)
    async with supervise([memory, client]):
        return await client.address.ask(DescribeProvider(model=model))


async def test_the_anthropic_api_with_its_key_named_never_shown() -> None:
    env = {"ASSISTANT_API_KEY": KEY, "ASSISTANT_BASE_URL": "http://127.0.0.1:9/v1"}
    report = await describe("claude-sonnet-4-6", env)
    assert report == ProviderReport(
        provider="anthropic",
        base_url="http://127.0.0.1:9",
        credentials=("Anthropic API at http://127.0.0.1:9 with the key from ASSISTANT_API_KEY",),
    )


async def test_no_key_is_a_problem_with_the_remedy_a_request_would_give() -> None:
    report = await describe("claude-sonnet-4-6", {})
    assert report.problems == (
        Finding(
            "No API key is set: ASSISTANT_API_KEY, apiKey in ~/.config/legato/config.json and "
            "ANTHROPIC_API_KEY are all empty",
            "Set ASSISTANT_API_KEY to your API key: export ASSISTANT_API_KEY=<your key>",
        ),
    )


async def test_a_local_model_and_bedrock_without_a_region() -> None:
    local = await describe("openai:qwen2.5-coder", {"OPENAI_BASE_URL": "http://127.0.0.1:8080"})
    assert (local.provider, local.base_url, local.problems) == (
        "openai",
        "http://127.0.0.1:8080/v1",
        (),
    )
    cloud = {"CLOUD_ACCESS_KEY_ID": "AKID", "CLOUD_SECRET_ACCESS_KEY": "secret"}
    bedrock = await describe("claude-sonnet-4-6", cloud, key=KEY)
    assert bedrock.provider == "bedrock"
    assert bedrock.problems == (
        Finding(
            "CLOUD_ACCESS_KEY_ID is set, so Amazon Bedrock is used, but CLOUD_REGION is empty",
            "Set CLOUD_REGION to the Bedrock region, e.g. export CLOUD_REGION=us-east-1",
        ),
    )
    assert bedrock.credentials[1] == (
        "apiKey in ~/.config/legato/config.json is set but unused while CLOUD_ACCESS_KEY_ID is set"
    )


async def test_the_probe_connects_on_demand_and_judges_the_answer() -> None:
    with ScriptedServer([], api_key=KEY) as server:
        url = f"{server.url}/v1/messages"
        memory = FakeMemory(KEY)
        env = {"ASSISTANT_BASE_URL": server.url}
        client = ModelClient(memory.address, env=env, connect_at_start=False)
        async with supervise([memory, client]):
            good = await client.address.ask(ProbeApi(model="claude-sonnet-4-6"))
        memory = FakeMemory("sk-wrong")
        client = ModelClient(memory.address, env=env, connect_at_start=False)
        async with supervise([memory, client]):
            bad = await client.address.ask(ProbeApi(model="claude-sonnet-4-6"))
        assert len(server.requests) == 2
    assert good == ProbeReport(f"POST {url} -> HTTP 400: reachable, credentials accepted")
    assert bad == ProbeReport(
        f"POST {url} -> HTTP 401: the credentials were refused",
        # The key came from the config file (FakeMemory's), so the remedy sends the user there.
        Finding(
            f"the API at {url} refused the credentials (HTTP 401)",
            "Check apiKey in ~/.config/legato/config.json, then set it again there "
            "(or set ASSISTANT_API_KEY, which is used before it)",
        ),
    )
