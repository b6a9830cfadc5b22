// The events of one call: its request, the rules' decisions, confirmations and questions to a person, its outcome, its source,
// and what MCP forwarding did on its behalf.
import type { CallOrigin, CallStatus, Decision, JsonValue, Params } from './event-values.js';

/** The event types that end a call: its outcome, or its writer found gone with it still open. */
export function endsCall(type: string): boolean {
  return type === 'call.completed' || type === 'call.interrupted';
}

export interface CallRequested {
  callId: string;
  parentId?: string;
  rootId: string;
  tool: string;
  /** Params as the caller sent them, with secrets kept as their `{{vault:K}}` template. */
  params: Params;
  iface: CallOrigin;
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
  /**
   * v2: params left out of `call.requested` whole, when there were more than the log names
   * (`MAX_NAMED_PARAMS`, or names filling half the cap): how many, and the size and digest of
   * their JSON object, in the order sent.
   */
  omitted?: { count: number; bytes: number; sha256: string };
}

/**
 * Secret references an agent wrote in a parameter that hydrates (`hydrate_vault_refs`) but that its
 * config does not list: they reached the tool literally. By parameter name, each as
 * `{{backend:KEY}}`; names only, never a value.
 */
export interface CallHydrationRefused {
  callId: string;
  params: Record<string, string[]>;
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
  /** v2: how long the request waits before it is declined (as `ask.requested` says), so a page can show the time left. */
  timeoutMs?: number;
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
  /** v2: the standing approval the person chose (`StandingOffer.kind`) instead of this call only. */
  standing?: StandingKind;
}

export interface ConfirmResolved {
  callId: string;
  channel: string;
  approved: boolean;
  by?: string;
}

/** What a standing approval covers: this tool for this agent for a while, or one script (by its SHA). */
export type StandingKind = 'window' | 'source';

/**
 * A standing approval a rule's `confirm` verdict offers besides approving the one call, recorded in
 * its facts under `STANDING_FACT`: the person may approve every call in `scope` for `forMs`.
 */
export interface StandingOffer {
  kind: StandingKind;
  /** What the approval covers, as the rule that offers it recognises a later call (tool, agent, script). */
  scope: string;
  /** How long it stands, from the answer. */
  forMs: number;
  /** How a person is shown the choice: "for 30 minutes", "for this script (24 hours)". */
  label: string;
  /** For `source`: the script's SHA-256, as `source.recorded` names it. */
  sha?: string;
  /** The agent it is limited to (`window`; `source` with `per: agent`), when the call had one. */
  agentId?: string;
}

/** The `shadow.decided` fact of a `confirm` verdict offering a standing approval (a `StandingOffer`). */
export const STANDING_FACT = 'standing';

/**
 * A person approved a call with a standing approval it was offered: later calls in the offer's
 * `scope` are approved until `at + forMs`, unless revoked. Written with `confirm.resolved`.
 */
export interface ApprovalGranted {
  /** Short id, as `factorly approvals` lists it and `approvals revoke` takes it. */
  approvalId: string;
  /** The call whose confirmation the person answered. */
  callId: string;
  /** The rule whose `confirm` verdict offered it (only that rule honours it). */
  rule: string;
  tool: string;
  /** The agent it is limited to, as the offer named it. */
  agentId?: string;
  kind: StandingKind;
  scope: string;
  forMs: number;
  /** The person's answer as they were shown it. */
  label: string;
  sha?: string;
  channel: string;
  by?: string;
}

/** A standing approval withdrawn before its time (`factorly approvals revoke`, the web UI). */
export interface ApprovalRevoked {
  approvalId: string;
  /** Who revoked it: `cli`, `ui`. */
  by: string;
}

/**
 * A question put to a person on behalf of a call (`factorly.ask`), declared like a tool parameter:
 * the answer is checked against it as a param would be.
 */
export interface AskQuestion {
  name: string;
  type: string;
  description?: string;
  required: boolean;
  default?: JsonValue;
  enum?: string[];
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/**
 * A call asked a person a question (scrubbed of the call tree's secrets), through `channels` (none:
 * no channel could ask). `replyKey` is the public key a channel answering from another process seals
 * the answer to, so the answer never crosses the log in the clear.
 */
export interface AskRequested {
  callId: string;
  channels: string[];
  question: AskQuestion;
  timeoutMs: number;
  replyKey: string;
}

/** How a person dealt with a question: answered it, declined to, or dismissed it. */
export type AskAction = 'accept' | 'decline' | 'cancel';

/**
 * A person's answer given through a channel in another process than the call (the web UI): the
 * answer sealed to the question's `replyKey`, which only the asking process can open.
 */
export interface AskAnswered {
  callId: string;
  channel: string;
  action: AskAction;
  sealed?: string;
  by?: string;
}

/**
 * How a question ended: a person's `accept` (with the answer as validated, scrubbed), `decline` or
 * `cancel`; `timeout`; `stopped` (the call stopped while waiting); `failed` (every channel failed,
 * `by` says why); `unreachable` (no channel could ask, `by` says why).
 */
export interface AskResolved {
  callId: string;
  channel: string;
  action: AskAction | 'timeout' | 'stopped' | 'failed' | 'unreachable';
  answer?: JsonValue;
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
