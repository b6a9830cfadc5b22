import type { CallOrigin, JsonValue, Params } from '../../events/catalog.js';

export type ParamType = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'json' | 'enum';
export const PARAM_TYPES: readonly ParamType[] = ['string', 'text', 'integer', 'number', 'boolean', 'json', 'enum'];

/** One declared parameter of a tool, after config validation. */
export interface ParameterSpec {
  name: string;
  type: ParamType;
  description?: string;
  required: boolean;
  default?: JsonValue;
  min?: number;
  max?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: string[];
  /** Lets a `{{backend:K}}` reference in the caller's value be resolved, for backends that allow it (off by default). */
  hydrateVaultRefs?: boolean;
  /** Where a `rest` tool sends the value (default: path if the path uses it, else body or query by method). */
  in?: ParamLocation;
}

export type ParamLocation = 'query' | 'path' | 'header' | 'body';
export const PARAM_LOCATIONS: readonly ParamLocation[] = ['query', 'path', 'header', 'body'];

/** Where a definition came from, for error messages that point at the line to fix. */
export interface SourceLocation {
  file: string;
  line: number;
}

/** A tool as configured: common keys typed, provider-specific keys kept in `spec`. */
export interface ToolDefinition {
  name: string;
  type: string;
  description: string;
  hidden: boolean;
  timeoutMs?: number;
  maxOutput?: number;
  parameters: ParameterSpec[];
  /**
   * The tool's `shadow:` block as written: settings of the shadow rules, each key checked at load
   * time against the plugin that declared it (sub-tools of a server entry inherit their entry's).
   */
  shadow?: { readonly [key: string]: JsonValue };
  /** Keys plugins own on the entry (declared in their `config.tool`), as written and checked. */
  settings?: { readonly [key: string]: JsonValue };
  /** Provider-specific keys (e.g. `command`, `args` for `cli`). */
  spec: Record<string, unknown>;
  source: SourceLocation;
  /**
   * The tool's own JSON Schema for its input, when it has one (an upstream MCP tool's
   * `inputSchema`): richer than `parameters` (nested objects, item types), for interfaces to expose.
   */
  inputSchema?: Record<string, unknown>;
  /**
   * Provider keys a config entry laid over this built-in may set (a script engine to run it with);
   * the provider checks them as it checks its own tools' keys. None when absent.
   */
  overlayKeys?: readonly string[];
  /** The JSON Schema its structured results follow, when it declares one (an upstream MCP tool's `outputSchema`). */
  outputSchema?: Record<string, unknown>;
  /**
   * The tool exactly as an upstream MCP server listed it (title, annotations, execution, icons,
   * `_meta`, and any field a later protocol adds), for an MCP interface to pass on unchanged.
   */
  declared?: Record<string, unknown>;
  /** The config entry this tool was expanded from (an upstream MCP server's entry), when it came from one. */
  expandedFrom?: string;
}

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

/**
 * A config entry with no `type` whose name starts with `factorly.`: settings laid over a tool a
 * plugin's ToolSource brings (a built-in). User fields win.
 */
export interface ToolOverlay {
  name: string;
  /** Its `shadow` block as written: each key replaces the built-in's. */
  shadow?: { readonly [key: string]: JsonValue };
  /** Other settings a user may adjust on a built-in (`timeout`, `max_output`, `hidden`). */
  timeoutMs?: number;
  maxOutput?: number;
  hidden?: boolean;
  /** Provider keys, allowed only where the built-in lists them in `overlayKeys`; with the line of each. */
  spec?: Record<string, unknown>;
  specLines?: Record<string, number>;
  source: SourceLocation;
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

/** What a provider says about a definition at load time. */
export interface PreparedDefinition {
  /** Problems as short phrases; the kernel prefixes the tool, file and line. */
  problems: string[];
  /** Parameters inferred from the definition when none are declared. */
  inferredParameters?: ParameterSpec[];
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
  /** The source this call will run, for the audit trail (`sourceSha` on `call.requested`). */
  sourceOf?(tool: ToolDefinition, params: Params): CallSource | undefined;
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
  /** Releases processes and connections; called once when the kernel stops. */
  stop?(): Promise<void>;
}
