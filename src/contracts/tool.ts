import type { CallOrigin, JsonValue, Params } from '../events/catalog.js';
import type { ParameterSpec, PreparedDefinition, ToolDefinition } from '../config/tool-definition.js';
export { PARAM_LOCATIONS, PARAM_TYPES } from '../config/tool-definition.js';
export type {
  ParamLocation,
  ParameterSpec,
  ParamType,
  PreparedDefinition,
  SourceLocation,
  ToolDefinition,
  ToolOverlay,
} from '../config/tool-definition.js';

/**
 * A call's place in its call tree, issued by the kernel (`ToolCall.context`). Opaque: a provider
 * passes it on as `CallRequest.parent` for the calls it makes, and nothing else can make one.
 */
export interface CallTreeLink {
  readonly callId: string;
  readonly rootId: string;
  /** Aborts when this call stops: its own deadline, its caller's cancellation, or its tree stopping. */
  readonly signal: AbortSignal;
}

/**
 * The calling client's side of an interactive interface (an MCP session), handed to the provider
 * so an upstream's progress, log messages and requests (sampling, elicitation) reach the agent
 * that made the call, on that call's own stream, and the answers come back unchanged.
 */
export interface ClientLink {
  /** Which session this is (also `CallRequest.sessionId`). */
  readonly sessionId: string;
  /** The progress token the client attached to this call, if any. */
  readonly progressToken?: string | number;
  /** What the client declared it can do (MCP client capabilities: sampling, elicitation, roots). */
  readonly capabilities: Readonly<Record<string, unknown>>;
  /**
   * Whether the client may call `tool` over its interface (an HTTP client is not served the built-ins
   * that act on this machine), for a tool that describes the catalogue to it (`factorly.help`).
   * Absent: every tool.
   */
  offers?(tool: ToolDefinition): boolean;
  /** Sends a notification (`notifications/progress`, `notifications/message`) related to this call. */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /**
   * Sends a request to the client (`sampling/createMessage`, `elicitation/create`) and returns its
   * result as is. `timeoutMs` overrides the interface's default request timeout (a person may take long).
   */
  request(
    method: string,
    params: Record<string, unknown>,
    signal?: AbortSignal,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
}

/** What a provider receives for one call: params validated, coerced and defaulted. */
export interface ToolCall {
  callId: string;
  rootId: string;
  parentId?: string;
  tool: ToolDefinition;
  params: Params;
  iface: CallOrigin;
  agentId?: string;
  sessionId?: string;
  timeoutMs: number;
  /**
   * Aborts when the call must stop: with a `TimeoutError` reason at its own deadline, with an
   * `AbortError` when its caller cancelled or the call tree it belongs to stopped.
   */
  signal: AbortSignal;
  /**
   * Resolves `{{backend:KEY}}` references in provider-side templates (args, env, headers, urls) at
   * the last hop. Every value it resolves is remembered for the whole call tree and scrubbed from
   * every event and output of the tree afterwards.
   */
  secrets: SecretScope;
  /** This call's place in its call tree: pass it as `CallRequest.parent` for the calls it makes. */
  context: CallTreeLink;
  /** The calling agent's live channel (see `ClientLink`); absent for CLI calls and inner calls. */
  client?: ClientLink;
}

/** Per-call secret resolution (see `ToolCall.secrets`). */
export interface SecretScope {
  resolve(template: string): Promise<string>;
  /** Values resolved so far in this call's tree, by reference (`<backend>:KEY`). */
  resolved(): ReadonlyMap<string, string>;
  /**
   * Reads `reference` (`<backend>:KEY`) again, asking its backend for a new value because the far
   * side refused the one it gave (an expired token); the refused value stays scrubbed too.
   */
  refresh?(reference: string): Promise<string>;
}

/** Tools that do not come from the config: built-ins, promoted scripts. */
export interface ToolSource {
  readonly name: string;
  readonly order?: number;
  /** `settings` are the config's top-level settings (a source may read the keys its plugin declares). */
  tools(context?: { settings: Record<string, unknown> }): ToolDefinition[] | Promise<ToolDefinition[]>;
}

/** Result shape everywhere. An error is `exitCode != 0` or a non-empty `error`. */
export interface ToolResult {
  output: string;
  error?: string;
  exitCode: number;
  /** Diagnostics a tool printed while succeeding (a CLI tool's stderr with exit 0). */
  diagnostics?: string;
  /**
   * An MCP result's content blocks as the tool sent them (an upstream MCP tool): text, images,
   * audio, resources and links, each with its own annotations and `_meta`, so an MCP interface
   * hands them back as they came. `output` is then what they say as text (see `contentText`).
   */
  content?: ContentBlock[];
  /** An MCP result's own `_meta`. */
  meta?: { [key: string]: JsonValue };
  /** An upstream MCP tool's `structuredContent`, carried alongside the output. */
  structuredContent?: { [key: string]: JsonValue };
  /** What the call consumed (a script's duration, inner tool calls, memory), recorded on `call.completed`. */
  usage?: Record<string, number>;
}

/** Source code a call runs (code tools), recorded once per digest and referenced from `call.requested`. */
export interface CallSource {
  /** sha256 (hex) of `source`. */
  sha: string;
  language: string;
  source: string;
  /** What will run it (a script engine and its version), recorded on `call.requested`. */
  engine?: { name: string; version: string };
}

/** One block of an MCP result (`text`, `image`, `audio`, `resource`, `resource_link`, …), every field kept. */
export interface ContentBlock {
  type: string;
  [key: string]: JsonValue;
}

/** A recorded run as a provider is asked to promote it. */
export interface PromotableRun {
  callId: string;
  /** The definition of the tool the run was a call of. */
  tool: ToolDefinition;
  /** Its params as recorded (secrets as their templates). */
  params: Params;
  /** The code it ran, whole. */
  source: CallSource;
  /** Whether the new tool should ask a person before each call (the default). */
  confirm: boolean;
}

/** The entry a promotion writes, as the provider makes it from a run. */
export interface PromotedTool {
  type: string;
  /** Provider keys of the entry (`code:`); a string of several lines is written as a YAML block. */
  spec: Record<string, JsonValue>;
  parameters: ParameterSpec[];
  /** Its `shadow:` block, as written, if any. */
  shadow?: { [key: string]: JsonValue };
}

/** Where a source of tools (an entry a provider expands) stands: only a connected one contributes tools. */
export interface SourceStatus {
  /** The config entry. */
  name: string;
  type: string;
  /** `retrying`: reconnecting now, after a failure (`reason`). */
  state: 'connected' | 'needs_login' | 'failing' | 'retrying';
  reason?: string;
  /** For `needs_login`: the server's OAuth protected-resource metadata URL (`WWW-Authenticate: Bearer resource_metadata=…`), where a login starts. */
  resourceMetadata?: string;
}

/**
 * Executes one `type` of tool. Providers are registered by plugins; the kernel knows them only
 * through this contract.
 */
export interface ToolProvider {
  readonly type: string;
  /** Provider-specific keys the definition may use; any other key is reported as a config error. */
  readonly keys: readonly string[];
  /**
   * Config entries of this type adjust a tool its ToolSource brings instead of defining one (the
   * built-ins' own type), as an entry without a type does.
   */
  readonly adjustsOnly?: boolean;
  prepare?(definition: ToolDefinition): PreparedDefinition;
  /**
   * Problems that do not stop a config from loading (the tool stays listed and each call reports
   * them) but must stop a tool from being written, e.g. a script that does not compile.
   */
  diagnose?(definition: ToolDefinition): string[];
  /**
   * Turns one configured entry into the tools it stands for (an upstream MCP server → its
   * sub-tools, named `<entry>.<remote>`). Called once at boot; without it an entry is one tool.
   */
  expand?(definition: ToolDefinition): Promise<ToolDefinition[]>;
  /**
   * The state of each entry this provider expands (an upstream MCP server): one that is not
   * `connected` contributes no tools, and breaks nothing else (`factorly tools` shows why).
   */
  sourceStatuses?(): SourceStatus[];
  execute(call: ToolCall): Promise<ToolResult>;
  /**
   * Its calls may call other tools (a script): the kernel then reads the secrets of every tool in the
   * registry (from `prefetch` backends) before the call's first event, so a value the caller sent is
   * scrubbed from its params even though no tool of the tree has resolved it yet.
   */
  readonly callsOtherTools?: boolean;
  /** The source this call will run, for the audit trail (`sourceSha` on `call.requested`). */
  sourceOf?(tool: ToolDefinition, params: Params): CallSource | undefined;
  /**
   * This process will call `tool` once it is ready (`factorly call`): told as soon as the tools are
   * collected, so slow preparation (a sandbox process) overlaps the rest of the start. A hint: the
   * call may still be refused, and a failure here is ignored.
   */
  expect?(tool: ToolDefinition): void;
  /**
   * Turns a recorded run of one of this provider's tools (one that had a `sourceOf`) into the entry
   * of a named tool that does the same (`factorly tools promote`); undefined when it cannot.
   */
  promote?(run: PromotableRun): PromotedTool | undefined;
  /**
   * The provider key holding a tool's script, when its tools have one: the web UI's edit
   * page edits it, and `diagnose` checks it before the file is written.
   */
  readonly scriptKey?: string;
  /**
   * Keys (among `keys`) whose value names a file holding another key's value, file key → key
   * (`code_file` → `code`): the loader reads it, relative to the entry's config file and confined to
   * the project, before `prepare` sees the definition; the config watcher follows the file, and
   * `tools promote --to-file` writes a promoted script that way.
   */
  readonly fileKeys?: Readonly<Record<string, string>>;
  /** Releases processes and connections; called once when the kernel stops. */
  stop?(): Promise<void>;
}
