"""botocore is the optional 'bedrock' extra. Without it, through the real CLI: cloud credentials
get an error naming the extra and how to install it, never a traceback; `legato doctor` lists it
once as a problem; `legato config` and the Anthropic path work as ever."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

from actors.model_client.providers.bedrock import REMEDY_EXTRA, botocore_missing
from frontends.demo.scripted_api import ScriptedServer, text
from tests.frontends.conftest import REPO
from tests.providers.test_bedrock import SECRET, Bedrock, cloud_env

if TYPE_CHECKING:
    from tests.providers.conftest import Project

# None in sys.modules is how Python spells "this module cannot be imported".
WITHOUT_BOTOCORE = (
    "import sys; sys.modules['botocore'] = None; from frontends.cli import main; main()"
)
MISSING = (
    "CLOUD_ACCESS_KEY_ID is set, so Amazon Bedrock is used, but Legato's 'bedrock' extra "
    "(botocore) is not installed"
)


def legato(project: Project, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ASSISTANT_", "CLOUD_", "OPENAI_", "ANTHROPIC_"))
        and not k.lower().endswith("_proxy")
    }
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_BOTOCORE, *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=clean | {"HOME": str(project.home)} | env,
        timeout=60,
    )


def test_a_bedrock_prompt_names_the_extra_and_how_to_install_it(project: Project) -> None:
    server = Bedrock([])
    with server.server:
        done = legato(
            project, str(project.root), "--headless", "hi", **cloud_env(server.server.url)
        )
        assert server.server.requests == []  # refused before anything was sent
    assert done.returncode == 1
    assert done.stderr == f"legato: {MISSING}\n  → {REMEDY_EXTRA}\n"
    assert "pip install 'legato[bedrock]'" in REMEDY_EXTRA
    assert "uv tool install 'legato[bedrock]'" in REMEDY_EXTRA


def test_doctor_lists_the_missing_extra_once(project: Project) -> None:
    server = Bedrock([])
    with server.server:
        done = legato(project, "doctor", str(project.root), **cloud_env(server.server.url))
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert f"  not probed: {MISSING}" in lines
    problems = lines[lines.index("Problems") + 1 :]
    assert problems == [f"  ✗ {MISSING}", f"    → {REMEDY_EXTRA}"]
    assert SECRET not in done.stdout


def test_config_and_the_anthropic_path_need_no_botocore(project: Project) -> None:
    config = legato(project, "config", str(project.root), **cloud_env("http://127.0.0.1:9"))
    assert config.returncode == 0, config.stderr
    assert "Amazon Bedrock with CLOUD_ACCESS_KEY_ID and CLOUD_SECRET_ACCESS_KEY" in config.stdout
    with ScriptedServer([text("Hello without botocore.")], api_key="sk-plain") as server:
        env = {"ASSISTANT_API_KEY": "sk-plain", "ASSISTANT_BASE_URL": server.url}
        done = legato(project, str(project.root), "--headless", "hi", **env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Hello without botocore.\n"


def test_a_botocore_that_will_not_import_says_why() -> None:
    broken = botocore_missing(ModuleNotFoundError("No module named 'jmespath'", name="jmespath"))
    assert broken.message.endswith("(botocore) cannot be imported (No module named 'jmespath')")
    assert broken.remedy == REMEDY_EXTRA
    assert broken.exit_code == 1
