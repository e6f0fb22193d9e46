"""A repository set up as a Claude Code user sets one up, in the shapes the reference's docs give
(its instruction files, ``.claude/`` settings, commands, skills and agents, ``.mcp.json``), with
content of our own. Each file carries a marker, so a test can tell which reached the model.

``write_repo`` writes it into a project folder; ``user_files`` adds the user-level ``~/.claude/``
ones to a fake home. Nothing here is trusted or approved: a test that needs the project's
widening settings to apply trusts it, as its user would.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

# Markers: one per file, so that what reached the model says which file it came from.
CLAUDE_ROOT = "ORCHARD-CLAUDE-ROOT-41c7"
IMPORTED = "ORCHARD-IMPORTED-STYLE-9b02"
NESTED = "ORCHARD-NESTED-SRC-77ad"
LOCAL = "ORCHARD-CLAUDE-LOCAL-c5e3"
AGENTS = "ORCHARD-AGENTS-MD-0f18"
USER_CLAUDE = "ORCHARD-USER-CLAUDE-d26b"
SECRET = "ORCHARD-SECRET-TOKEN-e81f"
REVIEW = "ORCHARD-REVIEW-BODY-3a9d"
COMPONENT = "ORCHARD-COMPONENT-BODY-6c40"
SKILL = "ORCHARD-CHANGELOG-SKILL-52be"
SKILL_FILE = "ORCHARD-CHANGELOG-TEMPLATE-8e71"
AGENT = "ORCHARD-REVIEWER-AGENT-1d93"

MODEL = "claude-opus-4-6"  # the project settings' model: the default is another one

CLAUDE_MD = f"""# Orchard

Orchard is a small inventory service written in Python.

- {CLAUDE_ROOT}: indent with four spaces, never tabs.
- Run `npm run test:unit` before proposing a commit.

See @docs/style.md for the naming rules.
"""

STYLE_MD = f"""# Naming

{IMPORTED}: test files are named test_<module>.py and sit beside the module.
"""

SRC_CLAUDE_MD = f"""# src/

{NESTED}: every module in src/ starts with a one-line docstring.
"""

CLAUDE_LOCAL_MD = f"""# Just for me

{LOCAL}: my development database is orchard_dev on port 5433.
"""

AGENTS_MD = f"""# Agents

{AGENTS}: keep pull requests under 400 changed lines.
"""

SETTINGS: dict[str, Any] = {
    "model": MODEL,
    "permissions": {
        "allow": [
            "Bash(npm run test:*)",
            "Bash(git diff *)",
            "Edit(/src/**)",
            "mcp__time",
            "WebFetch(domain:docs.python.org)",
        ],
        "ask": ["Bash(git push *)"],
        "deny": ["Read(./secrets/**)", "Bash(curl *)"],
    },
    "env": {"ORCHARD_STAGE": "shared"},
    "hooks": {
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [
                    {
                        "type": "command",
                        "command": "printf 'edited\\n' >> \"$CLAUDE_PROJECT_DIR\"/hook.log",
                    }
                ],
            }
        ]
    },
}

# The personal file: wins over the shared one for the same key, adds its own rules.
SETTINGS_LOCAL: dict[str, Any] = {
    "permissions": {"allow": ["Bash(printenv:*)"]},
    "env": {"ORCHARD_STAGE": "mine"},
}

REVIEW_MD = f"""---
description: Review the changes of a pull request
argument-hint: <pr-number> [focus]
allowed-tools: Bash(git diff *), Read
---
Review pull request #$0, looking hardest at $1.

Changed files:
!`git diff --stat`

All arguments: $ARGUMENTS
{REVIEW}
"""

COMPONENT_MD = f"""---
description: Scaffold a UI component
argument-hint: <Name>
---
Create a component named $0 under src/components/, with a test beside it.
{COMPONENT}
"""

SKILL_MD = f"""---
name: changelog
description: Add the unreleased changes to CHANGELOG.md in the house format
---
{SKILL}

1. Read template.md in this skill's folder.
2. Write the unreleased changes under "Unreleased" following it.
"""

SKILL_TEMPLATE = f"""## Unreleased

{SKILL_FILE}
### Added
### Fixed
"""

AGENT_MD = f"""---
name: reviewer
description: Reviews a diff for bugs and missing tests. Use after a change.
tools: Read, Grep, Glob
---
{AGENT}: you review diffs. Name each bug with its file and line.
"""


def mcp_json() -> dict[str, Any]:
    """``mcp-server-time`` as the reference's docs configure it, run from this environment."""
    args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]
    return {"mcpServers": {"time": {"command": sys.executable, "args": args}}}


def write(root: Path, relative: str, content: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


def write_repo(root: Path) -> None:
    """Every file of the Claude Code user's repository, written into ``root``."""
    files = {
        "CLAUDE.md": CLAUDE_MD,
        "docs/style.md": STYLE_MD,
        "src/CLAUDE.md": SRC_CLAUDE_MD,
        "src/app.py": '"""Orchard\'s entry point."""\n\n\ndef main():\n    return "orchard"\n',
        "CLAUDE.local.md": CLAUDE_LOCAL_MD,
        "AGENTS.md": AGENTS_MD,
        "secrets/api.txt": f"TOKEN={SECRET}\n",
        ".claude/settings.json": json.dumps(SETTINGS, indent=2),
        ".claude/settings.local.json": json.dumps(SETTINGS_LOCAL, indent=2),
        ".claude/commands/review.md": REVIEW_MD,
        ".claude/commands/frontend/component.md": COMPONENT_MD,
        ".claude/skills/changelog/SKILL.md": SKILL_MD,
        ".claude/skills/changelog/template.md": SKILL_TEMPLATE,
        ".claude/agents/reviewer.md": AGENT_MD,
        ".mcp.json": json.dumps(mcp_json(), indent=2),
    }
    for relative, content in files.items():
        write(root, relative, content)


def user_files(home: Path) -> None:
    """The user-level instruction file, as ``~/.claude/CLAUDE.md``."""
    write(home, ".claude/CLAUDE.md", f"# Mine\n\n{USER_CLAUDE}: answer in British English.\n")


def git_repo(root: Path) -> None:
    """``root`` as a git repository with one commit, and ``src/app.py`` changed since it."""
    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(root), "PATH": "/usr/bin:/bin",
    }  # fmt: skip
    for command in (
        ["git", "init", "-q"],
        ["git", "add", "src/app.py"],
        ["git", "commit", "-q", "-m", "start"],
    ):
        subprocess.run(command, cwd=root, env=env, check=True, capture_output=True)
    (root / "src" / "app.py").write_text(
        '"""Orchard\'s entry point."""\n\n\ndef main():\n    return "orchard, ripe"\n'
    )


def ssh_key(home: Path, secret: str) -> Path:
    """The user's private key, holding ``secret``: what no file of a repository may reach."""
    key = home / ".ssh" / "id_rsa"
    key.parent.mkdir(exist_ok=True)
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{secret}\n")
    return key
