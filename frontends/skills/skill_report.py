"""How the skill library's answers read, in a shell and in a session alike: a passed
``/<name> --test``, and ``/help``'s columns fitted to the terminal."""

from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from actors.protocol import CheckReport


def report_text(report: CheckReport) -> str:
    """A passed ``--test``: what was checked, the warnings, and the file rendered."""
    lines = [f"ok: {report.kind} /{report.name} ({report.path})"]
    lines += [f"  {note}" for note in report.notes]
    lines += [f"  warning: {warning}" for warning in report.warnings]
    lines += [f"  rendered with sample arguments: {report.sample or '(none)'}", "", report.rendered]
    return "\n".join(lines)


# A row of /help: "  /usage  description", or a description alone under its column after a
# usage too long to share a line with it.
_ROW = re.compile(r"^(  \S.*?\s{2,}|\s{4,})(\S.*)$")


def hang(text: str, width: int) -> list[str]:
    """``text``'s lines fitted to ``width``: a long description goes on under its own column
    rather than back at the left edge, where it would hide the next row's name."""
    lines: list[str] = []
    for line in text.splitlines():
        row = _ROW.match(line)
        column = len(row.group(1)) if row else 0
        if row is None or len(line) <= width or width - column < 20:
            lines.append(line)
            continue
        wrapped = textwrap.wrap(row.group(2), width - column)
        lines.append(row.group(1) + wrapped[0])
        lines += [" " * column + rest for rest in wrapped[1:]]
    return lines
