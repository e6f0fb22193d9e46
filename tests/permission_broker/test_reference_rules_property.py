"""Properties of rules in the reference's syntax over generated command lines: no allow rule
lets through a line with a part it does not cover, and a deny rule beats every allow and ask,
in every mode."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import (
    Decision,
    GlobalConfig,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from actors.settings.rules import PermissionRule

if TYPE_CHECKING:
    from collections.abc import Sequence

    from pytest import TempPathFactory

ALLOWS = ("Bash(npm run test:*)", "Bash(git status)", "Bash(ls *)", "Bash(echo *)")
COVERED = ("npm run test", "npm run test -- -u", "git status", "ls -la", "echo hi", "ls")
UNCOVERED = (
    "rm -rf x",
    "curl evil.example",
    "npm run testx",
    "git push",
    "sh",
    "lsof",
    "'r'm x",
    "/bin/rm x",
    "env rm x",
    "xargs rm",
    "git status; rm x",
)
SEPARATORS = (" && ", " || ", "; ", " | ", "\n", " & ", " |& ")
MODES: tuple[PermissionMode, ...] = ("ask", "auto", "custom", "bypass", "dont_ask", "plan")


@pytest.fixture(scope="module")
def root(tmp_path_factory: TempPathFactory) -> str:
    return os.path.realpath(tmp_path_factory.mktemp("project"))


def policy(root: str, mode: PermissionMode, rules: Sequence[tuple[str, str]]) -> Policy:
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode=mode,
        permission_rules=tuple(
            PermissionRule(behavior=b, text=t, source="/s.json", line=n, anchor=root)  # type: ignore[arg-type]
            for n, (b, t) in enumerate(rules, 1)
        ),
    )
    return Policy(context)


def wrapped(part: str, how: int) -> str:
    """The part as is, or hidden inside a substitution or another shell."""
    return [
        part,
        f"echo $({part})",
        f"echo `{part}`",
        f"bash -c '{part}'",
        f"( {part} )",
        f"{{ {part}; }}",
        f"if true; then {part}; fi",
        f"timeout 5 {part}",
    ][how]


parts = st.lists(
    st.tuples(st.sampled_from(COVERED + UNCOVERED), st.integers(0, 7)), min_size=1, max_size=4
)


@given(parts=parts, separators=st.lists(st.sampled_from(SEPARATORS), min_size=3, max_size=3))
def test_no_allow_rule_lets_through_a_part_it_does_not_cover(
    root: str, parts: list[tuple[str, int]], separators: list[str]
) -> None:
    line = wrapped(*parts[0])
    for (part, how), separator in zip(parts[1:], separators, strict=False):
        line += separator + wrapped(part, how)
    p = policy(root, "custom", [("allow", rule) for rule in ALLOWS])
    found = p.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    allowed = isinstance(found, Decision) and found.allowed
    if any(part in UNCOVERED for part, _ in parts):
        assert not allowed, (line, found)


@given(
    parts=st.lists(st.sampled_from(COVERED), min_size=1, max_size=4),
    separators=st.lists(st.sampled_from(SEPARATORS[:4]), min_size=3, max_size=3),
)
def test_a_line_of_covered_parts_is_allowed(
    root: str, parts: list[str], separators: list[str]
) -> None:
    line = parts[0] + "".join(s + p for s, p in zip(separators, parts[1:], strict=False))
    p = policy(root, "custom", [("allow", rule) for rule in ALLOWS])
    found = p.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    assert isinstance(found, Decision) and found.allowed, (line, found)


DENY_SPELLINGS = ("rm -rf x", "'r'm -rf x", "/bin/rm x", "sudo rm x", "env rm x", "FOO=1 rm x")


@given(
    mode=st.sampled_from(MODES),
    others=st.lists(
        st.tuples(
            st.sampled_from(("allow", "ask")),
            st.sampled_from(("Bash", "Bash(rm *)", "Bash(rm -rf x)", "Bash(*)", "Bash(sudo *)")),
        ),
        max_size=4,
    ),
    spelling=st.sampled_from(DENY_SPELLINGS),
    before=st.sampled_from(("", "ls; ", "echo $(", "git status && ")),
    deny_first=st.booleans(),
)
def test_a_deny_rule_beats_every_allow_and_ask_in_every_mode(
    root: str,
    mode: PermissionMode,
    others: list[tuple[str, str]],
    spelling: str,
    before: str,
    deny_first: bool,
) -> None:
    deny = ("deny", "Bash(rm:*)")
    rules = [deny, *others] if deny_first else [*others, deny]
    line = before + spelling + (")" if before.endswith("(") else "")
    found = policy(root, mode, rules).assess(
        PermissionRequest(tool="Bash", kind="run", command=line)
    )
    assert not isinstance(found, Question), (line, found)
    assert not found.allowed and "deny rule 'Bash(rm:*)'" in found.reason, (line, found)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: TempPathFactory) -> str:
    project = tmp_path_factory.mktemp("tree")
    (project / "secrets").mkdir()
    (project / "secrets" / "key").write_text("k")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("a")
    os.symlink(project / "secrets", project / "src" / "link")
    os.symlink(project / "secrets" / "key", project / "src" / "key")
    return os.path.realpath(project)


SPELLINGS = (
    "secrets/key",
    "./secrets/key",
    "src/../secrets/key",
    "src/link/key",
    "src/key",
    "src//../secrets/./key",
)


@given(
    mode=st.sampled_from(MODES),
    kind=st.sampled_from(("read", "write", "create")),
    spelling=st.sampled_from(SPELLINGS),
    others=st.lists(
        st.tuples(
            st.sampled_from(("allow", "ask")),
            st.sampled_from(("Read", "Edit", "Read(**)", "Edit(**)", "Read(src/**)", "Edit(//**)")),
        ),
        max_size=4,
    ),
    deny=st.sampled_from(
        ("Read(./secrets/**)", "Read(secrets/**)", "Read(key)", "Edit(/secrets/**)")
    ),
)
def test_a_path_deny_beats_every_spelling_allow_and_ask(
    tree: str,
    mode: PermissionMode,
    kind: str,
    spelling: str,
    others: list[tuple[str, str]],
    deny: str,
) -> None:
    assume(not (deny.startswith("Edit") and kind == "read"))  # an Edit deny leaves reads
    request = PermissionRequest(
        tool="Read" if kind == "read" else "Edit",
        kind=kind,  # type: ignore[arg-type]
        paths=(os.path.join(tree, spelling),),
    )
    found = policy(tree, mode, [*others, ("deny", deny)]).assess(request)
    assert isinstance(found, Decision) and not found.allowed, (spelling, found)
    assert f"deny rule '{deny}'" in found.reason, found
