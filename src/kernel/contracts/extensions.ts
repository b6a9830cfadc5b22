import type { Decision, Interface, Params } from '../../events/catalog.js';
import type { LoadedConfig } from '../config/load.js';
import type { ToolDefinition } from './tool.js';

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

/** Which store of a backend an operation targets (the local vault has a project and a global one). */
export interface SecretBackendAccess {
  tier?: 'project' | 'global';
}

/**
 * Resolves `{{name:KEY}}` references at the last hop. Backends that manage keys (the local vault)
 * also implement the optional operations behind `factorly vault get|set|list|delete`; a read-only
 * backend may offer `read` and `list`. Results name the tier used, never echo a value back.
 */
export interface SecretBackend {
  readonly name: string;
  readonly readOnly: boolean;
  resolve(key: string): Promise<string | undefined>;
  read?(key: string, access?: SecretBackendAccess): Promise<{ tier: string; value?: string }>;
  list?(access?: SecretBackendAccess): Promise<{ tier: string; keys: string[] }>;
  write?(key: string, value: string, access?: SecretBackendAccess): Promise<{ tier: string }>;
  remove?(key: string, access?: SecretBackendAccess): Promise<{ tier: string; existed: boolean }>;
}

/**
 * Told about the loaded config before tools are collected, so a plugin can act on its own
 * top-level keys (the vault registers `vault_backends` here). A throw is a config error.
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
}

/** Transforms output before it is stored or returned: scrub, compress, filter, truncate. */
export interface OutputProcessor {
  readonly name: string;
  readonly order: number;
  process(text: string, context: OutputContext): string;
}

/** A way in (MCP stdio, MCP HTTP, web UI), started and stopped by the kernel. */
export interface FactorlyInterface {
  readonly name: string;
  readonly order?: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}
