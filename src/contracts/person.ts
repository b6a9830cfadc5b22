import type { AskAction, CallOrigin, JsonValue, StandingKind } from '../events/catalog.js';
import type { CheckedAnswer } from '../config/params.js';
import type { ParameterSpec } from '../config/tool-definition.js';
import type { ConfirmRequest } from './extensions.js';
import type { ClientLink, ToolCall } from './tool.js';

// The ask-a-person contract: one way to put something to a person (approve a call, answer a
// question) over every channel that can reach one, raced, recorded. Confirmation (the shadow gate)
// and `factorly.ask` both go through it; the race itself is in person-race.ts.

/** What a person can be asked. A channel lists the kinds it knows (`PersonChannel.kinds`) and is never handed another. */
export type PersonRequestKind = 'confirm' | 'question';

/** A call waiting for a person's approval: the `ConfirmRequest` a confirm channel gets, tagged. */
export interface ConfirmPrompt extends ConfirmRequest {
  kind: 'confirm';
  /**
   * Standing approvals the person may give instead of approving this call only (the rule's config
   * offers them: `shadow.confirm: {for: 30m}`, `{once_per: source}`). A channel that shows one
   * answers `accept` with its `kind` as `PersonAnswer.standing`; one that does not approves once.
   */
  standing?: StandingChoice[];
}

/** One standing approval a confirmation offers: its kind, how to show it, how long it stands. */
export interface StandingChoice {
  kind: StandingKind;
  /** "for 30 minutes", "for this script (24 hours)". */
  label: string;
  forMs: number;
}

/** A question a call puts to a person (`factorly.ask`): one value, declared and checked like a tool parameter. */
export interface QuestionPrompt {
  kind: 'question';
  callId: string;
  /** The tool whose call asks. */
  tool: string;
  iface: CallOrigin;
  agentId?: string;
  /** The interface session the call came from, so a channel can ask in that same session. */
  sessionId?: string;
  /** That session's live channel (MCP elicitation asks on it). */
  client?: ClientLink;
  /**
   * The question, scrubbed of the call tree's secrets: `name` (a short label), `description` (the
   * question in full), `type`, `enum` (the choices), `default`, `required`, and a parameter's limits.
   */
  question: ParameterSpec;
  /**
   * Checks an answer as the race will (`validateAnswer` against the question): coerced, or why it does
   * not fit, so a channel can ask again (a terminal) instead of failing.
   */
  check(answer: JsonValue | undefined): CheckedAnswer;
  /** Epoch milliseconds at which the question stops waiting (to show; the race enforces it). */
  expiresAt: number;
  /**
   * The public key (X25519, base64url SPKI) an answer is sealed to (`sealAnswer`) by a channel that
   * carries it through the event log from another process; only the asking process can open it.
   */
  replyKey: string;
}

export type PersonRequest = ConfirmPrompt | QuestionPrompt;

/**
 * A person's answer, as a channel returns it. For a confirmation, `accept` approves and `decline`
 * refuses (`cancel`, dismissing the prompt, refuses too). For a question, `accept` carries the answer
 * as `value` (the channel's own JSON, checked and coerced by the race against the question) or, from
 * a channel relaying it through the log, as `sealed`; `decline` and `cancel` carry none.
 */
export interface PersonAnswer {
  action: AskAction;
  value?: JsonValue;
  sealed?: string;
  /** Who answered, as the log records it (`cli-prompt`, `ui`, the MCP client's name). */
  by?: string;
  /** A confirmation approved with one of the prompt's `standing` choices (its `kind`); absent: this call only. */
  standing?: StandingKind;
}

/**
 * A way to reach a person: a terminal prompt, the web UI, MCP elicitation. Every channel whose
 * `kinds` include the request's kind and which `accepts` it is asked at once; the first valid answer
 * wins and the others are aborted through `signal`. A channel that throws, or answers something
 * malformed (an unknown action, an answer the question refuses), does not count unless every channel
 * failed. `accepts` and `whyNot` must answer at once, without asking anyone.
 */
export interface PersonChannel {
  readonly name: string;
  readonly order?: number;
  readonly kinds: readonly PersonRequestKind[];
  /** Whether this channel can reach a person for this request now (default: yes). */
  accepts?(request: PersonRequest): boolean;
  /** Why it cannot take a request it does not accept, when a person should read why (shown when no channel can ask). */
  whyNot?(request: PersonRequest): string | undefined;
  /** Must let go (resolve or reject) soon after `signal` aborts. */
  ask(request: PersonRequest, signal: AbortSignal): Promise<PersonAnswer>;
}

/**
 * How asking ended. `channel` is the channel whose answer won, else `timeout`, `stopped`, `none`
 * (unreachable) or the last channel that failed. `value` is a question's answer as checked and coerced
 * (absent when none was needed). `by` is who answered, or why it failed or could not be asked.
 */
export interface PersonOutcome {
  channel: string;
  action: AskAction | 'timeout' | 'stopped' | 'failed' | 'unreachable';
  value?: JsonValue;
  by?: string;
  /** A confirmation approved with a standing choice the prompt offered. */
  standing?: StandingKind;
}

export interface AskPersonOptions {
  /** How long to wait for an answer (default `DEFAULT_QUESTION_TIMEOUT_MS`); no answer in time is `timeout`. */
  timeoutMs?: number;
}

/**
 * The kernel's service (`KernelTokens.AskPerson`) asking a person a question on behalf of a call: a
 * provider passes the `ToolCall` it is running. It records `ask.requested` (the question scrubbed of
 * the call tree's secrets, the channels asked) before anyone is asked and `ask.resolved` (the outcome,
 * the answer scrubbed) after; the race follows the call's signal, so a stopped call stops asking.
 */
export interface AskPerson {
  ask(call: ToolCall, question: ParameterSpec, options?: AskPersonOptions): Promise<PersonOutcome>;
}
