"""Pasted images and files as tokens in the input: ``[Image #N]``, ``[PDF #N]``.

Ctrl+V puts the clipboard's image at the cursor as a token; a pasted path of an image or PDF
that exists becomes one too. A prompt takes what the tokens it still holds stand for, so
deleting a token drops its image or file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.errors import LegatoError

if TYPE_CHECKING:
    from actors.protocol import Block
    from frontends.interactive.screen import Screen
    from frontends.interactive.view import TurnView


class Pastes:
    """The pasted tokens: part of ``InteractiveSession``, which sets the fields."""

    view: TurnView
    screen: Screen
    root: str
    # Images pasted from the clipboard, by the token that stands for each in the input.
    pasted: dict[str, Block]
    pasted_files: dict[str, str]  # token: the absolute path of a pasted file
    _paste_wanted: anyio.Event

    def _paste_wanted_set(self) -> None:
        self._paste_wanted.set()

    async def _paste_images(self) -> None:
        """Ctrl+V: the clipboard's image becomes ``[Image #N]`` at the cursor."""
        from frontends.interactive import clipboard

        while True:
            await self._paste_wanted.wait()
            self._paste_wanted = anyio.Event()
            name = self._next_token("Image")
            try:
                prepared = await clipboard.read_image(name)
            except LegatoError as error:
                self.view.note("warning", error.describe())
            else:
                self.pasted[name] = prepared.block
                self.screen.buffer.insert_text(name)
                self.view.note("info", f"{name}: {prepared.describe()}")
            self.screen.changed()

    def _pasted_text(self, data: str) -> str:
        """A pasted path of an image or PDF that exists becomes ``[Image #N]`` (``[PDF #N]``),
        attached on submit as ``@path`` is; any other paste is itself."""
        from frontends.interactive.pasted import pasted_path, path_kind

        path = pasted_path(data, self.root)
        kind = None if path is None else path_kind(path)
        if path is None or kind is None:
            return data
        token = self._next_token(kind)
        self.pasted_files[token] = path
        return token

    def _next_token(self, kind: str) -> str:
        """``[Image #3]``: numbered across the session, clipboard and pasted paths alike."""
        count = sum(1 for t in (*self.pasted, *self.pasted_files) if t.startswith(f"[{kind} "))
        return f"[{kind} #{count + 1}]"

    def _pasted_in(self, text: str) -> tuple[Block, ...]:
        """The pasted images whose tokens ``text`` holds, in the order it names them."""
        found = sorted((text.find(name), name) for name in self.pasted if name in text)
        return tuple(self.pasted[name] for _, name in found)
