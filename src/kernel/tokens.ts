import { createToken } from '../base/token.js';
import type { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type { StandingApprovals } from '../events/projections/standing.js';
import type {
  ConfigListener,
  ConfirmChannel,
  FactorlyInterface,
  OutputProcessor,
  SecretBackend,
  ShadowRule,
} from '../contracts/extensions.js';
import type { SecretScope, ToolProvider, ToolSource } from '../contracts/tool.js';
import type { AskPerson, PersonChannel } from '../contracts/person.js';
import type { CallGateway, CatalogFilter, ToolCatalog } from '../contracts/gateway.js';
import type { SandboxEngine } from '../contracts/sandbox.js';
import type { LogEngine } from '../contracts/log-engine.js';
import type { Checkpointed, KeyedRegistry, OrderedRegistry } from './registries.js';
import type { Token } from '../base/token.js';
import type { ProjectPaths } from '../config/paths.js';

/**
 * Core services and extension points. Plugins receive these through `registerInit({ deps })`; a
 * contract between two plugins is a token one of them provides (`registrar.provide`), not one of these.
 */
export const KernelTokens = {
  EventLog: createToken<EventLog>('kernel.eventLog'),
  /** The event log opened on first call: for plugins that append only while serving (resolving `EventLog` at init opens it at every boot). */
  LazyEventLog: createToken<() => EventLog>('kernel.lazyEventLog'),
  EventBus: createToken<EventBus>('kernel.eventBus'),
  ProjectPaths: createToken<ProjectPaths>('kernel.projectPaths'),
  ToolProviders: createToken<KeyedRegistry<ToolProvider>>('kernel.toolProviders'),
  ShadowRules: createToken<OrderedRegistry<ShadowRule>>('kernel.shadowRules'),
  OutputProcessors: createToken<OrderedRegistry<OutputProcessor>>('kernel.outputProcessors'),
  /** Channels that only confirm calls (plugin API 1): asked as `PersonChannels` of kind `confirm`. */
  ConfirmChannels: createToken<OrderedRegistry<ConfirmChannel>>('kernel.confirmChannels'),
  /** Ways to reach a person (the ask-a-person contract): asked to confirm calls and answer questions. */
  PersonChannels: createToken<OrderedRegistry<PersonChannel>>('kernel.personChannels'),
  /** Asks a person a question on behalf of a call (`factorly.ask`), over the person channels, recorded. */
  AskPerson: createToken<AskPerson>('kernel.askPerson'),
  /** The fold of standing approvals (`approval.granted`/`revoked`), for a rule that offers them to declare as its history. */
  StandingApprovals: createToken<StandingApprovals>('kernel.standingApprovals'),
  SecretBackends: createToken<KeyedRegistry<SecretBackend>>('kernel.secretBackends'),
  /** Ways in by name (`mcp`, `ui`); the command that serves one looks it up here. */
  Interfaces: createToken<KeyedRegistry<FactorlyInterface>>('kernel.interfaces'),
  ToolSources: createToken<OrderedRegistry<ToolSource>>('kernel.toolSources'),
  /**
   * Resolves secrets a provider needs outside any one call (an upstream server's env or URL, a
   * connection's headers, resolved at connect time). Every value it resolves is scrubbed from the
   * output of every call, as the values a call resolves itself are.
   */
  ConnectionSecrets: createToken<SecretScope>('kernel.connectionSecrets'),
  /** Run once the config is loaded, before tools are collected. */
  ConfigListeners: createToken<OrderedRegistry<ConfigListener>>('kernel.configListeners'),
  /** Script engines by name, for providers that run scripts. */
  SandboxEngines: createToken<KeyedRegistry<SandboxEngine>>('kernel.sandboxEngines'),
  /** Calls tools through the full pipeline; usable once the kernel is ready. */
  CallGateway: createToken<CallGateway>('kernel.callGateway'),
  /** Changes the catalogue while serving (an entry's tools listed again, tools one session alone sees); usable once the kernel is ready. */
  ToolCatalog: createToken<ToolCatalog>('kernel.toolCatalog'),
  /** See the catalogue as it is listed and as calls resolve it, and may hold tools back from listings (pins). */
  CatalogFilters: createToken<OrderedRegistry<CatalogFilter>>('kernel.catalogFilters'),
  /** Where the event log lives, by the name `log: {engine: …}` chooses (`lmdb` is built in). */
  LogEngines: createToken<KeyedRegistry<LogEngine>>('kernel.logEngines'),
} as const;

export type KernelTokens = typeof KernelTokens;

/** The extension points plugins add to (each a KeyedRegistry or OrderedRegistry): what a failed plugin load rolls back. */
export const EXTENSION_POINTS: readonly Token<Checkpointed>[] = [
  KernelTokens.ToolProviders,
  KernelTokens.ShadowRules,
  KernelTokens.OutputProcessors,
  KernelTokens.ConfirmChannels,
  KernelTokens.PersonChannels,
  KernelTokens.SecretBackends,
  KernelTokens.Interfaces,
  KernelTokens.ToolSources,
  KernelTokens.ConfigListeners,
  KernelTokens.SandboxEngines,
  KernelTokens.LogEngines,
  KernelTokens.CatalogFilters,
];
