"""The Agent SDK's ``hooks`` option read into hook groups: what is usable kept, what is not left
out with a problem naming the field, nothing raised whatever comes over the pipe; and the groups,
given as ``Overrides.hooks``, in the session's context after the files' hooks, approved."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actors.memory_store import Overrides, load_context, read_sdk_hooks
from actors.protocol import HookCommand, HookGroup

if TYPE_CHECKING:
    from tests.memory_store.conftest import Dirs

SOURCE = "the Agent SDK's hooks option"


def command(callback: str, *, timeout: float = 60.0, block: bool = False) -> HookCommand:
    return HookCommand(
        command=f"Agent SDK callback {callback}",
        timeout=timeout,
        callback=callback,
        block_on_failure=block,
    )


def test_the_sdks_initialize_hooks_become_callback_groups() -> None:
    groups, problems = read_sdk_hooks(
        {
            "PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 30},
                {"matcher": None, "hookCallbackIds": ["hook_2"], "onFailure": "block"},
            ],
            "Stop": [
                {"matcher": "ignored", "hookCallbackIds": ["hook_3"], "onFailure": "continue"}
            ],
        }
    )
    assert problems == []
    assert groups == (
        HookGroup(
            event="PreToolUse",
            matcher="Bash",
            hooks=(command("hook_0", timeout=30.0), command("hook_1", timeout=30.0)),
            source=SOURCE,
        ),
        HookGroup(
            event="PreToolUse", matcher="", hooks=(command("hook_2", block=True),), source=SOURCE
        ),
        HookGroup(event="Stop", matcher="", hooks=(command("hook_3"),), source=SOURCE),
    )


def test_no_hooks() -> None:
    assert read_sdk_hooks(None) == ((), [])
    assert read_sdk_hooks({}) == ((), [])


@pytest.mark.parametrize(
    ("hooks", "problem"),
    [
        ([], "hooks: must be an object of hook events, not a list"),
        ("PreToolUse", "hooks: must be an object of hook events, not 'PreToolUse'"),
        (
            {"PreToolUse": {"matcher": "Bash"}},
            "hooks.PreToolUse: must be a list of matchers, not an object",
        ),
        ({"PreToolUse": [7]}, "hooks.PreToolUse[0]: must be an object with hookCallbackIds, not 7"),
        (
            {"PreToolUse": [{"matcher": 5, "hookCallbackIds": ["h"]}]},
            "hooks.PreToolUse[0].matcher: must be a string or null, not 5",
        ),
        (
            {"PreToolUse": [{"matcher": "(Bash", "hookCallbackIds": ["h"]}]},
            "hooks.PreToolUse[0].matcher: '(Bash' is not a valid regular expression: missing ), ",
        ),
        (
            {"PreToolUse": [{"matcher": "a{99999999999}", "hookCallbackIds": ["h"]}]},
            "hooks.PreToolUse[0].matcher: 'a{99999999999}' is not a valid regular expression: ",
        ),
        (
            {"PreToolUse": [{"matcher": "(" * 5000 + ")" * 5000, "hookCallbackIds": ["h"]}]},
            "hooks.PreToolUse[0].matcher: '((((((((",
        ),
        (
            {"PreToolUse": [{"matcher": "Bash"}]},
            "hooks.PreToolUse[0].hookCallbackIds: must be a list",
        ),
        (
            {"PreToolUse": [{"hookCallbackIds": "hook_0"}]},
            "hooks.PreToolUse[0].hookCallbackIds: must be a list of callback ids, not 'hook_0'",
        ),
    ],
)
def test_what_cannot_be_used_is_left_out_and_named(hooks: Any, problem: str) -> None:
    groups, problems = read_sdk_hooks(hooks)
    assert groups == ()
    (said,) = problems
    assert said.startswith(problem)


def test_an_unknown_event_is_skipped_by_name_and_the_rest_kept() -> None:
    groups, problems = read_sdk_hooks(
        {
            "PermissionRequest": [{"hookCallbackIds": ["hook_0"]}],
            "Stop": [{"hookCallbackIds": ["hook_1"]}],
        }
    )
    assert [group.event for group in groups] == ["Stop"]
    (problem,) = problems
    assert problem.startswith("hooks: unknown hook event 'PermissionRequest' is skipped; ")


def test_bad_callback_ids_are_left_out_one_by_one() -> None:
    groups, problems = read_sdk_hooks({"Stop": [{"hookCallbackIds": ["ok", 3, "", None]}]})
    assert [hook.callback for group in groups for hook in group.hooks] == ["ok"]
    assert problems == [
        "hooks.Stop[0].hookCallbackIds[1]: must be a callback id, not 3",
        "hooks.Stop[0].hookCallbackIds[2]: must be a callback id, not ''",
        "hooks.Stop[0].hookCallbackIds[3]: must be a callback id, not null",
    ]


@pytest.mark.parametrize("timeout", ["30", 0, -1, float("nan"), float("inf"), True, [30]])
def test_a_bad_timeout_keeps_the_hook_with_the_default(timeout: object) -> None:
    groups, problems = read_sdk_hooks({"Stop": [{"hookCallbackIds": ["h"], "timeout": timeout}]})
    assert [hook.timeout for group in groups for hook in group.hooks] == [60.0]
    (problem,) = problems
    assert problem.startswith("hooks.Stop[0].timeout: must be a positive number of seconds, not ")


@pytest.mark.parametrize("failure", ["Block", 1, {}])
def test_an_unknown_on_failure_blocks_as_the_sdks_cli_reads_it(failure: object) -> None:
    groups, problems = read_sdk_hooks(
        {"PreToolUse": [{"hookCallbackIds": ["h"], "onFailure": failure}]}
    )
    assert [hook.block_on_failure for group in groups for hook in group.hooks] == [True]
    (problem,) = problems
    assert problem.startswith("hooks.PreToolUse[0].onFailure: ")


def test_a_long_hostile_value_is_shown_cut_short() -> None:
    _, problems = read_sdk_hooks({"x" * 10_000: []})
    (problem,) = problems
    assert len(problem) < 400


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=30,
)
EVENTS = st.sampled_from(["PreToolUse", "Stop", "SessionStart", "Nope"])
MATCHERS = st.fixed_dictionaries(
    {},
    optional={
        "matcher": st.none() | st.sampled_from(["Bash", "(", "*", "a{99999999999}"]) | JSON,
        "hookCallbackIds": st.lists(st.text(max_size=8) | JSON, max_size=3) | JSON,
        "timeout": JSON,
        "onFailure": st.sampled_from(["block", "continue"]) | JSON,
    },
)


@given(st.dictionaries(EVENTS, st.lists(MATCHERS | JSON, max_size=3) | JSON, max_size=4) | JSON)
def test_nothing_that_comes_over_the_pipe_makes_it_raise(hooks: Any) -> None:
    groups, problems = read_sdk_hooks(hooks)
    assert all(isinstance(problem, str) for problem in problems)
    for group in groups:
        assert all(hook.callback and hook.timeout > 0 for hook in group.hooks)


def test_the_frontends_hooks_follow_the_files_and_are_approved(dirs: Dirs) -> None:
    mine = {"Stop": [{"hooks": [{"type": "command", "command": "mine"}]}]}
    dirs.write_config(json.dumps({"hooks": mine}))
    theirs = {"Stop": [{"hooks": [{"type": "command", "command": "theirs"}]}]}
    dirs.settings.parent.mkdir(parents=True, exist_ok=True)
    dirs.settings.write_text(json.dumps({"hooks": theirs}))  # never approved, nor trusted
    sdk, _ = read_sdk_hooks({"Stop": [{"hookCallbackIds": ["hook_0"]}]})
    context = load_context(
        str(dirs.project), home=str(dirs.home), overrides=Overrides(hooks=sdk), env={}
    )
    assert [(g.hooks[0].command, g.approved) for g in context.hooks] == [
        ("mine", True),
        ("theirs", False),
        ("Agent SDK callback hook_0", True),
    ]
    assert context.hooks[-1].source == SOURCE
