"""What a tool is, what it gets to work with, and what it gives back.

A tool is a ``Tool`` record: its name and description for the model, the Struct its input decodes
into, the path it touches (so the scheduler can keep the model's order on one file, and the
conductor's checkpoints know what a write will change), the command it runs, if any, and the
coroutine that runs it. Tools report failures the model should read by raising ``ToolFailure``;
the scheduler turns every exception into an ``is_error`` result.

The records here are msgspec Structs, not dataclasses: a Struct's class is made in C, several
times faster than a dataclass's generated methods, and these are on the way to every start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

import anyio
import msgspec

from actors.errors import PermissionDenied
from actors.protocol import CheckPermission, FilterReadable, OperationKind, PermissionRequest
from actors.tool_executor.files import resolve_path
from actors.tool_executor.process import UNCONFINED, Confinement
from actors.tool_executor.schemas import input_schema

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from actors.protocol import Block, Decision, PermissionBrokerMsg, Usage
    from actors.tool_executor.background import Jobs
    from actors.tool_executor.files import FilesRead
    from actors.tool_executor.web.pages import WebPages
    from runtime import Address

InputT = TypeVar("InputT", bound=msgspec.Struct)
# How much the session's sandbox holds of what a command does. "full": what it may read, write
# and reach (bubblewrap); "partial": what it may write, but not every read nor every kind of
# network (Landlock, where bubblewrap cannot run); "none": commands run unconfined.
Confining = Literal["full", "partial", "none"]


async def _not_confining() -> Confining:
    return "none"


async def _unconfined(cwd: str) -> Confinement:
    return UNCONFINED


class ToolOutcome(msgspec.Struct, frozen=True):
    """What a call gives back: the result for the model, and how the call ended."""

    content: str
    is_error: bool = False
    denied: bool = False
    diff: str | None = None
    images: tuple[Block, ...] = ()  # image and document blocks after the text
    stop_reason: str | None = None  # a tool hook said "continue": false (``hooks.py``)
    remedy: str | None = None  # shown to the person beside the failed call (``ToolFinished``)
    spent: tuple[tuple[str, Usage], ...] = ()  # the call's own model requests (``ToolResult``)


class InputUpdated(Exception):
    """A PreToolUse hook, or an allow answer, replaced the call's input."""

    def __init__(
        self, new_input: dict[str, Any], *, answered: PermissionRequest | None = None
    ) -> None:
        super().__init__(f"the call's input was replaced by {source(answered)}")
        self.input = new_input
        # The request the answer allowed, when an answer gave the input: its check is not
        # asked again (``CallContext.answered``). None: a hook gave it.
        self.answered = answered

    @property
    def source(self) -> str:
        return source(self.answered)


def source(answered: PermissionRequest | None) -> str:
    """Who replaced a call's input, in words for the model."""
    return "a PreToolUse hook" if answered is None else "the permission answer (updatedInput)"


def refusal(decision: Decision) -> PermissionDenied:
    """The error a refused call ends with: the broker's reason, or an answerer's own words."""
    if decision.message is not None:
        # For the model as they are: the answerer said what to do instead, not our remedy.
        return PermissionDenied(decision.message, remedy="")
    # The broker's reason names the cause, and its remedy the one that fits: the general
    # advice (answer 'always') would be wrong for a blocked entry or a headless run.
    return PermissionDenied(decision.reason, remedy=decision.remedy or "")


class Access(msgspec.Struct, frozen=True):
    """The one path a call works on; ``writes`` calls are ordered against every other call on it."""

    path: str
    writes: bool


class CallContext(msgspec.Struct):
    """One call's view of the executor: the project, what the session has read, the broker,
    the UI."""

    tool: str
    project_root: str
    files_read: FilesRead
    output_cap: int
    permissions: Address[PermissionBrokerMsg]
    emit: Callable[[str], Awaitable[None]]  # live output, for display only
    # For an interrupted call's result: what it had printed, and whether it was
    # waiting for the person to allow it (then nothing was done yet).
    output_so_far: Callable[[], str] = lambda: ""
    asking: bool = False
    # Seconds spent waiting for permission (a person's answer above all): the time a call
    # reports is the time it took, not the time the person took.
    waited: float = 0.0
    # Set once the first check is decided: the calls after this one may then ask their own.
    checked: anyio.Event | None = None
    # What a command runs with: the user's environment without Legato's credentials.
    command_env: Mapping[str, str] | None = None
    # The call's span as TRACEPARENT/TRACESTATE, once it has one (telemetry exported): filled in
    # when the call starts, read by its hooks when they run.
    trace_context: dict[str, str] = msgspec.field(default_factory=dict)
    # Given the folder a command runs in: what confines it (the session's sandbox), nothing
    # when commands run unconfined.
    confine: Callable[[str], Awaitable[Confinement]] = _unconfined
    # How far commands are confined; known at once after the sandbox's trial.
    confining: Callable[[], Awaitable[Confining]] = _not_confining
    # The session's background commands; None: this executor runs none (Bash refuses them).
    background: Jobs | None = None
    agent: str | None = None  # the subagent making the call, named in its questions
    web: WebPages | None = None  # the session's fetched pages (WebFetch); None: no web access
    # The PreToolUse hooks, run once by the first permission granted (``hooks.py``).
    pre_tool: Callable[[PermissionRequest], Awaitable[None]] | None = None
    # The call, as its permission requests carry it: its id and its input (the one it runs
    # with, once an answer or a hook replaced the model's).
    call_id: str | None = None
    input: dict[str, Any] | None = None
    # The request an allow answer came with, when that answer gave the input the call now
    # runs with: the next check is not put to anyone again (``PermissionRequest.preapproved``).
    answered: PermissionRequest | None = None
    # The person typed the command (``!cmd``): the broker asks them nothing the rules leave
    # to them, since they just asked for it.
    typed_by_person: bool = False

    def resolve(self, raw: str) -> str:
        return resolve_path(raw, self.project_root)

    @staticmethod
    def paths(shown: str, real: str) -> tuple[str, ...]:
        """The paths to show the broker: the one named, and where a symlink really leads."""
        return (shown,) if shown == real else (shown, real)

    async def check(
        self,
        kind: OperationKind,
        paths: tuple[str, ...] = (),
        *,
        command: str | None = None,
        arguments: dict[str, Any] | None = None,
        server: str | None = None,
        preview: str | None = None,
        hard_links: int = 1,
        unconfined: bool = False,
        confined: bool = False,
        partly_confined: bool = False,
        background: bool = False,
        folder: bool = False,
        url: str | None = None,
        host: str | None = None,
        local_address: str | None = None,
    ) -> Decision:
        """Ask the permission broker; raises PermissionDenied with its reason on a refusal, and
        InputUpdated when the answer allows the call with other input."""
        request = PermissionRequest(
            tool=self.tool,
            kind=kind,
            paths=paths,
            command=command,
            arguments=arguments,
            server=server,
            preview=preview,
            hard_links=hard_links,
            unconfined=unconfined,
            confined=confined,
            partly_confined=partly_confined,
            background=background,
            folder=folder,
            url=url,
            host=host,
            local_address=local_address,
            agent=self.agent,
            tool_use_id=self.call_id,
            tool_input=self.input,
            typed_by_person=self.typed_by_person,
        )
        if self.answered is not None:
            # Only the first check stands for the answered one; a later one is its own.
            answered, self.answered = self.answered, None
            target = "target" if _same_target(request, answered) else "input"
            request = msgspec.structs.replace(request, preapproved=target)
        self.asking = True  # left set if the wait is interrupted: the result says so
        asked = anyio.current_time()
        try:
            decision = await self.permissions.ask(CheckPermission(request=request))
        finally:
            self.waited += anyio.current_time() - asked
            if self.checked is not None:
                self.checked.set()
        if not decision.allowed:
            self.asking = False
            raise refusal(decision)
        if decision.updated_input is not None and decision.updated_input != self.input:
            # Still "asking": the scheduler runs the call again with this input, and the
            # PreToolUse hooks see that one.
            raise InputUpdated(decision.updated_input, answered=request)
        if self.pre_tool is not None:
            hook, self.pre_tool = self.pre_tool, None
            await hook(request)  # still "asking": nothing is done until the hooks say so
        self.asking = False
        return decision

    async def readable(self, folder: str, paths: tuple[str, ...]) -> tuple[bool, ...]:
        """Which of ``paths``, met while walking ``folder`` (already checked), the tool may
        read: one flag each. Nobody is asked; what would need a person is left out."""
        return await self.permissions.ask(FilterReadable(folder=folder, paths=paths, search=True))


def _same_target(request: PermissionRequest, answered: PermissionRequest) -> bool:
    """Whether ``request`` touches what ``answered`` did: the same paths, command, tool and
    server, and as far outside the sandbox; the content written or the arguments may differ."""
    return (
        request.kind == answered.kind
        and request.paths == answered.paths
        and request.command == answered.command
        and request.tool == answered.tool
        and request.server == answered.server
        and request.url == answered.url
        and request.unconfined == answered.unconfined
    )


class Tool(msgspec.Struct, Generic[InputT], frozen=True):
    name: str
    description: str
    input_type: type[InputT]
    run: Callable[[InputT, CallContext], Awaitable[ToolOutcome]]
    summary: Callable[
        [InputT, str], str
    ]  # given the project root: what runs, for ToolStarted: the file or the command
    access: Callable[[InputT, str], Access | None]  # given the project root; None: no path to order
    # The shell command a call runs, for tools that run one: what it changes is unknowable, so
    # /undo lists it instead of restoring it.
    command: Callable[[InputT], str] | None = None
    read_only: bool = False  # changes nothing, whatever its input: no checkpoint before it

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": input_schema(self.input_type),
        }
