// The plugin SDK: everything a factorly plugin may rely on. Named exports only.
export { definePlugin, PLUGIN_API_VERSION } from './define-plugin.js';
export type {
  Dependency,
  OptionalToken,
  PluginContext,
  PluginDefinition,
  PluginInit,
  PluginRegistrar,
} from './define-plugin.js';
export type { PluginManifest, PluginSource } from './manifest.js';
export { createToken } from '../base/token.js';
export type { Token } from '../base/token.js';
export { FactorlyError } from '../base/errors.js';
export type { ErrorCode, JsonRpcErrorBody, PluginErrorCode } from '../base/errors.js';
export { KernelTokens } from '../kernel/tokens.js';
export type { KeyedRegistry, OrderedRegistry } from '../kernel/registries.js';
export type {
  CallSource,
  ContentBlock,
  ParameterSpec,
  ParamLocation,
  ParamType,
  PreparedDefinition,
  PromotableRun,
  PromotedTool,
  SecretScope,
  SourceLocation,
  SourceStatus,
  ToolCall,
  ToolDefinition,
  ToolOverlay,
  ToolProvider,
  ToolResult,
  ToolSource,
} from '../contracts/tool.js';
export type {
  CallGateway,
  CallOutcome,
  CallRequest,
  CallTreeLink,
  CatalogChange,
  ClientLink,
  ToolCatalog,
  CatalogFilter,
} from '../contracts/gateway.js';
export { PinTokens } from '../contracts/pins.js';
export type { HeldListing, PinDecision, PinDiff, ToolPins, ToolPinStatus } from '../contracts/pins.js';
export type {
  CompiledScript,
  CompileResult,
  SandboxBudget,
  SandboxEngine,
  SandboxHost,
  SandboxRunResult,
  SandboxUsage,
  SourceDiagnostic,
} from '../contracts/sandbox.js';
export type {
  CallerRun,
  ConfigListener,
  ConfirmAnswer,
  ConfirmChannel,
  ConfirmRequest,
  ContentResult,
  FactorlyInterface,
  InterfaceOptions,
  OutputContext,
  OutputProcessor,
  SecretBackend,
  SecretBackendAccess,
  SecretResolveOptions,
  ShadowContext,
  ShadowRule,
  ShadowVerdict,
} from '../contracts/extensions.js';
export type {
  AskPerson,
  AskPersonOptions,
  ConfirmPrompt,
  PersonAnswer,
  PersonChannel,
  PersonOutcome,
  PersonRequest,
  PersonRequestKind,
  QuestionPrompt,
  StandingChoice,
} from '../contracts/person.js';
export { personChannelOf } from '../contracts/person-race.js';
export { DEFAULT_QUESTION_TIMEOUT_MS } from '../contracts/person-question.js';
export { sealAnswer } from '../contracts/person-seal.js';
export { validateAnswer } from '../config/params.js';
export type { CheckedAnswer } from '../config/params.js';
export type { EvidenceFacts, HostServices } from './host-services.js';
export { OAuthTokens } from '../contracts/oauth.js';
export type {
  OAuthClient,
  OAuthLoginKind,
  OAuthLoginOptions,
  OAuthProviderStatus,
  OAuthState,
} from '../contracts/oauth.js';
export { HostTokens } from './plugin-tokens.js';
export type { PluginTokens } from './plugin-tokens.js';
export type { PromoteRequest, PromotionPlan } from '../editing/promote.js';
export type {
  BlueprintInstallResult,
  BlueprintPlan,
  BlueprintRequest,
  BlueprintSummary,
  BlueprintToolSummary,
  BlueprintVaultKey,
} from '../editing/contracts.js';
export type { ImportOptions, ImportedOperation, SpecBlueprint, SpecSource } from '../editing/contracts.js';
export type { EditableTool, ParameterEdit, ToolEdit, ToolEditPlan } from '../editing/tool-edit.js';
export type { DashboardFigures } from '../events/dashboard-figures.js';
export type { DashboardRange } from '../events/projections/dashboard.js';
export type { AgentDirectory, AgentIdentity } from '../events/projections/sessions.js';
export type { AgentActivity } from '../events/projections/agent-activity.js';
export type { StandingApproval, StandingApprovals, StandingState } from '../events/projections/standing.js';
export type { RecordedRun } from '../editing/recorded-run.js';
export type { AuditFilter } from '../events/audit-query.js';
export type { CallSearch } from '../events/call-search.js';
export type { AuditEntry } from '../events/projections/audit.js';
export type { CallNode, CallTree, ScriptSource } from '../events/call-tree.js';
export type { LogStats } from '../events/projections/stats.js';
export type { ChainReport } from '../events/verify.js';
export type { LogVerification } from '../events/verify-log.js';
export type { CheckpointResult, Finding } from '../events/verify-checkpoints.js';
export type { EventLog, Unsubscribe } from '../events/log.js';
export type { EventBus } from '../events/bus.js';
export type { ProjectPaths } from '../config/paths.js';
export type { LoadedConfig } from '../config/load.js';
export type { ConfigBlock, ConfigProblem, JsonSchema, PluginConfig } from '../config/plugin-config.js';
export type { Folded, Projection, ProjectionView } from '../events/projection.js';
export type { EventIndex, IndexLookup } from '../events/event-index.js';
export type { NewEvent, PluginEventType, PluginNewEvent, Recorded } from '../events/envelope.js';
export { HIGHLIGHT_FACT, STANDING_FACT } from '../events/catalog.js';
export type {
  ApprovalGranted,
  ApprovalRevoked,
  AskAction,
  AskQuestion,
  CallStatus,
  Decision,
  EventMap,
  EventType,
  CallOrigin,
  JsonValue,
  McpForwarded,
  Params,
  PinnedDefinition,
  SessionOpened,
  SessionPrincipal,
  ShadowDecided,
  StandingKind,
  StandingOffer,
  StoredText,
} from '../events/catalog.js';
export type { LogEngine, LogEngineContext, LogOptionProblem } from '../contracts/log-engine.js';
export type { BatchAppended, BatchStream, StoredBatch } from '../events/batch-stream.js';
export type { ReplicatedLogOptions } from '../events/replicated-log.js';
export type { SideStore } from '../events/side-store.js';
