"""The ``sandbox`` object of ``.legato/settings.json``: how Bash commands are confined.

Paths are plain paths, not patterns (a mount needs one real path): ``~/...`` under the home
folder, ``/...`` (or ``//...``) absolute, anything else relative to the project root.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from actors.settings.words import strings

# Where tokens live in a home folder, by the tools in current use: no confined command may read
# them, whatever the settings (``sandbox.denyRead`` adds to these, never removes). A deny list
# rather than hiding the home: toolchains keep their caches and homes (~/.cargo, ~/.rustup,
# ~/.npm, ~/.cache) where they expect them. docs/security.md says why and what is left.
DEFAULT_DENY_READ = (
    "~/.ssh",
    "~/.aws",
    "~/.config/gcloud",
    "~/.azure",
    "~/.gnupg",
    "~/.kube",
    "~/.docker",
    "~/.netrc",
    "~/.config/legato",
    "~/.legato",
    "~/.config/gh",  # GitHub CLI: hosts.yml holds its token
    "~/.config/hub",
    "~/.git-credentials",  # git's credential store
    "~/.config/git/credentials",
    "~/.npmrc",
    "~/.yarnrc",
    "~/.yarnrc.yml",
    "~/.config/yarn",
    "~/.pnpmrc",
    "~/.config/pnpm",
    "~/.pypirc",
    "~/.config/pip",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.config/composer/auth.json",
    "~/.composer/auth.json",
    "~/.terraform.d",
    "~/.config/doctl",
    "~/.config/op",  # 1Password CLI
    "~/.password-store",
    "~/.vault-token",
    "~/.local/share/keyrings",  # GNOME keyring
    "~/.local/share/kwalletd",
    "~/Library/Keychains",
    "~/.mozilla",
    "~/.config/google-chrome",
    "~/.config/chromium",
    "~/.config/BraveSoftware",
    "~/.config/microsoft-edge",
    "~/Library/Application Support/Google/Chrome",
    "~/Library/Application Support/Firefox",
    "~/.claude",  # the reference assistant's credentials and settings
    "~/.claude.json",
    "~/.codex",  # other coding assistants' keys and sign-ins
    "~/.gemini",
    "~/.config/github-copilot",
    "~/.aider.conf.yml",
    # Hugging Face's token files only: the rest of ~/.cache/huggingface is the models' cache.
    "~/.cache/huggingface/token",
    "~/.cache/huggingface/stored_tokens",
    "~/.huggingface",
    "~/.config/configstore",  # Node CLIs' saved logins (firebase-tools and the like)
    "~/.oci",
    "~/.ibmcloud",
    "~/.fly",
    "~/.s3cfg",
    "~/.config/rclone",
    "~/.databrickscfg",
    # Shell history: tokens typed on a command line (``export GITHUB_TOKEN=...``).
    "~/.bash_history",
    "~/.zsh_history",
    "~/.local/share/fish/fish_history",
)

# Confined commands' limits when the settings do not say: enough for a parallel build (each
# thread counts as a process) and a fork bomb that stops there.
MAX_PROCESSES = 1024


class SandboxSettings(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The ``sandbox`` object, validated: each field's bounds and meaning are in its ``Meta``,
    from which the loader's messages and docs/configuration.md's table are checked."""

    enabled: Annotated[
        bool, msgspec.Meta(description="false: commands run unconfined, as before the sandbox")
    ] = True
    network: Annotated[
        bool,
        msgspec.Meta(
            description="false: commands get a network of their own, with only its own loopback"
        ),
    ] = True
    allow_write: Annotated[
        tuple[str, ...],
        strings(
            "folders writable besides the project and the session's private TMPDIR",
            each="a path",
            many="paths",
            example=["~/.cache/pip"],
        ),
    ] = ()
    read_only: Annotated[
        tuple[str, ...],
        strings(
            "paths in the project that stay read-only, besides .legato/ and git's files",
            each="a path",
            many="paths",
            example=["~/.cache/pip"],
        ),
    ] = ()
    deny_read: Annotated[
        tuple[str, ...],
        strings(
            "paths no command may read, besides DEFAULT_DENY_READ, which always holds",
            each="a path",
            many="paths",
            example=["~/.cache/pip"],
        ),
    ] = ()
    pass_env: Annotated[
        tuple[str, ...],
        strings(
            "variables let through although Legato keeps them back; never its own credentials",
            each="a variable name",
            many="variable names",
            example=["AWS_PROFILE"],
        ),
    ] = ()
    auto_allow: Annotated[
        bool,
        msgspec.Meta(
            description="auto mode runs commands the rules do not list confined and offline, "
            "unasked"
        ),
    ] = True
    unconfined_commands: Annotated[
        tuple[str, ...],
        strings(
            "programs whose lines run outside the sandbox",
            each="a program name",
            many="program names",
            example=["docker"],
        ),
    ] = ()
    allow_unix_sockets: Annotated[
        tuple[str, ...],
        strings(
            "sockets (or folders of them) of services outside the sandbox that confined "
            "commands may still reach (the docker daemon's, say)",
            each="a path",
            many="paths",
            example=["/run/docker.sock"],
        ),
    ] = ()
    max_processes: Annotated[
        int,
        msgspec.Meta(
            ge=8,
            le=1_000_000,
            description="processes (threads count) a confined command may have at once, "
            "itself included",
        ),
    ] = MAX_PROCESSES
    max_memory_mb: (
        Annotated[
            int,
            msgspec.Meta(
                ge=64,
                le=16_777_216,
                description="each confined process's data (heap and private writable memory, "
                "RLIMIT_DATA); unset: half the machine's memory",
                extra={"unit": "MiB", "default": "half the memory"},
            ),
        ]
        | None
    ) = msgspec.field(default=None, name="maxMemoryMB")
