"""The session's ``always`` and ``never``: what each answer covers, in words, and what the
answers given settle.

An answer is remembered under session keys (``questions.SessionKey``): ("run", "git") for
running git, ("read", "inside") for reading files inside the project. 'never' for any key of a
request denies it; 'always' for every key allows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import Decision, PermissionAnswer
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.permission_broker.questions import Question, SessionKey

# A web search has no host: one key covers every search of the session.
SEARCH_KEY = ("search", "the web")

# What undoes a 'never': the person's own reply, so only the person can.
FORGET_NEVER = "/permissions lists the reply; /permissions forget <number> removes it"


def answered(
    answers: dict[SessionKey, bool], question: Question, answer: str | PermissionAnswer
) -> Decision:
    """The person's reply to ``question``; an ``always`` or ``never`` is remembered in
    ``answers``."""
    match answer:
        case PermissionAnswer(choice="y", updated_input=updated_input):
            return Decision(True, "the user allowed it", updated_input=updated_input)
        case PermissionAnswer(choice="n", message=message, interrupt=interrupt):
            reason = "the user denied it" + (f": {message}" if message else "")
            return Decision(False, reason, message=message, interrupt=interrupt)
        case "y":
            return Decision(True, "the user allowed it")
        case "n":
            return Decision(False, "the user denied it")
        case "always" | "never" if answer in question.choices:
            allowed = answer == "always"
            for key in question.keys:
                answers[key] = allowed
            verb = "allowed" if allowed else "denied"
            return Decision(
                allowed,
                f"the user {verb} {question.scope} for this session",
                remedy=None if allowed else FORGET_NEVER,
            )
    return Decision(False, f"the answer {answer!r} is not one of the choices; taken as no")


def remembered(answers: dict[SessionKey, bool], keys: tuple[SessionKey, ...]) -> Decision | None:
    """'never' for any part denies; 'always' for every part allows."""
    if not keys:
        return None
    given = [answers.get(key) for key in keys]
    for key, answer in zip(keys, given, strict=True):
        if answer is False:
            return Decision(
                False,
                f"the user denied {describe(key)} for this session",
                remedy=FORGET_NEVER,
            )
    if all(given):
        scope = ", ".join(describe(key) for key in keys)
        return Decision(True, f"the user allowed {scope} for this session")
    return None


def describe(key: SessionKey) -> str:
    """What an answer under ``key`` covers, in words: "running 'git'"."""
    group, scope = key
    if group == "run":
        return f"running '{scope}'"
    if group == "call":
        return f"calling '{escape_controls(scope, newlines=True)}'"
    if group == "fetch":
        return f"fetching pages from {escape_controls(scope, newlines=True)}"
    if (group, scope) == SEARCH_KEY:
        return "searching the web"
    what = {"read": "reading files", "write": "editing existing files"}.get(
        group, "creating new files"
    )
    return f"{what} {scope} the project"
