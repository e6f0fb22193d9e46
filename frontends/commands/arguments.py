"""What the subcommands share to start: their parser (a usage error exits 2 with the remedy, as
every Legato command's does), the session flags they take (``--model``, ``--permission-mode``)
and the session options those flags describe."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, NoReturn

from frontends.errors_out import report
from frontends.startup.flags import PERMISSION_MODES, permission_mode

if TYPE_CHECKING:
    from collections.abc import Mapping

    from frontends.session_options import SessionOptions


class Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with the remedy line, as every Legato command's do."""

    def error(self, message: str) -> NoReturn:
        from actors.errors import UsageError

        remedy = f"Run '{self.prog} --help' for the flags"
        self.exit(report(UsageError(message, remedy=remedy), program=self.prog))


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = Parser(prog=prog, description=description)
    parser.add_argument("project_path", nargs="?", default=None, help="project (default: here)")
    parser.add_argument("--model", help="as the session flag: an alias or a model id")
    parser.add_argument(
        "--permission-mode",
        type=permission_mode,
        choices=PERMISSION_MODES,
        help="as the session flag",
    )
    return parser


def session_options(args: argparse.Namespace, env: Mapping[str, str]) -> SessionOptions:
    """What a session with these flags would be built from (a subcommand's ``--model`` and
    ``--permission-mode`` are the session's)."""
    from actors.permission_modes import SDK_MODES, from_sdk
    from frontends.session_options import SessionOptions

    if args.permission_mode in SDK_MODES:  # given by the Agent SDK's name
        args.permission_mode = from_sdk(args.permission_mode)
    return SessionOptions(
        project_root=os.path.abspath(args.project_path or os.getcwd()),
        model=args.model,
        permission_mode=args.permission_mode,
        env=env,
        home=env.get("HOME"),
    )
