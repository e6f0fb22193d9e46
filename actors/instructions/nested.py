"""The instruction files of a sub-folder, given to the model when it works there.

A ``CLAUDE.md`` (or ``AGENTS.md``, ``CLAUDE.local.md``, ``LEGATO.md``) in ``src/api/`` speaks
of that folder: it is loaded the first time one of the model's tool calls names a path in it
(or below it), once per conversation, and the model reads it with that call's result, as the
reference assistant gives it. Each conversation (the main one, each subagent's) has its own
``NestedGuides``, since each has its own context.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.instructions.loading import NESTED_FILES, Loading
from actors.places import within

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping

    from actors.protocol import GuideFile

# The tool inputs that name a path the model works in (Read, Edit, Write, Grep, Glob...).
_PATH_KEYS = ("file_path", "notebook_path", "path")


class NestedGuides:
    """Which sub-folders' files the conversation has been given; ``load`` gives the rest."""

    def __init__(
        self,
        root: str,
        home: str,
        *,
        blocked: Callable[[str], str | None] | None = None,
        approved: Collection[str] = (),
        loaded: Iterable[str] = (),
    ) -> None:
        self._root = os.path.realpath(root)
        self._home = home
        self._blocked = blocked
        self._approved = approved
        self._at_start = frozenset(os.path.realpath(path) for path in loaded)
        self._loaded = set(self._at_start)  # in the conversation: at start, or given since
        self._looked: set[str] = set()

    def forget(self) -> None:
        """The conversation lost what it was given (cleared, or compacted into a summary):
        the next call that works in a folder gives its files again."""
        self._loaded = set(self._at_start)
        self._looked.clear()

    def folders(self, inputs: Iterable[Mapping[str, object]]) -> list[str]:
        """The folders below the root that these calls' paths are in, not looked in yet:
        outermost first. No file is touched: most calls find none."""
        new: list[str] = []
        for given in inputs:
            for key in _PATH_KEYS:
                value = given.get(key)
                if isinstance(value, str) and value and "\0" not in value:
                    new += self._below_root(value, is_folder=key == "path")
        return list(dict.fromkeys(new))

    def _below_root(self, value: str, *, is_folder: bool) -> list[str]:
        path = os.path.normpath(os.path.join(self._root, os.path.expanduser(value)))
        folder = path if is_folder else os.path.dirname(path)
        if folder == self._root or not within(folder, self._root):
            return []
        chain: list[str] = []
        while folder != self._root:
            if folder not in self._looked:
                chain.append(folder)
            folder = os.path.dirname(folder)
        return chain[::-1]

    def load(self, folders: Iterable[str], warnings: list[str]) -> list[GuideFile]:
        """The files in these folders (and their imports) not given yet, outermost first.
        Blocks: run it in a worker thread."""
        loading = Loading(
            self._root, self._home, warnings, self._blocked, self._approved, seen=self._loaded
        )
        for folder in folders:
            self._looked.add(folder)
            for name, level in NESTED_FILES:
                loading.found(os.path.join(folder, name), level, self._root)
        self._loaded |= loading.seen
        return loading.files


def as_text(files: Iterable[GuideFile]) -> str:
    """How nested files follow a tool's result."""
    return "\n\n".join(
        f"Instructions from {file.path}, for work in "
        f"{os.path.dirname(file.imported_by or file.path)}:\n{file.text.strip()}"
        for file in files
    )
