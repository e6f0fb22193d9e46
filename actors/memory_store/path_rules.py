"""``allowedPaths`` and ``blockedPaths`` checked as the settings load.

An entry that cannot mean what it says is refused (a ConfigError, exit 2) naming the file, the
line, the field and the entry. An entry that looks like a mistake loads, with a warning:

- ``/home/me/x`` names nothing in the project but exists on this computer: a leading ``/``
  anchors at the project root, and ``//home/me/x`` is the absolute path;
- an entry repeats an earlier one of its list, or stands in both lists (a block wins);
- an allowed entry that a blocked one shadows: the blocked entry covers the folder the allowed
  one is confined to, so the allowed entry can never allow anything.

Entries are parsed by the broker's own parser (``parse_entry``), so what loads here is exactly
what the broker can read: there is no second reading of the patterns to disagree with it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import ConfigError
from actors.path_entries import parse_entry, within
from actors.path_patterns import PatternError, PatternList, normalise

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.path_entries import PathRule
    from actors.settings import ProjectSettings
    from actors.settings.validate import Loaded

ALLOWED, BLOCKED = "allowedPaths", "blockedPaths"


def check_path_rules(settings: Loaded[ProjectSettings], root: str, home: str) -> list[str]:
    """Raise ConfigError for an entry the broker cannot read; return the warnings."""
    allowed = _parse(settings, ALLOWED, settings.value.allowed_paths, root, home)
    blocked = _parse(settings, BLOCKED, settings.value.blocked_paths, root, home)
    warnings: list[str] = []
    for key, rules in ((ALLOWED, allowed), (BLOCKED, blocked)):
        warnings += _filesystem_paths(settings, key, rules, root)
        warnings += _repeats(settings, key, rules)
    warnings += _in_both(settings, allowed, blocked)
    warnings += _shadowed(settings, allowed, blocked)
    return warnings


def where(settings: Loaded[ProjectSettings], key: str, index: int) -> str:
    """``file:line: key[index]`` for a message about one entry."""
    line = settings.line_of(key, index) or settings.line_of(key)
    at = settings.path if line is None else f"{settings.path}:{line}"
    return f"{at}: {key}[{index}]"


def _parse(
    settings: Loaded[ProjectSettings], key: str, entries: Sequence[str], root: str, home: str
) -> list[PathRule]:
    rules = []
    for index, text in enumerate(entries):
        try:
            rules.append(parse_entry(text, root, negation=key == ALLOWED, home=home))
        except PatternError as error:
            line = settings.line_of(key, index) or settings.line_of(key)
            raise ConfigError(
                f"{text!r} cannot be used: {error}",
                path=settings.path,
                line=line,
                field=f"{key}[{index}]",
                remedy=f"Rewrite or remove that entry of '{key}' (docs/configuration.md "
                "describes the patterns)",
            ) from None
    return rules


def _filesystem_paths(
    settings: Loaded[ProjectSettings], key: str, rules: Sequence[PathRule], root: str
) -> list[str]:
    """``/etc/passwd`` written for the file on this computer: it names ``etc/passwd`` in the
    project, which does not exist, while ``/etc/passwd`` does."""
    warnings = []
    for index, rule in enumerate(rules):
        text = rule.text.strip()
        if rule.scope != "project" or not text.startswith("/") or text.startswith("//"):
            continue
        body = text.strip("/")
        # The whole path when it is spelled out, else the folder before its first wildcard.
        candidates = [body, os.path.relpath(rule.literal, root) if rule.literal != root else ""]
        for rel in filter(None, candidates):
            if not os.path.lexists(os.path.join(root, rel)) and os.path.lexists("/" + rel):
                warnings.append(
                    f"{where(settings, key, index)} '{text}' names nothing in the project, but "
                    f"/{rel} exists on this computer: a leading '/' means the project root. "
                    f"Did you mean '/{text}' (an absolute path)?"
                )
                break
    return warnings


def _repeats(settings: Loaded[ProjectSettings], key: str, rules: Sequence[PathRule]) -> list[str]:
    warnings = []
    seen: dict[str, int] = {}
    for index, rule in enumerate(rules):
        text = rule.text.strip()
        if text in seen:
            warnings.append(
                f"{where(settings, key, index)} '{text}' repeats {key}[{seen[text]}]; "
                "remove one of them"
            )
        else:
            seen[text] = index
    return warnings


def _in_both(
    settings: Loaded[ProjectSettings], allowed: Sequence[PathRule], blocked: Sequence[PathRule]
) -> list[str]:
    first_blocked: dict[str, int] = {}
    for index, rule in enumerate(blocked):
        first_blocked.setdefault(rule.text.strip(), index)
    warnings = []
    for index, rule in enumerate(allowed):
        text = rule.text.strip()
        if text in first_blocked:
            warnings.append(
                f"{where(settings, ALLOWED, index)} '{text}' is also {BLOCKED}"
                f"[{first_blocked[text]}], and a block wins: the allowed entry does nothing. "
                "Remove it from one of the lists"
            )
    return warnings


def _shadowed(
    settings: Loaded[ProjectSettings], allowed: Sequence[PathRule], blocked: Sequence[PathRule]
) -> list[str]:
    texts = {rule.text.strip() for rule in blocked}
    warnings = []
    for index, rule in enumerate(allowed):
        if rule.negated or rule.text.strip() in texts:
            continue  # an exception allows nothing itself; an identical entry is warned above
        found = shadowing(rule, blocked)
        if found is not None:
            warnings.append(
                f"{where(settings, ALLOWED, index)} '{rule.text.strip()}' can never allow "
                f"anything: {BLOCKED}[{found}] '{blocked[found].text.strip()}' blocks "
                "everything it could match, and a block wins. Remove or narrow one of them"
            )
    return warnings


def shadowing(allowed: PathRule, blocked: Sequence[PathRule]) -> int | None:
    """The index of a blocked entry covering every path ``allowed`` could match, if any.

    Sound, not complete: it looks only at the folder the allowed entry is confined to (its
    literal folder). That folder is covered when a blocked entry matches it (a matched folder
    covers everything under it), or when a blocked entry is made of stars alone (``**``) and
    so matches whatever its own folder, at or above that one, holds.
    """
    for index, rule in enumerate(blocked):
        if not within(allowed.literal, rule.base):
            continue
        rel = normalise(os.path.relpath(allowed.literal, rule.base).replace(os.sep, "/"))
        if rel and PatternList([rule.pattern]).matches(rel, True):
            return index
        glob = rule.pattern.text.strip("/")
        if glob and set(glob) == {"*"} and not rule.pattern.dir_only:
            return index
    return None
