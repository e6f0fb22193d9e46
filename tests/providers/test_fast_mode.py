"""Fast mode on the request side and in pricing: the body field and beta header, the speed the
API says it ran (usage.speed), 6x pricing only when it ran fast, and the notice when it did not."""

from __future__ import annotations

import json

import pytest

from actors.model_client.assembler import MessageAssembler
from actors.model_client.endpoint import Endpoint
from actors.model_client.http import encode_body, request_headers
from actors.model_client.sse import ServerSentEvent
from actors.models import cost_usd, resolve_model, speed_notice
from actors.protocol import Message, MessageFinished, ModelRequest, Usage
from tests.providers.eventstream import answer_events

HELLO = [Message("user", [{"type": "text", "text": "hi"}])]


def test_a_fast_request_carries_the_field_and_the_beta_header() -> None:
    request = ModelRequest(model="claude-opus-4-6", max_tokens=8, messages=HELLO, speed="fast")
    assert json.loads(encode_body(request))["speed"] == "fast"
    headers = request_headers(Endpoint("https://api.test", "k"), request)
    assert headers["anthropic-beta"] == "fast-mode-2026-02-01"
    plain = ModelRequest(model="claude-opus-4-6", max_tokens=8, messages=HELLO)
    assert "speed" not in json.loads(encode_body(plain))
    assert "anthropic-beta" not in request_headers(Endpoint("https://api.test", "k"), plain)


@pytest.mark.parametrize("speed", ["fast", "standard", None])
def test_the_speed_the_api_reports_reaches_the_usage(speed: str | None) -> None:
    assembler = MessageAssembler()
    for event in answer_events("ok", speed=speed):
        assembler.feed(ServerSentEvent(event["type"], json.dumps(event)))
    finished = assembler.end()
    assert isinstance(finished, MessageFinished)
    assert finished.usage == Usage(9, 3, speed=speed)


def test_a_sum_keeps_the_latest_speed() -> None:
    assert (Usage(1, 1, speed="fast") + Usage(1, 1)).speed == "fast"
    assert (Usage(1, 1, speed="fast") + Usage(1, 1, speed="standard")).speed == "standard"


def test_fast_mode_costs_six_times_only_when_it_ran_fast() -> None:
    opus = resolve_model("opus")
    standard = cost_usd(opus, Usage(1_000_000, 0))
    assert standard == 5.0
    assert cost_usd(opus, Usage(1_000_000, 0, speed="fast")) == 30.0
    assert cost_usd(opus, Usage(1_000_000, 0), fast=True) == 30.0  # no word from the API
    assert cost_usd(opus, Usage(1_000_000, 0, speed="standard"), fast=True) == 5.0


def test_the_user_is_told_when_fast_mode_did_not_happen() -> None:
    opus, haiku = resolve_model("opus"), resolve_model("haiku")
    ran_standard = speed_notice(opus, asked_fast=True, usage=Usage(speed="standard"))
    assert ran_standard is not None
    assert "standard speed" in ran_standard
    assert speed_notice(opus, asked_fast=True, usage=Usage(speed="fast")) is None
    assert speed_notice(opus, asked_fast=False, usage=Usage(speed="standard")) is None
    unavailable = speed_notice(haiku, asked_fast=True, usage=Usage())
    assert unavailable == (
        "fast mode is not available for haiku; it runs at standard speed (fast mode is for opus)"
    )
