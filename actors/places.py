"""Where Legato keeps its own data, outside any project: one definition for every actor.

    ~/.legato/
     ├── projects/<hash>/          one folder per project (hash: see ``project_hash``)
     │    ├── memory/              MEMORY.md and topic files (the memory store loads them)
     │    ├── sessions/<id>.jsonl  saved sessions (the session store)
     │    ├── pattern-stats.json   how often each pattern ran (the skill library)
     │    ├── path-rules-noted.json  which path rules were already explained (the memory store)
     │    ├── mcp-approved.json    the .mcp.json servers the user approved (the memory store)
     │    ├── trusted.json         the project settings' widening items the user trusted
     │    └── imports-approved.json  the instruction files' imports from outside the project
     └── logs/legato-<day>.log     the debug log (frontends/startup/debug.py)

Plain functions of the project's real absolute path and the home folder, so that two actors
that name the same place name it the same way.
"""

from __future__ import annotations

import hashlib
import os

MEMORY_FILE = "MEMORY.md"
PATTERN_STATS_FILE = "pattern-stats.json"
PATH_RULES_NOTE_FILE = "path-rules-noted.json"
MCP_APPROVALS_FILE = "mcp-approved.json"
TRUST_FILE = "trusted.json"
IMPORTS_APPROVAL_FILE = "imports-approved.json"


# Legato's own folders, as sandbox settings name them: its key and global hooks (the global
# config's folder), approvals, memory and sessions. Never readable by a confined command, and
# never writable from any settings.
LEGATO_FOLDERS = ("~/.config/legato", "~/.legato")


def legato_folders(home: str) -> tuple[str, ...]:
    """``LEGATO_FOLDERS`` as real absolute paths."""
    return tuple(os.path.realpath(os.path.join(home, folder[2:])) for folder in LEGATO_FOLDERS)


def sandbox_path(entry: str, project: str, home: str) -> str:
    """A sandbox setting's path entry as a real absolute path: ``~/x`` under the home folder,
    ``/x`` or ``//x`` absolute, else relative to the project root."""
    return os.path.realpath(sandbox_path_as_named(entry, project, home))


def leaves_project(entry: str, project: str, home: str) -> str | None:
    """Where a link leads an ``entry`` that names a place in the project out of it; None when it
    stays inside, or names a place outside to begin with. What is inside the project asks for no
    trust, and a command can put a link where a folder of the project was (or was to be): what
    a mount of it would open is judged again before each command, never once at start."""
    lexical = os.path.normpath(sandbox_path_as_named(entry, project, home))
    real_project = os.path.realpath(project)
    if not (within(lexical, project) or within(lexical, real_project)):
        return None
    path = sandbox_path(entry, project, home)
    return None if within(path, real_project) else path


def sandbox_path_as_named(entry: str, project: str, home: str) -> str:
    """``sandbox_path`` before links are followed."""
    if entry == "~" or entry.startswith("~/"):
        return os.path.join(home, entry[2:])
    if entry.startswith("/"):
        return "/" + entry.lstrip("/")
    return os.path.join(project, entry)


def opens_legato_folder(entry: str, project: str, home: str) -> str | None:
    """Which of Legato's folders a writable ``entry`` would equal, hold or lie inside (links
    followed, as a mount follows them); None when it opens none."""
    path = sandbox_path(entry, project, home)
    for own in legato_folders(home):
        if within(path, own) or within(own, path):
            return own
    return None


def within(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it (both absolute and normalised): the
    one definition that path rules, the sandbox and Legato's own folders share."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def legato_dir(home: str) -> str:
    """``~/.legato``: everything Legato keeps of its own."""
    return os.path.join(home, ".legato")


def project_hash(project_root: str) -> str:
    """A project folder's name: the first 16 hex digits of sha256 of its real path."""
    return hashlib.sha256(project_root.encode("utf-8")).hexdigest()[:16]


def project_dir(project_root: str, home: str) -> str:
    """``~/.legato/projects/<hash>`` for a project's real absolute path."""
    return os.path.join(legato_dir(home), "projects", project_hash(project_root))


def memory_dir(project_root: str, home: str) -> str:
    """``~/.legato/projects/<hash>/memory``."""
    return os.path.join(project_dir(project_root, home), "memory")


def sessions_dir(project_root: str, home: str) -> str:
    """``~/.legato/projects/<hash>/sessions``: one ``<id>.jsonl`` per session."""
    return os.path.join(project_dir(project_root, home), "sessions")


def pattern_stats_path(project_root: str, home: str) -> str:
    """``~/.legato/projects/<hash>/pattern-stats.json`` (``legato --pattern-stats``)."""
    return os.path.join(project_dir(project_root, home), PATTERN_STATS_FILE)


def path_rules_note_path(project_root: str, home: str) -> str:
    """Where the digest of the path rules already explained once is kept."""
    return os.path.join(project_dir(project_root, home), PATH_RULES_NOTE_FILE)


def logs_dir(home: str) -> str:
    """``~/.legato/logs``: the debug log, one file a day."""
    return os.path.join(legato_dir(home), "logs")


def hooks_approval_path(project_root: str, home: str) -> str:
    """The fingerprint of the project's hooks the user approved, in the user's folder."""
    return os.path.join(project_dir(project_root, home), "hooks-approved.json")


def mcp_approvals_path(project_root: str, home: str) -> str:
    """Which of the project's .mcp.json servers the user approved: in the user's folder, since
    the project's own files are the repository's to write."""
    return os.path.join(project_dir(project_root, home), MCP_APPROVALS_FILE)


def trust_path(project_root: str, home: str) -> str:
    """What the user trusted of the project's settings: in the user's folder, since a
    repository must not be able to trust itself."""
    return os.path.join(project_dir(project_root, home), TRUST_FILE)


def imports_approval_path(project_root: str, home: str) -> str:
    """Which ``@path`` imports from outside the project the user approved: in the user's
    folder, since a repository must not be able to approve its own imports."""
    return os.path.join(project_dir(project_root, home), IMPORTS_APPROVAL_FILE)
