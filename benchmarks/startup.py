"""Start-up against its floors, for docs/performance.md ("Start-up against the floor").

    .venv/bin/python -m benchmarks.startup [--runs 15]

- `legato --version` against `python -c pass`.
- A one-turn headless answer (`legato --headless hi --output-format json`, the scripted server
  answering "hi") against the stack floor: a minimal script on the same libraries (trio, httpx,
  msgspec) making the same streaming request and printing the answer as JSON.
- The same answer in a repository set up for Claude Code (a 6 KB CLAUDE.md with an import,
  AGENTS.md, CLAUDE.local.md, .claude/settings.json with a dozen rules, commands, a skill, an
  agent), trusted, against the plain project: what reading the reference's files costs.

Bytecode is written first (benchmarks/run.py's ``precompile``); each pair is run interleaved,
run by run, so both sides see the same load on a shared machine; medians are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile

from benchmarks.harness import LEGATO, Project, run_process, trust
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, text

# The floor: the same request on the same stack, with nothing of Legato's in it. Like Legato
# against a plain-http endpoint, it loads no certificate store (verify=False) and reads no proxy
# settings from the environment (trust_env=False), and it leaves without the interpreter's
# teardown (os._exit): the floor does only what the request needs.
FLOOR = """\
import os, sys, httpx, msgspec, trio

async def main():
    body = {"model": "claude-sonnet-4-6", "max_tokens": 1024, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    answer = []
    async with httpx.AsyncClient(
        base_url=sys.argv[1], verify=False, trust_env=False
    ) as client:
        async with client.stream("POST", "/v1/messages", json=body, headers=headers) as r:
            async for line in r.aiter_lines():
                if line.startswith("data:"):
                    event = msgspec.json.decode(line[5:])
                    if event.get("type") == "content_block_delta":
                        answer.append(event["delta"].get("text", ""))
    sys.stdout.buffer.write(msgspec.json.encode({"result": "".join(answer)}) + b"\\n")

trio.run(main)
sys.stdout.flush()
os._exit(0)
"""


def ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.0f} ms"


def version_pair(runs: int) -> tuple[list[float], list[float]]:
    env = dict(os.environ)
    legato: list[float] = []
    floor: list[float] = []
    for _ in range(runs):
        floor.append(run_process([sys.executable, "-c", "pass"], env=env).seconds)
        legato.append(run_process([LEGATO, "--version"], env=env).seconds)
    return legato, floor


def headless_pair(runs: int) -> tuple[list[float], list[float]]:
    project = Project({"README.md": "bench\n"})
    legato: list[float] = []
    floor: list[float] = []
    # In a folder of its own: the script's folder goes first on sys.path, and a shared /tmp
    # may hold anything (an h2.py there would shadow httpcore's h2).
    folder = tempfile.mkdtemp(prefix="legato-floor-")
    script = os.path.join(folder, "floor.py")
    with open(script, "w") as file:
        file.write(FLOOR)
    try:
        for _ in range(runs):
            with ScriptedServer([text("hi")]) as server:
                done = run_process(
                    [sys.executable, script, server.url], env=project.env(server.url)
                )
                if done.exit_code != 0 or b"hi" not in done.stdout:
                    raise SystemExit(f"the floor script failed with exit {done.exit_code}")
                floor.append(done.seconds)
            project.reset()
            with ScriptedServer([text("hi")]) as server:
                argv = [LEGATO, project.root, "--headless", "hi", "--output-format", "json"]
                done = run_process(argv, env=project.env(server.url))
                if done.exit_code != 0:
                    raise SystemExit(f"legato failed with exit {done.exit_code}")
                legato.append(done.seconds)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        project.close()
    return legato, floor


# A Claude Code user's repository, in the shapes of the reference's docs.
_RULES = {
    "permissions": {
        "allow": [
            "Bash(npm run test:*)",
            "Bash(git diff *)",
            "Edit(/src/**)",
            "Read",
            "mcp__github",
        ],
        "ask": ["Bash(git push *)", "Edit(/package.json)"],
        "deny": ["Read(./.env)", "Read(./secrets/**)", "Bash(curl *)", "WebFetch"],
        "defaultMode": "default",
    },
    "env": {"NODE_ENV": "development"},
}
CLAUDE_REPO = {
    "README.md": "bench\n",
    "CLAUDE.md": "# Project\n\nSee @docs/style.md.\n\n"
    + "".join(f"- Rule {n}: keep functions short and named for what they do.\n" for n in range(90)),
    "docs/style.md": "# Style\n\nFour spaces; no tabs.\n",
    "CLAUDE.local.md": "My sandbox URLs are in my notes.\n",
    "AGENTS.md": "# Agents\n\nRun the tests before a commit.\n",
    "src/app.py": "print('hi')\n",
    ".claude/settings.json": json.dumps(_RULES, indent=2),
    ".claude/settings.local.json": json.dumps({"permissions": {"allow": ["Bash(make:*)"]}}),
    ".claude/commands/review.md": "---\ndescription: Review a PR\n---\nReview #$0.\n",
    ".claude/commands/frontend/component.md": "Create the component $0.\n",
    ".claude/skills/changelog/SKILL.md": "---\nname: changelog\ndescription: Update the "
    "changelog\n---\nAdd the changes.\n",
    ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\n---\n"
    "You review code.\n",
}


def reference_pair(runs: int) -> tuple[list[float], list[float]]:
    """The one-turn answer in a Claude Code user's repository, and in the plain project."""
    claude, plain = Project(CLAUDE_REPO), Project({"README.md": "bench\n"})
    trust(claude.root, claude.home)
    with_files: list[float] = []
    without: list[float] = []
    try:
        for _ in range(runs):
            for project, samples in ((plain, without), (claude, with_files)):
                with ScriptedServer([text("hi")]) as server:
                    argv = [LEGATO, project.root, "--headless", "hi", "--output-format", "json"]
                    done = run_process(argv, env=project.env(server.url))
                    if done.exit_code != 0:
                        raise SystemExit(f"legato failed with exit {done.exit_code}")
                    samples.append(done.seconds)
    finally:
        claude.close()
        plain.close()
    return with_files, without


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    precompile()
    print("| start-up | legato (median) | floor (median) | over the floor | target |")
    print("|---|---|---|---|---|")
    legato, floor = version_pair(args.runs)
    over = statistics.median(legato) - statistics.median(floor)
    print(
        f"| `legato --version` | {ms(legato)} | {ms(floor)} (python -c pass) | "
        f"{over * 1000:+.0f} ms | within 20 ms |"
    )
    legato, floor = headless_pair(args.runs)
    over = statistics.median(legato) - statistics.median(floor)
    print(
        f"| one-turn headless answer, json | {ms(legato)} | {ms(floor)} (trio+httpx+msgspec "
        f"script) | {over * 1000:+.0f} ms | within 40 ms |"
    )
    with_files, without = reference_pair(args.runs)
    over = statistics.median(with_files) - statistics.median(without)
    print(
        f"| one-turn answer in a Claude Code user's repository | {ms(with_files)} | "
        f"{ms(without)} (the plain project) | {over * 1000:+.0f} ms | within 15 ms |"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
