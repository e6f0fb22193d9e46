"""How often each pattern ran (``legato --pattern-stats``), kept per project in
``~/.legato/projects/<hash>/pattern-stats.json`` next to the memory folder (actors/places.py).

Counting is a read-modify-write under an exclusive lock, so two runs at once both count.
"""

from __future__ import annotations

import fcntl
import json
import os

from actors.atomic import write_atomically
from actors.own_files import SETTINGS_CAP, Refused, read_own
from actors.places import pattern_stats_path
from actors.protocol import PatternRuns
from actors.skills.patterns import list_patterns


def stats_path(project_root: str, home: str) -> str:
    return pattern_stats_path(os.path.realpath(project_root), home)


def read_counts(project_root: str, home: str) -> dict[str, int]:
    return _parse(stats_path(project_root, home))


def pattern_runs(project_root: str, home: str) -> tuple[PatternRuns, ...]:
    """Every pattern with its count (0 if it never ran), then retired patterns that ran."""
    counts = read_counts(project_root, home)
    names = [pattern.name for pattern in list_patterns(project_root)[0]]
    names += sorted(set(counts) - set(names))
    return tuple(PatternRuns(name, counts.get(name, 0)) for name in names)


def record_run(project_root: str, home: str, name: str) -> int:
    """Add one run of ``name``; return its new count."""
    path = stats_path(project_root, home)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        counts = _parse(path)
        counts[name] = counts.get(name, 0) + 1
        # Atomic: a crash leaves the old counts, never half a file.
        write_atomically(path, json.dumps(counts, indent=2, sort_keys=True).encode())
    return counts[name]


def _parse(path: str) -> dict[str, int]:
    try:
        found = read_own(path, inside=(os.path.dirname(path),), cap=SETTINGS_CAP)
        data = json.loads(found.data) if found is not None else None
    except (Refused, ValueError, RecursionError):
        return {}  # a damaged counter file should not stop a pattern from running
    if isinstance(data, dict):
        return {str(k): v for k, v in data.items() if isinstance(v, int) and v >= 0}
    return {}
