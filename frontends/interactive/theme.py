"""Colours for the two themes of the global config's ``theme`` field: dark and light.

One palette feeds both libraries: rich styles for what is printed, and a prompt_toolkit style
for the input line and the status line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.styles import Style as PromptStyle
    from rich.theme import Theme as RichTheme


@dataclass(frozen=True, slots=True)
class Palette:
    name: str
    code_theme: str  # a pygments style for highlighted code
    accent: str
    muted: str
    good: str
    bad: str
    warn: str
    added: str
    removed: str
    hunk: str

    def rich_theme(self) -> RichTheme:
        from rich.theme import Theme

        return Theme(
            {
                "legato.accent": f"bold {self.accent}",
                "legato.muted": self.muted,
                "legato.good": self.good,
                "legato.bad": self.bad,
                "legato.warn": self.warn,
                "legato.added": self.added,
                "legato.removed": self.removed,
                "legato.hunk": self.hunk,
                "markdown.code": f"bold {self.accent}",
                "markdown.h1": f"bold underline {self.accent}",
                "markdown.h2": f"bold {self.accent}",
                "markdown.link": self.accent,
            }
        )

    def prompt_style(self) -> PromptStyle:
        from prompt_toolkit.styles import Style

        return Style.from_dict(
            {
                "prompt": f"bold {_pt(self.accent)}",
                "question": f"bold {_pt(self.warn)}",
                "status": _pt(self.muted),
                "status.mode": f"bold {_pt(self.warn)}",
                "status.hint": f"italic {_pt(self.muted)}",
                "status.alert": f"bold {_pt(self.bad)}",
            }
        )


def _pt(colour: str) -> str:
    # prompt_toolkit spells ANSI colour names "ansired"; rich spells them "red".
    return colour if colour.startswith("#") else f"ansi{colour.replace('bright_', 'bright')}"


DARK = Palette(
    name="dark",
    code_theme="monokai",
    accent="cyan",
    muted="#8a8a8a",
    good="green",
    bad="red",
    warn="yellow",
    added="green",
    removed="red",
    hunk="cyan",
)
LIGHT = Palette(
    name="light",
    code_theme="friendly",
    accent="blue",
    muted="#6c6c6c",
    good="#008700",
    bad="#af0000",
    warn="#875f00",
    added="#008700",
    removed="#af0000",
    hunk="blue",
)


def palette(theme: str) -> Palette:
    return LIGHT if theme == "light" else DARK
