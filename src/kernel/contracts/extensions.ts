import type { Decision, Interface, Params } from '../../events/catalog.js';
import type { OutputFormat, ToolDefinition } from './tool.js';

/** What a shadow rule sees of a call. */
export interface ShadowContext {
  callId: string;
  tool: ToolDefinition;
  params: Params;
  iface: Interface;
  agentId?: string;
  parentId?: string;
}

export interface ShadowVerdict {
  decision: Decision;
  reason: string;
}

/** A governance rule. Rules run in ascending `order`; a rule that throws denies the call (fail closed). */
export interface ShadowRule {
  readonly name: string;
  readonly order: number;
  evaluate(context: ShadowContext): Promise<ShadowVerdict>;
}

export interface ConfirmRequest {
  callId: string;
  tool: string;
  params: Params;
  agentId?: string;
  reason: string;
}

/** A way to ask a person. The first channel to answer wins; no answer in time means deny. */
export interface ConfirmChannel {
  readonly name: string;
  readonly order?: number;
  ask(request: ConfirmRequest, signal: AbortSignal): Promise<{ approved: boolean; by?: string }>;
}

/** Resolves `{{name:KEY}}` references at the last hop. */
export interface SecretBackend {
  readonly name: string;
  readonly readOnly: boolean;
  resolve(key: string): Promise<string | undefined>;
}

export interface OutputContext {
  tool: ToolDefinition;
  /** Secret values resolved for this call, by reference name, for scrubbing. */
  secrets: ReadonlyMap<string, string>;
  /**
   * Which text this is: the tool's `output`, its `error`, its `diagnostics`, or the JSON text of
   * its `structured` content. Scrubbers treat all alike; shaping stages (filters, truncation)
   * usually only touch `output`.
   */
  stream?: 'output' | 'error' | 'diagnostics' | 'structured';
  /** How the output is to be read (see `ToolResult.outputFormat`). */
  format?: OutputFormat;
  /** The call's validated params (built-in filters pick a filter by a `command` param). */
  params?: Params;
}

/** Transforms output before it is stored or returned: scrub, compress, filter, truncate. */
export interface OutputProcessor {
  readonly name: string;
  readonly order: number;
  process(text: string, context: OutputContext): string | Promise<string>;
  /** Checks a tool's definition at load time (e.g. its `filter` stages); problems are short phrases. */
  prepare?(tool: ToolDefinition): string[];
}

/** A way in (MCP stdio, MCP HTTP, web UI), started and stopped by the kernel. */
export interface FactorlyInterface {
  readonly name: string;
  readonly order?: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}
