import { createHash } from 'node:crypto';
import type { JsonValue } from '../events/catalog.js';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import type { PluginReport } from '../plugins/host.js';
import type { LoadedConfig } from '../config/load.js';
import type { ToolDefinition } from '../contracts/tool.js';
import { effectiveConfig } from '../config/effective-config.js';

/** The effective configuration of one boot (`bootSha`), with its digest. */
export interface EffectiveRecord {
  bootSha: string;
  sha: string;
  config: JsonValue;
}

/** What a boot record needs besides the config: the tools as served, the secrets resolved at boot. */
export interface BootSources {
  tools: () => readonly ToolDefinition[];
  secrets: () => ReadonlyMap<string, string>;
  /** A config reloaded by a running process: recorded even when another process recorded it last. */
  reload?: boolean;
  /**
   * The effective configuration the full start this one was narrowed from computed (see
   * `BootPlan.effective`): used when it is of the same boot, since a start that loaded only what one
   * call needs does not serve every tool the rules in force know.
   */
  planned?: EffectiveRecord;
}

/**
 * Records what this process booted with (`config.loaded`, `plugin.loaded`, `plugin.failed`) before
 * its first other event, and the effective configuration itself (`config.recorded`) once per
 * digest, only when they differ from the last boot recorded: running `factorly call` a thousand
 * times does not write a thousand identical records. `plugins` is the report the boot is recorded
 * with: a start narrowed to one call records the full boot it came from.
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
    return this.record().sha;
  }

  /** The effective configuration of this boot (for the boot plan a narrowed start reads). */
  record(): EffectiveRecord {
    const planned = this.sources.planned?.bootSha === this.sha ? this.sources.planned : undefined;
    this.effective ??=
      planned ?? effectiveConfig(this.config, this.sources.tools(), this.plugins, this.sources.secrets());
    return { bootSha: this.sha, sha: this.effective.sha, config: this.effective.config };
  }

  ensure(log: EventLog): Promise<void> {
    // Written again by the next call when this write failed (a log that could not be reached).
    this.done ??= this.write(log).catch((error: unknown) => {
      this.done = undefined;
      throw error;
    });
    return this.done;
  }

  private async write(log: EventLog): Promise<void> {
    const { sha: configSha, config } = this.record();
    const last = await log.lastOf('config.loaded');
    const sameBoot = last?.data.bootSha === this.sha;
    if (sameBoot && last?.data.configSha === configSha && !this.sources.reload) return;
    const events: NewEvent[] = [
      { id: `config-${configSha}`, type: 'config.recorded', data: { sha: configSha, config } },
      {
        type: 'config.loaded',
        data: { bootSha: this.sha, files: this.config.files, tools: this.config.tools.length, configSha },
      },
    ];
    if (!sameBoot) {
      events.push(...this.plugins.loaded.map((data): NewEvent => ({ type: 'plugin.loaded', data })));
      events.push(...this.plugins.failed.map((data): NewEvent => ({ type: 'plugin.failed', data })));
    }
    await log.append(events);
  }
}
