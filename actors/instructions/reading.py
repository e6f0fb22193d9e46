"""One markdown file of Legato's own, read through the door, and its size in tokens."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.own_files import GUIDE_CAP, Refused, read_own

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

# Tokens are estimated, not counted: counting needs the model's tokenizer, or a request per
# file. English prose and code average close to four characters a token.
CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` takes: characters over four, rounded up."""
    return -(-len(text) // CHARS_PER_TOKEN)


def read_markdown(
    path: str,
    max_lines: int | None,
    warnings: list[str],
    *,
    inside: Sequence[str] = (),
    blocked: Callable[[str], str | None] | None = None,
) -> str | None:
    """A markdown file's text (its first ``max_lines`` lines), or None when absent.

    Read through the door for Legato's own files, its real path inside ``inside`` (the
    file's own folder when empty). A file refused there, or unreadable, is worth a warning
    naming it, not a stopped session; one over the cap is cut at its last whole line.
    """
    try:
        found = read_own(
            path,
            inside=inside or (os.path.dirname(path),),
            cap=GUIDE_CAP,
            cut=True,
            blocked=blocked,
        )
    except Refused as refused:
        warnings.append(f"{refused.message}. {refused.remedy}")
        return None
    if found is None:
        return None
    # Newlines as a text file reads them (universal newlines): a guide saved on Windows too.
    text = found.data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if found.cut:
        whole_lines = text[: text.rfind("\n") + 1]
        size = f"{GUIDE_CAP // 1024} KiB"
        if whole_lines:
            text = whole_lines
            loaded = f"only its first {text.count(chr(10)):,} lines were loaded"
        else:  # one line longer than the cap: its start is all there is to load
            loaded = f"only its first {size} were loaded (no line ends within them)"
        warnings.append(f"{path} is larger than {size}; {loaded}; shorten it")
    if max_lines is not None:
        pieces = text.split("\n", max_lines)
        if len(pieces) > max_lines and pieces[max_lines]:
            text = "\n".join(pieces[:max_lines]) + "\n"
    return text
