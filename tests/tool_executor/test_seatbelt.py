"""The macOS sandbox: the profile sandbox-exec gets for a layout, and the trial.

Seatbelt exists only on macOS. Elsewhere the profile is checked as text (exactly, for one
layout) and read back as SBPL (for hostile names), and the trial and the argv run against
stand-ins for sandbox-exec. The tests marked ``macos`` run real commands under sandbox-exec,
mirroring the Linux sandbox's tests, and skip on other systems.
"""

from __future__ import annotations

import dataclasses
import os
import platform
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

import pytest

from actors.protocol import SandboxSettings
from actors.tool_executor.sandbox import seatbelt
from actors.tool_executor.sandbox.layout import Layout
from actors.tool_executor.sandbox.places import layout as plan
from actors.tool_executor.sandbox.probe import Trial
from actors.tool_executor.sandbox.seatbelt import (
    DEVICE_FILES,
    DEVICE_FOLDERS,
    ENV,
    SANDBOX_EXEC,
    profile,
    seatbelt_args,
    try_seatbelt,
)
from tests.tool_executor.sbpl import Form, Pattern, Symbol, Text, head, read, walk

if TYPE_CHECKING:
    from collections.abc import Iterator

    import trio.testing

LAYOUT = Layout(
    tmpdir="/private/var/folders/xy/T/legato-tmp-1",
    writable=("/Users/me/project", "/Users/me/cache"),
    read_only=("/Users/me/project/.git/config", "/Users/me/project/.legato"),
    sealed=(("/Users/me/project/.git/hooks", True),),
    hidden=(("/Users/me/project/src/.env", False), ("/Users/me/.ssh", True)),
    network=False,
)

PROFILE = """\
(version 1)
(allow default)
(deny file-write*)
(allow file-write*
  (subpath (param "W0"))
  (subpath (param "W1"))
  (subpath (param "T0")))
(allow file-write*
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper")
  (literal "/dev/ptmx")
  (subpath "/dev/fd")
  (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
(deny file-write*
  (subpath (param "R0"))
  (subpath (param "R1"))
  (subpath (param "S0"))
  (subpath (param "H0"))
  (subpath (param "H1")))
(deny file-write-unlink
  (literal (param "A0"))
  (literal (param "W0"))
  (literal (param "A1")))
(deny file-link)
(deny file-clone
  (subpath (param "H0"))
  (subpath (param "H1")))
(deny file-read-data file-read-xattr
  (subpath (param "H0"))
  (subpath (param "H1")))
(deny appleevent-send)
(deny lsopen)
(deny job-creation)
(deny signal)
(allow signal (target same-sandbox))
(deny network*)
(allow network-bind (local unix-socket (subpath (param "W0"))))
(allow network-outbound (remote unix-socket (subpath (param "W0"))))
(allow network-bind (local unix-socket (subpath (param "W1"))))
(allow network-outbound (remote unix-socket (subpath (param "W1"))))
(allow network-bind (local unix-socket (subpath (param "T0"))))
(allow network-outbound (remote unix-socket (subpath (param "T0"))))
"""

PARAMS = {
    "W0": "/Users/me/project",
    "W1": "/Users/me/cache",
    "T0": "/private/var/folders/xy/T/legato-tmp-1",
    "R0": "/Users/me/project/.git/config",
    "R1": "/Users/me/project/.legato",
    "S0": "/Users/me/project/.git/hooks",
    "H0": "/Users/me/project/src/.env",
    "H1": "/Users/me/.ssh",
    # Folders that would carry a protected path away if renamed: .git, the project, src.
    # Nothing above the project, and nothing above ~/.ssh: those cannot be written at all.
    "A0": "/Users/me/project/.git",
    "A1": "/Users/me/project/src",
}

# The only strings a profile may hold besides parameter names: Legato's own, never a path of
# the project or the settings.
CONSTANTS = {*DEVICE_FILES, *DEVICE_FOLDERS, "com.apple.sandbox.pty"}
OWN_TERMINALS = Pattern("^/dev/ttys[0-9]+$")
PATH_FILTERS = {"literal", "subpath", "prefix", "regex", "path", "path-literal", "path-regex"}

# A name a hostile repository could give a folder or a file: it closes a string and a rule,
# opens rules of its own, starts a comment, breaks the line, escapes and opens a regex.
HOSTILE = 'x") (allow file-read* file-write*) ; (deny default)\n(allow default) \\ #"('


def test_the_profile_for_a_layout() -> None:
    assert profile(LAYOUT) == (PROFILE, PARAMS)


def test_the_arguments_carry_each_path_as_a_parameter_then_set_tmpdir() -> None:
    parameters = [part for name, path in PARAMS.items() for part in ("-D", f"{name}={path}")]
    assert seatbelt_args(LAYOUT) == [
        *parameters,
        "-p",
        PROFILE,
        ENV,
        "TMPDIR=/private/var/folders/xy/T/legato-tmp-1",
    ]


BARE = """\
(version 1)
(allow default)
(deny file-write*)
(allow file-write*
  (subpath (param "W0"))
  (subpath (param "T0")))
(allow file-write*
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/dtracehelper")
  (literal "/dev/ptmx")
  (subpath "/dev/fd")
  (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
(deny file-link)
(deny appleevent-send)
(deny lsopen)
(deny job-creation)
(deny signal)
(allow signal (target same-sandbox))
"""


def test_a_layout_with_nothing_protected_has_no_rule_without_a_path() -> None:
    bare = Layout(
        tmpdir="/private/tmp/t",
        writable=("/Users/me/project",),
        read_only=(),
        sealed=(),
        hidden=(),
        network=True,
    )
    # A rule left without its filters would apply to every path: deny every read, say.
    assert profile(bare) == (BARE, {"W0": "/Users/me/project", "T0": "/private/tmp/t"})


def test_folders_are_pinned_up_to_the_writable_folder_that_holds_the_path() -> None:
    deep = Layout(
        tmpdir="/private/tmp/t",
        writable=("/Users/me/project", "/Users/me/cache"),
        read_only=(),
        sealed=(),
        hidden=(("/Users/me/cache/a/b/key", False),),
        network=True,
    )
    text, params = profile(deep)
    pinned = [params[name] for name in named_by(rules(text), "deny", "file-write-unlink")]
    assert pinned == ["/Users/me/cache/a/b", "/Users/me/cache/a", "/Users/me/cache"]


def renamed(layout: Layout) -> Layout:
    """The same layout, with the project and the blocked file given hostile names."""

    def rename(path: str) -> str:
        return path.replace("/project", f"/{HOSTILE}").replace("/.env", f"/.env{HOSTILE}")

    return Layout(
        tmpdir=layout.tmpdir,
        writable=tuple(map(rename, layout.writable)),
        read_only=tuple(map(rename, layout.read_only)),
        sealed=tuple((rename(path), folder) for path, folder in layout.sealed),
        hidden=tuple((rename(path), folder) for path, folder in layout.hidden),
        network=layout.network,
    )


def test_hostile_names_change_no_character_of_the_profile() -> None:
    text, params = profile(renamed(LAYOUT))
    assert text == PROFILE  # the same for any names: none of them is in it
    assert params["W0"] == f"/Users/me/{HOSTILE}"
    assert params["H0"] == f"/Users/me/{HOSTILE}/src/.env{HOSTILE}"
    args = seatbelt_args(renamed(LAYOUT))
    assert args[args.index(f"H0={params['H0']}") - 1] == "-D"
    assert [arg for arg in args if HOSTILE in arg] == [
        f"{name}={path}" for name, path in params.items() if HOSTILE in path
    ]


def test_every_path_in_the_profile_is_a_parameter(tmp_path: Path) -> None:
    """A real layout, from the settings and a tree whose names are hostile, read back as SBPL."""
    project = tmp_path / HOSTILE
    (project / ".legato").mkdir(parents=True)
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / ".git" / "config").write_text("")
    blocked = project / f"src{HOSTILE}" / f".env{HOSTILE}"
    blocked.parent.mkdir()
    blocked.write_text("secret")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (tmp_path / "tmp").mkdir()
    settings = SandboxSettings(network=False, read_only=(f"lib{HOSTILE}/",))
    layout = plan(
        settings,
        project=str(project),
        home=str(home),
        tmpdir=str(tmp_path / "tmp"),
        blocked=[(str(blocked), False)],
    )
    text, params = profile(layout)
    forms = read(text)  # balanced, every string closed
    assert HOSTILE not in text and "src" not in text
    assert_paths_are_parameters(forms, params)
    paths = {
        layout.tmpdir,
        *layout.writable,
        *layout.read_only,
        *(path for path, _ in (*layout.sealed, *layout.hidden)),
    }
    assert paths <= set(params.values())
    assert str(blocked) in paths and str(project / f"lib{HOSTILE}") in paths


def test_the_sbpl_reader_refuses_what_sandbox_exec_would() -> None:
    assert read('(a "b\\"c" #"d" 1) ; e') == [[Symbol("a"), Text('b"c'), Pattern("d"), 1]]
    for broken in ("(a", "a)", '(a "b)', "(a))"):
        with pytest.raises(ValueError):
            read(broken)


def test_denials_come_after_the_allows_they_narrow() -> None:
    found = rules(profile(LAYOUT)[0])
    about_files = [
        (at, action, names)
        for at, (action, operations, names) in enumerate(found)
        if any(operation.startswith("file") for operation in operations)
    ]
    assert found[:2] == [("allow", ["default"], []), ("deny", ["file-write*"], [])]
    allows = [at for at, action, _ in about_files if action == "allow"]
    denials = [at for at, action, names in about_files if action == "deny" and names]
    assert max(allows) < min(denials)
    assert {operation for at in denials for operation in found[at][1]} == {
        "file-write*",
        "file-write-unlink",
        "file-clone",
        "file-read-data",
        "file-read-xattr",
    }


@pytest.mark.parametrize("network", [True, False])
def test_network_off_leaves_only_unix_sockets_where_commands_may_write(network: bool) -> None:
    text, params = profile(dataclasses.replace(LAYOUT, network=network))
    about_network = [
        (action, operations, names)
        for action, operations, names in rules(text)
        if any(op.startswith("network") for op in operations)
    ]
    if network:
        assert about_network == []
        return
    assert about_network[0] == ("deny", ["network*"], [])
    places = [*LAYOUT.writable, LAYOUT.tmpdir]
    assert about_network[1:] == [
        (action, [operation], [name])
        for name in ("W0", "W1", "T0")
        for action, operation in (("allow", "network-bind"), ("allow", "network-outbound"))
    ]
    assert [params[name] for name in ("W0", "W1", "T0")] == places


Rule: TypeAlias = tuple[str, list[str], list[str]]  # allow or deny, operations, parameters


def rules(text: str) -> list[Rule]:
    """Each top-level rule as (allow or deny, its operations, the parameters it names)."""
    out: list[Rule] = []
    for form in read(text):
        action = head(form)
        if action not in ("allow", "deny"):
            continue
        assert isinstance(form, list)
        operations = [part.name for part in form[1:] if isinstance(part, Symbol)]
        out.append((action, operations, param_names(form)))
    return out


def named_by(found: list[Rule], action: str, operation: str) -> list[str]:
    return [name for a, ops, names in found if (a, ops) == (action, [operation]) for name in names]


def param_names(form: Form) -> list[str]:
    names: list[str] = []
    for inner in walk(form):
        if head(inner) == "param":
            assert isinstance(inner, list) and len(inner) == 2 and isinstance(inner[1], Text)
            names.append(inner[1].value)
    return names


def assert_paths_are_parameters(forms: list[Form], params: dict[str, str]) -> None:
    """Every path filter names a parameter or one of Legato's constants, every parameter named
    is given, every one given is named, and the profile holds no other string."""
    named: set[str] = set()
    for form in (inner for top in forms for inner in walk(top)):
        if isinstance(form, Text):
            assert form.value in CONSTANTS or form.value in params, form
        name = head(form)
        if name not in PATH_FILTERS:
            continue
        assert isinstance(form, list) and len(form) == 2, form
        argument = form[1]
        if head(argument) == "param":
            named.update(param_names(argument))
        else:
            assert argument == OWN_TERMINALS or (
                isinstance(argument, Text) and argument.value in CONSTANTS
            ), form
    assert named == set(params)


# A stand-in for sandbox-exec that applies no profile: it passes over the parameters and the
# profile, as sandbox-exec reads them, and runs the rest. It keeps the arguments it was given.
PASS_THROUGH = """#!/bin/sh
printf '%s\\0' "$@" > "$0.args"
while [ $# -gt 0 ]; do
    case "$1" in
        -D|-p) shift 2 ;;
        *) break ;;
    esac
done
exec "$@"
"""


def stand_in(tmp_path: Path, script: str) -> str:
    path = tmp_path / "bin" / "sandbox-exec"
    path.parent.mkdir(exist_ok=True)
    path.write_text(script)
    path.chmod(0o755)
    return str(path)


def received(fake: str) -> list[str]:
    """The arguments the stand-in was given the last time it ran."""
    return Path(fake + ".args").read_bytes().decode().split("\0")[:-1]


def test_the_arguments_reach_the_program_whole_and_run_the_command(tmp_path: Path) -> None:
    project = tmp_path / HOSTILE
    project.mkdir()
    fake = stand_in(tmp_path, PASS_THROUGH)
    args = seatbelt_args(dataclasses.replace(renamed(LAYOUT), tmpdir=str(tmp_path)))
    ran = subprocess.run(
        [fake, *args, "bash", "-c", 'printf "%s\\n" "$TMPDIR" "$PWD"'],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout == f"{tmp_path}\n{project}\n"
    assert received(fake) == [*args, "bash", "-c", 'printf "%s\\n" "$TMPDIR" "$PWD"']


async def test_the_trial_runs_both_profiles_and_says_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(platform, "mac_ver", lambda: ("14.5", ("", "", ""), "arm64"))
    fake = stand_in(tmp_path, PASS_THROUGH)
    assert await try_seatbelt(fake) == Trial(True, "sandbox-exec (macOS 14.5)")
    assert received(fake) == [*seatbelt_args(seatbelt.TRIAL_LAYOUT), "true"]


async def test_a_missing_sandbox_exec_is_said(tmp_path: Path) -> None:
    missing = str(tmp_path / "no" / "sandbox-exec")
    trial = await try_seatbelt(missing)
    assert trial == Trial(False, "", f"{missing} could not be run: No such file or directory")


async def test_inside_another_sandbox_the_trial_says_why(tmp_path: Path) -> None:
    fake = stand_in(
        tmp_path,
        "#!/bin/sh\necho 'sandbox-exec: sandbox_apply: Operation not permitted' >&2\nexit 71\n",
    )
    trial = await try_seatbelt(fake)
    assert not trial.works
    assert trial.reason == (
        f"{fake} cannot make a sandbox here: sandbox-exec: sandbox_apply: Operation not permitted"
    )


async def test_a_profile_this_macos_refuses_is_said(tmp_path: Path) -> None:
    fake = stand_in(
        tmp_path,
        '#!/bin/sh\ncase "$*" in *-D*) echo "sandbox-exec: unbound variable: job-creation" >&2; '
        "exit 65 ;; esac\nexit 0\n",
    )
    trial = await try_seatbelt(fake)
    assert trial.reason == (
        f"{fake} refuses the profile Legato writes: sandbox-exec: unbound variable: job-creation"
    )


async def test_a_stuck_sandbox_exec_does_not_hold_the_session(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    fake = stand_in(tmp_path, "#!/bin/sh\nexec sleep 60\n")
    trial = await try_seatbelt(fake)
    assert trial == Trial(False, "", f"{fake} did not answer within 5 s")


# Real commands under sandbox-exec: macOS only.

macos = pytest.mark.skipif(sys.platform != "darwin", reason="sandbox-exec exists only on macOS")
SECRET = "SECRET-7f3a"


class Tree:
    """A project with Legato's settings, git's config and hooks, a blocked ``src/.env``, and a
    home with ``~/.ssh``; the private TMPDIR is short, for Unix sockets' 104-byte paths."""

    def __init__(self, root: Path, tmpdir: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.home = root / "home"
        self.tmpdir = tmpdir
        (self.project / ".legato").mkdir(parents=True)
        (self.project / ".legato" / "settings.json").write_text("{}")
        (self.project / ".git" / "hooks").mkdir(parents=True)
        (self.project / ".git" / "config").write_text("[core]\n")
        (self.project / "src").mkdir()
        (self.project / "src" / ".env").write_text(SECRET)
        (self.project / "open.txt").write_text("readable")
        (self.home / ".ssh").mkdir(parents=True)
        (self.home / ".ssh" / "id").write_text(SECRET)

    def layout(self, *, network: bool = True) -> Layout:
        return plan(
            SandboxSettings(network=network),
            project=str(self.project),
            home=str(self.home),
            tmpdir=str(self.tmpdir),
            blocked=[(str(self.project / "src" / ".env"), False)],
        )

    def run(self, command: str, *, network: bool = True) -> tuple[str, bool]:
        """The command's output and whether it failed."""
        ran = subprocess.run(
            [SANDBOX_EXEC, *seatbelt_args(self.layout(network=network)), "bash", "-c", command],
            cwd=self.project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return (ran.stdout + ran.stderr).strip(), ran.returncode != 0


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Tree]:
    tmpdir = Path(os.path.realpath(tempfile.mkdtemp(prefix="lg-", dir="/tmp")))
    try:
        yield Tree(Path(os.path.realpath(tmp_path)), tmpdir)
    finally:
        subprocess.run(["rm", "-rf", str(tmpdir)], check=False)


@macos
def test_mac_writing_outside_the_project_fails(tree: Tree) -> None:
    in_tmp = f"/tmp/legato-seatbelt-{uuid.uuid4().hex}"  # /tmp leads to /private/tmp
    for target in (tree.home / ".bashrc", tree.root / "beside.txt", Path(in_tmp)):
        output, failed = tree.run(f"echo x >> '{target}'")
        assert failed and "Operation not permitted" in output, output
        assert not target.exists()


@macos
def test_mac_the_project_the_tmpdir_and_the_shells_devices_are_writable(tree: Tree) -> None:
    assert tree.run("mkdir -p d/e && echo hi > d/e/f && cat d/e/f") == ("hi", False)
    tmp, failed = tree.run('echo "$TMPDIR"; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"')
    assert (tmp.splitlines(), failed) == ([str(tree.tmpdir), "t"], False)
    assert tree.run("echo quiet > /dev/null; echo shown > /dev/stdout") == ("shown", False)
    own_terminal = "import os; m, s = os.openpty(); os.write(s, b'pty'); print(os.read(m, 3))"
    assert tree.run(f'python3 -c "{own_terminal}"') == ("b'pty'", False)


@macos
def test_mac_legato_and_git_settings_cannot_be_changed(tree: Tree) -> None:
    for command in (
        "echo '{\"x\": 1}' > .legato/settings.json",
        "echo x >> .LEGATO/settings.json",  # the same file where names ignore case
        "mv .legato moved",
        "rm -rf .legato",
        "echo x >> .git/config",
        "mv .git g && echo x >> g/config",
        "ln .git/config c && echo x >> c",
        "touch .git/hooks/pre-commit",
    ):
        output, failed = tree.run(command)
        assert failed, (command, output)
    assert (tree.project / ".legato" / "settings.json").read_text() == "{}"
    assert (tree.project / ".git" / "config").read_text() == "[core]\n"
    assert sorted(os.listdir(tree.project)) == [".git", ".legato", "open.txt", "src"]


@macos
def test_mac_a_hard_link_gives_no_second_name_to_a_file_outside(tree: Tree) -> None:
    bashrc = tree.home / ".bashrc"
    bashrc.write_text("safe\n")
    output, failed = tree.run(f"ln '{bashrc}' bashrc && echo evil >> bashrc")
    assert failed, output
    assert bashrc.read_text() == "safe\n"
    assert not (tree.project / "bashrc").exists()


@macos
def test_mac_a_missing_legato_folder_cannot_be_created(tree: Tree) -> None:
    (tree.project / ".legato" / "settings.json").unlink()
    (tree.project / ".legato").rmdir()
    for command in ("mkdir -p .legato && echo '{}' > .legato/settings.json", "ln -s /tmp .legato"):
        output, failed = tree.run(command)
        assert failed, (command, output)
    assert not os.path.lexists(tree.project / ".legato")


@macos
def test_mac_a_hidden_file_cannot_be_read(tree: Tree) -> None:
    for command in (
        "cat src/.env",
        "python3 -c \"print(open('src/.e' + 'nv').read())\"",
        "ln -s src/.env link && cat link",  # a symlink reaches it under its own path
        "mv src elsewhere && cat elsewhere/.env",
        "ln src/.env hard && cat hard",
        "cp -c src/.env clone && cat clone",
        f"cat '{tree.home}/.ssh/id'",
        f"ls '{tree.home}/.ssh'",
    ):
        output, failed = tree.run(command)
        assert failed and SECRET not in output, (command, output)
    assert tree.run("cat open.txt") == ("readable", False)
    listed, failed = tree.run("ls -l src/.env")  # its metadata stays: tree walks do not fail
    assert not failed and listed.endswith("src/.env")


@macos
@pytest.mark.parametrize("network", [True, False])
def test_mac_network_false_leaves_commands_no_network(
    tree: Tree, loopback: int, network: bool
) -> None:
    connect = (
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {loopback}), 2); "
        "print('connected')\""
    )
    output, failed = tree.run(connect, network=network)
    if network:
        assert (output, failed) == ("connected", False)
    else:
        assert failed and "Operation not permitted" in output, output


@macos
def test_mac_offline_commands_still_talk_through_their_own_unix_sockets(tree: Tree) -> None:
    talk = (
        "import asyncio, os, socket; asyncio.run(asyncio.sleep(0)); "
        "path = os.path.join(os.environ['TMPDIR'], 's'); "
        "server = socket.socket(socket.AF_UNIX); server.bind(path); server.listen(); "
        "client = socket.socket(socket.AF_UNIX); client.connect(path); "
        "server.accept()[0].sendall(b'ok'); print(client.recv(2).decode())"
    )
    assert tree.run(f'python3 -c "{talk}"', network=False) == ("ok", False)


@macos
async def test_mac_the_trial_finds_sandbox_exec_working() -> None:
    trial = await try_seatbelt()
    assert trial.works, trial.reason
    assert trial.version.startswith("sandbox-exec (macOS ")


def test_unix_sockets_in_the_temporary_folders_are_refused_but_in_writable_places() -> None:
    """tmux's and screen's servers listen in /private/tmp; a project there keeps its own."""
    private = dataclasses.replace(
        LAYOUT,
        writable=("/private/tmp/project",),
        network=True,
        private=("/private/tmp", "/private/var/folders/xy/T"),
    )
    text, params = profile(private)
    about_network = [
        (action, operations, [params[name] for name in names])
        for action, operations, names in rules(text)
        if any(op.startswith("network") for op in operations)
    ]
    assert about_network == [
        ("deny", ["network-outbound"], ["/private/tmp"]),
        ("deny", ["network-outbound"], ["/private/var/folders/xy/T"]),
        ("allow", ["network-outbound"], ["/private/tmp/project"]),
        ("allow", ["network-outbound"], ["/private/var/folders/xy/T/legato-tmp-1"]),
    ]
