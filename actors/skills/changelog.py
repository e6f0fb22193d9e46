"""The pattern changelog: which patterns changed in which version.

    ## v1.2.0 - 2026-11-20
    ### Added
    - crud-gen: ...
    ### Improved
    - test-suite: ...
    ### Fixed
    - db-migration: ...

A version heading is ``v<major>.<minor>.<patch> - <date>`` (the date as YYYY-MM-DD); under it
only the sub-headings Added, Improved and Fixed, each with bullets that name a pattern.
"""

from __future__ import annotations

import datetime
import re
from typing import TYPE_CHECKING

from actors.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Collection

CHANGELOG_FILE = "CHANGELOG.md"
SECTIONS = ("Added", "Improved", "Fixed")
# Up to nine digits a part: no version needs more, and Python reads no integer past 4300.
_VERSION = re.compile(r"^#{1,3}\s+v(\d{1,9})\.(\d{1,9})\.(\d{1,9})\s+-\s+(.+?)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_NAMED = re.compile(r"[`*]*([a-z0-9][a-z0-9_-]*)[`*]*")


def check_changelog(path: str, text: str, patterns: Collection[str]) -> int:
    """Raise ``ConfigError`` at the first fault; return the number of versions."""
    versions: list[tuple[int, int, int]] = []
    section: str | None = None
    bullets = 0
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        is_version = heading is not None and re.match(r"v\d", heading.group(2)) is not None
        if heading and not is_version and not versions:
            continue  # the document's title, before the first version
        if heading and is_version:
            match = _VERSION.match(line)
            if match is None:
                raise _fault(
                    path, number, f"{line.strip()!r} is not 'v<major>.<minor>.<patch> - <date>'"
                )
            _check_date(path, number, match.group(4))
            _close(path, number, section, bullets)
            versions.append((int(match.group(1)), int(match.group(2)), int(match.group(3))))
            section, bullets = None, 0
        elif heading:
            if not versions:
                continue
            title = heading.group(2)
            if title not in SECTIONS:
                raise _fault(
                    path, number, f"the sub-heading {title!r} is not one of {', '.join(SECTIONS)}"
                )
            _close(path, number, section, bullets)
            section, bullets = title, 0
        elif (bullet := _BULLET.match(line)) and versions:
            if section is None:
                raise _fault(path, number, "a bullet outside an Added, Improved or Fixed section")
            named = _NAMED.match(bullet.group(1).strip())
            if named is None or named.group(1) not in patterns:
                known = ", ".join(sorted(patterns))
                raise _fault(
                    path,
                    number,
                    f"the bullet {bullet.group(1).strip()!r} names no pattern",
                    remedy=f"Start the bullet with a pattern's name ({known})",
                )
            bullets += 1
    _close(path, len(text.splitlines()), section, bullets)
    if not versions:
        raise _fault(path, 1, "has no version heading such as '## v1.0.0 - 2026-01-31'")
    if versions != sorted(versions, reverse=True):
        raise _fault(path, 1, "the versions are not listed newest first")
    return len(versions)


def _close(path: str, line: int, section: str | None, bullets: int) -> None:
    if section is not None and bullets == 0:
        raise _fault(path, line, f"the {section} section has no bullet")


def _check_date(path: str, line: int, text: str) -> None:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise _fault(path, line, f"the date {text!r} is not YYYY-MM-DD") from None


def _fault(path: str, line: int, message: str, *, remedy: str | None = None) -> ConfigError:
    return ConfigError(
        message,
        path=path,
        line=line,
        remedy=remedy
        or "Follow the format: '## v1.2.0 - 2026-11-20', then '### Added' "
        "(or Improved, Fixed) and bullets such as '- crud-gen: ...'",
    )
