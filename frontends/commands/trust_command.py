"""``legato trust``: what the project's settings widen, and trusting it (headless and CI); and
the instruction files' imports from outside the project, approving them (imports_question.py).

    legato trust [--project PATH]            print what the project asks for, then trust it
    legato trust --show [--project PATH]     print it and whether it is trusted; change nothing
    legato trust --revoke [--project PATH]   forget the trust

A project's ``.legato/settings.json`` comes with the repository: what it widens (a permission
mode that skips questions, ``allowedCommands: ["*"]``, the sandbox off, paths outside the
project, hooks...; actors/memory_store/trust.py lists them) applies only once the user trusts
it as it is now. The record is kept in the user's own folder; a change to those settings makes
the project untrusted again. The terminal asks the same question at start (``ask_at_start``).
Exit codes: 0 done, 2 a bad flag or a bad settings file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import EXIT_OK
from actors.visible import printed_visibly
from frontends.commands.arguments import Parser
from frontends.errors_out import report

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Mapping, Sequence

    from actors.protocol import ProjectContext, TrustItem
    from frontends.session import MemoryStore

# The project's settings file, the only one whose settings can widen anything.
SETTINGS_FILE = os.path.join(".legato", "settings.json")
# Every settings file a repository can bring: Legato's own and the reference's, local or not.
PROJECT_FILES = (
    SETTINGS_FILE,
    os.path.join(".legato", "settings.local.json"),
    os.path.join(".claude", "settings.json"),
    os.path.join(".claude", "settings.local.json"),
)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="legato trust",
        description=(
            "Trust the project's settings that widen what commands may do (a permission mode "
            "that skips questions, allowedCommands that allow any command, the sandbox off or "
            "widened, paths outside the project, hooks): printed first, then recorded in your "
            "own folder. A change to them makes the project untrusted again."
        ),
    )
    parser.add_argument("--project", dest="project_path", default=None, help="(default: here)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--show", action="store_true", help="print what the project asks for; trust nothing"
    )
    action.add_argument("--revoke", action="store_true", help="forget the trust in this project")
    return parser


@printed_visibly
def run_trust(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    args = _parser().parse_args(list(argv))
    env = os.environ if env is None else env
    from actors.errors import LegatoError

    memory = _memory_store(args.project_path, env)
    try:
        if args.revoke:
            _revoke(memory)
        else:
            _trust(memory, record=not args.show)
    except LegatoError as error:
        return report(error, program="legato trust")
    return EXIT_OK


def _memory_store(project_path: str | None, env: Mapping[str, str]) -> MemoryStore:
    from frontends.session import memory_store
    from frontends.session_options import SessionOptions

    # As a session with no flags would load it: flags do not change what the file asks for.
    project = os.path.abspath(project_path or os.getcwd())
    return memory_store(SessionOptions(project_root=project, env=env, home=env.get("HOME")))


def _trust(memory: MemoryStore, *, record: bool) -> None:
    from actors.protocol import GetContext, TrustProject
    from frontends.commands.asking import ask_actors
    from frontends.commands.imports_question import approve_imports, import_lines

    async def trusting() -> tuple[ProjectContext, bool, int]:
        context = await memory.address.ask(GetContext())
        imports = len(context.import_requests)
        if imports:
            print(*import_lines(context), sep="\n")
            if record:
                context = await approve_imports(memory, context)
        if not context.trust_items:
            return context, False, imports
        print(*item_lines(context, context.trust_items), sep="\n")
        if context.trusted or not record:
            return context, False, imports
        trusted = await memory.address.ask(TrustProject(fingerprint=context.trust_fingerprint))
        return trusted, True, imports

    context, recorded, imports = ask_actors([memory], trusting)
    where = context.project_root
    if imports and record:
        print(f"Approved: those imports are loaded until the files change ({imports}).")
    elif imports:
        print("Those imports are not approved: they are not loaded. Approve them: legato trust")
    if not context.trust_items:
        print(f"{where}: the project's settings widen nothing; there is nothing to trust.")
    elif recorded and context.trusted:
        print(f"Trusted: sessions in {where} apply these settings until they change.")
    elif context.trusted:
        print(f"{where} is trusted with these settings.")
    else:
        print(f"{where} is not trusted: these settings are not applied. Trust them: legato trust")


def _revoke(memory: MemoryStore) -> None:
    from actors.protocol import GetContext, RevokeTrust
    from frontends.commands.asking import ask_actors

    async def revoking() -> tuple[ProjectContext, bool]:
        return await memory.address.ask(GetContext()), await memory.address.ask(RevokeTrust())

    context, revoked = ask_actors([memory], revoking)
    if revoked:
        print(f"Revoked: the next session in {context.project_root} does not apply them.")
    else:
        print(f"{context.project_root} was not trusted: nothing to revoke.")


def item_lines(context: ProjectContext, items: Sequence[TrustItem]) -> list[str]:
    """What the project asks for, by the file that asks, one item a line, as the file holds
    it (escaped)."""
    from actors.places import trust_path
    from actors.visible import one_line, setting_line

    settings = os.path.join(context.project_root, SETTINGS_FILE)
    record = trust_path(context.project_root, context.home or os.path.expanduser("~"))
    by_file: dict[str, list[TrustItem]] = {}
    for item in items:
        by_file.setdefault(item.source or settings, []).append(item)
    lines: list[str] = []
    for source, asked in by_file.items():
        lines.append(f"{one_line(source)} asks for what widens what commands may do:")
        lines += (f"  {setting_line(item.key, item.value)}" for item in asked)
    return [*lines, f"(trust is recorded in {record}, outside the project)"]


@printed_visibly  # the project's folder is named in it, and may hold anything
def ask_at_start(
    project_root: str,
    *,
    env: Mapping[str, str],
    home: str | None,
    ask: Callable[[str], str] = input,
) -> None:
    """The terminal's question, before the session starts: asked when the project's settings
    widen something the user has not trusted as it is now. Yes records the trust, and the
    session then starts with them applied; no (or Ctrl-C, Ctrl-D) leaves them off, and the
    next session asks again. A settings file that does not load is left to the session to
    report. A project without a settings file or an instruction file asks nothing, and starts
    no memory store for it.
    Before that, the instruction files' imports from outside the project (imports_question.py)."""
    from actors.instructions import may_import

    # What can ask something: the settings files, and the instruction files' imports.
    if not any(
        os.path.lexists(os.path.join(project_root, name)) for name in PROJECT_FILES
    ) and not may_import(os.path.realpath(project_root)):
        return
    from actors.errors import LegatoError
    from actors.protocol import GetContext, TrustProject
    from frontends.commands.asking import ask_actors

    memory = _memory_store(project_root, {**env, **({"HOME": home} if home else {})})

    async def asking() -> None:
        context = await memory.address.ask(GetContext())
        if context.import_requests:
            from frontends.commands.imports_question import ask_about_imports

            await ask_about_imports(memory, context, ask)
        # A project that has only hooks keeps their own question: /hooks approve.
        if context.trusted or all(item.key == "hooks" for item in context.trust_items):
            return
        print(*item_lines(context, context.trust_items), sep="\n")
        try:
            # Read on the loop's own thread: nothing else runs until the person answers, and
            # Ctrl-C reaches the main thread, where input() waits.
            answer = ask("Trust this project and apply them? [y/N] ")
        except (EOFError, KeyboardInterrupt):
            answer = ""
        if answer.strip().lower() in ("y", "yes"):
            await memory.address.ask(TrustProject(fingerprint=context.trust_fingerprint))
            print("Trusted: applied now and in later sessions until they change.")
        else:
            print("Not trusted: they are not applied. You will be asked again next time.")

    try:
        ask_actors([memory], asking)
    except LegatoError:
        return
