import type { EventBus } from '../events/bus.js';
import type { EventLog } from '../events/log.js';
import type { LoadablePlugin, PluginReport } from '../plugins/host.js';
import type { PluginInventory } from '../plugins/inventory.js';
import type { PluginSource } from '../plugins/manifest.js';
import type { Token } from '../base/token.js';
import type { CallPipeline } from './call-pipeline.js';
import type { Checkpointer } from '../evidence/checkpointer.js';
import type { ConfigTexts, InlineConfig, LoadedConfig } from '../config/load.js';
import type { ProjectPaths } from '../config/paths.js';
import type { BareLogUse } from './log-engines.js';
import type { FactorlyInterface, SecretBackend } from '../contracts/extensions.js';
import type { ToolProvider } from '../contracts/tool.js';
import type { ToolRegistry } from './registry.js';
import type { ShadowGate } from './shadow-gate.js';
import type { KeyedRegistry } from './registries.js';

// What `createKernel` (kernel.ts) is given and gives back.

export interface KernelOptions {
  cwd: string;
  /** `-c/--config`. */
  configPath?: string;
  globalDir?: string;
  /** Packages discovered through oclif's plugin list. */
  plugins?: readonly PluginSource[];
  /** Plugins given as values (tests, embedding). */
  inlinePlugins?: readonly LoadablePlugin[];
  /**
   * false: serve config entries as written, without asking providers to expand them (no upstream
   * MCP server is started). For commands that manage the project rather than call tools, such as
   * setting a secret, which must work before the secrets an upstream server needs exist.
   */
  expandTools?: boolean;
  /** Use this log instead of the project's LMDB file (tests, dry runs). */
  log?: EventLog;
  /**
   * Tools described in text instead of the project's config files (`wrap`). The project, when there
   * is one, still holds the event log; without one the global config dir does.
   */
  inlineConfig?: InlineConfig;
  /**
   * Where the normalised config may be cached between processes (the CLI's cache dir), keyed by the
   * config files' digests and the plugins (`plugins`) that validated it. Without it, every boot parses the files.
   */
  cacheDir?: string;
  /** The one tool this process will call (`factorly call`): with the caches, only the plugins that call needs are loaded. */
  need?: { tool: string };
  /** Tokens the host running the kernel provides to plugins (`[token, value]`, ids `host.<name>`), as plugins provide theirs. */
  hostTokens?: readonly (readonly [symbol, unknown])[];
}

export interface Kernel {
  readonly paths: ProjectPaths;
  readonly config: LoadedConfig;
  readonly registry: ToolRegistry;
  readonly pipeline: CallPipeline;
  readonly plugins: PluginReport;
  readonly bus: EventBus;
  /** Tool providers by type (read them; plugins register them). */
  readonly providers: KeyedRegistry<ToolProvider>;
  /** Installed secret backends by name, as plugins registered them. */
  readonly backends: KeyedRegistry<SecretBackend>;
  /** Ways in (`mcp`, `ui`) by name, as plugins registered them. */
  readonly interfaces: KeyedRegistry<FactorlyInterface>;
  /** The shadow rules' gate (its live rule state is compared with replays in tests). */
  readonly shadow: ShadowGate;
  /** Signs checkpoints of the log's Merkle tree (every N events, on a timer while serving, at stop). */
  readonly checkpoints: Checkpointer;
  /** The event log, opened on first use. */
  log(): EventLog;
  /**
   * A bare log (no writer record, bus or projections) as `settings` describe it: to move events
   * between logs, or to read and verify one without writing to it (see `BareLogUse`).
   */
  openLog(settings: LoadedConfig['log'], use?: BareLogUse): EventLog;
  /** Opens the log and closes what writers that have ended left open (their calls: interrupted). */
  recover(): Promise<void>;
  /** Every plugin, loaded or failed, with what it contributes, provides and declares (`plugins inspect`). */
  inventory(): PluginInventory[];
  /** The value a plugin (or the host) provided under `token` (`registrar.provide`), if one did. */
  provided<T>(token: Token<T>): T | undefined;
  /** Re-reads the config files; true when they changed and the new catalogue is in place. */
  reload(): Promise<boolean>;
  /**
   * Hands every plugin whose block differs in `settings` its value there, as a reload does, leaving
   * the catalogue as it is: `logs replay --check` decides again under a recorded configuration.
   */
  reconfigurePlugins(settings: Record<string, unknown>): Promise<void>;
  /**
   * Validates the config as it would load with some files' text replaced (an edit not yet written),
   * without touching the files or the catalogue; throws the `CONFIG_INVALID` error `reload` would.
   */
  checkConfig(texts: ConfigTexts): Promise<void>;
  /**
   * Does now what a long-running process's first call would otherwise do: records the boot and
   * folds the log's persisted projections (from their snapshots), so that call costs what later ones do.
   */
  warm(): Promise<void>;
  stop(): Promise<string[]>;
}
