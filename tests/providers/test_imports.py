"""botocore (about 0.4 s to import) is loaded only for Bedrock requests: never by --version,
never by the Anthropic path, which imports the providers package."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    return set(done.stdout.splitlines()[-1].split())


def test_the_providers_do_not_import_botocore_until_bedrock_is_used() -> None:
    modules = loaded_after(
        "import actors.model_client.providers.router\nimport frontends.commands.doctor"
    )
    assert "actors.model_client.providers.bedrock" in modules
    assert not any(name.startswith("botocore") for name in modules)


def test_version_imports_no_provider_and_no_debug_log() -> None:
    modules = loaded_after(
        "import contextlib, io\nfrom frontends.cli import run\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    run(['--version'])"
    )
    assert not any(
        name.startswith(("botocore", "actors.model_client", "runtime")) for name in modules
    )
