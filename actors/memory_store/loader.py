"""Reading what a session starts from: the settings files, the instruction files and MEMORY.md.

Plain synchronous functions, so that the CLI can validate the files without starting any
actor; the memory store runs ``load_context`` in a worker thread.

Precedence (the usual one, nearest wins): command-line flags (``--settings`` among them),
then the environment (``ASSISTANT_MODEL``, ``ASSISTANT_PERMISSION_MODE``), then the local
settings files, the project's, the user's, then the built-in default (settings_files.py lists
the files, precedence.py picks the winner, combine.py and reference_keys.py say how they add up).
What the program driving the session gives (the Agent SDK's options, ``--mcp-config``) is
added by program_options.py.
"""

from __future__ import annotations

import os
import shlex
import stat
from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import UsageError
from actors.instructions import blocked_rule, load_guides, read_markdown
from actors.memory_store import combine, hooks_approval, reference_keys, trust
from actors.memory_store.hook_settings import read_hooks
from actors.memory_store.import_approvals import read_approved
from actors.memory_store.mcp_approvals import read_approvals
from actors.memory_store.mcp_servers import (
    load_mcp_servers,
    without_credential_servers,
)
from actors.memory_store.precedence import env_model, env_permission_mode, first
from actors.memory_store.program_options import with_given_servers, with_program_options
from actors.memory_store.sandbox_settings import check_sandbox, pass_env_warnings
from actors.memory_store.settings_files import (
    CONFIG_FILE,
    SETTINGS_FILE,
    check_entries,
    check_models,
    config_path,
    merged,
    read_files,
    settings_path,
)
from actors.memory_store.tool_settings import tool_rule_warnings
from actors.models import DEFAULT_ALIAS, OPENAI_PREFIX, resolve_model, same_provider
from actors.places import (
    MEMORY_FILE,
    hooks_approval_path,
    imports_approval_path,
    mcp_approvals_path,
    memory_dir,
    path_rules_note_path,
    trust_path,
)
from actors.protocol import Explained, Overrides, ProjectContext, Setting
from actors.run_files import places_that_run
from actors.settings import PermissionMode, Permissions
from actors.settings.rule_check import with_rules_checked
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "CONFIG_FILE",
    "SETTINGS_FILE",
    "config_path",
    "explain_context",
    "load_context",
    "settings_path",
]

MEMORY_LINES = 200  # only the first 200 lines of MEMORY.md are loaded
DEFAULT_MODE: PermissionMode = "ask"


def load_context(
    project_root: str,
    *,
    home: str | None = None,
    overrides: Overrides | None = None,
    env: Mapping[str, str] | None = None,
    remember_notices: bool = False,
) -> ProjectContext:
    """Read and validate everything a session starts from.

    Raises ``ConfigError`` for a malformed or invalid file, ``UsageError`` for a bad override
    (a flag or an environment variable). ``remember_notices``: the caller shows the warnings,
    so a note given only once (migration.py) counts as given.
    """
    return explain_context(
        project_root, home=home, overrides=overrides, env=env, remember_notices=remember_notices
    ).context


def explain_context(
    project_root: str,
    *,
    home: str | None = None,
    overrides: Overrides | None = None,
    env: Mapping[str, str] | None = None,
    remember_notices: bool = False,
) -> Explained:
    """``load_context``, keeping where each effective value came from."""
    env = os.environ if env is None else env
    root = os.path.realpath(project_root)
    if not os.path.isdir(root):
        raise UsageError(
            f"project path '{project_root}' is not a directory",
            remedy="Give the path of an existing project folder, or run legato inside it",
        )
    home = home if home is not None else os.path.expanduser("~")
    overrides = overrides or Overrides()
    warnings: list[str] = []

    config_file = config_path(home)
    settings_file = settings_path(root)
    files = read_files(root, home, overrides.settings_flags, warnings)
    config = files.config
    own = (files.local, files.settings)  # Legato's files a repository can bring, nearest first
    check_models(files)
    combine.check_status_lines(files)
    for loaded in own:
        check_entries(loaded)
        check_sandbox(loaded, home=home, root=root)
        warnings += pass_env_warnings(loaded, env, [config.value.api_key])
    settings = msgspec.structs.replace(files.settings, value=merged(files.local, files.settings))
    project_files = files.project_level()
    project_paths = frozenset(loaded.path for loaded in project_files)
    # Every file's hooks run: the user's own first, then the flags', then the project's, once
    # approved.
    hooks = tuple(
        group
        for loaded in (*files.at("user"), *files.at("flags"), *reversed(project_files))
        for group in read_hooks(loaded.path, loaded.raw, loaded.positions, warnings)
    )
    # What the project's hooks run from the project counts as much as their commands.
    hook_scripts = hooks_approval.scripts(
        root, home, (group for group in hooks if group.source in project_paths)
    )
    project_hooks = hooks_approval.fingerprint(combine.project_hooks(files, root), hook_scripts)
    if project_hooks and project_hooks != hooks_approval.approved_fingerprint(
        hooks_approval_path(root, home), warnings
    ):
        hooks = tuple(
            msgspec.structs.replace(group, approved=False)
            if group.source in project_paths
            else group
            for group in hooks
        )
    # Then the frontend's (the Agent SDK's hooks option): whoever drives the session wrote them.
    hooks += tuple(msgspec.structs.replace(group, approved=True) for group in overrides.hooks)
    mcp_servers = load_mcp_servers(
        root,
        config_file,
        env,
        warnings,
        approvals=read_approvals(mcp_approvals_path(root, home), warnings),
        trust_all=config.value.enable_all_project_mcp_servers,
    )
    mcp_servers = with_given_servers(mcp_servers, overrides, env, warnings)
    mcp_servers = without_credential_servers(mcp_servers, env, [config.value.api_key], warnings)
    # Path rules are read by the broker's own parser, loaded only for settings that have some.
    path_rules = bool(settings.value.allowed_paths or settings.value.blocked_paths)
    if path_rules:
        from actors.memory_store.path_rules import check_path_rules

        for loaded in own:
            warnings += check_path_rules(loaded, root, home)
    for loaded in own:
        warnings += tool_rule_warnings(loaded, mcp_servers)
    if path_rules:
        from actors.memory_store.migration import migration_warnings

        note = path_rules_note_path(root, home)
        warnings += migration_warnings(settings, note, remember=remember_notices)
    if config.value.api_key:
        _warn_if_readable(config_file, warnings)
    gathered = reference_keys.gather(files, overrides.permission_rules, root, warnings)
    written_rules = gathered.rules  # as the files write them, before trust leaves any out
    # What the project widens applies once the user trusts it as it is now (trust.py).
    # Read only for allowedPaths entries, the one setting that can name them.
    runs = tuple(places_that_run(root, home, hooks, mcp_servers)) if path_rules else ()
    trust_items = combine.trust_items(files, gathered, project_paths, root, home, runs)
    # A project's statusLine script counts as much as its command, as a hook's does.
    trust_print = trust.fingerprint(
        trust_items, {**hook_scripts, **combine.status_line_scripts(files, root, home)}
    )
    trusted = bool(trust_print) and trust_print == trust.trusted_fingerprint(
        trust_path(root, home), warnings
    )
    not_applied: list[Setting[Any]] = []
    if trust_items and not trusted:
        settings = msgspec.structs.replace(
            settings, value=trust.without_widening(settings.value, root, home, runs)
        )
        gathered = reference_keys.untrusted(gathered, project_paths)
        warnings += trust.not_applied(settings_file, trust_items)
        not_applied += (
            Setting(item.key, item.value, f"not applied (project not trusted): {item.source}")
            for item in trust_items
            if item.key != "hooks"
        )
    elif trusted:
        hooks = tuple(msgspec.structs.replace(group, approved=True) for group in hooks)
    settings_env = reference_keys.effective_env(gathered)
    mcp_servers = tuple(combine.with_env(server, settings_env) for server in mcp_servers)

    flag_models = [
        (r.loaded.value.model, r.loaded.path) for r in files.references if r.level == "flags"
    ]
    user_models = [
        (config.value.default_model, f"{config_file} (defaultModel)"),
        *((loaded.value.model, loaded.path) for loaded in files.at("user")[1:]),
    ]
    users_model = first(
        "model",
        DEFAULT_ALIAS,
        (overrides.model, "--model"),
        *flag_models,
        (env_model(env), "ASSISTANT_MODEL"),
        *user_models,
    )
    chosen_model = first(
        "model",
        DEFAULT_ALIAS,
        (overrides.model, "--model"),
        *flag_models,
        (env_model(env), "ASSISTANT_MODEL"),
        *((loaded.value.model, loaded.path) for loaded in project_files),
        *user_models,
    )
    model = resolve_model(chosen_model.value).id
    users = resolve_model(users_model.value).id
    if not same_provider(model, users):
        # Trusted or not: the provider and its endpoint are the user's choice alone.
        warnings.append(_provider_warning(chosen_model.source, chosen_model.value, users))
        not_applied.append(
            Setting(
                "model",
                chosen_model.value,
                f"not applied (another provider): {chosen_model.source}",
            )
        )
        chosen_model, model = users_model, users
    mode = first(
        "permissionMode",
        DEFAULT_MODE,
        (overrides.permission_mode, "--permission-mode"),
        *combine.modes(files, gathered, "flags", trusted=trusted),
        (env_permission_mode(env), "ASSISTANT_PERMISSION_MODE"),
        *combine.modes(files, gathered, "local", "project", "user", trusted=trusted),
    )
    bypass_disabled = reference_keys.bypass_disabled(files)
    if bypass_disabled and mode.value == "bypass":
        raise reference_keys.refuse_bypass(bypass_disabled, mode.source)
    status_line = combine.status_line(files, trusted=trusted)
    # As the model's: --settings, then the project's files, then the user's.
    effort = first(
        "effortLevel",
        None,
        *(
            (getattr(loaded.value, "effort_level", None), loaded.path)
            for loaded in (*files.at("flags"), *project_files, *files.at("user"))
        ),
    )
    folder = memory_dir(root, home)
    blocked = blocked_rule(settings.value, root, home, gathered.rules)
    approved = read_approved(imports_approval_path(root, home), warnings)
    guides, import_requests = load_guides(root, home, warnings, blocked=blocked, approved=approved)
    context = ProjectContext(
        project_root=root,
        # The rules travel as permission_rules, the mode, folders, variables and status line as
        # their own fields: one owner each.
        config=msgspec.structs.replace(
            config.value, permissions=Permissions(), env={}, status_line=None
        ),
        settings=msgspec.structs.replace(
            settings.value, permissions=Permissions(), env={}, status_line=None
        ),
        model=model,
        effort_level=effort if effort.value is not None else None,
        permission_mode=mode.value,
        guides=guides,
        import_requests=import_requests,
        approved_imports=tuple(sorted(approved)),
        memory=read_markdown(
            os.path.join(folder, MEMORY_FILE),
            MEMORY_LINES,
            warnings,
            inside=(folder,),
            blocked=blocked,
        ),
        memory_dir=folder,
        home=home,
        memory_topics=_memory_topics(folder),
        warnings=tuple(warnings),
        mcp_servers=mcp_servers,
        hooks=hooks,
        project_hooks_fingerprint=project_hooks,
        trust_items=trust_items,
        trusted=trusted,
        trust_fingerprint=trust_print,
        # A specific program applies untrusted because the sandbox holds what it runs; where
        # no sandbox can run, it would run as the user, unasked.
        confined_only_commands=() if trusted else settings.value.allowed_commands,
        permission_rules=gathered.rules,
        bypass_disabled=":".join(map(str, filter(None, bypass_disabled or ()))),
        env=settings_env,
        held_rules=tuple(rule for rule in written_rules if rule not in gathered.rules),
        status_line=status_line[0] if status_line else None,
    )
    context = with_program_options(
        context, overrides, reference_keys.directories(gathered, root, home, warnings)
    )
    context = msgspec.structs.replace(context, warnings=tuple(warnings))
    context = with_rules_checked(context, written=written_rules)
    return Explained(
        context,
        (
            Setting("model", model, chosen_model.source),
            mode,
            *([effort] if effort.value is not None else []),
            *combine.file_only(files),
            *combine.reference_settings(gathered),
            # Listed only when one is set: most sessions have none.
            *(
                [Setting("statusLine", status_line[0].command, status_line[1])]
                if status_line
                else []
            ),
        ),
        not_applied=tuple(not_applied),
        not_acted_on=tuple(reference_keys.not_acted_on(files)),
    )


def _provider_warning(settings_file: str, wanted: str, users: str) -> str:
    where = "an OpenAI-compatible server" if users.startswith(OPENAI_PREFIX) else "Claude"
    return (
        f"{settings_file}: model '{escape_controls(wanted, newlines=True)}' not applied: it would "
        f"send the conversation to another provider than yours ({where}, {users}); choose the "
        "model with --model or the global config's defaultModel"
    )


def _warn_if_readable(path: str, warnings: list[str]) -> None:
    """A key in a file others can read is a key others can use."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if stat.S_IMODE(mode) & 0o077:
        warnings.append(
            f"{path} holds apiKey and other users can read it; run: chmod 600 {shlex.quote(path)}"
        )


# ── memory ──────────────────────────────────────────────────────────────────────────────────


def _memory_topics(folder: str) -> tuple[str, ...]:
    """Topic files beside MEMORY.md (debugging.md, conventions.md...): named to the model,
    which reads one when it is relevant, so they cost no context until then. Only files
    themselves are named: a link could lead anywhere."""
    try:
        with os.scandir(folder) as entries:
            names = [
                entry.name
                for entry in entries
                if entry.name.endswith(".md") and entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        return ()
    return tuple(sorted(n for n in names if n != MEMORY_FILE))
