"""Command rules: ``allowedCommands`` / ``blockedCommands`` entries (spec 2.4).

An entry matches a simple command when the command's words begin with the entry's words:
``git status`` matches ``git status -s`` but not ``git statusx`` nor ``git push``. A ``*`` in
an entry matches within one word (``npm run *`` matches ``npm run test``). Entries are split
into words the way a shell would (``grep "a b"`` is two words).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from actors.permission_broker.shell import SimpleCommand

# Commands that run their arguments as another command. A blocked entry is also checked
# against what follows them, so that 'sudo rm -rf x' or 'xargs rm' does not slip past a
# blocked 'rm'. Only blocked rules look through them: allowing 'sudo' is the user's call.
WRAPPERS = frozenset(
    {
        "builtin", "command", "doas", "env", "exec", "ionice", "nice", "nohup", "setsid",
        "stdbuf", "sudo", "time", "timeout", "unbuffer", "watch", "xargs",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class CommandEntry:
    text: str  # as the user wrote it, for messages
    words: tuple[re.Pattern[str], ...]

    @classmethod
    def parse(cls, text: str) -> CommandEntry:
        try:
            words = shlex.split(text)
        except ValueError:  # the memory store rejects these; split plainly to be safe anyway
            words = text.split()
        return cls(text, tuple(_word_pattern(word) for word in words))

    def matches(self, words: Sequence[str | None]) -> bool:
        """The command's words begin with this entry's; an unknown word matches nothing."""
        return self._match(words, unknown=False)

    def could_match(self, words: Sequence[str | None]) -> bool:
        """Whether it would match if the unknown words took suitable values."""
        return self._match(words, unknown=True)

    def _match(self, words: Sequence[str | None], *, unknown: bool) -> bool:
        if not self.words or len(words) < len(self.words):
            return False  # an empty entry matches nothing rather than everything
        return all(
            unknown if word is None else bool(pattern.fullmatch(word))
            for pattern, word in zip(self.words, words, strict=False)
        )


def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in word.split("*")), re.DOTALL)


def blockable_forms(command: SimpleCommand) -> Iterator[tuple[str | None, ...]]:
    """The word sequences a blocked entry is checked against.

    The command as written; with a path-named program reduced to its name ('/bin/rm' is
    'rm'); and, behind a wrapper, every tail of its arguments ('sudo -u x rm -rf y' has the
    tail 'rm -rf y'). Looking at every tail errs on the side of blocking.
    """
    words = command.words
    yield words
    tails = [words]
    name = command.name
    if name is not None and os.path.basename(name) in WRAPPERS:
        tails += [words[start:] for start in range(1, len(words))]
        yield from tails[1:]
    for tail in tails:
        head = tail[0] if tail else None
        if head is not None and "/" in head:
            yield (os.path.basename(head), *tail[1:])
