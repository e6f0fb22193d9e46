"""Token economy: the fixed prefix of every request, and a 20-turn session's input
tokens billed with prompt caching against without.

    .venv/bin/python -m benchmarks.tokens

Both run the real session in this process (``frontends.session.assemble``) against the
scripted server, which counts about four bytes a token and plays the API's prompt cache
(frontends/demo/scripted_api/cache.py): what is measured is what Legato actually sends.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.models import cost_usd, resolve_model
from actors.protocol import GetUsage, RunPrompt, Usage
from actors.ui import Renderer
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from actors.protocol import AskUser, UiEvent
    from frontends.demo.scripted_api import RecordedRequest, Step

PREFIX_LIMIT = 14_000  # bytes of tool definitions and system prompt
MODEL = "sonnet"
PROMPTS = 5
TURNS_PER_PROMPT = 4  # read, read, edit, answer
SOURCE = "".join(
    f"def function_{n}(value):\n    return value * {n}  # step {n}\n" for n in range(60)
)


class _Silent(Renderer):
    async def show(self, event: UiEvent) -> None:
        pass

    async def ask(self, question: AskUser) -> str:
        return "y"


@dataclass(frozen=True)
class SessionTokens:
    requests: int
    usage: Usage

    @property
    def total_input(self) -> int:
        u = self.usage
        return u.input_tokens + u.cache_creation_input_tokens + u.cache_read_input_tokens

    @property
    def billed_input(self) -> float:
        """Input in input-token prices: a cache write costs 1.25, a read 0.1."""
        u = self.usage
        return (
            u.input_tokens + 1.25 * u.cache_creation_input_tokens + 0.1 * u.cache_read_input_tokens
        )

    @property
    def cost(self) -> float:
        return cost_usd(resolve_model(MODEL), self.usage) or 0.0


def _script(root: Path, prompts: int) -> tuple[list[RecordedRequest], object]:
    seen: list[RecordedRequest] = []

    def answer(request: RecordedRequest) -> Step:
        seen.append(request)
        turn = len(seen) - 1
        prompt, step = divmod(turn, TURNS_PER_PROMPT)
        first, second = root / f"module_{2 * prompt}.py", root / f"module_{2 * prompt + 1}.py"
        if step == 0:
            return tool_calls([call("Read", {"file_path": str(first)})], text="Reading.")
        if step == 1:
            return tool_calls([call("Read", {"file_path": str(second)})], text="And this one.")
        if step == 2:
            edit = {"file_path": str(first), "old_string": "value * 1 ", "new_string": "value "}
            return tool_calls([call("Edit", edit)], text="Simplifying function_1.")
        return text(f"Done with prompt {prompt + 1}: function_1 no longer multiplies by one.")

    return seen, answer


async def _session(
    *, caching: bool, headless: bool, prompts: int
) -> tuple[SessionTokens, list[RecordedRequest]]:
    with tempfile.TemporaryDirectory() as folder:
        root, home = Path(folder) / "project", Path(folder) / "home"
        root.mkdir()
        home.mkdir()
        for number in range(2 * prompts):
            (root / f"module_{number}.py").write_text(SOURCE)
        seen, answer = _script(root, prompts)
        with ScriptedServer(answer) as server:  # type: ignore[arg-type]
            env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
            options = SessionOptions(
                project_root=str(root), headless=headless, env=env, home=str(home),
                model=MODEL, permission_mode="auto",
            )  # fmt: skip
            session = assemble(options, renderer=_Silent())
            session.conductor.prompt_caching = caching
            async with supervise(session.actors):
                for number in range(prompts):
                    outcome = await session.conductor.address.ask(
                        RunPrompt(
                            text=f"Task {number + 1}: simplify function_1 in the next module."
                        )
                    )
                    if outcome.is_error:
                        raise RuntimeError(f"the benchmark session failed: {outcome.error}")
                usage = await session.conductor.address.ask(GetUsage())
    return SessionTokens(len(seen), usage), seen


def prefix_bytes(request: RecordedRequest) -> int:
    """Bytes of the tool definitions and the system prompt, as sent (compact JSON)."""
    body = request.body
    return len(msgspec.json.encode(body.get("tools", []))) + len(
        msgspec.json.encode(body.get("system", ""))
    )


async def measure(prompts: int = PROMPTS) -> tuple[SessionTokens, SessionTokens, int, int]:
    cached, seen = await _session(caching=True, headless=True, prompts=prompts)
    plain, _ = await _session(caching=False, headless=True, prompts=prompts)
    _, seen_interactive = await _session(caching=True, headless=False, prompts=1)
    return cached, plain, prefix_bytes(seen[0]), prefix_bytes(seen_interactive[0])


def main() -> None:
    cached, plain, headless_prefix, interactive_prefix = anyio.run(measure, backend="trio")
    print(f"Fixed prefix (tools + system prompt), bytes: headless {headless_prefix:,}, "
          f"interactive {interactive_prefix:,} (limit {PREFIX_LIMIT:,})")  # fmt: skip
    print(f"\n{cached.requests}-request session ({PROMPTS} prompts x {TURNS_PER_PROMPT} turns), "
          f"model {MODEL}:\n")  # fmt: skip
    print(
        "| | input tokens sent | uncached | cache writes | cache reads | billed as input | cost |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, tokens in (("without caching", plain), ("with caching", cached)):
        u = tokens.usage
        print(
            f"| {name} | {tokens.total_input:,} | {u.input_tokens:,} | "
            f"{u.cache_creation_input_tokens:,} | {u.cache_read_input_tokens:,} | "
            f"{tokens.billed_input:,.0f} | ${tokens.cost:.4f} |"
        )
    saved = 1 - cached.billed_input / plain.billed_input
    cheaper = 1 - cached.cost / plain.cost
    print(f"\nCaching bills {saved:.0%} fewer input tokens (cost {cheaper:.0%} lower).")


if __name__ == "__main__":
    main()
