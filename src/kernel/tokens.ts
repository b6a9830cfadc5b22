import { createToken } from './base/token.js';
import type { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type {
  ConfirmChannel,
  FactorlyInterface,
  OutputProcessor,
  SecretBackend,
  ShadowRule,
} from './contracts/extensions.js';
import type { SecretScope, ToolProvider, ToolSource } from './contracts/tool.js';
import type { CallGateway } from './contracts/gateway.js';
import type { KeyedSlot, OrderedSlot } from './slots.js';
import type { ProjectPaths } from './config/paths.js';

/** Core services and extension points. Plugins receive these through `registerInit({ deps })`. */
export const KernelTokens = {
  EventLog: createToken<EventLog>('kernel.eventLog'),
  EventBus: createToken<EventBus>('kernel.eventBus'),
  ProjectPaths: createToken<ProjectPaths>('kernel.projectPaths'),
  ToolProviders: createToken<KeyedSlot<ToolProvider>>('kernel.toolProviders'),
  ShadowRules: createToken<OrderedSlot<ShadowRule>>('kernel.shadowRules'),
  OutputProcessors: createToken<OrderedSlot<OutputProcessor>>('kernel.outputProcessors'),
  ConfirmChannels: createToken<OrderedSlot<ConfirmChannel>>('kernel.confirmChannels'),
  SecretBackends: createToken<KeyedSlot<SecretBackend>>('kernel.secretBackends'),
  Interfaces: createToken<OrderedSlot<FactorlyInterface>>('kernel.interfaces'),
  ToolSources: createToken<OrderedSlot<ToolSource>>('kernel.toolSources'),
  /**
   * Makes a secret scope outside a call, for resolving `{{backend:KEY}}` in long-lived set-up such as
   * an upstream MCP server's env (a call's own scope is `ToolCall.secrets`).
   */
  SecretScopes: createToken<SecretScopeFactory>('kernel.secretScopes'),
  /** Calls tools through the full pipeline; usable once the kernel is ready. */
  CallGateway: createToken<CallGateway>('kernel.callGateway'),
} as const;

export type KernelTokens = typeof KernelTokens;

export interface SecretScopeFactory {
  create(): SecretScope;
}
