"""The tools the main conversation is offered beside the executor's, and who answers them.

The executor's tools are fixed at start (``ListTools``), and so are Agent (when the session
runs agents) and Skill (when there are skills the model may load); the MCP servers' tools are
offered as ``ToolSearch`` loads them, WebSearch while the model's provider searches the web,
and StructuredOutput only to a prompt with an output schema. Each is left out where the
session's tool list (``--tools``, ``--disallowedTools``) leaves it out. ``conductor_calls``
hands a turn the calls the conductor answers itself (``calls.ConductorCalls``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.conductor.calls import ConductorCalls
from actors.conductor.search_results import combined
from actors.conductor.skill_tool import SkillOffer
from actors.conductor.tally import Tally
from actors.conductor.web_search import WebSearchOffer
from actors.errors import LegatoError
from actors.protocol import DescribeProvider, ListModelSkills
from actors.tool_names import SKILL_TOOL, TOOL_SEARCH, WEB_SEARCH
from actors.tool_routes import offered_tools

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.calls import AgentRunner
    from actors.conductor.mcp_tools import McpOffer
    from actors.conductor.structured import StructuredOutput
    from actors.protocol import (
        Block,
        ModelClientMsg,
        PermissionBrokerMsg,
        ProjectContext,
        SkillLibraryMsg,
        UiMsg,
        Usage,
    )
    from runtime import Address


class Offers:
    """The main conversation's tools beyond the executor's, as the session offers them now."""

    def __init__(self) -> None:
        self.tool_specs: list[Block] = []  # the executor's (ListTools)
        self.agent_tool: Block | None = None  # Agent, when the session offers it
        self.mcp: McpOffer | None = None  # once started, when MCP servers are configured
        self.skill: SkillOffer | None = None  # Skill, when there are skills to load
        self.structured: StructuredOutput | None = None  # the prompt's, when it has a schema
        self.search: WebSearchOffer | None = None  # WebSearch, unless the session leaves it out
        self._search_for = ""  # the model whose provider was asked whether it searches
        self.searches = False  # whether it does: WebSearch is offered only then

    async def offer_skills(
        self,
        context: ProjectContext,
        skills: Address[SkillLibraryMsg] | None,
        broker: Address[PermissionBrokerMsg] | None,
    ) -> None:
        """The Skill tool, when there are skills the model may load and the session's tool
        list (``--tools``, ``--disallowedTools``) does not leave it out."""
        if skills is None:
            return
        if context.offered_tools is not None and SKILL_TOOL not in context.offered_tools:
            return
        if SKILL_TOOL in context.refused_tools:
            return
        listed = await skills.ask(ListModelSkills())
        if listed:
            self.skill = SkillOffer(skills, listed, broker=broker, home=context.home)

    async def offer_search(
        self,
        context: ProjectContext,
        *,
        model: Address[ModelClientMsg],
        broker: Address[PermissionBrokerMsg] | None,
        ui: Address[UiMsg],
        model_id: Callable[[], str],
        on_usage: Callable[[str, Usage], None],
    ) -> None:
        """WebSearch, unless the session's tool list leaves it out; offered while the model's
        provider has the API's own web search (``provider_searches``)."""
        if broker is None:
            return  # nobody to ask first: a search is never unasked
        if context.offered_tools is not None and WEB_SEARCH not in context.offered_tools:
            return
        if WEB_SEARCH in context.refused_tools:
            return
        self.search = WebSearchOffer(
            model=model,
            broker=broker,
            ui=ui,
            settings=combined(context.config.web_search, context.settings.web_search),
            model_id=model_id,
            on_usage=on_usage,
        )
        await self.provider_searches(model, model_id())

    async def provider_searches(self, model: Address[ModelClientMsg], model_id: str) -> None:
        """Ask the model client, once per model, whether its provider searches the web."""
        if self.search is None or self._search_for == model_id:
            return
        self._search_for = model_id
        try:
            report = await model.ask(DescribeProvider(model=model_id))
        except LegatoError:
            # A set-up the first request will report (a bad address): no search is offered
            # until it is fixed, and the session's own error says what to fix.
            self.searches = False
            return
        self.searches = report.web_search

    def searched(self) -> Tally:
        """What this prompt's searches used."""
        return self.search.used if self.search is not None else Tally()

    def search_definition(self) -> Block | None:
        return self.search.definition() if self.search and self.searches else None

    def skill_definition(self) -> Block | None:
        return self.skill.definition() if self.skill is not None else None

    def mcp_specs_for_agents(self) -> list[Block]:
        if self.mcp is None:
            return []
        return [spec for spec in self.mcp.specs() if spec["name"] != TOOL_SEARCH]

    def offered(self, *, with_mcp: bool = True) -> list[Block]:
        """The main conversation's tools: the executor's and Agent, fixed at start, then the
        MCP tools offered now (``with_mcp``)."""
        mcp = self.mcp.specs() if with_mcp and self.mcp is not None else ()
        offered = offered_tools(
            self.tool_specs,
            agent=self.agent_tool,
            mcp=mcp,
            skill=self.skill_definition(),
            search=self.search_definition(),
        )
        # Last, after the fixed tools: only a prompt with a schema offers it.
        return offered if self.structured is None else [*offered, self.structured.definition()]

    def conductor_calls(self, agents: AgentRunner | None) -> ConductorCalls:
        """The calls of a turn of the main conversation that the conductor answers itself."""
        return ConductorCalls(
            agents,
            self.mcp,
            self.skill,
            self.search if self.searches else None,
            self.structured,
        )
