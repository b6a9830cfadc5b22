import { createHash } from 'node:crypto';
import type { JsonValue } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import type { PluginReport } from '../plugins/host.js';
import type { LoadedConfig } from './config/load.js';
import type { ToolDefinition } from './contracts/tool.js';
import { effectiveConfig } from './effective-config.js';

/** What a boot record needs besides the config: the tools as served, the secrets resolved at boot. */
export interface BootSources {
  tools: () => readonly ToolDefinition[];
  secrets: () => ReadonlyMap<string, string>;
  /** A config reloaded by a running process: recorded even when another process recorded it last. */
  reload?: boolean;
}

/**
 * Records what this process booted with (`config.loaded`, `plugin.loaded`, `plugin.failed`) before
 * its first other event, and the effective configuration itself (`config.recorded`) once per
 * digest, so running `factorly call` a thousand times does not write a thousand identical records.
 */
export class BootRecord {
  private done?: Promise<void>;
  private effective?: { sha: string; config: JsonValue };
  readonly sha: string;

  constructor(
    private readonly config: LoadedConfig,
    private readonly plugins: PluginReport,
    private readonly sources: BootSources,
  ) {
    const digest = createHash('sha256').update(config.sha);
    for (const p of plugins.loaded) digest.update(`\0loaded:${p.id}@${p.version}:${p.root}`);
    for (const p of plugins.failed) digest.update(`\0failed:${p.id}:${p.root}:${p.reason}`);
    this.sha = digest.digest('hex');
  }

  /** The digest of the effective configuration (the registry must be filled by then). */
  get configSha(): string {
    this.effective ??= effectiveConfig(this.config, this.sources.tools(), this.plugins, this.sources.secrets());
    return this.effective.sha;
  }

  ensure(log: EventLog): Promise<void> {
    this.done ??= this.write(log);
    return this.done;
  }

  private async write(log: EventLog): Promise<void> {
    const configSha = this.configSha;
    const last = await log.lastOf('config.loaded');
    const sameBoot = last?.data.bootSha === this.sha;
    if (sameBoot && last?.data.configSha === configSha && !this.sources.reload) return;
    const events: NewEvent[] = [
      { id: `config-${configSha}`, type: 'config.recorded', data: { sha: configSha, config: this.effective!.config } },
      { type: 'config.loaded', data: { bootSha: this.sha, files: this.config.files, tools: this.config.tools.length, configSha } },
    ];
    if (!sameBoot) {
      events.push(...this.plugins.loaded.map((data): NewEvent => ({ type: 'plugin.loaded', data })));
      events.push(...this.plugins.failed.map((data): NewEvent => ({ type: 'plugin.failed', data })));
    }
    await log.append(events);
  }
}
