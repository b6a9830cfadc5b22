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
 * A tool's `shadow` block as the official rules read it (the keys this plugin declares, parsed).
 * Rules written on an MCP server entry cover its sub-tools: `owner` is the config entry the block
 * was written on, and `deny`/`confirm` lists name sub-tools relative to it (or by their full name).
 */
export interface ShadowPolicy {
  owner: string;
  /** `true`: every call; a list: these (sub-)tools; `false`: none (switches a built-in default off). */
  deny?: boolean | string[];
  /** Which calls ask a person (`confirm: true`, a list, or the mapping's `tools`). */
  confirm?: boolean | string[];
  /** What a person may approve beyond the one call (`confirm: {for: 30m}`, `{once_per: source}`). */
  standing?: StandingPolicy;
  rateLimit?: RateLimit;
  scope?: RateScope;
  /** Inner calls per code-tool run, at any depth (default 100). */
  maxCalls: number;
  logParams?: string[];
  /** How long a confirmation waits for a person before it counts as declined. */
  confirmTimeoutMs?: number;
  loop: LoopPolicy;
}

/**
 * A standing approval a confirmation offers: `window` approves the tool for the agent that asked,
 * `source` approves one script (by its SHA), for whoever runs it unless `perAgent`.
 */
export interface StandingPolicy {
  kind: 'window' | 'source';
  forMs: number;
  perAgent: boolean;
}

export const DEFAULT_MAX_CALLS = 100;
/** The reference's defaults: a 5 minute window, a warning at the 4th identical call, a block at the 12th. */
export const DEFAULT_LOOP: LoopPolicy = { enabled: true, windowMs: 300_000, warn: 4, block: 12 };
