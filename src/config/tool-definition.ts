import type { JsonValue } from '../events/catalog.js';

// The shapes config validation produces (src/config builds them; the contracts in src/contracts/tool.ts
// hand them to providers and re-export them).

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
  /**
   * The references (`<backend>:KEY`, from `hydrate_vault_refs: ["{{backend:KEY}}", …]`) that may be
   * resolved where the caller's value holds them; any other reference stays literal (none by default).
   */
  hydrateVaultRefs?: string[];
  /** Where a `rest` tool sends the value (default: path if the path uses it, else body or query by method). */
  in?: ParamLocation;
  /**
   * The name the API knows the value by (a query key `statuses[]`, a header `X-Request-Id`, a body
   * field) when it is not one an agent can use as a parameter name; default: `name`.
   */
  apiName?: string;
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

/** What a provider says about a definition at load time. */
export interface PreparedDefinition {
  /** Problems as short phrases; the kernel prefixes the tool, file and line. */
  problems: string[];
  /** Parameters inferred from the definition when none are declared. */
  inferredParameters?: ParameterSpec[];
}

/** What config validation asks of a tool's provider; every `ToolProvider` is one. */
export interface DefinitionPreparer {
  readonly keys: readonly string[];
  readonly adjustsOnly?: boolean;
  /**
   * Keys (among `keys`) whose value names a file holding another key's value, file key → key
   * (`code_file` → `code`): the loader reads the file, relative to the entry's config file and never
   * outside the project, into the other key before `prepare`, and watches it like a config file.
   */
  readonly fileKeys?: Readonly<Record<string, string>>;
  prepare?(definition: ToolDefinition): PreparedDefinition;
}

/** The definition a call names when its tool does not exist (for the redactor; the name may itself hold a secret) (the name may itself hold a secret). */
export function unknownTool(name: string): ToolDefinition {
  return {
    name,
    type: 'unknown',
    description: '',
    hidden: true,
    parameters: [],
    spec: {},
    source: { file: '<unknown>', line: 0 },
  };
}
