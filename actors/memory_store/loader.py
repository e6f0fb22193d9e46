"""Reading what a session starts from: config, project settings, instruction files, MEMORY.md.

Plain synchronous functions, so that the CLI can validate the files without starting any
actor; the memory store runs ``load_context`` in a worker thread.

Precedence (the usual one, nearest wins): command-line flags,
then the environment (``ASSISTANT_MODEL``, ``ASSISTANT_PERMISSION_MODE``), then the project's
settings, then the global config, then the built-in default (see precedence.py).
"""

from __future__ import annotations

import os
import shlex
import stat
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from actors.errors import ConfigError, UsageError
from actors.instructions import blocked_rule, load_guides, read_markdown
from actors.memory_store import hooks_approval, trust
from actors.memory_store.hook_settings import read_hooks
from actors.memory_store.import_approvals import read_approved
from actors.memory_store.mcp_approvals import read_approvals
from actors.memory_store.mcp_servers import (
    load_mcp_servers,
    parse_mcp_servers,
    read_mcp_servers,
    without_credential_servers,
)
from actors.memory_store.precedence import DEFAULT, env_model, env_permission_mode, first
from actors.memory_store.sandbox_settings import check_sandbox, pass_env_warnings
from actors.memory_store.tool_settings import tool_rule_warnings
from actors.models import DEFAULT_ALIAS, OPENAI_PREFIX, resolve_model, same_provider
from actors.own_files import SETTINGS_CAP, Refused, read_own, user_folders
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
from actors.settings import GlobalConfig, PermissionMode, ProjectSettings
from actors.settings.validate import FileSchema, Loaded, load_json
from actors.tool_names import PERMISSION_TOOLS
from actors.tool_names import entry_problem as tool_entry_problem
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.settings import McpServer

CONFIG_FILE = os.path.join(".config", "legato", "config.json")  # under the home directory
SETTINGS_FILE = os.path.join(".legato", "settings.json")  # under the project root
MEMORY_LINES = 200  # only the first 200 lines of MEMORY.md are loaded
DEFAULT_MODE: PermissionMode = "ask"

S = TypeVar("S", bound=msgspec.Struct)

# Keys whose values their own parser checks: what they take, for a message.
_HOOKS = 'an object of hook events such as {"PostToolUse": [...]} (docs/hooks.md)'
_MCP_SERVERS = "an object of MCP servers by name, as in .mcp.json"


def config_path(home: str) -> str:
    return os.path.join(home, CONFIG_FILE)


def settings_path(project_root: str) -> str:
    return os.path.join(project_root, SETTINGS_FILE)


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
    config = _load_file(config_file, _config_schema(settings_file), GlobalConfig(), warnings)
    settings = _load_file(settings_file, _settings_schema(config_file), ProjectSettings(), warnings)
    _check_models(config, settings)
    _check_entries(settings)
    check_sandbox(settings, home=home, root=root)
    warnings += pass_env_warnings(settings, env, [config.value.api_key])
    # Both files' hooks run: the user's own first, then the project's, once approved.
    hooks = tuple(
        group
        for loaded in (config, settings)
        for group in read_hooks(loaded.path, loaded.raw, loaded.positions, warnings)
    )
    # What the project's hooks run from the project counts as much as their commands.
    hook_scripts = hooks_approval.scripts(
        root, home, (group for group in hooks if group.source == settings.path)
    )
    project_hooks = hooks_approval.fingerprint(settings.raw.get("hooks"), hook_scripts)
    if project_hooks and project_hooks != hooks_approval.approved_fingerprint(
        hooks_approval_path(root, home), warnings
    ):
        hooks = tuple(
            msgspec.structs.replace(group, approved=False)
            if group.source == settings.path
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
    mcp_servers = _with_given_servers(mcp_servers, overrides, env, warnings)
    mcp_servers = without_credential_servers(mcp_servers, env, [config.value.api_key], warnings)
    # Path rules are read by the broker's own parser, loaded only for settings that have some.
    path_rules = bool(settings.value.allowed_paths or settings.value.blocked_paths)
    if path_rules:
        from actors.memory_store.path_rules import check_path_rules

        warnings += check_path_rules(settings, root, home)
    warnings += tool_rule_warnings(settings, mcp_servers)
    if path_rules:
        from actors.memory_store.migration import migration_warnings

        note = path_rules_note_path(root, home)
        warnings += migration_warnings(settings, note, remember=remember_notices)
    if config.value.api_key:
        _warn_if_readable(config_file, warnings)
    # What the project widens applies once the user trusts it as it is now (trust.py).
    # Read only for allowedPaths entries, the one setting that can name them.
    runs = tuple(places_that_run(root, home, hooks, mcp_servers)) if path_rules else ()
    trust_items = trust.widening_items(settings.value, settings.raw.get("hooks"), root, home, runs)
    trust_print = trust.fingerprint(trust_items, hook_scripts)
    trusted = bool(trust_print) and trust_print == trust.trusted_fingerprint(
        trust_path(root, home), warnings
    )
    not_applied: list[Setting[Any]] = []
    if trust_items and not trusted:
        settings = msgspec.structs.replace(
            settings, value=trust.without_widening(settings.value, root, home, runs)
        )
        warnings += trust.not_applied(settings_file, trust_items)
        not_applied += (
            Setting(item.key, item.value, f"not applied (project not trusted): {settings_file}")
            for item in trust_items
            if item.key != "hooks"
        )
    elif trusted:
        hooks = tuple(msgspec.structs.replace(group, approved=True) for group in hooks)

    users_model = first(
        "model",
        DEFAULT_ALIAS,
        (overrides.model, "--model"),
        (env_model(env), "ASSISTANT_MODEL"),
        (config.value.default_model, f"{config_file} (defaultModel)"),
    )
    chosen_model = first(
        "model",
        DEFAULT_ALIAS,
        (overrides.model, "--model"),
        (env_model(env), "ASSISTANT_MODEL"),
        (settings.value.model, settings_file),
        (config.value.default_model, f"{config_file} (defaultModel)"),
    )
    model = resolve_model(chosen_model.value).id
    users = resolve_model(users_model.value).id
    if not same_provider(model, users):
        # Trusted or not: the provider and its endpoint are the user's choice alone.
        warnings.append(_provider_warning(settings_file, chosen_model.value, users))
        not_applied.append(
            Setting("model", chosen_model.value, f"not applied (another provider): {settings_file}")
        )
        chosen_model, model = users_model, users
    mode = first(
        "permissionMode",
        DEFAULT_MODE,
        (overrides.permission_mode, "--permission-mode"),
        (env_permission_mode(env), "ASSISTANT_PERMISSION_MODE"),
        (settings.value.permission_mode, settings_file),
        (config.value.permission_mode, config_file),
    )
    folder = memory_dir(root, home)
    blocked = blocked_rule(settings.value, root, home)
    approved = read_approved(imports_approval_path(root, home), warnings)
    guides, import_requests = load_guides(root, home, warnings, blocked=blocked, approved=approved)
    context = ProjectContext(
        project_root=root,
        config=config.value,
        settings=settings.value,
        model=model,
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
    )
    context = _with_program_options(context, overrides)
    return Explained(
        context,
        (Setting("model", model, chosen_model.source), mode, *_file_only(config, settings)),
        not_applied=tuple(not_applied),
    )


def _provider_warning(settings_file: str, wanted: str, users: str) -> str:
    where = "an OpenAI-compatible server" if users.startswith(OPENAI_PREFIX) else "Claude"
    return (
        f"{settings_file}: model '{escape_controls(wanted, newlines=True)}' not applied: it would "
        f"send the conversation to another provider than yours ({where}, {users}); choose the "
        "model with --model or the global config's defaultModel"
    )


def _file_only(
    config: Loaded[GlobalConfig], settings: Loaded[ProjectSettings]
) -> list[Setting[Any]]:
    """Values only the files set: the file's path when present in it, else the default."""
    out: list[Setting[Any]] = []
    for loaded, keys in (
        (config, ("theme", "autoSave")),
        (settings, _RULE_KEYS),
    ):
        for key in keys:
            value = msgspec.structs.asdict(loaded.value)[_snake(key)]
            source = loaded.path if loaded.line_of(key) is not None else DEFAULT
            out.append(Setting(key, value, source))
    return out


# The permission rules of the project's settings file, as JSON names.
_RULE_KEYS = (
    "allowedPaths",
    "blockedPaths",
    "allowedCommands",
    "blockedCommands",
    "allowedTools",
    "blockedTools",
)


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


# ── the two JSON files ──────────────────────────────────────────────────────────────────────


def _config_schema(settings_file: str) -> FileSchema[GlobalConfig]:
    return FileSchema(
        GlobalConfig,
        # Read by mcp_servers.py and hook_settings.py, which check each entry.
        others={"mcpServers": _MCP_SERVERS, "hooks": _HOOKS},
        secret=frozenset({"apiKey"}),
        elsewhere={
            key: f"the project settings file ({settings_file})" for key in (*_RULE_KEYS, "sandbox")
        },
    )


def _settings_schema(config_file: str) -> FileSchema[ProjectSettings]:
    return FileSchema(
        ProjectSettings,
        others={"hooks": _HOOKS},
        elsewhere={
            # A project folder is often committed: the key belongs in the private file.
            "apiKey": f"the global config file ({config_file}), which is not committed",
            "theme": f"the global config file ({config_file})",
            "autoSave": f"the global config file ({config_file})",
            "mcpServers": "the project's .mcp.json (or the global config file)",
            # A repository must not approve its own servers.
            "enableAllProjectMcpServers": f"the global config file ({config_file}) only",
        },
    )


def _load_file(path: str, schema: FileSchema[S], default: S, warnings: list[str]) -> Loaded[S]:
    text = _read_config_text(path)
    if text is None:
        return Loaded(path, default, {})
    return load_json(path, text, schema, warnings)


def _read_config_text(path: str) -> str | None:
    """The file's text, or None when it does not exist; unreadable is an error, not absent.

    Read through the door for Legato's own files: a settings file that is a link out of the
    project (or, for the global config, out of ~/.config/legato), a FIFO, a device or a file
    over the cap stops the start with a ConfigError, since going on without it would quietly
    run with other permissions than the ones written.
    """
    try:
        found = read_own(path, inside=_folders_of(path), cap=SETTINGS_CAP)
    except Refused as refused:
        raise ConfigError(refused.why, path=path, remedy=refused.remedy) from None
    if found is None:
        return None
    data = found.data
    try:
        return data.decode("utf-8-sig")  # tolerate the BOM some editors write
    except UnicodeDecodeError as error:
        text = data[: error.start].decode("utf-8", errors="replace")
        raise ConfigError(
            f"is not UTF-8 text (byte {error.start})",
            path=path,
            line=text.count("\n") + 1,
            remedy="Save the file as UTF-8",
        ) from None


def _folders_of(path: str) -> tuple[str, ...]:
    """Where a settings file may lead: the project holding ``.legato/settings.json``, or the
    user's own Legato folders for the global config."""
    for name, home_of in ((SETTINGS_FILE, False), (CONFIG_FILE, True)):
        if path.endswith(os.sep + name):
            above = path[: -len(name) - 1]
            return user_folders(above) if home_of else (above,)
    return (os.path.dirname(path),)


def _check_models(config: Loaded[GlobalConfig], settings: Loaded[ProjectSettings]) -> None:
    """An unknown model name in a file is that file's error, whichever value ends up used."""
    for loaded, key, name in (
        (settings, "model", settings.value.model),
        (config, "defaultModel", config.value.default_model),
    ):
        if name is None:
            continue
        try:
            resolve_model(name)
        except UsageError as error:
            raise ConfigError(
                error.message,
                path=loaded.path,
                line=loaded.line_of(key),
                field=key,
                remedy=error.remedy,
            ) from None


def _check_entries(settings: Loaded[ProjectSettings]) -> None:
    """An entry that can never match is a mistake; a command entry must split into words."""
    for key, entries in (
        ("allowedCommands", settings.value.allowed_commands),
        ("blockedCommands", settings.value.blocked_commands),
        ("allowedPaths", settings.value.allowed_paths),
        ("blockedPaths", settings.value.blocked_paths),
        ("allowedTools", settings.value.allowed_tools),
        ("blockedTools", settings.value.blocked_tools),
    ):
        for index, entry in enumerate(entries):
            remedy = f"Fix or remove that entry of '{key}'"
            if key.endswith("Tools"):
                problem = tool_entry_problem(entry)
                remedy = (
                    f"Write a built-in tool's name ({', '.join(PERMISSION_TOOLS)}), "
                    f"'mcp__<server>' or 'mcp__<server>__<tool>', or remove that entry of '{key}'"
                )
            else:
                problem = _entry_problem(entry, is_command=key.endswith("Commands"))
            if problem:
                raise ConfigError(
                    problem,
                    path=settings.path,
                    line=settings.line_of(key, index) or settings.line_of(key),
                    field=f"{key}[{index}]",
                    remedy=remedy,
                )


def _entry_problem(entry: str, *, is_command: bool) -> str | None:
    if not entry.strip():
        return "an empty entry matches nothing"
    if is_command:
        try:
            shlex.split(entry)
        except ValueError as error:
            return f"{entry!r} does not split into words: {error}"
    return None


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


def _with_program_options(context: ProjectContext, overrides: Overrides) -> ProjectContext:
    """The options of the program driving the session (the Agent SDK's): its allowed and
    blocked tools and commands join the settings' (a blocked rule still wins over any allow)."""
    settings = context.settings
    settings = msgspec.structs.replace(
        settings,
        allowed_tools=settings.allowed_tools + overrides.allowed_tools,
        blocked_tools=settings.blocked_tools + overrides.blocked_tools,
        allowed_commands=settings.allowed_commands + overrides.allowed_commands,
        blocked_commands=settings.blocked_commands + overrides.blocked_commands,
    )
    return msgspec.structs.replace(
        context,
        settings=settings,
        system_prompt=overrides.system_prompt,
        append_system_prompt=overrides.append_system_prompt,
        offered_tools=overrides.offered_tools,
        refused_tools=overrides.refused_tools,
        add_dirs=overrides.add_dirs,
    )


def _with_given_servers(
    servers: tuple[McpServer, ...],
    overrides: Overrides,
    env: Mapping[str, str],
    warnings: list[str],
) -> tuple[McpServer, ...]:
    """The files' servers and those of ``--mcp-config`` (the Agent SDK's ``mcp_servers``):
    given by whoever drives the session, so approved; their names win. Raises ConfigError."""
    given: list[McpServer] = []
    for config in overrides.mcp_configs:
        if config.lstrip().startswith("{"):
            text = _without_sdk_servers(config, warnings)
            given += parse_mcp_servers("--mcp-config", text, env, warnings)
        else:
            # A file the driving program names: its to choose, wherever it is.
            given += read_mcp_servers(config, env, warnings, inside=(os.sep,))
    given = [msgspec.structs.replace(server, approved=True) for server in given]
    if overrides.strict_mcp_config:
        return tuple(given)
    taken = {server.name for server in given}
    return (*given, *(server for server in servers if server.name not in taken))


def _without_sdk_servers(text: str, warnings: list[str]) -> str:
    """The JSON without the SDK's in-process servers (``"type": "sdk"``), which run inside the
    driving program and which Legato cannot reach; each left out is a warning."""
    try:
        raw = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return text  # the parser says where it is malformed, or nested too deep
    servers = raw.get("mcpServers") if isinstance(raw, dict) else None
    if not isinstance(servers, dict):
        return text
    for name, entry in list(servers.items()):
        if isinstance(entry, dict) and entry.get("type") == "sdk":
            del servers[name]
            warnings.append(
                f"--mcp-config: the in-process SDK server {name!r} is not supported and was "
                "left out; run it as a stdio or http MCP server instead"
            )
    return msgspec.json.encode(raw).decode()
