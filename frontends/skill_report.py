"""How a passed ``/<name> --test`` reads, in a shell and in a session alike."""

from __future__ import annotations

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
