"""One value, one builder: the flags become one ``SessionOptions``, its defaults are the flags'
own, and the composition root loads an actor package only when it builds one of its actors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from actors.protocol import Overrides
from frontends.session_options import SessionOptions, from_flags
from frontends.startup.flags import parse, stream_timeout
from tests.test_import_graph import actor_packages

REPO = Path(__file__).resolve().parents[2]


def test_the_flags_become_one_value() -> None:
    args = parse(
        [
            "--headless", "hi", "--model", "opus", "--permission-mode", "auto",
            "--output-format", "stream-json", "--max-turns", "7", "--max-parallel", "3",
            "--stream-timeout", "5", "--include-partial-messages", "--verbose",
        ]
    )  # fmt: skip
    options = from_flags(args, "/p", "saved-id")
    assert options == SessionOptions(
        project_root="/p",
        headless=True,
        model="opus",
        permission_mode="auto",
        session_id="saved-id",
        resume=True,
        max_parallel=3,
        stream_timeout=5.0,
        output_format="stream-json",
        max_turns=7,
        partial_messages=True,
        overrides=Overrides(model="opus", permission_mode="auto"),
    )


def test_without_a_prompt_it_is_the_terminal_s_session() -> None:
    options = from_flags(parse([]), "/p", None)
    assert (options.headless, options.session_id, options.resume) == (False, None, False)


def test_a_session_built_without_flags_has_the_flags_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ASSISTANT_STREAM_TIMEOUT", raising=False)
    args = parse([])
    args.stream_timeout = stream_timeout(args.stream_timeout)
    from_the_flags = from_flags(args, "/p", None)
    built = SessionOptions(project_root="/p")
    assert (built.stream_timeout, built.max_turns) == (
        from_the_flags.stream_timeout,
        from_the_flags.max_turns,
    )


def test_the_value_is_frozen() -> None:
    options = SessionOptions(project_root="/p")
    with pytest.raises(AttributeError):
        options.model = "opus"  # type: ignore[misc]
    assert msgspec.structs.replace(options, model="opus").model == "opus"


def actor_packages_loaded(code: str) -> list[str]:
    """The actor packages in ``sys.modules`` once ``code`` has run in a new interpreter."""
    packages = sorted(p.removeprefix("actors.") for p in actor_packages(REPO))
    probe = (
        f"import json, sys\n{code}\n"
        f"print(json.dumps([p for p in {packages!r} if f'actors.{{p}}' in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, timeout=30
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def test_the_composition_root_loads_an_actor_package_only_to_build_its_actor() -> None:
    # `legato config` starts two actors: it must not pay for importing the others.
    assert actor_packages_loaded("import frontends.session") == []
    built = actor_packages_loaded(
        "from frontends.session import memory_store\n"
        "from frontends.session_options import SessionOptions\n"
        "memory_store(SessionOptions(project_root='.'))"
    )
    assert built == actor_packages_loaded("import actors.memory_store")
    assert "conductor" not in built and "model_client" not in built
