"""What the policy puts to a person: a question, the choices it offers, and the refusals that
need no question (a blocked entry, plan mode).

A question offers ``y`` and ``n``, and ``always`` and ``never`` where a session key names what
those answers cover (``answers.py`` remembers them). A question only a yes or a no can answer
(``once``) is one the rules cannot vouch for: only a person may allow it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.protocol import Decision

if TYPE_CHECKING:
    from actors.permission_broker.rules import Judgement
    from actors.protocol import HowItRuns

# ("read", "inside"), ("write", "outside"), ("run", "git"), ("call", "mcp__git__status")
SessionKey = tuple[str, str]

FULL_CHOICES = ("y", "n", "always", "never")
ONCE_CHOICES = ("y", "n")

# How to leave Plan Mode: Shift+Tab in the terminal, the flag for a headless run.
LEAVE_PLAN = (
    "Leave Plan Mode to allow it: Shift+Tab in the terminal, or another --permission-mode "
    "(auto accepts edits inside the project)"
)

# How a question's denial says that nobody could be asked; ``_unasked`` puts why instead when a
# mode or an answer given already is the reason.
HEADLESS = "a headless run cannot ask"


@dataclass(frozen=True, slots=True)
class Question:
    """A request the rules leave to a person."""

    choices: tuple[str, ...]
    keys: tuple[SessionKey, ...]  # what 'always' and 'never' remember
    scope: str  # what those answers cover, in words: "running 'git'"
    headless_reason: str  # the denial when there is no one to ask
    warning: str | None = None  # shown with the question: why it needs particular care
    unconfined: bool = False  # a yes lets it run outside the sandbox (unconfinedCommands)
    confinement: HowItRuns | None = None  # for a command: in the sandbox or not
    # Only a person (or an entry naming it) may allow it, whatever the mode: what the rules
    # cannot vouch for (a yes for this one call only), a place outside the project, what
    # changes Legato's own files, what runs outside the sandbox.
    person_only: bool = False


def once(headless_reason: str, warning: str | None = None) -> Question:
    """A question that only a yes or a no can answer: nothing to remember for the session, and
    nothing the rules can vouch for, so only a person may allow it."""
    return Question(ONCE_CHOICES, (), "", headless_reason, warning, person_only=True)


def together(questions: list[Question]) -> Question:
    """One question for a line whose parts each need a person."""
    if len(questions) == 1:
        return questions[0]
    once_only = any(question.choices == ONCE_CHOICES for question in questions)
    keys = () if once_only else tuple(dict.fromkeys(k for q in questions for k in q.keys))
    scope = ", ".join(dict.fromkeys(q.scope for q in questions if q.scope))
    # Reasons that 'always' cannot answer come first: they are what the person must weigh.
    ordered = sorted(questions, key=lambda q: q.choices != ONCE_CHOICES)
    reasons = list(dict.fromkeys(question.headless_reason for question in ordered))
    warnings = list(dict.fromkeys(q.warning for q in ordered if q.warning))
    return Question(
        FULL_CHOICES if keys else ONCE_CHOICES,
        keys,
        scope if keys else "",
        " Also: ".join(reasons),
        " ".join(warnings) or None,
        person_only=any(question.person_only for question in questions),
    )


def blocked(settings_file: str, judgement: Judgement) -> Decision:
    """A blocked entry's refusal: it holds in every mode, whatever the person replies."""
    return Decision(
        False,
        judgement.reason,
        remedy=judgement.remedy
        or "A blocked entry holds in every mode and no reply overrides it; to allow "
        f"this, remove the entry from {settings_file}",
    )


def plan_refuses(what: str, why: str = "") -> Decision:
    """Plan mode's refusal of ``what``, with how to leave plan mode."""
    reason = f"plan mode is read-only: {what} is not allowed{why}"
    return Decision(False, reason, remedy=LEAVE_PLAN)
