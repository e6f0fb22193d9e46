"""The skill library: what ``/<name>`` runs, the list for ``/help``, ``--test``, the counts, and
the subagent types (``ListAgents``).

Nothing is loaded at start, and the files are read again for every request: a skill written
or fixed during a session is there at the next ``/help``. Reading files blocks, so each request
runs in a worker thread, and the modules that do the work are imported by the first request:
a session that runs no skill does not pay for them at start.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

import anyio.to_thread

from actors.protocol import (
    CheckCommand,
    GetPatternStats,
    ListAgents,
    ListCommands,
    ListModelSkills,
    LoadSkill,
    PrepareCommand,
    SkillLibraryMsg,
)
from runtime import Actor

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import (
        AgentTypes,
        CheckReport,
        CommandInfo,
        PatternRuns,
        SkillOutput,
        SkillPrompt,
    )
    from runtime import Reply


class SkillLibrary(Actor[SkillLibraryMsg]):
    name = "skill_library"

    def __init__(self, project_root: str, *, home: str | None = None) -> None:
        super().__init__()
        self._root = project_root
        self._home = home if home is not None else os.path.expanduser("~")

    async def handle(self, msg: SkillLibraryMsg, reply: Reply) -> None:
        run = anyio.to_thread.run_sync
        match msg:
            case ListCommands():
                await reply.answer(msg, await run(_list, self._root, self._home))
            case PrepareCommand():
                prepare = functools.partial(
                    _prepare, msg.name, msg.args, self._root, self._home, msg.seed, msg.in_session
                )
                await reply.answer(msg, await run(prepare))
            case CheckCommand():
                await reply.answer(msg, await run(_check, self._root, msg.name))
            case GetPatternStats():
                await reply.answer(msg, await run(_runs, self._root, self._home))
            case ListAgents():
                await reply.answer(msg, await run(_agents, self._root, self._home))
            case ListModelSkills():
                await reply.answer(msg, await run(_model_skills, self._root, self._home))
            case LoadSkill():
                load = functools.partial(_load, msg.name, msg.args, self._root, self._home)
                await reply.answer(msg, await run(load))


def _list(root: str, home: str) -> tuple[CommandInfo, ...]:
    from actors.skills.invoke import list_commands

    return list_commands(root, home)


def _prepare(
    name: str, args: Sequence[str], root: str, home: str, seed: int | None, in_session: bool
) -> SkillPrompt | SkillOutput:
    from actors.skills.invoke import prepare

    return prepare(name, args, root, home=home, seed=seed, in_session=in_session)


def _check(root: str, name: str) -> CheckReport:
    from actors.skills.checks import check_command

    return check_command(root, name)


def _runs(root: str, home: str) -> tuple[PatternRuns, ...]:
    from actors.skills.stats import pattern_runs

    return pattern_runs(root, home)


def _agents(root: str, home: str) -> AgentTypes:
    from actors.skills.agents import list_agents

    return list_agents(root, home)


def _model_skills(root: str, home: str) -> tuple[CommandInfo, ...]:
    from actors.skills.model_skills import model_skills

    return model_skills(root, home)


def _load(name: str, args: Sequence[str], root: str, home: str) -> SkillPrompt:
    from actors.skills.model_skills import load_for_model

    return load_for_model(name, args, root, home)
