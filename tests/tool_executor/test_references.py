"""``@path`` references, attached by the tool executor: each read put to the broker, marked as
named by the person, through the same door as the tools."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.protocol import Attachment, AttachReferences
from tests.tool_executor.harness import session, with_policy

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import Calls


async def attach(s: Calls, text: str) -> Attachment:
    return await s.executor.address.ask(AttachReferences(text=text))


async def test_tokens_that_name_nothing_stay_text(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    prompt = "explain @src/a.py. mail bob@example.com, see @missing.py and @pytest.fixture"
    async with session(tmp_path) as s:
        done = await attach(s, prompt)
    assert done == Attachment(
        prompt=f'{prompt}\n\nReferenced files:\n<file path="src/a.py">\nx = 1\n\n</file>',
        attached=("src/a.py",),
    )
    assert [r.paths for r in s.broker.requests] == [(str(tmp_path / "src" / "a.py"),)]
    assert all(r.named_by_user and r.kind == "read" for r in s.broker.requests)


async def test_allowed_files_are_attached_and_the_rest_reported(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.bin").write_bytes(b"\0\1\2")
    (tmp_path / "secret.txt").write_text("hidden\n")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "x.md").write_text("")
    (tmp_path / "dir" / "sub").mkdir()

    def deny(request: object) -> str | None:
        return "blocked" if str(tmp_path / "secret.txt") in getattr(request, "paths", ()) else None

    async with session(tmp_path, deny=deny) as s:
        done = await attach(s, "@a.txt @b.bin @secret.txt @dir")
    assert done.attached == ("a.txt", "dir")
    assert done.notes == (
        "@b.bin was not attached: it is a binary file",
        "@secret.txt was not attached: blocked",
    )
    assert '<file path="a.txt">\nalpha\n\n</file>' in done.prompt
    assert '<file path="dir">\n(a folder; its entries)\nsub/\nx.md\n</file>' in done.prompt
    assert "hidden" not in done.prompt
    # A binary file is refused before anything is asked.
    assert str(tmp_path / "b.bin") not in [p for r in s.broker.requests for p in r.paths]


async def test_a_missing_path_names_the_closest_match(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "docs").mkdir()
    async with session(tmp_path) as s:
        done = await attach(
            s,
            "look at @src/mian.py, @SRC/Main.py, @scr/main.py, @./scr/mian.py, "
            f"@docs/nothing-like-it.md and @{tmp_path}/sr/main.py",
        )
    assert done.notes == (
        "@src/mian.py not found; did you mean @src/main.py?",
        "@SRC/Main.py not found; did you mean @src/main.py?",
        # Each part of the path is respelled from what its folder holds.
        "@scr/main.py not found; did you mean @src/main.py?",
        "@./scr/mian.py not found; did you mean @src/main.py?",
        "@docs/nothing-like-it.md not found: no file or folder has that path, so nothing was "
        "attached",
        f"@{tmp_path}/sr/main.py not found; did you mean @src/main.py?",
    )
    assert done.attached == () and s.broker.requests == []


async def test_a_file_named_without_its_folder_is_found_in_the_project(tmp_path: Path) -> None:
    files = (
        "src/app/main.py",
        "tests/app/main.py",
        "src/util.py",
        "notes/util.md",
        "docs/README.md",
    )
    for path in files:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "utils.py").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n")
    prompt = (
        "see @main.py, @utli.py, @utils.py, @readme.md, @mian.rs, @decorator, @pytest.fixture, "
        f"@~/main.py and @{tmp_path.parent}/main.py"
    )
    async with session(tmp_path) as s:
        done = await attach(s, prompt)
    assert done.notes == (
        "@main.py not found; did you mean @src/app/main.py?",  # the first of the shallowest
        "@utli.py not found; did you mean @src/util.py?",  # the same extension, not util.md
        # build/utils.py is what .gitignore leaves out, as @path completion does.
        "@utils.py not found; did you mean @src/util.py?",
        "@readme.md not found; did you mean @docs/README.md?",  # case aside
        # A path from / or ~ says where it is: a project file of its name is not what it meant.
        "@~/main.py not found: no file or folder has that path, so nothing was attached",
        f"@{tmp_path.parent}/main.py not found: no file or folder has that path, so nothing was "
        "attached",
    )
    assert done.prompt == prompt and s.broker.requests == []


async def test_system_paths_are_refused_before_anything_is_asked(tmp_path: Path) -> None:
    (tmp_path / "env").symlink_to("/proc/self/environ")
    async with session(tmp_path) as s:
        done = await attach(s, "@env and @/dev/stdin")
    assert done.notes == (
        f"@env was not attached: Legato's file tools do not read or write /proc, /dev or /sys "
        f"(/proc/{os.getpid()}/environ). Use Bash to look at system files",
        "@/dev/stdin was not attached: Legato's file tools do not read or write /proc, /dev or "
        "/sys (/dev/stdin). Use Bash to look at system files",
    )
    assert s.broker.requests == []


# ── with the real broker: naming a file is the person's yes, and no more ───────────────────


def project(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello app')\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "key.txt").write_text("TOKEN=abc\n")
    outside = tmp_path / "notes.txt"
    outside.write_text("private notes\n")
    return root, outside


async def test_headless_naming_a_file_inside_the_project_is_the_persons_yes(
    tmp_path: Path,
) -> None:
    root, outside = project(tmp_path)
    async with with_policy(root, mode="ask", blockedPaths=["secrets/"]) as s:
        done = await attach(s, f"look at @src/app.py and @secrets/key.txt and @{outside}")
    assert done.attached == ("src/app.py",)
    assert "TOKEN=abc" not in done.prompt and "private notes" not in done.prompt
    assert done.notes[0] == (
        "@secrets/key.txt was not attached: blocked by blockedPaths entry 'secrets/' (path "
        "'secrets/key.txt')"
    )
    assert done.notes[1].startswith(
        f"@{outside} was not attached: '{outside}' is outside the project root; reading "
        "outside the project always needs a person's approval"
    )


async def test_interactively_only_the_file_outside_is_asked_about(tmp_path: Path) -> None:
    root, outside = project(tmp_path)
    async with with_policy(root, mode="ask", answers=["y"]) as s:
        done = await attach(s, f"look at @src/app.py and @{outside}")
        assert s.person is not None
        asked = [q.request.paths for q in s.person.asked]
    assert done.attached == ("src/app.py", str(outside))
    assert asked == [(str(outside),)]


async def test_a_hard_link_named_with_at_still_needs_a_person(tmp_path: Path) -> None:
    root, _ = project(tmp_path)
    os.link(root / "secrets" / "key.txt", root / "src" / "key-copy.txt")
    async with with_policy(root, mode="ask", blockedPaths=["secrets/"]) as s:
        done = await attach(s, "@src/key-copy.txt")
    assert done.attached == () and "TOKEN" not in done.prompt
    assert done.notes[0].startswith(
        "@src/key-copy.txt was not attached: 'src/key-copy.txt' is a file with 2 names"
    )


async def test_files_the_rules_keep_from_tools_are_not_suggested(tmp_path: Path) -> None:
    root, _ = project(tmp_path)
    (root / "secrets" / "deploy.env").write_text("TOKEN=1\n")
    (root / "src" / "deploy.ini").write_text("[deploy]\n")
    async with with_policy(root, mode="ask", blockedPaths=["secrets/"]) as s:
        done = await attach(s, "@deploy.env and @deploy.ini")
    assert done.notes == ("@deploy.ini not found; did you mean @src/deploy.ini?",)
    assert done.attached == ()
