"""Judging a tool's reads and writes of files: the path rules, the mode, Legato's and git's own
places, the project's memory folder, and what a headless run is told to do instead.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.path_entries import within
from actors.permission_broker.answers import describe, remembered
from actors.permission_broker.grounds import PolicyGrounds
from actors.permission_broker.questions import (
    FULL_CHOICES,
    ONCE_CHOICES,
    Question,
    blocked,
    plan_refuses,
)
from actors.protocol import Decision

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.permission_broker.rules import Judgement
    from actors.protocol import PermissionRequest

# The tools that read a folder's files through a walk the broker filters (``filter_readable``).
_SEARCH_TOOLS = frozenset({"Grep", "Glob"})
_VERBS = {"read": "reading", "write": "writing", "create": "creating", "run": "running"}


class PathChecks(PolicyGrounds):
    """A tool's request to read, write or create files, judged."""

    def _assess_paths(self, request: PermissionRequest) -> Decision | Question:
        rules = self.rules
        # A tool that names no path works in the project root (a search of the whole project).
        paths = request.paths or (rules.root,)
        verb = _VERBS[request.kind]
        judgement = self._with_tool(request, rules.judge_paths(paths))
        if judgement.verdict == "blocked":
            return blocked(self.settings_file, judgement)
        resolved = [rules.paths.resolve(path) for path in paths]
        inside = all(rules.paths.inside(path) for path in resolved)
        shown = ", ".join(f"'{rules.show(path)}'" for path in paths)
        writes = request.kind != "read"
        if writes and self.mode == "plan":
            return plan_refuses(f"{verb} {shown}")
        if request.hard_links > 1 and self._blocks_paths:
            return _hard_links_question(request, verb, shown)
        if self.memory_dir and all(self._in_memory_folder(path) for path in resolved):
            return Decision(True, f"{verb} in the project's memory folder is accepted")
        if writes:
            own = self._own_place(paths)
            if own is not None:
                return Question(
                    ONCE_CHOICES,
                    (),
                    "",
                    f"{verb} {shown} changes {own}, which always needs a person's approval "
                    "whatever the mode, and a headless run cannot ask. To let the model change "
                    f"it, name it in allowedPaths in {self.settings_file}",
                    warning=f"This changes {own}.",
                    person_only=True,
                )
        # Each kind is its own: an 'always' given to Create file does not cover editing the
        # files that exist, which the person never saw a diff of.
        keys = tuple(
            dict.fromkeys(
                (request.kind, "inside" if rules.paths.inside(p) else "outside") for p in resolved
            )
        )
        earlier = remembered(self._answers, keys)
        if earlier is not None:
            return earlier
        if judgement.verdict == "allowed":
            return Decision(True, judgement.reason)
        if inside and (self.mode == "auto" or (self.mode == "plan" and not writes)):
            return Decision(True, f"{verb} inside the project is accepted in {self._mode_name}")
        if inside and not writes and request.named_by_user:
            return Decision(True, f"the user named {shown} with @ in the prompt")
        if inside and self._narrowed_search(request, resolved):
            return Decision(
                True,
                f"searching {shown} in custom mode: only the files the rules let tools read are "
                "searched or listed",
            )
        return Question(
            FULL_CHOICES,
            keys,
            ", ".join(describe(key) for key in keys),
            self._headless_paths(
                # Once each: a path and the real path it resolves to are often the same.
                verb,
                shown,
                judgement,
                [*dict.fromkeys(p for p in resolved if not rules.paths.inside(p))],
                folders=self._searched_folders(request, resolved),
            ),
            person_only=not inside,
        )

    def _narrowed_search(self, request: PermissionRequest, resolved: Sequence[str]) -> bool:
        """A Grep or Glob of folders inside the project, in custom mode: it runs, narrowed to
        the files the rules allow (``filter_readable`` judges each one as a read of its own),
        rather than asking about the whole folder, most of which the rules may not allow."""
        return (
            self.mode == "custom"
            and request.kind == "read"
            and request.tool in _SEARCH_TOOLS
            and all(os.path.isdir(path) for path in resolved)
        )

    def _in_memory_folder(self, resolved: str) -> bool:
        return resolved == self.memory_dir or resolved.startswith(self.memory_dir + os.sep)

    def _own_place(self, paths: Sequence[str]) -> str | None:
        """What a write to ``paths`` would change among Legato's and git's own files, unless an
        allowedPaths entry names that place explicitly (``.legato/skills/**``)."""
        rules = self.rules.paths
        for path in paths:
            for candidate in dict.fromkeys((rules.resolve(path), rules.written(path))):
                for place, description in (*self.own_places, *_nested_git(candidate)):
                    # Letter case too: on a disk that ignores it (macOS's default), .GIT/hooks
                    # and .Claude/settings.json are git's hooks and the reference's settings.
                    if not within(candidate.casefold(), place.casefold()):
                        continue
                    if rules.names_explicitly(candidate, place) is None and not rules.names_file(
                        candidate
                    ):
                        return description
        return None

    def _searched_folders(self, request: PermissionRequest, resolved: Sequence[str]) -> list[str]:
        """The allowedPaths entry that would let a Grep or Glob read each folder it searches
        (``**`` for the project root, ``/docs/**`` for docs); none for anything else."""
        if request.tool not in _SEARCH_TOOLS or not all(os.path.isdir(p) for p in resolved):
            return []
        root = self.rules.paths.resolve(self.rules.root)
        entries = []
        for path in resolved:
            relative = os.path.relpath(path, root)
            entries.append("**" if relative == "." else f"/{relative}/**")
        return entries

    def _headless_paths(
        self,
        verb: str,
        shown: str,
        judgement: Judgement,
        outside: Sequence[str],
        *,
        folders: Sequence[str] = (),
    ) -> str:
        if outside:
            # An entry starting with // names an absolute path (the rules read like .gitignore).
            entries = ", ".join(f"'/{path}'" for path in outside)
            return (
                f"{judgement.reason}; {verb} outside the project always needs a person's "
                "approval unless allowedPaths names it, and a headless run cannot ask. Run "
                f"interactively to approve it, or add {entries} to allowedPaths in "
                f"{self.settings_file}"
            )
        if folders:
            # A search: the entry to add, and the mode that searches only what the rules allow.
            entries = ", ".join(f"'{entry}'" for entry in folders)
            return (
                f"{judgement.reason}, so {self._mode_name} asks before {verb} {shown}, and a "
                f"headless run cannot ask. To allow it, add {entries} to allowedPaths in "
                f"{self.settings_file} (every file not blocked), run with --permission-mode "
                "custom to search only the files allowedPaths allows, or with "
                "--permission-mode auto"
            )
        return (
            f"{judgement.reason}, so {self._mode_name} asks before {verb} {shown}, and a "
            f"headless run cannot ask. To allow it, add a matching pattern to allowedPaths in "
            f"{self.settings_file}, or run with --permission-mode auto"
        )


def _nested_git(path: str) -> list[tuple[str, str]]:
    """The ``.git`` folders of repositories nested anywhere on ``path`` (``sub/.git``): a
    ``cd sub && git status`` runs their hooks and config just the same."""
    parts = path.split(os.sep)
    return [
        (os.sep.join(parts[: index + 1]), "git's own files (.git/), where hooks and config run "
         "programs")
        for index, part in enumerate(parts)
        if part == ".git"
    ]  # fmt: skip


def _hard_links_question(request: PermissionRequest, verb: str, shown: str) -> Question:
    # Rules see names, not files: another name of this file may be a blocked one, and no rule
    # can tell. Only a person can, each time: "always" would cover other files too.
    return Question(
        ONCE_CHOICES,
        (),
        "",
        f"{shown} is a file with {request.hard_links} names (hard links), and the path rules "
        f"judge names: one of the others may be in blockedPaths. So {verb} it needs a person's "
        "approval, and a headless run cannot ask. Run interactively to approve it",
        warning=f"This file has {request.hard_links} names (hard links); the path rules see "
        "only this one.",
        person_only=True,
    )
