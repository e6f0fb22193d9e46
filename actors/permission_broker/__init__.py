"""The permission broker: decides whether a tool may read, write or run.

Importing this package stays cheap: the rules (the policy and its modules) are loaded on the
first check, and the shell parser (its module, its wrapper tables and tree-sitter) on the first
command it checks; their names below are imported when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.permission_broker.actor import PermissionBroker

if TYPE_CHECKING:
    from actors.permission_broker.policy import Policy
    from actors.permission_broker.questions import Question
    from actors.permission_broker.rules import Judgement, Rules
    from actors.permission_broker.shell import CommandLine, SimpleCommand, parse_command_line

__all__ = [
    "CommandLine",
    "Judgement",
    "PermissionBroker",
    "Policy",
    "Question",
    "Rules",
    "SimpleCommand",
    "parse_command_line",
]

_SHELL_NAMES = frozenset({"CommandLine", "SimpleCommand", "parse_command_line"})
_POLICY_NAMES = frozenset({"Policy"})
_RULES_NAMES = frozenset({"Judgement", "Rules"})


def __getattr__(name: str) -> object:
    if name in _SHELL_NAMES:
        from actors.permission_broker import shell

        return getattr(shell, name)
    if name in _POLICY_NAMES:
        from actors.permission_broker import policy

        return getattr(policy, name)
    if name == "Question":
        from actors.permission_broker import questions

        return questions.Question
    if name in _RULES_NAMES:
        from actors.permission_broker import rules

        return getattr(rules, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
