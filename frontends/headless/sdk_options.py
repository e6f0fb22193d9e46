"""The Agent SDK's options, as its command line gives them, turned into a stream session's
options (docs/sdk.md says what each one means here).

The SDK's options are the reference's flags, so they are read as every command line's are
(``from_flags``, frontends/session_options.py): ``allowed_tools`` and ``disallowed_tools`` become
permission rules in the reference's syntax, which the permission broker matches. What is left
here is what only the SDK's protocol has: the mode kept in the SDK's words for the init line, the
questions put to the program, and the options named as not acted on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from frontends.headless.sdk_session import SdkOptions
from frontends.session_options import from_flags
from frontends.startup.sdk_flags import ignored_options

if TYPE_CHECKING:
    import argparse


def sdk_options(args: argparse.Namespace, project: str, resumed: str | None) -> SdkOptions:
    """The options, once frontends/startup/checks.py has checked the flags."""
    # The mode stays in the SDK's words (the init line reports it so); the session gets it as
    # Legato's, in the overrides, once it is assembled (frontends/headless/sdk_session.py).
    session = msgspec.structs.replace(from_flags(args, project, resumed), permission_mode=None)
    return SdkOptions(
        session,
        permission_mode=args.permission_mode or "default",
        ask_program=args.permission_prompt_tool == "stdio",
        unsupported=tuple(ignored_options(args)),
        replay_user_messages=args.replay_user_messages,
    )
