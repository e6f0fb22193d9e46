"""--max-budget-usd stops a run before the request that would take its spend over the budget;
--fallback-model goes on with another model once the model is overloaded past the retries."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import pytest

from actors.models import ModelInfo, cost_usd, resolve_model
from actors.protocol import Usage
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.demo.scripted_api.steps import error

if TYPE_CHECKING:
    from frontends.demo.scripted_api.steps import RecordedRequest, Step
    from tests.frontends.conftest import Project

SONNET = resolve_model("sonnet")
HAIKU = resolve_model("haiku")
OPUS = resolve_model("opus")
# 10K tokens in and 1K out: $0.045 and more at sonnet's list prices (the scripted server adds
# what prompt caching wrote), which the result's usage says.
USAGE = {"input_tokens": 10_000, "output_tokens": 1_000}


def _priced(model: ModelInfo, result: dict[str, Any]) -> float:
    usage = result["usage"]
    fields = (
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    )
    cost = cost_usd(model, Usage(**{f: usage.get(f, 0) for f in fields}))
    assert cost is not None
    return cost


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def _read_call() -> Any:
    return tool_calls([call("Read", {"file_path": "notes.txt"}, id="r1")], usage=USAGE)


def test_the_request_that_would_pass_the_budget_is_not_sent(project: Project) -> None:
    project.write("notes.txt", "hello\n")
    # $0.045 spent by the first answer; the next request's input alone (the system prompt and
    # the tools are several thousand tokens, at $3 a million) takes it over $0.05.
    with ScriptedServer([_read_call(), text("never asked for")]) as server:
        done = project.legato(
            server.url, "-p", "read notes.txt", "--model", "sonnet",
            "--output-format", "json", "--max-budget-usd", "0.05",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1, done.stderr
    (result,) = _lines(done.stdout)
    assert result["subtype"] == "error_max_budget_usd"
    assert result["is_error"] is True
    assert result["total_cost_usd"] == pytest.approx(_priced(SONNET, result))
    assert result["total_cost_usd"] < 0.06
    assert "--max-budget-usd" in result["error"]
    assert len(requests) == 1
    # The conversation is one the API accepts: the call is answered. The scripted server
    # checks every request as the API does, and a budget-free --continue sends it whole.
    with ScriptedServer([text("done")]) as server:
        again = project.legato(server.url, "-p", "--continue", "go on")
        (request,) = server.requests
    assert again.returncode == 0, again.stderr
    *_, called, answered = request.body["messages"]
    assert called["content"][-1]["type"] == "tool_use"
    assert answered["content"][0]["tool_use_id"] == "r1"
    assert answered["content"][-1]["text"] == "go on"


def test_a_budget_that_is_not_reached_changes_nothing(project: Project) -> None:
    project.write("notes.txt", "hello\n")
    with ScriptedServer([_read_call(), text("it says hello", usage=USAGE)]) as server:
        done = project.legato(
            server.url, "-p", "read notes.txt", "--model", "sonnet",
            "--output-format", "json", "--max-budget-usd", "1",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (result,) = _lines(done.stdout)
    assert result["subtype"] == "success"
    assert result["total_cost_usd"] == pytest.approx(_priced(SONNET, result))
    assert result["total_cost_usd"] > 0.09


def test_an_overloaded_model_falls_back_for_the_rest_of_the_run_only(project: Project) -> None:
    project.settings(model="opus")  # the session's model: not a flag, which is not saved
    overloaded = error(529, should_retry=False)  # as after the client's last retry
    with ScriptedServer([overloaded, text("haiku here", usage=USAGE)]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--fallback-model", "haiku",
            "--output-format", "stream-json", "--verbose",
        )  # fmt: skip
        models = [r.body["model"] for r in server.requests]
    assert done.returncode == 0, done.stderr
    assert models == [OPUS.id, HAIKU.id]
    lines = _lines(done.stdout)
    (notice,) = [line for line in lines if line.get("subtype") == "notice"]
    assert f"fallback model {HAIKU.id}" in notice["text"]
    assert OPUS.id in notice["text"]
    result = lines[-1]
    assert result["subtype"] == "success"
    assert list(result["modelUsage"]) == [HAIKU.id]
    # Priced at haiku's rates, the model that answered.
    assert result["total_cost_usd"] == pytest.approx(_priced(HAIKU, result))
    # The session's model is still opus: going on with it starts there again.
    with ScriptedServer([text("opus again")]) as server:
        again = project.legato(server.url, "-p", "--continue", "more", "--fallback-model", "haiku")
        (request,) = server.requests
    assert again.returncode == 0, again.stderr
    assert request.body["model"] == OPUS.id


def test_overloaded_in_the_stream_falls_back_unless_part_of_the_answer_came(
    project: Project,
) -> None:
    said = ("overloaded_error", "Overloaded")
    before_any = text("lost", stream_error=said, error_after=1)  # just after message_start
    with ScriptedServer([before_any, text("haiku here")]) as server:
        done = project.legato(server.url, "-p", "hi", "--fallback-model", "haiku")
        models = [r.body["model"] for r in server.requests]
    assert done.returncode == 0, done.stderr
    assert models == [SONNET.id, HAIKU.id]
    assert f"going on with the fallback model {HAIKU.id}" in done.stderr
    # Part of the answer came (and is kept): another model would say it again.
    with ScriptedServer([text("half an answer", stream_error=said), text("unused")]) as server:
        done = project.legato(server.url, "-p", "hi", "--fallback-model", "haiku")
        requests = server.requests
    assert done.returncode == 1
    assert len(requests) == 1
    assert "overloaded_error" in done.stderr


def test_a_rate_limit_is_not_a_reason_to_fall_back(project: Project) -> None:
    with ScriptedServer([error(429, should_retry=False)]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--model", "sonnet", "--fallback-model", "haiku",
            "--output-format", "json",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1
    assert len(requests) == 1
    assert "fallback" not in done.stderr


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (["--max-budget-usd", "-1"], "--max-budget-usd '-1' is not a positive number"),
        (["--max-budget-usd", "nan"], "--max-budget-usd 'nan' is not a positive number"),
        (["--max-budget-usd", "ten"], "--max-budget-usd 'ten' is not a positive number"),
        (
            ["--max-budget-usd", "1", "--model", "openai:llama"],
            "--max-budget-usd cannot be kept with openai:llama: its prices are not known",
        ),
        (
            ["--model", "sonnet", "--fallback-model", "claude-sonnet-4-6"],
            "--fallback-model claude-sonnet-4-6 is the same model as --model sonnet",
        ),
        (["--fallback-model", "sonet"], "unknown model 'sonet'"),
        (
            ["--fallback-model", "sonnet,haiku"],
            "--fallback-model 'sonnet,haiku' names several models; Legato falls back to one",
        ),
        (
            ["--model", "sonnet", "--fallback-model", "openai:llama"],
            "--fallback-model openai:llama is served by another provider than --model sonnet",
        ),
    ],
)
def test_a_bad_value_is_a_usage_error_naming_it(
    project: Project, flags: list[str], said: str
) -> None:
    done = project.legato("http://127.0.0.1:9", "-p", "hi", *flags)
    assert done.returncode == 2
    assert said in done.stderr
    assert "Traceback" not in done.stderr


def test_a_subagents_spend_counts_and_its_requests_are_held_too(project: Project) -> None:
    agent = {"description": "look", "prompt": "task look", "subagent_type": "general-purpose"}
    big = {"input_tokens": 20_000, "output_tokens": 10}  # $0.06 at sonnet's $3 a million

    def model(request: RecordedRequest) -> Step:
        opening = request.body["messages"][0]["content"][0]["text"]
        if opening == "task look":  # the subagent's own conversation
            if len(request.body["messages"]) == 1:
                return tool_calls([call("Glob", {"pattern": "*"}, id="g1")], usage=big)
            return text("the agent went on past the budget")
        if len(request.body["messages"]) == 1:
            return tool_calls([call("Agent", agent, id="a1")])
        return text("the main conversation went on past the budget")

    with ScriptedServer(model) as server:
        done = project.legato(
            server.url, "-p", "look around", "--model", "sonnet",
            "--output-format", "json", "--max-budget-usd", "0.05",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1, done.stderr
    (result,) = _lines(done.stdout)
    assert result["subtype"] == "error_max_budget_usd"
    assert result["total_cost_usd"] > 0.06  # the subagent's answer, counted
    # The main conversation's first request and the subagent's; neither went on.
    assert len(requests) == 2


def test_a_budget_with_a_settings_model_of_unknown_prices_is_refused(project: Project) -> None:
    # A newer model id than this release knows: accepted as a model, but without prices.
    project.settings(model="claude-future-9")
    with ScriptedServer([text("never asked for")]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--output-format", "json", "--max-budget-usd", "1"
        )
        requests = server.requests
    assert done.returncode == 1
    (result,) = _lines(done.stdout)
    assert result["is_error"] is True
    assert "--max-budget-usd cannot be kept with claude-future-9" in result["error"]
    assert requests == []


def test_a_fallback_that_is_the_sessions_own_model_is_refused_before_any_request(
    project: Project,
) -> None:
    # Chosen by the settings (by its alias), or the default: it could never be switched to.
    project.settings(model="haiku")
    with ScriptedServer([error(529, should_retry=False)]) as server:
        chosen = project.legato(server.url, "-p", "hi", "--fallback-model", "claude-haiku-4-5")
        (project.root / ".legato" / "settings.json").unlink()
        default = project.legato(server.url, "-p", "hi", "--fallback-model", "sonnet")
        requests = server.requests
    assert requests == []
    assert chosen.returncode == 2, chosen.stderr
    assert "--fallback-model claude-haiku-4-5-20251001 is the session's own model" in chosen.stderr
    assert "such as --fallback-model sonnet" in chosen.stderr
    assert default.returncode == 2, default.stderr
    assert "is the session's own model" in default.stderr
    assert "Traceback" not in chosen.stderr + default.stderr


def test_the_estimate_prices_input_as_prompt_caching_bills_it(project: Project) -> None:
    # The first request writes its whole prompt to the cache, at 1.25 times the input price:
    # a budget between the two prices must stop it before it is sent.
    with ScriptedServer([text("never asked for")]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--model", "sonnet",
            "--output-format", "json", "--max-budget-usd", "0.0072",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1, done.stderr
    assert _lines(done.stdout)[0]["subtype"] == "error_max_budget_usd"
    assert requests == []
    # A large prompt read back from the cache costs a tenth of its input price: the budget is
    # not spent on what the cache already holds. Priced at the full input price, the third
    # request (~27K tokens, $0.08) would not fit in what the first two ($0.10) leave of $0.15.
    project.write("big.txt", "".join(f"{n:05} {'word ' * 18}\n" for n in range(1500)))
    steps = [
        tool_calls([call("Read", {"file_path": "big.txt"}, id="r1")]),
        tool_calls([call("Glob", {"pattern": "*.txt"}, id="g1")]),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "-p", "read big.txt", "--model", "sonnet", "--allowedTools", "Read,Glob",
            "--output-format", "json", "--max-budget-usd", "0.15",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    (result,) = _lines(done.stdout)
    assert result["usage"]["cache_read_input_tokens"] > 25_000
    assert len(requests) == 3
    assert result["total_cost_usd"] < 0.15


def test_a_fallback_of_another_provider_than_the_settings_model_is_said_unused(
    project: Project,
) -> None:
    # --model would have been refused at the start; the settings' model is seen only later.
    project.settings(model="haiku")
    with ScriptedServer([error(529, should_retry=False)]) as server:
        done = project.legato(server.url, "-p", "hi", "--fallback-model", "openai:llama")
        requests = server.requests
    assert done.returncode == 1
    assert len(requests) == 1
    assert "--fallback-model openai:llama is not used: it is served by another provider" in (
        done.stderr
    )


def test_a_fallback_overloaded_too_ends_the_run_saying_both_failed(project: Project) -> None:
    overloaded = error(529, should_retry=False)
    with ScriptedServer([overloaded, overloaded, text("never asked for")]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--model", "sonnet", "--fallback-model", "haiku",
            "--output-format", "json",
        )  # fmt: skip
        models = [r.body["model"] for r in server.requests]
    assert done.returncode == 1
    assert models == [SONNET.id, HAIKU.id]  # once each: no going back and forth
    said = _lines(done.stdout)[0]["error"]
    assert f"the fallback model {HAIKU.id} failed too, after {SONNET.id}" in said
    assert "--model haiku" not in said  # the remedy does not name the model that failed


def test_a_model_the_api_does_not_have_falls_back_too(project: Project) -> None:
    # A retired model: the API answers 404 not_found_error, as the reference falls back for.
    gone = error(404, message="model: claude-3-opus-20240229")
    with ScriptedServer([gone, text("haiku here")]) as server:
        done = project.legato(
            server.url, "-p", "hi", "--model", "claude-3-opus-20240229",
            "--fallback-model", "haiku", "--output-format", "json",
        )  # fmt: skip
        models = [r.body["model"] for r in server.requests]
    assert done.returncode == 0, done.stderr
    assert models == ["claude-3-opus-20240229", HAIKU.id]
    assert f"going on with the fallback model {HAIKU.id}" in done.stderr


def test_subagents_side_by_side_hold_their_requests_against_the_budget(project: Project) -> None:
    def agent(n: int) -> dict[str, str]:
        kind = "general-purpose"
        return {"description": f"look {n}", "prompt": f"task {n}", "subagent_type": kind}

    def model(request: RecordedRequest) -> Step:
        opening = request.body["messages"][0]["content"][0]["text"]
        if opening.startswith("task"):  # a subagent's conversation
            return text(f"{opening} done")
        if len(request.body["messages"]) == 1:
            return tool_calls([call("Agent", agent(n), id=f"a{n}") for n in (1, 2, 3)])
        return text("the main conversation went on past the budget")

    # The first request costs ~$0.008, each subagent's first ~$0.005: room for one of them.
    # The others are not sent, although neither the main answer nor that one is counted yet.
    with ScriptedServer(model) as server:
        done = project.legato(
            server.url, "-p", "look around", "--model", "sonnet",
            "--output-format", "json", "--max-budget-usd", "0.014",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1, done.stderr
    (result,) = _lines(done.stdout)
    assert result["subtype"] == "error_max_budget_usd"
    openings = [r.body["messages"][0]["content"][0]["text"] for r in requests]
    subagents = [opening for opening in openings if opening.startswith("task")]
    assert len(subagents) == 1, subagents
    assert result["total_cost_usd"] < 0.014 + 0.002  # at most the last answer's output over


def test_a_search_request_past_the_budget_is_not_sent(project: Project) -> None:
    from frontends.demo.scripted_api import web_search

    # What the first request's input costs, as the budget estimates it (to the 4 decimals the
    # error gives): a budget just over it lets that request go and no more.
    with ScriptedServer([text("never asked for")]) as server:
        probe = project.legato(
            server.url, "-p", "search", "--model", "sonnet", "--allowedTools", "WebSearch",
            "--output-format", "json", "--max-budget-usd", "1e-9",
        )  # fmt: skip
    first = float(re.findall(r"would cost about \$([0-9.]+)", _lines(probe.stdout)[0]["error"])[0])
    # A search's own request goes to the session's model: with this query, ~$0.0007 more.
    query = "python release notes " * 23
    results = [("Title", "https://example.com/a", "1 day ago")]
    steps = [
        tool_calls([call("WebSearch", {"query": query}, id="s1")]),
        web_search(query, results),
        text("never asked for"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "-p", "search", "--model", "sonnet", "--allowedTools", "WebSearch",
            "--output-format", "json", "--max-budget-usd", f"{first + 0.00015:.6f}",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1, done.stderr
    (result,) = _lines(done.stdout)
    assert result["subtype"] == "error_max_budget_usd"
    assert len(requests) == 1  # the main request only: no search was sent
    # The call is answered: --continue goes on from there.
    with ScriptedServer([text("done")]) as server:
        again = project.legato(server.url, "-p", "--continue", "go on")
        (request,) = server.requests
    assert again.returncode == 0, again.stderr
    answered = request.body["messages"][-1]["content"][0]
    assert answered["tool_use_id"] == "s1"
    assert "Not searched: stopped before the next request" in str(answered["content"])
