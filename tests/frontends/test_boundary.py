"""The permission boundary end to end: the rules users write, tried by a hostile model.

A real ``legato --headless`` process in auto mode, the scripted server playing a model that asks
for every file it should not see, and the requests it receives checked for the secret: whatever
the tool, nothing blocked reaches the model.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

SECRET = "TOPSECRET-7f3a"
FILES = ("certs/server.pem", "sub/id.key", "sub/secrets/a.txt", "deep/a/b/token.pem")

RULE_SETS: list[tuple[str, ...]] = [
    ("*.pem", "*.key", "secrets/"),
    ("**/*.{pem,key}", "secrets"),
    ("[!a]*.key", "*.pem", "secrets/"),
    ("./certs/server.pem", "/sub/", "**/b.txt", "deep/**/token.pem"),
]


def sent_to_model(requests: list[Any]) -> str:
    return "\n".join(json.dumps(request.body["messages"]) for request in requests)


@pytest.mark.parametrize("blocked", RULE_SETS, ids=lambda rules: " ".join(rules))
def test_no_blocked_file_reaches_the_model_through_read(
    project: Project, blocked: tuple[str, ...]
) -> None:
    for name in FILES:
        project.write(name, f"{SECRET} in {name}\n")
    project.write("src/ok.py", "print('fine')\n")
    project.settings(permissionMode="auto", blockedPaths=list(blocked))
    reads = [call("Read", {"file_path": name}) for name in (*FILES, "src/ok.py")]
    steps = [tool_calls(reads), text("done")]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "read all", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    seen = sent_to_model(requests)
    assert SECRET not in seen
    assert "print('fine')" in seen  # the allowed file did arrive: the run itself worked
    denials = json.loads(done.stdout)["permission_denials"]
    assert sorted(d["tool_input"]["file_path"] for d in denials) == sorted(FILES)


def test_a_block_with_an_exception_is_refused_at_load(project: Project) -> None:
    project.settings(permissionMode="auto", blockedPaths=["secrets/", "!secrets/public.txt"])
    with ScriptedServer([text("never sent")]) as server:
        done = project.legato(server.url, "--headless", "hi")
        assert server.requests == []
    assert done.returncode == 2
    assert "blockedPaths[1]" in done.stderr
    assert "'!' (an exception) is not accepted in blockedPaths" in done.stderr
    assert "Traceback" not in done.stderr
