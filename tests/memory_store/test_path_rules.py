"""allowedPaths and blockedPaths as the settings load: entries refused with file, line, field and
entry; warnings for entries that look like a mistake; the one-time note for rules written for
the old, root-anchored meaning."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.memory_store import load_context
from actors.places import path_rules_note_path

if TYPE_CHECKING:
    from pathlib import Path

    from tests.memory_store.conftest import Dirs


def settings_text(**lists: list[str]) -> str:
    """One entry a line, so that each entry has a line of its own: key on line 2, entries after."""
    parts = []
    for key, entries in lists.items():
        inner = ",\n".join(f"    {json.dumps(entry)}" for entry in entries)
        parts.append(f'  "{key}": [\n{inner}\n  ]')
    return "{\n" + ",\n".join(parts) + "\n}\n"


def warnings(dirs: Dirs, *, remember: bool = False) -> tuple[str, ...]:
    return load_context(str(dirs.project), home=str(dirs.home), remember_notices=remember).warnings


def mistakes(dirs: Dirs) -> list[str]:
    """The warnings, without the one-time notes (tested on their own below)."""
    return [w for w in warnings(dirs) if "this note is shown once" not in w]


# ── refusals ────────────────────────────────────────────────────────────────────────────────

# (blockedPaths or allowedPaths, the bad entry, what the message says about it)
REFUSED = [
    ("blockedPaths", "!secrets/keep.txt", "'!' (an exception) is not accepted in blockedPaths"),
    ("allowedPaths", "#notes", "a pattern starting with '#' is a comment"),
    ("allowedPaths", "src/[ab.py", "the pattern has a '[' with no closing ']'"),
    ("blockedPaths", "*.{pem,key", "the pattern's braces do not pair up"),
    ("blockedPaths", "src/../.env", "'.' and '..' inside a pattern are not supported"),
    ("allowedPaths", "~bob/notes", "'~user' folders are not supported"),
]


@pytest.mark.parametrize(("key", "entry", "why"), REFUSED)
def test_an_entry_that_cannot_mean_what_it_says_is_refused(
    dirs: Dirs, key: str, entry: str, why: str
) -> None:
    path = dirs.write_settings(settings_text(**{key: ["/src/**", "docs/**", entry]}))
    with pytest.raises(ConfigError) as info:
        load_context(str(dirs.project), home=str(dirs.home))
    error = info.value
    assert (error.path, error.line, error.field) == (path, 5, f"{key}[2]")
    assert error.message.startswith(f"{path}:5: field '{key}[2]': {entry!r} cannot be used: {why}")
    assert error.remedy == (
        f"Rewrite or remove that entry of '{key}' (docs/configuration.md describes the patterns)"
    )
    assert error.exit_code == 2


def test_a_bang_is_accepted_in_allowed_paths(dirs: Dirs) -> None:
    dirs.write_settings(settings_text(allowedPaths=["/src/**", "!/src/secret.txt"]))
    assert mistakes(dirs) == []


# ── warnings ────────────────────────────────────────────────────────────────────────────────


def test_a_single_slash_for_a_path_on_this_computer_gets_a_did_you_mean(
    dirs: Dirs, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text("x")
    written = str(outside.parent.resolve() / "*.txt")  # a wildcard: its folder is checked
    (dirs.project / "usr").mkdir()  # /usr exists too, but so does the project's usr
    path = dirs.write_settings(
        settings_text(blockedPaths=[str(outside), "/usr/"], allowedPaths=[written])
    )
    assert mistakes(dirs) == [
        f"{path}:7: allowedPaths[0] '{written}' names nothing in the project, but "
        f"{outside.parent.resolve()} exists on this computer: a leading '/' means the project "
        f"root. Did you mean '/{written}' (an absolute path)?",
        f"{path}:3: blockedPaths[0] '{outside}' names nothing in the project, but {outside} "
        "exists on this computer: a leading '/' means the project root. Did you mean "
        f"'/{outside}' (an absolute path)?",
    ]


def test_the_absolute_spelling_gets_no_did_you_mean(dirs: Dirs, tmp_path: Path) -> None:
    dirs.write_settings(settings_text(blockedPaths=["/" + str(tmp_path), "~/.ssh/"]))
    assert mistakes(dirs) == []


def test_a_repeated_entry_is_named_with_the_one_it_repeats(dirs: Dirs) -> None:
    path = dirs.write_settings(
        settings_text(allowedPaths=["/src/**", "docs/**", " /src/** "], blockedPaths=["/.env"])
    )
    assert mistakes(dirs) == [
        f"{path}:5: allowedPaths[2] '/src/**' repeats allowedPaths[0]; remove one of them"
    ]


def test_an_entry_in_both_lists_is_named_once(dirs: Dirs) -> None:
    path = dirs.write_settings(
        settings_text(allowedPaths=["/src/**", "/.env"], blockedPaths=["*.pem", "/.env"])
    )
    assert mistakes(dirs) == [
        f"{path}:4: allowedPaths[1] '/.env' is also blockedPaths[1], and a block wins: the "
        "allowed entry does nothing. Remove it from one of the lists"
    ]


# (allowed, blocked, shadowed by blockedPaths[index] or None)
SHADOWS: list[tuple[str, str, int | None]] = [
    ("secrets/**", "secrets/", 0),
    ("/secrets/keys/*.pem", "/secrets", 0),
    ("docs/*.md", "/**", 0),
    ("~/notes/**", "~/notes/", 0),
    ("~/notes/**", "~/", 0),
    ("//opt/tool/**", "//opt/", 0),
    ("secrets/**", "secrets/*.pem", None),  # a narrower block
    ("secrets/**", "*/", 0),  # every folder, and so everything in one
    ("secrets/**", "*.d/", None),
    ("docs/**", "/src/", None),
    ("~/notes/**", "~/notes", 0),  # the folder, and so everything in it
    ("~/notes/**", "~/notes/*.md", None),
]


@pytest.mark.parametrize(("allowed", "blocked", "index"), SHADOWS)
def test_an_allowed_entry_a_block_shadows_names_the_block(
    dirs: Dirs, allowed: str, blocked: str, index: int | None
) -> None:
    path = dirs.write_settings(
        settings_text(allowedPaths=["//srv/README.md", allowed], blockedPaths=[blocked])
    )
    expected = (
        []
        if index is None
        else [
            f"{path}:4: allowedPaths[1] '{allowed}' can never allow anything: blockedPaths[0] "
            f"'{blocked}' blocks everything it could match, and a block wins. Remove or narrow "
            "one of them"
        ]
    )
    assert mistakes(dirs) == expected


def test_sound_files_get_no_warning(dirs: Dirs) -> None:
    (dirs.project / "src").mkdir()
    dirs.write_settings(
        settings_text(
            allowedPaths=["src/**", "docs/*.md", "!src/secret.txt", "~/notes/**", "//opt/x/**"],
            blockedPaths=["src/.env", "**/*.pem", "//etc/ssl/", "~/.ssh/"],
        )
    )
    assert warnings(dirs) == ()


# ── the one-time note ───────────────────────────────────────────────────────────────────────


def test_rules_written_for_the_old_meaning_are_noted_once_until_they_change(dirs: Dirs) -> None:
    (dirs.project / "etc").mkdir()
    (dirs.project / "etc" / "passwd").write_text("")  # in the project: no did-you-mean
    lists = {
        "allowedPaths": ["*.md", "src/**", "**", "~/notes/**"],
        "blockedPaths": ["/etc/passwd", ".env", "secrets/", "//etc/ssl/"],
    }
    path = dirs.write_settings(settings_text(**lists))
    notes = [
        f"{path}:3: allowedPaths[0] '*.md' now matches at any depth; it used to match only at "
        "the project root. Path rules now read like .gitignore: write '/*.md' to match at the "
        "root only (this note is shown once)",
        f"{path}:9: blockedPaths[0] '/etc/passwd' now means etc/passwd inside the project; it "
        "used to mean /etc/passwd on this computer. Path rules now read like .gitignore: write "
        "'//etc/passwd' for the absolute path (this note is shown once)",
        # '.env' and 'secrets/' now block at any depth: more than before, never less, no note.
    ]
    assert warnings(dirs, remember=True) == tuple(notes)
    recorded = path_rules_note_path(str(dirs.project.resolve()), str(dirs.home))
    assert os.path.isfile(recorded)
    assert warnings(dirs, remember=True) == ()  # the second run is quiet
    assert warnings(dirs) == ()

    lists["blockedPaths"].append("build/**")  # the lists change: the note comes back
    dirs.write_settings(settings_text(**lists))
    assert warnings(dirs, remember=True) == tuple(notes)
    assert warnings(dirs, remember=True) == ()


def test_a_load_that_does_not_show_the_warnings_does_not_spend_the_note(dirs: Dirs) -> None:
    dirs.write_settings(settings_text(allowedPaths=["*.md"]))
    assert len(warnings(dirs)) == 1
    assert len(warnings(dirs)) == 1
    assert len(warnings(dirs, remember=True)) == 1
    assert warnings(dirs, remember=True) == ()


def test_a_damaged_record_means_the_note_is_given_again(dirs: Dirs) -> None:
    dirs.write_settings(settings_text(allowedPaths=["*.md"]))
    assert len(warnings(dirs, remember=True)) == 1
    recorded = path_rules_note_path(str(dirs.project.resolve()), str(dirs.home))
    with open(recorded, "w") as file:
        file.write("{not json")
    assert len(warnings(dirs, remember=True)) == 1
    assert warnings(dirs, remember=True) == ()
