/**
 * The event catalogue: every fact factorly records, as past-tense types with a schema version.
 * A new field means a new `v` plus an upcaster (see upcast.ts); history is never rewritten.
 */

import type {
  CallRequested,
  CallParamsCoerced,
  CallParamsCapped,
  CallHydrationRefused,
  ShadowDecided,
  ConfirmRequested,
  ConfirmAnswered,
  ConfirmResolved,
  ApprovalGranted,
  ApprovalRevoked,
  AskRequested,
  AskAnswered,
  AskResolved,
  CallCompleted,
  SourceRecorded,
  CallInterrupted,
  McpForwarded,
} from './call-events.js';
import type {
  ToolPromoted,
  ToolEdited,
  BlueprintInstalled,
  BlueprintUninstalled,
  VaultAccessed,
  ConfigLoaded,
  ConfigRecorded,
  PluginLoaded,
  PluginFailed,
  SessionOpened,
  SessionClosed,
  WriterStarted,
  LogCheckpointed,
  ProjectionSaved,
  ProjectionRebuilt,
  ToolPinned,
  ToolHeld,
  ToolReleased,
  ToolPinRejected,
} from './host-events.js';

// The catalogue's parts, re-exported: code names every event type from here.
export { BLOCKING_DECISIONS, CALL_STATUSES, DECISIONS } from './event-values.js';
export type { CallStatus, Decision, CallOrigin, JsonValue, Params } from './event-values.js';
export type * from './call-events.js';
export { HIGHLIGHT_FACT, STANDING_FACT } from './call-events.js';
export type * from './host-events.js';

/** Type → payload, and the schema version currently written for each type. */
export interface EventMap {
  'call.requested': CallRequested;
  'call.params_coerced': CallParamsCoerced;
  'call.params_capped': CallParamsCapped;
  'call.hydration_refused': CallHydrationRefused;
  'shadow.decided': ShadowDecided;
  'confirm.requested': ConfirmRequested;
  'confirm.answered': ConfirmAnswered;
  'confirm.resolved': ConfirmResolved;
  'approval.granted': ApprovalGranted;
  'approval.revoked': ApprovalRevoked;
  'ask.requested': AskRequested;
  'ask.answered': AskAnswered;
  'ask.resolved': AskResolved;
  'call.completed': CallCompleted;
  'source.recorded': SourceRecorded;
  'tool.promoted': ToolPromoted;
  'vault.accessed': VaultAccessed;
  'config.loaded': ConfigLoaded;
  'config.recorded': ConfigRecorded;
  'plugin.loaded': PluginLoaded;
  'plugin.failed': PluginFailed;
  'session.opened': SessionOpened;
  'session.closed': SessionClosed;
  'mcp.forwarded': McpForwarded;
  'tool.edited': ToolEdited;
  'blueprint.installed': BlueprintInstalled;
  'blueprint.uninstalled': BlueprintUninstalled;
  'log.checkpointed': LogCheckpointed;
  'writer.started': WriterStarted;
  'call.interrupted': CallInterrupted;
  'projection.saved': ProjectionSaved;
  'projection.rebuilt': ProjectionRebuilt;
  'tool.pinned': ToolPinned;
  'tool.held': ToolHeld;
  'tool.released': ToolReleased;
  'tool.pin_rejected': ToolPinRejected;
}

export type EventType = keyof EventMap;

export const EVENT_VERSIONS: { readonly [K in EventType]: number } = {
  'call.requested': 3,
  'call.params_coerced': 1,
  'call.params_capped': 2,
  'call.hydration_refused': 1,
  'shadow.decided': 2,
  'confirm.requested': 2,
  'confirm.answered': 2,
  'confirm.resolved': 1,
  'approval.granted': 1,
  'approval.revoked': 1,
  'ask.requested': 1,
  'ask.answered': 1,
  'ask.resolved': 1,
  'call.completed': 1,
  'source.recorded': 1,
  'tool.promoted': 1,
  'vault.accessed': 1,
  'config.loaded': 2,
  'config.recorded': 1,
  'plugin.loaded': 1,
  'plugin.failed': 1,
  'session.opened': 3,
  'session.closed': 2,
  'mcp.forwarded': 1,
  'tool.edited': 1,
  'blueprint.installed': 1,
  'blueprint.uninstalled': 1,
  'log.checkpointed': 1,
  'writer.started': 2,
  'call.interrupted': 1,
  'projection.saved': 1,
  'projection.rebuilt': 1,
  'tool.pinned': 1,
  'tool.held': 1,
  'tool.released': 1,
  'tool.pin_rejected': 1,
};

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_VERSIONS, value);
}
