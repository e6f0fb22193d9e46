"""Front matter of plain ``field: words`` lines, read without PyYAML.

Almost every skill, command and agent file's front matter is a few lines such as
``description: Review a pull request`` or ``tools: Read, Grep``. Importing PyYAML for them
costs ~10 ms of a session's start (the agent types are listed before the first request). So a
front matter whose every line is a field and a plain string is read here; anything else (a
number, ``true``, a list, quotes, a colon followed by a space inside the value, a comment, an
indented line, a repeated field) is left to ``safe_yaml.py``, which reads it as YAML does. The
values read here are exactly the strings YAML would read from the same lines (a test compares
the two on generated front matter).
"""

from __future__ import annotations

import re

# A field's name, a colon, at least one blank, and a plain value (one line, no trailing blank).
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):[ ]+(\S(?:.*\S)?)")
# What may not start a plain string in YAML (an indicator), or makes it another type.
_FIRST = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Characters YAML does not allow in a document: YAML's reader says where, with its line.
_NOT_YAML = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_TYPED = re.compile(r"[-+.0-9]|(?:true|false|null|yes|no|on|off|y|n)$|~$", re.IGNORECASE)


def plain_fields(lines: list[str], first_line: int) -> tuple[dict[str, str], dict[str, int]] | None:
    """The fields and their lines (``first_line`` is the first's), or None when any line is
    more than a field with a plain string: YAML reads those."""
    fields: dict[str, str] = {}
    places: dict[str, int] = {}
    for number, line in enumerate(lines, first_line):
        if not line.strip():
            continue
        found = _LINE.fullmatch(line)
        if found is None or _NOT_YAML.search(line):
            return None
        name, value = found.group(1), found.group(2)
        if name in fields or value[0] in _FIRST or _TYPED.match(value):
            return None
        if ": " in value or " #" in value or "\t" in value or value.endswith(":"):
            return None
        fields[name] = value
        places[name] = number
    return fields, places
