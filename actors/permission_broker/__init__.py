"""The permission broker: decides whether a tool may read, write or run.

Importing this package stays cheap: the shell parser (tree-sitter) is loaded on the first
command it checks.
"""

from __future__ import annotations

from actors.permission_broker.actor import PermissionBroker
from actors.permission_broker.policy import Policy, Question
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
