/**
 * The event catalogue: every fact factorly records, as past-tense types with a schema version.
 * A new field means a new `v` plus an upcaster (see upcast.ts); history is never rewritten.
 */

export type Interface = 'cli' | 'mcp' | 'code' | 'ui' | 'exec' | 'system' | (string & {});
/**
 * `cancelled`: stopped from outside before its own end (its caller cancelled, or its call tree
 * stopped: exit 130); `timeout`: the tool's own deadline passed (exit 124); `interrupted`: no
 * outcome on record, because the process that ran it ended first or could not write its completion
 * (`call.interrupted`, never a `call.completed` status).
 */
export type CallStatus = 'success' | 'error' | 'blocked' | 'cancelled' | 'timeout' | 'interrupted';
export const CALL_STATUSES: readonly CallStatus[] = [
  'success',
  'error',
  'blocked',
  'cancelled',
  'timeout',
  'interrupted',
];
export type Decision = 'allow' | 'warn' | 'deny' | 'confirm' | 'rate_limited' | 'loop_blocked' | 'invalid';
export const DECISIONS: readonly Decision[] = [
  'allow',
  'warn',
  'deny',
  'confirm',
  'rate_limited',
  'loop_blocked',
  'invalid',
];
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type Params = Record<string, JsonValue>;

export interface CallRequested {
  callId: string;
  parentId?: string;
  rootId: string;
  tool: string;
  /** Params as the caller sent them, with secrets kept as their `{{vault:K}}` template. */
  params: Params;
  iface: Interface;
  agentId?: string;
  sessionId?: string;
  workspace?: string;
  sourceSha?: string;
  replayedFrom?: string;
  /** v2: the script engine that ran a script (`{name: "quickjs", version: "..."}`), for code tools. */
  engine?: { name: string; version: string };
  /** v3: the process that recorded the call (its `writer.started`), so a crash can be attributed. */
  writer?: string;
}

export interface CallParamsCoerced {
  callId: string;
  original: Params;
  coerced: Params;
}

/**
 * Params of a call that were too big for the log (`log.max_param_bytes`): `call.requested` (and
 * `call.params_coerced`) hold a prefix of each of these, and this event the size and digest of the
 * whole value as recorded (its JSON text, for a value that is not a string).
 */
export interface CallParamsCapped {
  callId: string;
  params: Record<string, { bytes: number; sha256: string }>;
}

export interface ShadowDecided {
  callId: string;
  rule: string;
  plugin: string;
  decision: Decision;
  reason: string;
  /**
   * v2: what a stateful rule counted the decision under (bucket, fingerprint), for its projection.
   * One key is read by the audit view: `highlight` (`HIGHLIGHT_FACT`), the names of params to show
   * with the call (`shadow.log_params`), decided when the call was made.
   */
  facts?: Record<string, JsonValue>;
}

/**
 * The `shadow.decided` fact naming the params the audit view shows with a call (a list of
 * top-level param names). Only names: the values shown are the call's params as `call.requested`
 * recorded them (scrubbed, capped), so no rule can put a value into the log this way.
 */
export const HIGHLIGHT_FACT = 'highlight';

export interface ConfirmRequested {
  callId: string;
  channel: string;
}

/**
 * A person's answer given through a channel that lives in another process than the call (the web
 * UI answering a `factorly call` that waits in a terminal). The waiting channel reads it from the
 * log; the gate then records the outcome of the whole race as `confirm.resolved`.
 */
export interface ConfirmAnswered {
  callId: string;
  channel: string;
  approved: boolean;
  by?: string;
}

export interface ConfirmResolved {
  callId: string;
  channel: string;
  approved: boolean;
  by?: string;
}

/** Output as stored: scrubbed, capped at a UTF-8 boundary, with the size and digest of the whole. */
export interface StoredText {
  text: string;
  bytes: number;
  sha256: string;
  truncated: boolean;
}

export interface CallCompleted {
  callId: string;
  status: CallStatus;
  exitCode: number;
  output: StoredText;
  error?: string;
  /** What a successful tool wrote to stderr: kept, but not an error. */
  diagnostics?: string;
  /** For blocked calls: which stage stopped it (`unknown_tool`, `invalid`, or a shadow rule). */
  blockedBy?: string;
  durationMs: number;
  /** Size of the tool's own output and of what output processing made of it (when processors ran). */
  originalBytes?: number;
  processedBytes?: number;
  /** What the call consumed, as its provider reported it (scripts: durationMs, toolCalls, memoryBytes). */
  usage?: Record<string, number>;
}

export interface SourceRecorded {
  sha: string;
  language: string;
  source: string;
}

export interface ToolPromoted {
  name: string;
  fromSha: string;
  parameters: unknown[];
  file: string;
}

/** A tool's entry edited in place in its config file (the web UI's edit page). Names what changed, not the values. */
export interface ToolEdited {
  name: string;
  /** Project-relative path of the file written. */
  file: string;
  /** The edited keys: `description`, `code`, `shadow`, `parameters.<name>.<key>`, … */
  changed: string[];
}

export interface VaultAccessed {
  op: 'get' | 'set' | 'list' | 'delete' | 'resolve';
  key?: string;
  tier: string;
}

export interface ConfigLoaded {
  /** sha256 over the loaded files' paths and contents plus the plugin set. */
  bootSha: string;
  files: string[];
  tools: number;
  /** v2: the digest of the effective configuration (its text is in `config.recorded`). */
  configSha?: string;
  /** v2: the process that loaded it (its `writer.started`). */
  writer?: string;
}

/**
 * The effective configuration, normalised: the settings, every tool as the rules see it (config,
 * built-ins, upstream tools), the plugins; secrets only as their `{{backend:KEY}}` references.
 * Recorded once per digest (its id derives from `sha`), so a decision can be re-derived under the
 * rules in force when it was taken.
 */
export interface ConfigRecorded {
  sha: string;
  config: JsonValue;
}

export interface PluginLoaded {
  id: string;
  version: string;
  root: string;
  source: 'core' | 'user' | 'link' | 'builtin' | (string & {});
}

export interface PluginFailed {
  id: string;
  root: string;
  reason: string;
  code: string;
}

/** An agent connected through an interface (an MCP session); its calls carry `sessionId` and `agentId`. */
export interface SessionOpened {
  sessionId: string;
  iface: Interface;
  /** The agent id its calls are recorded under. */
  agentId: string;
  /** Who the client says it is (MCP `clientInfo`). */
  client?: { name: string; version?: string };
  transport?: string;
  /** v2: the process serving the session (its `writer.started`). */
  writer?: string;
}

export interface SessionClosed {
  sessionId: string;
  iface: Interface;
  /** v2: why, when it was not closed by its own process (that process ended). */
  reason?: string;
}

/**
 * A process that writes to the log, recorded before its first other event: enough to tell later,
 * from another process, whether it is still running (same boot, a live pid with the same start).
 */
export interface WriterStarted {
  writer: string;
  pid: number;
  /** The kernel's boot id (/proc/sys/kernel/random/boot_id), or "unknown". */
  bootId: string;
  host: string;
  /** When the process started (ISO-8601). */
  startedAt: string;
  /** The process start time in clock ticks since boot (/proc/<pid>/stat), where the OS tells. */
  procStart?: number;
  /** The digest of the configuration it started with (`config.recorded`), when it had one yet. */
  configSha?: string;
}

/**
 * A call whose outcome is not in the log: its process ended before recording it (found when the
 * log was next opened), or the completion could not be written (a full disk) and the caller was
 * told so; marked once the log could be written again.
 */
export interface CallInterrupted {
  callId: string;
  writer?: string;
  reason: string;
}

/**
 * A request factorly forwarded between an agent's MCP session and an upstream MCP server other than
 * a tool call (tool calls are `call.*`): the agent's resource reads, prompt gets, completions,
 * subscriptions and log level going up (`to_upstream`), and the upstream's sampling, elicitation and
 * roots requests going down to the agent (`to_client`). Names what was asked for, never the content.
 */
export interface McpForwarded {
  direction: 'to_upstream' | 'to_client';
  method: string;
  /** The upstream server's entry name. */
  server: string;
  sessionId?: string;
  agentId?: string;
  /** What the request was about: a resource URI, a prompt name, a completion reference. */
  target?: string;
  status: 'success' | 'error';
  error?: string;
  durationMs: number;
}

/**
 * A signed checkpoint of the log's Merkle tree (C2SP tlog-checkpoint in a signed-note), recorded
 * after it was written to `.factorly/checkpoints/` and handed to the witnesses. It covers the first
 * `size` events (those before it, at the time it was signed).
 */
export interface LogCheckpointed {
  size: number;
  /** The tree's root hash at `size`, hex. */
  rootHash: string;
  origin: string;
  /** The signed note, as written to the checkpoint file. */
  checkpoint: string;
}

/** Type → payload, and the schema version currently written for each type. */
export interface EventMap {
  'call.requested': CallRequested;
  'call.params_coerced': CallParamsCoerced;
  'call.params_capped': CallParamsCapped;
  'shadow.decided': ShadowDecided;
  'confirm.requested': ConfirmRequested;
  'confirm.answered': ConfirmAnswered;
  'confirm.resolved': ConfirmResolved;
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
  'log.checkpointed': LogCheckpointed;
  'writer.started': WriterStarted;
  'call.interrupted': CallInterrupted;
}

export type EventType = keyof EventMap;

export const EVENT_VERSIONS: { readonly [K in EventType]: number } = {
  'call.requested': 3,
  'call.params_coerced': 1,
  'call.params_capped': 1,
  'shadow.decided': 2,
  'confirm.requested': 1,
  'confirm.answered': 1,
  'confirm.resolved': 1,
  'call.completed': 1,
  'source.recorded': 1,
  'tool.promoted': 1,
  'vault.accessed': 1,
  'config.loaded': 2,
  'config.recorded': 1,
  'plugin.loaded': 1,
  'plugin.failed': 1,
  'session.opened': 2,
  'session.closed': 2,
  'mcp.forwarded': 1,
  'tool.edited': 1,
  'log.checkpointed': 1,
  'writer.started': 1,
  'call.interrupted': 1,
};

export function isEventType(value: string): value is EventType {
  return Object.hasOwn(EVENT_VERSIONS, value);
}
