/** Who shares one rate-limit bucket (see README "Shadow governance"). */
export type RateScope = 'agent' | 'tool' | 'server' | 'global';
export const RATE_SCOPES: readonly RateScope[] = ['agent', 'tool', 'server', 'global'];

export type RateUnit = 'sec' | 'min' | 'hour' | 'day';

/** `rate_limit: "10/min"` after validation. */
export interface RateLimit {
  count: number;
  unit: RateUnit;
  windowMs: number;
  /** As written in the config, for messages. */
  text: string;
}

/** `loop: {window, warn, block}`; `loop: false` turns detection off for the tool. */
export interface LoopPolicy {
  enabled: boolean;
  windowMs: number;
  warn: number;
  block: number;
}

/**
 * A tool's `shadow` block after load-time validation. Rules written on an MCP server entry cover
 * its sub-tools: `owner` is the config entry the block was written on, and `deny`/`confirm` lists
 * name sub-tools relative to it (or by their full name).
 */
export interface ShadowPolicy {
  owner: string;
  /** `true`: every call; a list: these (sub-)tools; `false`: none (switches a built-in default off). */
  deny?: boolean | string[];
  confirm?: boolean | string[];
  rateLimit?: RateLimit;
  scope?: RateScope;
  /** Inner `factorly.call`s per code-tool run; read it with `maxCallsOf`. */
  maxCalls?: number;
  logParams?: string[];
  /** How long a confirmation waits for a person before it counts as declined. */
  confirmTimeoutMs?: number;
  loop?: LoopPolicy;
  /** Overrides for the built-in tools' safety guards. */
  allowUrls?: string[];
  allowPatterns?: string[];
  allowPaths?: string[];
}

export const DEFAULT_MAX_CALLS = 100;
export const DEFAULT_CONFIRM_TIMEOUT_MS = 60_000;
export const DEFAULT_LOOP: LoopPolicy = { enabled: true, windowMs: 300_000, warn: 4, block: 12 };

/** The inner-call cap of one code-tool run (its calls at any depth): `shadow.max_calls`, or 100. */
export function maxCallsOf(tool: { shadow?: ShadowPolicy }): number {
  return tool.shadow?.maxCalls ?? DEFAULT_MAX_CALLS;
}

/**
 * A config entry with no `type` whose name starts with `factorly.`: a `shadow` block laid over a
 * built-in tool's defaults (the built-ins come from a plugin's ToolSource). User fields win.
 */
export interface ShadowOverlay {
  name: string;
  shadow?: ShadowPolicy;
  /** Other settings a user may adjust on a built-in (`timeout`, `max_output`, `hidden`). */
  timeoutMs?: number;
  maxOutput?: number;
  hidden?: boolean;
  /** Provider keys (`engine`), allowed only where the built-in lists them in `overlayKeys`; with the line of each. */
  spec?: Record<string, unknown>;
  specLines?: Record<string, number>;
  source: { file: string; line: number };
}

/** Lays an overlay over a tool's own policy: every field the user set wins. */
export function overlayPolicy(base: ShadowPolicy | undefined, overlay: ShadowPolicy): ShadowPolicy {
  return { ...base, ...overlay };
}
