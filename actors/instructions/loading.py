"""Which instruction files are loaded, in what order, with their ``@path`` imports.

Each file is read through the door for Legato's own files (``read_markdown``): a link out of
the folder it belongs to, a FIFO, a device or a second name is refused with a warning, a file
over the cap is cut at a line. An import is judged by where it leads:

- inside the project: read as the project's own files are (a ``blockedPaths`` entry, as named
  or as resolved, keeps it out);
- a place where credentials live (``imports.secret_place``): never;
- elsewhere, from the user's own files: read, as the user wrote both;
- elsewhere, from a project file: only once the user approved that import of that file as it
  is now (``ImportRequest``); until then it is listed, and a warning says how to approve it.

At most ``MAX_HOPS`` imports deep, ``MAX_FILES`` files and ``TOTAL_CAP`` bytes in all: a chain
or a fan of imports costs a bounded start. A file already loaded is not loaded again, so a
cycle ends and ``CLAUDE.md`` importing ``AGENTS.md`` gives it once.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING

from actors.instructions.imports import looks_like_path, named_path, references, secret_place
from actors.instructions.reading import estimate_tokens, read_markdown
from actors.own_files import GUIDE_CAP, Refused, read_own
from actors.places import within
from actors.protocol import GuideFile, ImportRequest

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Sequence

    from actors.protocol import GuideLevel
    from actors.settings import PermissionRule, ProjectSettings

# The project root's files, lowest precedence first: the other assistants' shared file, the
# reference's project file (either place), the user's personal one, and Legato's own last.
PROJECT_FILES: tuple[tuple[str, GuideLevel], ...] = (
    ("AGENTS.md", "project"),
    ("CLAUDE.md", "project"),
    (os.path.join(".claude", "CLAUDE.md"), "project"),
    ("CLAUDE.local.md", "local"),
    ("LEGATO.md", "project"),
)
# In a sub-folder: the same names but the reference's second place.
NESTED_FILES: tuple[tuple[str, GuideLevel], ...] = (
    ("AGENTS.md", "nested"),
    ("CLAUDE.md", "nested"),
    ("CLAUDE.local.md", "nested"),
    ("LEGATO.md", "nested"),
)
MAX_HOPS = 5
MAX_FILES = 64
TOTAL_CAP = 4 * GUIDE_CAP
MAX_WARNINGS = 20


def user_files(home: str) -> tuple[str, ...]:
    """The user's own files, lowest first. Each may be a link to anywhere in the home folder
    (a dotfiles checkout), never to a place where credentials live."""
    return (
        os.path.join(home, ".claude", "CLAUDE.md"),
        os.path.join(home, ".legato", "LEGATO.md"),
    )


def load_guides(
    root: str,
    home: str,
    warnings: list[str],
    *,
    blocked: Callable[[str], str | None] | None = None,
    approved: Collection[str] = (),
) -> tuple[tuple[GuideFile, ...], tuple[ImportRequest, ...]]:
    """The files loaded at start, in order of precedence (lowest first), and the imports from
    outside the project that wait for the user's approval. Blocks: run it in a worker thread."""
    loading = Loading(root, home, warnings, blocked, approved)
    for path in user_files(home):
        loading.found(path, "user", home)
    for name, level in PROJECT_FILES:
        loading.found(os.path.join(root, name), level, root)
    return tuple(loading.files), tuple(loading.requests)


def may_import(root: str) -> bool:
    """Whether a root file of the project could hold an ``@path`` import: a quick look before
    the terminal starts the loading to ask about them (most projects have none)."""
    for name, _ in PROJECT_FILES:
        try:
            found = read_own(os.path.join(root, name), inside=(root,), cap=GUIDE_CAP, cut=True)
        except Refused:
            continue  # the session says why
        if found is not None and b"@" in found.data:
            return True
    return False


def import_fingerprint(importer: str, path: str, text: str) -> str:
    """What an approval of an import holds: which file imports which, and what it says."""
    digest = hashlib.sha256()
    for part in (importer, path, text):
        digest.update(part.encode("utf-8", errors="surrogateescape") + b"\0")
    return digest.hexdigest()


class Loading:
    """One load of files and their imports: what is seen, what waits for approval."""

    def __init__(
        self,
        root: str,
        home: str,
        warnings: list[str],
        blocked: Callable[[str], str | None] | None,
        approved: Collection[str],
        seen: Iterable[str] = (),
    ) -> None:
        self.root = os.path.realpath(root)
        self.home = home
        self.warnings = warnings
        self.blocked = blocked
        self.approved = approved
        self.seen = set(seen)  # real paths loaded (or being loaded: a cycle stops there)
        self.files: list[GuideFile] = []
        self.requests: list[ImportRequest] = []
        self.count = 0  # files loaded, imports included
        self.size = 0  # their characters
        self.full = False
        self.warned = 0

    def found(self, path: str, level: GuideLevel, folder: str) -> None:
        """A file found by its name, in the folder it must stay in."""
        real = os.path.realpath(path)
        if real in self.seen or self._over(path):
            return
        # The user's own files may lead anywhere in the home folder, but not there; the
        # project's stay in the project (read_own says so).
        secret = secret_place((real,), self.home) if level == "user" and real != path else None
        if secret is not None:
            self._warn(
                f"{path} was not read: it leads to {real}, in {secret}, where credentials live",
                "Replace the link with the file itself, or remove it",
            )
            return
        text = read_markdown(path, None, self.warnings, inside=(folder,), blocked=self.blocked)
        if text is not None:
            self._add(path, real, level, text, hops=0)

    def _add(
        self,
        path: str,
        real: str,
        level: GuideLevel,
        text: str,
        *,
        hops: int,
        importer: str = "",
        line: int = 0,
    ) -> None:
        self.seen.add(real)
        self.count += 1
        self.size += len(text)
        # Imported files come before the file that imports them: its own words come later,
        # and win where they disagree.
        for number, ref in references(text):
            self._import(path, level, number, ref, hops + 1)
        self.files.append(
            GuideFile(
                path=path,
                level=level,
                text=text,
                tokens=estimate_tokens(text),
                imported_by=importer,
                line=line,
            )
        )

    def _import(self, importer: str, level: GuideLevel, line: int, ref: str, hops: int) -> None:
        where = f"{importer}:{line}: @{ref}"
        path = named_path(ref, importer, self.home)
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            real = path
        if real in self.seen:
            return
        if not os.path.lexists(path):
            if looks_like_path(ref):
                self._warn(f"{where} was not imported: there is no such file", "Fix the path")
            return
        if hops > MAX_HOPS:
            self._warn(
                f"{where} was not imported: imports nest at most {MAX_HOPS} deep",
                "Import that file from a file nearer the top",
            )
            return
        if self._over(importer):
            return
        secret = secret_place((path, real), self.home)
        if secret is not None:
            self._warn(
                f"{where} was not imported: {secret} is where credentials live, and no "
                "instruction file may bring a file from there into the model's context",
                "Remove that import",
            )
            return
        entry = self._blocked(path, real)
        if entry is not None:
            self._warn(
                f"{where} was not imported: {entry} blocks it",
                "Remove that import, or that entry",
            )
            return
        inside = within(real, self.root)
        if not inside and level == "nested":
            self._warn(
                f"{where} was not imported: a sub-folder's file may not import a file outside "
                "the project",
                "Import it from a file at the project root, where you can approve it",
            )
            return
        # A file outside is read through the same door (no FIFO, device, /proc, second name;
        # at most the cap) wherever it is: its content is what an approval holds.
        text = read_markdown(
            path, None, self.warnings, inside=(self.root if inside else os.sep,), blocked=None
        )
        if text is None:
            return
        if not inside and level != "user" and not self._approved(importer, line, real, text):
            return
        self._add(path, real, level, text, hops=hops, importer=importer, line=line)

    def _approved(self, importer: str, line: int, real: str, text: str) -> bool:
        fingerprint = import_fingerprint(importer, real, text)
        if fingerprint in self.approved:
            return True
        where = f"{importer}:{line}"
        if any(request.fingerprint == fingerprint for request in self.requests):
            return False
        self.requests.append(
            ImportRequest(importer=importer, line=line, path=real, fingerprint=fingerprint)
        )
        self._warn(
            f"{where}: the import of {real}, outside the project, was not loaded: it needs "
            "your approval",
            "Run 'legato trust' to see it and approve it (the terminal asks at start)",
        )
        return False

    def _blocked(self, path: str, real: str) -> str | None:
        if self.blocked is None:
            return None
        for each in dict.fromkeys((path, real)):
            entry = self.blocked(each)
            if entry is not None:
                return entry
        return None

    def _over(self, path: str) -> bool:
        """Whether the files loaded so far are already as many, or as large, as they may be."""
        if self.count < MAX_FILES and self.size < TOTAL_CAP:
            return False
        if not self.full:
            self.full = True
            self._warn(
                f"{path} and the instruction files after it were not loaded: they would pass "
                f"{MAX_FILES} files or {TOTAL_CAP // 1024} KiB in all",
                "Shorten the instruction files, or import fewer",
            )
        return True

    def _warn(self, what: str, remedy: str) -> None:
        # A file of thousands of broken imports is one problem, not thousands of lines.
        self.warned += 1
        if self.warned <= MAX_WARNINGS:
            self.warnings.append(f"{what}. {remedy}")
        elif self.warned == MAX_WARNINGS + 1:
            self.warnings.append(
                f"More imports of the instruction files were not loaded ({MAX_WARNINGS} are "
                "listed above). Fix those first"
            )


def blocked_rule(
    settings: ProjectSettings, root: str, home: str, rules: Sequence[PermissionRule] = ()
) -> Callable[[str], str | None] | None:
    """The ``blockedPaths`` entry, or the deny ``Read(...)`` rule, a path matches, as the
    broker reads them, named for a message; None without any. The one place a deny keeps a
    file out of the instruction files, their imports and memory."""
    from actors.settings.rule_check import denied_reads

    denied = denied_reads(rules, root, home)
    if not settings.blocked_paths:
        return denied
    from actors.path_entries import PathRules  # only for settings that block paths

    blocked = PathRules(root, (), settings.blocked_paths, home=home)

    def entry(path: str) -> str | None:
        found = blocked.blocked_by(path)
        if found is not None:
            return f"the blockedPaths entry {found.text!r}"
        return None if denied is None else denied(path)

    return entry
