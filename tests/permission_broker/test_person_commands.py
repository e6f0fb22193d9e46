"""A command the person typed (``!cmd``): what the rules would ask them runs unasked, while
blocks, deny rules, plan mode and what only a person may allow each time hold as for the
model's Bash."""

from __future__ import annotations

import msgspec
import pytest

from actors.permission_broker.questions import Question
from actors.protocol import Decision, PermissionRequest, ProjectSettings
from tests.permission_broker.test_reference_rules import outcome, policy, root, run

__all__ = ["root"]


def typed(command: str, **fields: object) -> PermissionRequest:
    return msgspec.structs.replace(run(command), typed_by_person=True, **fields)


@pytest.mark.parametrize("mode", ["ask", "custom", "dont_ask"])
def test_what_the_model_would_be_asked_runs_unasked(root: str, mode: str) -> None:
    p = policy(root, mode)  # type: ignore[arg-type]
    assert outcome(p, run("make build")) in ("asks", "denied")
    decided = p.assess(typed("make build"))
    assert decided == Decision(True, "the person typed this command")


def test_deny_rules_and_blocked_commands_still_refuse(root: str) -> None:
    p = policy(
        root, "ask", settings=ProjectSettings(blocked_commands=("curl",)), deny=("Bash(rm *)",)
    )
    assert outcome(p, typed("rm -rf src")) == "denied"
    assert outcome(p, typed("curl https://example.com")) == "denied"
    assert outcome(p, typed("ls && rm src/app.ts")) == "denied"


def test_plan_mode_still_refuses_commands(root: str) -> None:
    assert outcome(policy(root, "plan"), typed("make build")) == "denied"


def test_what_only_a_person_may_allow_is_still_asked(root: str) -> None:
    p = policy(root, "ask", ask=("Bash(git push *)",))
    found = p.assess(typed("git push origin main"))
    assert isinstance(found, Question) and found.person_only
    # Outside the sandbox, on the model's say-so or the person's: a question each time.
    unconfined = p.assess(typed("make build", unconfined=True))
    assert isinstance(unconfined, Question) and unconfined.person_only
