"""The conversation ``legato --demo`` plays: a scripted session on a throwaway project.

No model and no network: the scripted server plays three answers that fix a typo the way a real
session would. It reads two files and lists the project in one parallel tool turn, edits one
file, then sums up, saying plainly that it was a demo. The tool inputs use Claude Code's field
names, so the demo exercises the real tool executor and permission prompts.
"""

from __future__ import annotations

import os

from frontends.demo.scripted_api.steps import Step, call, text, tool_calls

DEMO_PROMPT = "Fix the typo in greet.py."
"""What the demo types as the user's prompt; the script answers it."""

GREET_PY = '''"""Print a friendly greeting."""


def greet(name: str) -> str:
    return f"Helo, {name}!"


if __name__ == "__main__":
    print(greet("world"))
'''

README_MD = """# Greeter

A throwaway project made for `legato --demo`. Run `python greet.py` to be greeted.
"""

TEST_GREET_PY = """from greet import greet


def test_greet() -> None:
    assert greet("Ada") == "Hello, Ada!"
"""

TYPO = '    return f"Helo, {name}!"'
FIXED = '    return f"Hello, {name}!"'


def demo_files() -> dict[str, str]:
    """The throwaway project the demo runs in: relative path -> content."""
    return {"greet.py": GREET_PY, "README.md": README_MD, "test_greet.py": TEST_GREET_PY}


def demo_steps(project_root: str) -> list[Step]:
    """The scripted answers, with absolute paths under ``project_root``."""
    greet_py = os.path.join(project_root, "greet.py")
    readme = os.path.join(project_root, "README.md")
    return [
        tool_calls(
            [
                call("Read", {"file_path": greet_py}),
                call("Read", {"file_path": readme}),
                call("Bash", {"command": "ls", "description": "List the project's files"}),
            ],
            text=(
                "[demo] This is Legato's offline demo: these replies are scripted, no model is "
                "involved. Let me look at the project first."
            ),
        ),
        tool_calls(
            [call("Edit", {"file_path": greet_py, "old_string": TYPO, "new_string": FIXED})],
            text='greet.py says "Helo" where test_greet.py expects "Hello". Fixing the typo.',
        ),
        text(
            '[demo] Done: greet.py now greets with "Hello, world!", as test_greet.py expects. '
            "That was the offline demo; every reply was scripted. Set ASSISTANT_API_KEY and run "
            '`legato --headless "<prompt>"` in your own project to work with a real model.',
        ),
    ]
