"""Tab completion: ``/commands`` at the start of the input, fuzzy ``@path`` anywhere.

The paths are the tool executor's to list (``ListFiles``), under the permission rules: the
session fills the list in the background and the completer reads it as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.completion import Completer, Completion

from actors.visible import one_line
from frontends.interactive.slash_commands import COMMANDS

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

MAX_FILES = 20_000  # paths asked of the tool executor for @path completion
MAX_SHOWN = 40


def fuzzy_score(query: str, candidate: str) -> tuple[int, int, int] | None:
    """Lower is better; ``None`` when ``query``'s letters are not all in ``candidate`` in order.

    Ranks a contiguous match first, then a tight scattered one, then shorter paths.
    """
    q = query.lower()
    c = candidate.lower()
    if not q:
        return (0, 0, len(c))
    at = c.find(q)
    if at >= 0:
        # A match in the file name beats one in a folder name.
        return (0, 0 if at >= c.rfind("/") else 1, len(c))
    start = position = -1
    for letter in q:
        position = c.find(letter, position + 1)
        if position < 0:
            return None
        if start < 0:
            start = position
    return (1, position - start, len(c))


class LegatoCompleter(Completer):
    def __init__(
        self,
        files: Callable[[], Sequence[str]],
        skills: Callable[[], Sequence[tuple[str, str]]] = lambda: (),
    ) -> None:
        # Both read at completion time: the lists are filled in the background.
        self._files = files
        self._skills = skills  # ("/name", description) of the project's skills and patterns

    def get_completions(self, document: Document, event: CompleteEvent) -> Iterable[Completion]:
        # prompt_toolkit draws the menu itself: it shows ESC as ^[ but passes a bidirectional
        # override or a zero-width space to the terminal, and a skill's description or a file's
        # name is the repository's text: each is shown on one line, escaped.
        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            for name, what in [*COMMANDS.items(), *self._skills()]:
                if name.startswith(before.lower()):
                    yield Completion(
                        name, -len(before), display=one_line(name), display_meta=one_line(what)
                    )
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if not word.startswith("@"):
            return
        query = word[1:]
        scored = []
        for path in self._files():
            score = fuzzy_score(query, path)
            if score is not None:
                scored.append((score, path))
        scored.sort()
        for _, path in scored[:MAX_SHOWN]:
            yield Completion("@" + path, -len(word), display=one_line(path))
