"""--json-schema: the model answers by calling StructuredOutput, the conductor checks the value
against the schema, tells the model what is wrong, and ends the prompt once it is right."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from actors.conductor.structured import MAX_RETRIES
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "stars": {"type": "integer", "minimum": 0}},
    "required": ["name", "stars"],
    "additionalProperties": False,
}
GOOD = {"name": "legato", "stars": 3}


def _answer(value: Any, id: str) -> Any:
    return tool_calls([call("StructuredOutput", value, id=id)])


def _result(stdout: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(stdout.splitlines()[-1])
    return result


def test_a_valid_value_is_the_result_and_ends_the_prompt(project: Project) -> None:
    with ScriptedServer([_answer(GOOD, "s1")]) as server:
        done = project.legato(
            server.url, "--headless", "rate it", "--output-format", "json",
            "--json-schema", json.dumps(SCHEMA),
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    result = _result(done.stdout)
    assert result["subtype"] == "success"
    assert result["structured_output"] == GOOD
    # Offered with the schema as its input; no request follows the valid value.
    (offered,) = [t for t in requests[0].body["tools"] if t["name"] == "StructuredOutput"]
    assert offered["input_schema"] == SCHEMA
    assert len(requests) == 1


def test_an_off_schema_value_is_answered_with_its_errors_then_corrected(
    project: Project,
) -> None:
    schema = project.write("schema.json", json.dumps(SCHEMA))
    script = [_answer({"name": "legato", "stars": -1, "extra": 1}, "s1"), _answer(GOOD, "s2")]
    with ScriptedServer(script) as server:
        done = project.legato(
            server.url, "--headless", "rate it", "--output-format", "stream-json",
            "--json-schema", str(schema),
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    result = _result(done.stdout)
    assert result["type"] == "result"
    assert result["structured_output"] == GOOD
    (told,) = requests[1].body["messages"][-1]["content"]
    assert told["is_error"] is True
    assert "$.stars: -1 is less than the minimum of 0" in told["content"]
    assert "'extra' was unexpected" in told["content"]


def test_text_output_prints_the_value_as_json(project: Project) -> None:
    with ScriptedServer([_answer(GOOD, "s1")]) as server:
        done = project.legato(
            server.url, "--headless", "rate it", "--json-schema", json.dumps(SCHEMA)
        )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == GOOD


def test_never_valid_ends_as_an_error_naming_the_last_problems(project: Project) -> None:
    # Off-schema twice, then an answer without the call: three misses.
    bad = {"name": 7, "stars": 1}
    script = [_answer(bad, "s1"), _answer(bad, "s2"), text("here you go")]
    assert len(script) == MAX_RETRIES
    with ScriptedServer(script) as server:
        done = project.legato(
            server.url, "--headless", "rate it", "--output-format", "json",
            "--json-schema", json.dumps(SCHEMA),
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 1
    result = _result(done.stdout)
    assert result["is_error"] is True
    assert result["subtype"] == "error_max_structured_output_retries"
    assert "StructuredOutput" in result["error"]
    assert "structured_output" not in result
    assert len(requests) == MAX_RETRIES


def test_a_bad_schema_is_a_usage_error_before_any_request(project: Project) -> None:
    cases = {
        "{not json": "--json-schema: not JSON",
        '{"type": "nothing"}': "--json-schema: not a valid JSON Schema",
        "missing.json": "--json-schema missing.json: neither inline JSON nor a readable file",
        "[1]": "--json-schema [1]: neither inline JSON",
        # No schema is fetched: a reference out of the schema is refused, not followed.
        '{"$ref": "http://127.0.0.1:9/s.json"}': "--json-schema: a $ref cannot be resolved",
        '{"$ref": "#/$defs/missing"}': "--json-schema: a $ref cannot be resolved",
        # Deep in the schema, where a trial value never reaches: found all the same.
        '{"type": "object", "properties": {"a": {"$ref": "#/nope"}}}': (
            "--json-schema: a $ref cannot be resolved"
        ),
    }
    with ScriptedServer([]) as server:
        for given, said in cases.items():
            done = project.legato(server.url, "--headless", "go", "--json-schema", given)
            assert done.returncode == 2, given
            assert said in done.stderr, done.stderr
            assert "Traceback" not in done.stderr
        # The terminal has no result to hold the value.
        done = project.legato(server.url, "--json-schema", "{}")
        assert done.returncode == 2
        assert "--json-schema works only in a headless run" in done.stderr
        assert server.requests == []


def test_an_answer_without_the_call_is_told_to_make_it(project: Project) -> None:
    with ScriptedServer([text("It has 3 stars."), _answer(GOOD, "s1")]) as server:
        done = project.legato(
            server.url, "--headless", "rate it", "--output-format", "json",
            "--json-schema", json.dumps(SCHEMA),
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert _result(done.stdout)["structured_output"] == GOOD
    told = requests[1].body["messages"][-1]["content"][-1]["text"]
    assert "by calling the StructuredOutput tool" in told
