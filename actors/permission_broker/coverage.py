"""Path entries that match nothing (``CheckRuleCoverage``, for ``legato doctor``): most often a
typo, or a folder that moved, and then the rule silently protects or allows nothing.

The project is walked once (``.git`` skipped, at most ``limit`` entries) and each entry's own
pattern, compiled by the broker's ``PathRules``, is tried on every file and folder met. A folder
that matches counts, since a matched folder covers what it holds. Entries for places outside the
project (``~/...``, ``//...``) are checked by whether their literal folder exists.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.path_entries import within
from actors.path_patterns import PatternList, normalise
from actors.protocol import RuleCoverage, UnmatchedRule

if TYPE_CHECKING:
    from actors.path_entries import PathRule, PathRules

SKIPPED = ".git"


def coverage(rules: PathRules, rules_file: str, limit: int) -> RuleCoverage:
    named = [
        (f"{key}[{index}]", rule)
        for key, group in (("allowedPaths", rules.allowed), ("blockedPaths", rules.blocked))
        for index, rule in enumerate(group)
    ]
    if not named:
        return RuleCoverage(rules_file=rules_file, entries=0, skipped=SKIPPED)
    # What the walk cannot see (outside the project, or inside .git) is checked by its folder.
    skipped = os.path.join(rules.root, SKIPPED)
    by_folder = {
        field for field, rule in named if rule.scope != "project" or within(rule.literal, skipped)
    }
    inside = {field: rule for field, rule in named if field not in by_folder}
    walked, capped = _walk(rules.root, inside, limit)
    unmatched = []
    for field, rule in named:
        if field in by_folder and not os.path.lexists(rule.literal):
            what = f"names the folder {rule.literal}, which does not exist"
            unmatched.append(UnmatchedRule(field, rule.text, what))
        elif field in inside:
            what = "matches no file or folder in the project"
            unmatched.append(UnmatchedRule(field, rule.text, what))
    return RuleCoverage(
        rules_file=rules_file,
        entries=len(named),
        unmatched=tuple(unmatched),
        walked=walked,
        capped=capped,
        skipped=SKIPPED,
    )


def _walk(root: str, waiting: dict[str, PathRule], limit: int) -> tuple[int, bool]:
    """Walk ``root``, dropping from ``waiting`` each entry that matches something met."""
    patterns = {field: PatternList([rule.pattern]) for field, rule in waiting.items()}
    walked = 0
    for folder, dirs, files in os.walk(root):
        dirs.sort()  # the same order every time, so a capped walk stops at the same place
        rel_folder = os.path.relpath(folder, root).replace(os.sep, "/")
        prefix = "" if rel_folder == "." else rel_folder + "/"
        for names, is_dir in ((dirs, True), (sorted(files), False)):
            for name in names:
                if not waiting:
                    return walked, False
                if walked >= limit:
                    return walked, True
                walked += 1
                rel = normalise(prefix + name)
                for field in [f for f in waiting if patterns[f].last_match(rel, is_dir)]:
                    del waiting[field]
        # .git itself is met and matched (a '.git/' entry), but not entered.
        if folder == root and SKIPPED in dirs:
            dirs.remove(SKIPPED)
    return walked, False
