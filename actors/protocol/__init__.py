"""Every message that crosses between Legato's actors, named in one place.

Each actor's inbox is a module of its own (``memory_store``, ``tool_executor``...), read top to
bottom, over ``conversation``: what a conversation is made of. This root names every message,
and the actors and the frontends import them from it, never from a module inside.

Each actor's inbox takes one tagged union (``ModelClientMsg``, ``ToolExecutorMsg``, ...). The
replies are typed by the request: ``Ask[R]`` gets one ``R``, ``Streamed[R]`` a stream of ``R``.
Conversation content stays in the Messages API's own JSON shape (``Block`` is a plain dict) so
that blocks Legato does not know, such as server-tool results, MCP blocks and signed thinking,
go back to the API exactly as they came.

The actors, and who talks to whom:

    frontend ──RunPrompt──▶ conductor ──StreamMessage──▶ model client ──HTTP/SSE──▶ API
       │                       ├─RunTools, Capture/──────▶ tool executor ──Check──▶ broker
       │                       │ RestoreCheckpoint               ▲   │                  │
       └──AttachReferences (@path) ──────────────────────────────┘   │ ToolStarted,     │
                               └── UiEvent ──▶ ui ◀──────────────────┘ ToolOutput       │
                                               ▲ (questions) ◀───── AskUser ────────────┘
    every actor ──GetContext──▶ memory store (config, settings, LEGATO.md, CLAUDE.md...)
    frontend ──ListCommands, PrepareCommand──▶ skill library (skills and patterns)
    frontend ──TakeSandboxWarning (the interactive banner)──▶ tool executor
    conductor ──AppendEvents, SaveEvents──▶ session store (~/.legato/projects/<hash>/sessions/)

    conductor ──ListAgents──▶ skill library (subagent types); it runs the Agent tool's
      subagents itself, each a conversation of its own inside its Agent call

    legato config, doctor, permissions ──ExplainContext──▶ memory store
      (no session)                     ──DescribeProvider, ProbeApi──▶ model client
                                       ──CheckRuleCoverage, ExplainPermissions──▶ broker
                                       ──DescribeSandbox──▶ tool executor

Only the tool executor opens project files for the model: its tools, ``@path`` attachments and
``/undo``'s checkpoints all go through its one door (``actors/door.py``).
"""

from __future__ import annotations

# The settings the messages carry, whole or inside another: defined with their descriptions in
# actors/settings/, and named here too, so that an actor reads what its inbox holds from here.
from actors.settings import AgentSettings as AgentSettings
from actors.settings import GlobalConfig as GlobalConfig
from actors.settings import HookCommand as HookCommand
from actors.settings import HookEvent as HookEvent
from actors.settings import HookGroup as HookGroup
from actors.settings import McpServer as McpServer
from actors.settings import McpWritten as McpWritten
from actors.settings import PermissionMode as PermissionMode
from actors.settings import PermissionRule as PermissionRule
from actors.settings import ProjectSettings as ProjectSettings
from actors.settings import RuleBehavior as RuleBehavior
from actors.settings import SandboxSettings as SandboxSettings
from actors.settings import SettingsMode as SettingsMode
from actors.settings import StatusLine as StatusLine
from actors.settings import TrustItem as TrustItem
from actors.settings import WebSearchSettings as WebSearchSettings

# The modules in the order of the actors' inboxes in docs/architecture.md's table, which
# tests/docs_tables.py reads from this module's names in the order they are bound here; and
# one statement a module, which isort would split into one a name.
# isort: off
from actors.protocol.conversation import (
    Block as Block,
    Message as Message,
    COMPACTED_HEADER as COMPACTED_HEADER,
    LEDGER_START as LEDGER_START,
    PERSON_COMMAND_NOTE as PERSON_COMMAND_NOTE,
    DENIED_PREFIX as DENIED_PREFIX,
    Usage as Usage,
)
from actors.protocol.memory_store import (
    GuideLevel as GuideLevel,
    GuideFile as GuideFile,
    ImportRequest as ImportRequest,
    ProjectContext as ProjectContext,
    Overrides as Overrides,
    Setting as Setting,
    Explained as Explained,
    GetContext as GetContext,
    ExplainContext as ExplainContext,
    ApproveProjectMcpServers as ApproveProjectMcpServers,
    ApproveProjectHooks as ApproveProjectHooks,
    RevokeProjectMcpServers as RevokeProjectMcpServers,
    TrustProject as TrustProject,
    ApproveImports as ApproveImports,
    RevokeTrust as RevokeTrust,
    RuleScope as RuleScope,
    RuleWritten as RuleWritten,
    WriteRule as WriteRule,
    MemoryTarget as MemoryTarget,
    MemoryAdded as MemoryAdded,
    AddMemory as AddMemory,
    MemoryStoreMsg as MemoryStoreMsg,
)
from actors.protocol.skill_library import (
    CommandKind as CommandKind,
    CommandInfo as CommandInfo,
    SkillPrompt as SkillPrompt,
    SHELL_MARK as SHELL_MARK,
    SkillOutput as SkillOutput,
    CheckReport as CheckReport,
    PatternRuns as PatternRuns,
    ListCommands as ListCommands,
    PrepareCommand as PrepareCommand,
    CheckCommand as CheckCommand,
    GetPatternStats as GetPatternStats,
    AgentType as AgentType,
    AgentTypes as AgentTypes,
    ListAgents as ListAgents,
    ListModelSkills as ListModelSkills,
    LoadSkill as LoadSkill,
    SkillLibraryMsg as SkillLibraryMsg,
)
from actors.protocol.model_client import (
    ModelRequest as ModelRequest,
    MessageStarted as MessageStarted,
    TextDelta as TextDelta,
    ThinkingDelta as ThinkingDelta,
    ToolUseStarted as ToolUseStarted,
    ToolInputDelta as ToolInputDelta,
    BlockFinished as BlockFinished,
    Retrying as Retrying,
    MessageFinished as MessageFinished,
    ModelEvent as ModelEvent,
    StreamMessage as StreamMessage,
    Finding as Finding,
    Provider as Provider,
    ProviderReport as ProviderReport,
    DescribeProvider as DescribeProvider,
    ProbeReport as ProbeReport,
    ProbeApi as ProbeApi,
    ModelClientMsg as ModelClientMsg,
)
from actors.protocol.permission_broker import (
    OperationKind as OperationKind,
    PermissionRequest as PermissionRequest,
    Decision as Decision,
    CheckPermission as CheckPermission,
    SetMode as SetMode,
    AllowForPrompt as AllowForPrompt,
    AllowForSession as AllowForSession,
    FilterReadable as FilterReadable,
    Assessment as Assessment,
    Reply as Reply,
    PermissionsReport as PermissionsReport,
    ForgetReply as ForgetReply,
    ExplainPermissions as ExplainPermissions,
    AddDirectory as AddDirectory,
    FindBlocked as FindBlocked,
    UnmatchedRule as UnmatchedRule,
    RuleCoverage as RuleCoverage,
    CheckRuleCoverage as CheckRuleCoverage,
    PermissionBrokerMsg as PermissionBrokerMsg,
)
from actors.protocol.tool_executor import (
    ToolCall as ToolCall,
    ToolResult as ToolResult,
    ToolStarted as ToolStarted,
    ToolOutput as ToolOutput,
    ToolFinished as ToolFinished,
    ToolEvent as ToolEvent,
    AgentScope as AgentScope,
    RunTools as RunTools,
    RunPersonCommand as RunPersonCommand,
    ToolSet as ToolSet,
    ListTools as ListTools,
    InterruptTools as InterruptTools,
    WithdrawTools as WithdrawTools,
    Attachment as Attachment,
    AttachReferences as AttachReferences,
    FileBefore as FileBefore,
    NotKept as NotKept,
    MCP_CALL as MCP_CALL,
    Changes as Changes,
    CaptureCheckpoint as CaptureCheckpoint,
    Settled as Settled,
    SettleCheckpoint as SettleCheckpoint,
    RestoreCheckpoint as RestoreCheckpoint,
    CaptureFiles as CaptureFiles,
    ListFiles as ListFiles,
    SandboxReport as SandboxReport,
    DescribeSandbox as DescribeSandbox,
    CommandId as CommandId,
    BackgroundCommand as BackgroundCommand,
    TakeBackgroundNews as TakeBackgroundNews,
    ListBackground as ListBackground,
    StopBackground as StopBackground,
    TakeSandboxWarning as TakeSandboxWarning,
    ToolExecutorMsg as ToolExecutorMsg,
)
from actors.protocol.ui import (
    Notice as Notice,
    HookStarted as HookStarted,
    HookFinished as HookFinished,
    TurnOutcome as TurnOutcome,
    AgentEvent as AgentEvent,
    TranscriptMirrored as TranscriptMirrored,
    UiEvent as UiEvent,
    Show as Show,
    HowItRuns as HowItRuns,
    PermissionAnswer as PermissionAnswer,
    AskUser as AskUser,
    UiMsg as UiMsg,
)
from actors.protocol.conductor import (
    RunPrompt as RunPrompt,
    SetModel as SetModel,
    SetEffort as SetEffort,
    SetFast as SetFast,
    ClearConversation as ClearConversation,
    GetConversation as GetConversation,
    AddNote as AddNote,
    Undo as Undo,
    RewindRestore as RewindRestore,
    RewindPoint as RewindPoint,
    RewindPoints as RewindPoints,
    ListRewindPoints as ListRewindPoints,
    RewindReport as RewindReport,
    Rewind as Rewind,
    UndoRewind as UndoRewind,
    Compact as Compact,
    ContextFill as ContextFill,
    ListOfferedTools as ListOfferedTools,
    GetContextFill as GetContextFill,
    GetUsage as GetUsage,
    AgentId as AgentId,
    BackgroundAgent as BackgroundAgent,
    ListBackgroundAgents as ListBackgroundAgents,
    StopBackgroundAgent as StopBackgroundAgent,
    ConductorMsg as ConductorMsg,
)
from actors.protocol.session_store import (
    TaskLedger as TaskLedger,
    Checkpoint as Checkpoint,
    SessionStarted as SessionStarted,
    MessagesKept as MessagesKept,
    MessageAdded as MessageAdded,
    LedgerChanged as LedgerChanged,
    CheckpointTaken as CheckpointTaken,
    CheckpointRestored as CheckpointRestored,
    PromptMark as PromptMark,
    PromptMarked as PromptMarked,
    RewindUndo as RewindUndo,
    Rewound as Rewound,
    RewindUndone as RewindUndone,
    RewindSettled as RewindSettled,
    UsageCounted as UsageCounted,
    ModelChosen as ModelChosen,
    SessionEvent as SessionEvent,
    SavedSession as SavedSession,
    SaveEvents as SaveEvents,
    AppendEvents as AppendEvents,
    LoadSession as LoadSession,
    SessionSummary as SessionSummary,
    ListSessions as ListSessions,
    SessionStoreMsg as SessionStoreMsg,
)
from actors.protocol.mcp_client import (
    McpState as McpState,
    McpServerStatus as McpServerStatus,
    McpTool as McpTool,
    McpToolResult as McpToolResult,
    ListMcpServers as ListMcpServers,
    McpToolListing as McpToolListing,
    ListMcpTools as ListMcpTools,
    ApproveMcpServers as ApproveMcpServers,
    CallMcpTool as CallMcpTool,
    InterruptMcpCalls as InterruptMcpCalls,
    McpClientMsg as McpClientMsg,
)
from actors.protocol.hook_runner import (
    HookRun as HookRun,
    HookOutcome as HookOutcome,
    RunHooks as RunHooks,
    ListHooks as ListHooks,
    ApproveHooks as ApproveHooks,
    RunStatusLine as RunStatusLine,
    HookRunnerMsg as HookRunnerMsg,
)
# isort: on
