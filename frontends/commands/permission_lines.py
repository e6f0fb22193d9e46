"""How the broker's answer (a ``PermissionsReport``) reads, line by line: its decisions, its
rules and the other folders the tools work in; shared by ``legato permissions`` and the
session's ``/permissions``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import PermissionsReport

_LABELS = {
    "read": "read",
    "write": "edit",
    "create": "create",
    "run": "run",
    "call": "call",
    "fetch": "fetch",
    "search": "search",
}


def decision_lines(report: PermissionsReport) -> list[str]:
    """``read    src/a.py  allowed  by allowedPaths entry 'src/**' ... in <settings file>``."""
    lines = []
    for item in report.assessments:
        reason = item.reason
        if reason.startswith(item.outcome + " "):
            reason = reason[len(item.outcome) + 1 :]  # "allowed  allowed by ..." says it twice
        if item.rules_file is not None:
            reason += f" in {item.rules_file}"
        if item.outcome == "asks":
            reason += " (headless: denied)"
        label = _LABELS[item.kind]
        lines.append(f"{label:<6}  {item.target}  {item.outcome:<7}  {reason}")
    return lines


def rule_lines(report: PermissionsReport) -> list[str]:
    """The rules the broker enforces, by list, and the file they come from; then the rules in
    the reference's syntax, by file and line (deny before ask before allow, whatever file)."""
    if not any(entries for _, entries in report.rules):
        # "Rules: none" above a list of rules would read as if the rules were not applied.
        none = f"Rules: none ({report.rules_file} sets no path, command or tool rules)"
        lines = [] if report.permission_rules else [none]
    else:
        width = max(len(key) for key, _ in report.rules)
        lines = [f"Rules from {report.rules_file}:"]
        for key, entries in report.rules:
            shown = ", ".join(f"'{entry}'" for entry in entries) or "(none)"
            lines.append(f"  {key:<{width}}  {shown}")
    return lines + permission_rule_lines(report)


def permission_rule_lines(report: PermissionsReport) -> list[str]:
    """``Permission rules (deny, then ask, then allow):`` and each file's, line by line."""
    if not report.permission_rules:
        return []
    lines = ["Permission rules (deny, then ask, then allow, whatever file):"]
    by_source: dict[str, list[str]] = {}
    for rule in report.permission_rules:
        where = "" if rule.line is None else f":{rule.line}"
        text = escape_controls(rule.text, newlines=True)
        by_source.setdefault(rule.source, []).append(f"    {where:<5} {rule.behavior:<5}  {text}")
    for source, entries in by_source.items():
        lines.append(f"  {escape_controls(source, newlines=True)}")
        lines += entries
    return lines


def folder_lines(report: PermissionsReport) -> list[str]:
    """The other folders the tools work in as in the project, and how each came."""
    from actors.visible import escape_controls

    folders = [(path, "--add-dir or additionalDirectories") for path in report.add_dirs]
    folders += [(path, "added with /add-dir, for this session") for path in report.added_dirs]
    if not folders:
        return []
    lines = ["Other folders the tools work in as in the project:"]
    lines += [f"  {escape_controls(path, newlines=True)}  ({how})" for path, how in folders]
    return lines
