"""The instruction files that reach the model: LEGATO.md, CLAUDE.md, CLAUDE.local.md, AGENTS.md.

    ~/.claude/CLAUDE.md, ~/.legato/LEGATO.md       the user's own, for every project
    <root>/AGENTS.md, CLAUDE.md, .claude/CLAUDE.md the project's, committed
    <root>/CLAUDE.local.md                         the user's own for this project
    <root>/LEGATO.md                               Legato's own file: it wins
    <root>/<folder>/{AGENTS,CLAUDE,CLAUDE.local,LEGATO}.md
                                                   loaded when the model works in that folder

Listed in order of precedence, lowest first, which is the order they reach the model in:
where two disagree, the later one wins. ``@path`` imports inside any of them are read too
(``imports.py``), each before the file that imports it.

A leaf both the memory store (the files at start, ``load_guides``) and the conductor (the
nested ones, ``NestedGuides``) use, so that there is one reader and one set of guards: every
file is read through the door for Legato's own files (``actors/own_files.py``).
"""

from __future__ import annotations

from actors.instructions.loading import (
    PROJECT_FILES,
    blocked_rule,
    import_fingerprint,
    load_guides,
    may_import,
)
from actors.instructions.nested import NestedGuides
from actors.instructions.reading import estimate_tokens, read_markdown

__all__ = [
    "PROJECT_FILES",
    "NestedGuides",
    "blocked_rule",
    "estimate_tokens",
    "import_fingerprint",
    "load_guides",
    "may_import",
    "read_markdown",
]
