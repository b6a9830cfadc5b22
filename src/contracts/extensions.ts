import type { Decision, CallOrigin, JsonValue, Params } from '../events/catalog.js';
import type { Projection } from '../events/projection.js';
import type { LoadedConfig } from '../config/load.js';
import type { ContentBlock, ToolDefinition } from './tool.js';
import type { ClientLink } from './gateway.js';

/** What a shadow rule sees of a call. */
export interface ShadowContext {
  callId: string;
  tool: ToolDefinition;
  /** Params after defaults and coercion: what the provider will receive. */
  params: Params;
  iface: CallOrigin;
  agentId?: string;
  sessionId?: string;
  parentId?: string;
  /**
   * For an inner call, the runs it happens inside, nearest first, each with the number of calls
   * already started under it at any depth (a rule about call trees compares that with a budget).
   */
  callers?: readonly CallerRun[];
  /** Aborts when the call's tree stops (its caller cancelled, a deadline passed): an async rule may give up. */
  signal?: AbortSignal;
  /** The caller's live channel (an MCP session), when its interface has one. */
  client?: ClientLink;
  /** sha256 of `<tool>:<canonical JSON of params>`: identical calls have identical fingerprints. */
  fingerprint: string;
  /** The script the call runs (a code tool's, or one sent as a param): its SHA-256, as `source.recorded` names it. */
  sourceSha?: string;
  /** Epoch milliseconds of the decision; rules use this instead of reading the clock. */
  now: number;
}

/** A call that runs inner calls (a code tool's run), as a rule about call trees sees it. */
export interface CallerRun {
  callId: string;
  tool: ToolDefinition;
  /** Calls started under it, at any depth, before this one. */
  innerCalls: number;
}

/**
 * A rule's answer. Anything else a rule returns (an unknown decision, a reason that is not a string,
 * a bare string) denies the call, naming the rule and recording what it returned. `warn` lets the call through and records the reason; `confirm` asks a person
 * (after every other rule has let the call through); the other decisions block.
 */
export interface ShadowVerdict {
  decision: Decision;
  reason: string;
  /**
   * What a rule that keeps state counted this decision under (a rate-limit bucket, a loop
   * fingerprint). Recorded in `shadow.decided`, so the rule's projection is a fold over the log.
   */
  facts?: Record<string, JsonValue>;
  /** For `confirm`: how long to wait for a person (default 60 s); no answer in time means deny. */
  timeoutMs?: number;
}

/**
 * A governance rule. Rules run in ascending `order` (official ones: log params 5, deny 10, agent access 15,
 * confirm 20, rate limit 30, agent rate limit 32, max calls 35, loop detection 40; third-party rules should
 * use 100 or more). A rule that throws
 * or runs past `timeoutMs` denies the call (fail closed) unless it declares `failOpen`; a malformed
 * verdict denies it whatever the rule declares.
 *
 * A rule whose decision depends on earlier calls declares `history`: a projection (pure fold over
 * events, with a `version` to bump when the fold changes) that the event log keeps as a persisted
 * projection: folded in the same write as the events, snapshotted beside them, and handed to
 * `evaluate` as `state`, up to date with every process's events. The kernel
 * records the verdict only if no event was appended since the state was read (the log's
 * `expectedSeq`); otherwise it folds the new events and asks again. So a decision and the facts it
 * was based on are one atomic step, exact across processes. Because of that retry, `evaluate` may
 * run more than once for one call: keep it free of side effects. When the log moved, the kernel
 * first asks again inside the write itself, so concurrent calls share one commit: a rule that can
 * answer synchronously (returns a verdict, not a promise) keeps that fast path; an async one makes
 * the whole append retry instead.
 */
export interface ShadowRule<S = unknown> {
  readonly name: string;
  readonly order: number;
  /** Milliseconds `evaluate` may take (default 5000). */
  readonly timeoutMs?: number;
  /** When this rule fails or times out, let the call through with a warning instead of denying it. */
  readonly failOpen?: boolean;
  readonly history?: Projection<S>;
  /** `undefined` = the rule has nothing to say about this call (nothing is recorded). */
  evaluate(context: ShadowContext, state: S): Promise<ShadowVerdict | undefined> | ShadowVerdict | undefined;
}

export interface ConfirmRequest {
  callId: string;
  tool: string;
  params: Params;
  /** The approval is bound to this exact call: tool + canonical params. */
  fingerprint: string;
  iface: CallOrigin;
  agentId?: string;
  /** The interface session the call came from, so a channel can ask in that same session. */
  sessionId?: string;
  /** That session's live channel, on which a channel can ask (MCP elicitation) within the call's own stream. */
  client?: ClientLink;
  reason: string;
  /** When an unanswered request is declined (epoch ms, as a question's `expiresAt`), so a channel can tell the person how long they have. */
  expiresAt?: number;
}

export interface ConfirmAnswer {
  approved: boolean;
  by?: string;
}

/**
 * A way to ask a person. Every channel that `accepts` a request is asked at once; the first answer
 * wins and the others are aborted through `signal`; no answer in time means deny.
 */
export interface ConfirmChannel {
  readonly name: string;
  readonly order?: number;
  /** Whether this channel can reach a person for this request (default: yes). */
  accepts?(request: ConfirmRequest): boolean;
  /**
   * Why this channel cannot take a request it does not accept, when it knows a reason a person should
   * read (the MCP client that made the call cannot answer elicitation): shown when no channel can ask.
   */
  whyNot?(request: ConfirmRequest): string | undefined;
  ask(request: ConfirmRequest, signal: AbortSignal): Promise<ConfirmAnswer>;
}

/** Which store of a backend an operation targets (a backend may keep a project and a global one). */
export interface SecretBackendAccess {
  tier?: 'project' | 'global';
}

export interface SecretResolveOptions {
  /**
   * The value given last was refused where it was used (an HTTP 401): a backend that mints values
   * (an OAuth access token) makes a new one; any other backend returns what it holds.
   */
  refresh?: boolean;
}

/**
 * Resolves `{{name:KEY}}` references at the last hop. Backends that manage keys also implement
 * the optional operations behind the CLI's secret commands (get, set, list, delete); a read-only
 * backend may offer `read` and `list`. Results name the tier used, never echo a value back.
 */
export interface SecretBackend {
  readonly name: string;
  readonly readOnly: boolean;
  /**
   * Reading a value is cheap and silent (a file already unlocked, the process environment), so the
   * kernel may read every reference a call tree could reach before the tree's first event is written
   * (a script's params may hold any of them). Leave it unset for a backend that runs a command or
   * asks a service (a password manager's CLI): its values are learnt when a call first resolves them.
   */
  readonly prefetch?: boolean;
  /** `options.refresh`: the far side refused the value this backend gave; make a new one if it can. */
  resolve(key: string, options?: SecretResolveOptions): Promise<string | undefined>;
  read?(key: string, access?: SecretBackendAccess): Promise<{ tier: string; value?: string }>;
  list?(access?: SecretBackendAccess): Promise<{ tier: string; keys: string[] }>;
  write?(key: string, value: string, access?: SecretBackendAccess): Promise<{ tier: string }>;
  remove?(key: string, access?: SecretBackendAccess): Promise<{ tier: string; existed: boolean }>;
}

/**
 * Told about the loaded config (at boot and after every reload) before tools are collected, so a
 * plugin can act on the settings it declared beyond its block. A throw is a config error.
 */
export interface ConfigListener {
  readonly name: string;
  readonly order?: number;
  configLoaded(config: LoadedConfig): void | Promise<void>;
}

export interface OutputContext {
  tool: ToolDefinition;
  /** Secret values resolved for this call, by reference name, for scrubbing. */
  secrets: ReadonlyMap<string, string>;
  /**
   * Which text this is: the tool's `output`, its `error`, its `diagnostics`, or the JSON text of
   * its `structured` content. Scrubbers treat all alike; shaping stages (filters, truncation)
   * usually only touch `output`. `event` is text on its way into an event of the log (a call's
   * params, a rule's reason): only scrubbers act on it.
   */
  stream?: 'output' | 'error' | 'diagnostics' | 'structured' | 'event';
  /** The call's validated params (built-in filters pick a filter by a `command` param). */
  params?: Params;
}

/** An MCP result as output processing sees it: its blocks, its structured content, and whether it is now an error. */
export interface ContentResult {
  content: ContentBlock[];
  structuredContent?: { [key: string]: JsonValue };
  /** The result's own `_meta`. */
  meta?: { [key: string]: JsonValue };
  /** Set by a stage that had to withhold something the result needs (structured content its output schema requires). */
  error?: string;
}

/**
 * Transforms output before it is stored or returned: scrub secrets, shape, cut to size. A stage
 * configured per tool declares its keys in its plugin's `config.tool` (checked at load time) and
 * reads them from `context.tool.settings`. Text goes
 * through `process`: a tool's output, error and diagnostics, each text block of an MCP result (as
 * `output`), and, as JSON on the `structured` stream, structured content and every other block.
 */
export interface OutputProcessor {
  readonly name: string;
  readonly order: number;
  process(text: string, context: OutputContext): string | Promise<string>;
  /**
   * For an MCP result, a stage that must see its blocks together (a size cap they share) takes the
   * whole result here instead of its text blocks one by one. Binary blocks must never be cut into text.
   */
  processContent?(result: ContentResult, context: OutputContext): ContentResult | Promise<ContentResult>;
}

/**
 * What a command hands an interface: its flags, already parsed. `factorly serve` and `factorly ui`
 * fill the named ones (each only when it applies); `--set key=value` adds any other key (a value
 * that reads as JSON parsed), and never one of these, so their types hold.
 */
export interface InterfaceOptions {
  /** `serve`: `stdio` without `--port`, else `http`. */
  readonly transport?: 'stdio' | 'http';
  /** `--host`: the address to bind. */
  readonly host?: string;
  /** `--port`: the port to listen on (0 picks a free one). */
  readonly port?: number;
  /** `--http-token` (or FACTORLY_HTTP_TOKEN): the bearer token HTTP clients must send. */
  readonly token?: string;
  /** `--allowed-origin`: extra Origins a browser may call from. */
  readonly allowedOrigins?: readonly string[];
  /** `--allowed-host`: extra Host names the server may be addressed by. */
  readonly allowedHosts?: readonly string[];
  /** `--session-idle`: an idle HTTP session ends after this many milliseconds (0: never). */
  readonly idleMs?: number;
  /** `--code-mode`: offer code mode's tools instead of every tool. */
  readonly codeMode?: boolean;
  /** `--max-message-size`: the largest message accepted, in bytes. */
  readonly maxMessageBytes?: number;
  /** `ui --open`: open a browser on the address. */
  readonly open?: boolean;
  /** `wrap`: serve the one wrapped tool under its own name, as the server it stands for. */
  readonly mirror?: boolean;
  /** The running factorly's version. */
  readonly version?: string;
  /** Keys given with `--set` (parsed as JSON when they read as JSON, else strings). */
  readonly [key: string]: unknown;
}

/**
 * A way in (MCP over stdio or HTTP, the web UI), found by name by the command that runs it
 * (`factorly serve` runs `mcp`, `factorly ui` runs `ui`). `serve` runs until `signal` aborts or the
 * interface ends by itself (stdin closed), then finishes in-flight calls before it resolves. A
 * problem with the options (a port in use) is a rejected promise with a message naming it.
 */
export interface FactorlyInterface {
  readonly name: string;
  readonly order?: number;
  serve(options: InterfaceOptions, signal: AbortSignal): Promise<void>;
}
