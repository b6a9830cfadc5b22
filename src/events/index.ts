// Public surface of factorly's event layer (the `factorly/events` subpath). Named exports only.
export { EVENT_VERSIONS, isEventType } from './catalog.js';
export type {
  ApprovalGranted,
  ApprovalRevoked,
  AskAction,
  AskAnswered,
  AskQuestion,
  AskRequested,
  AskResolved,
  CallCompleted,
  CallParamsCoerced,
  CallRequested,
  CallStatus,
  ConfigLoaded,
  ConfirmAnswered,
  ConfirmRequested,
  ConfirmResolved,
  Decision,
  EventMap,
  EventType,
  CallOrigin,
  JsonValue,
  Params,
  PluginFailed,
  PinnedDefinition,
  PluginLoaded,
  ShadowDecided,
  SourceRecorded,
  StandingKind,
  StandingOffer,
  StoredText,
  ToolHeld,
  ToolPinned,
  ToolPinRejected,
  ToolPromoted,
  ToolReleased,
  VaultAccessed,
} from './catalog.js';
export { GENESIS_HASH, isNewOfType, isType } from './envelope.js';
export type { CatalogNewEvent, NewEvent, PluginEventType, PluginNewEvent, Recorded } from './envelope.js';
export type { AppendOptions, Durability, EventLog, LogHead, ReadRange, RebuildReport, Unsubscribe } from './log.js';
export { MemoryEventLog } from './memory-log.js';
// The project's file log (LMDB) and the log over a replicated stream of batches, for tests that
// want the real store and for log engines that test their transport under the real chain.
export { LmdbEventLog } from './lmdb-log.js';
export { ReplicatedEventLog } from './replicated-log.js';
// The call an event belongs to (its `data.callId`): how `readCall` groups events.
export { callIdOf } from './append-batch.js';
export { EventBus } from './bus.js';
export { fold } from './projection.js';
export { replay } from './replay.js';
export type { Folded, Projection, ProjectionView } from './projection.js';
export type { EventIndex, IndexLookup } from './event-index.js';
// A snapshot of a persisted projection as any store keeps it (opaque bytes), its digest and the
// event that records it: what a log that keeps snapshots elsewhere (a stream's KV store) needs.
export { savedRecord, snapshotDigest, snapshotProblem } from './snapshot-digest.js';
export { decodeSnapshot, encodeSnapshot } from './snapshot-store.js';
export type { StoredSnapshot, UnrecordedSnapshot } from './snapshot-digest.js';
export { auditProjection } from './projections/audit.js';
export { activeApprovals, standingApproval, standingOfferIn, standingProjection } from './projections/standing.js';
export type { StandingApproval, StandingState } from './projections/standing.js';
export type { AuditEntry, AuditState } from './projections/audit.js';
export { verifyChain } from './verify.js';
export { extendVerification } from './verify-increment.js';
export type { VerifiedFrontier } from './verify-frontier.js';
export type { ChainReport } from './verify.js';
