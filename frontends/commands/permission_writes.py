"""``legato permissions allow|ask|deny|remove RULE...``: each rule written or taken out by the
memory store, which owns the settings files, and what the person still has to do for it to
apply (trust the project, or take the rule out of a file this command does not write)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import EXIT_OK
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.protocol import ProjectContext, RuleBehavior, RuleScope, RuleWritten


def write_rules(
    project: str, action: str, rules: Sequence[str], scope: RuleScope, env: Mapping[str, str]
) -> int:
    """Each rule written by the memory store, which owns the settings files; what happened,
    and what the person still has to do for it to apply."""
    from actors.protocol import WriteRule
    from frontends.commands.asking import ask_actors
    from frontends.session import memory_store
    from frontends.session_options import SessionOptions

    behavior: RuleBehavior | None = None if action == "remove" else action  # type: ignore[assignment]
    memory = memory_store(SessionOptions(project_root=project, env=env, home=env.get("HOME")))

    async def writing() -> list[RuleWritten]:
        return [
            await memory.address.ask(WriteRule(behavior=behavior, text=rule, scope=scope))
            for rule in rules
        ]

    for rule, written in zip(rules, ask_actors([memory], writing), strict=True):
        shown = escape_controls(rule, newlines=True)
        if behavior is None:
            done = f"Removed '{shown}' from" if written.changed else f"'{shown}' is not in"
        elif written.changed:
            done = f"Wrote {behavior} rule '{shown}' to"
        else:
            done = f"The {behavior} rule '{shown}' is already in"
        print(f"{done} {written.path}")
        if behavior is None and not written.changed:
            own = _own_files(project, env)
            for file, where in _written_elsewhere(rule, written.context):
                flag = own.get(os.path.realpath(file))
                if flag is not None:
                    print(f"  It is in {where}: legato permissions remove '{shown}' {flag}")
                else:
                    print(
                        f"  It is in {where}, which 'legato permissions' does not write: take "
                        "it out there"
                    )
        if written.excluded:
            print(f"  (listed in {written.excluded}, so git leaves it out of commits)")
        context = written.context
        waiting = any(
            item.key == "permissions.allow" and item.value == rule for item in context.trust_items
        )
        if behavior == "allow" and waiting and not context.trusted:
            print(
                "  It applies once you trust this project's settings: 'legato trust --show' "
                "lists them, 'legato trust' trusts them."
            )
    return EXIT_OK


def _written_elsewhere(rule: str, context: ProjectContext) -> list[tuple[str, str]]:
    """``(file, where)`` for each other place ``rule`` is written (``file:line``, or the file
    for one held until the project is trusted): most often the reference's
    ``.claude/settings.json``."""
    places = [
        (r.source, f"{r.source}:{r.line}" if r.line else r.source)
        for r in context.permission_rules
        if r.text == rule
    ]
    # A trusted project's rule is in both lists; the first, with its line, names it.
    places += [
        (item.source, item.source)
        for item in context.trust_items
        if item.key.startswith("permissions.") and item.value == rule and item.source
    ]
    by_file: dict[str, str] = {}
    for file, where in places:
        by_file.setdefault(file, where)
    return [(file, escape_controls(where, newlines=True)) for file, where in by_file.items()]


def _own_files(project: str, env: Mapping[str, str]) -> dict[str, str]:
    """The files this command writes (the memory store's three), by real path, with the flag
    that names each."""
    home = env.get("HOME") or os.path.expanduser("~")
    files = {
        os.path.join(project, ".legato", "settings.local.json"): "--local",
        os.path.join(project, ".legato", "settings.json"): "--project",
        os.path.join(home, ".config", "legato", "config.json"): "--user",
    }
    return {os.path.realpath(path): flag for path, flag in files.items()}
