"""How the transcript draws what rich draws differently: markdown, code and diffs.

Markdown as a terminal transcript reads it (headings at the left edge, an image with its
address, HTML shown as written); a code block's lexer, looked up once per language; and a
diff's lines coloured by what they do, cut after ``DIFF_LINES``.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, ClassVar

from rich.markdown import Heading, ImageItem, Markdown
from rich.syntax import Syntax
from rich.text import Text

from actors.counts import counted

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
    from rich.markdown import MarkdownElement

DIFF_LINES = 40  # diff lines shown for an edit before "… more"


class _LeftHeading(Heading):
    # rich centres a level-1 heading; in a terminal transcript every other line starts at the
    # left edge, and a centred title reads as part of some other program's output.
    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = dict.fromkeys(Heading.LEVEL_ALIGN, "left")


class _Image(ImageItem):
    # rich shows an image as its title alone when links are off; a link shows its address
    # after its text, and so does an image: the person sees where each points.
    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        title = self.text or Text(self.destination.strip("/").rsplit("/", 1)[-1])
        yield Text.assemble("🌆 ", title, f" ({self.destination}) ", end="")


class TranscriptMarkdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
        "image": _Image,
    }

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)
        # rich draws nothing for HTML, so a comment (<!-- ... -->) or a tag's contents would be
        # text the model wrote and the person never sees. A terminal draws no HTML: it is
        # shown as written, a block as a code block.
        for token in self.parsed:
            if token.type == "html_block":
                token.type = "code_block"
            for child in token.children or ():
                if child.type == "html_inline":
                    child.type = "text"


@functools.cache
def lexer(language: str) -> Any:
    # Looking a lexer up by name costs more than highlighting a line: once per language.
    return Syntax("", language or "text").lexer or "text"


def diff_text(diff: str) -> Text:
    """A diff's lines, coloured by what each does, cut after ``DIFF_LINES`` saying how many."""
    lines = diff.rstrip("\n").split("\n")
    text = Text()
    for line in lines[:DIFF_LINES]:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "legato.added"
        elif line.startswith("-"):
            style = "legato.removed"
        elif line.startswith("@@"):
            style = "legato.hunk"
        else:
            style = ""
        text.append(f"    {line}\n", style=style)
    if len(lines) > DIFF_LINES:
        more = counted(len(lines) - DIFF_LINES, "more line")
        text.append(f"    … {more}\n", style="legato.muted")
    text.rstrip()
    return text
