import { createHash } from 'node:crypto';
import type { NewEvent } from '../events/envelope.js';
import type { EventLog } from '../events/log.js';
import type { PluginReport } from '../plugins/host.js';
import type { LoadedConfig } from './config/load.js';

/**
 * Records what this process booted with (`config.loaded`, `plugin.loaded`, `plugin.failed`), once,
 * before its first other event, and only when it differs from the last boot recorded, so running
 * `factorly call` a thousand times does not write a thousand identical boot records.
 */
export class BootRecord {
  private done?: Promise<void>;
  readonly sha: string;

  constructor(
    private readonly config: LoadedConfig,
    private readonly plugins: PluginReport,
  ) {
    const digest = createHash('sha256').update(config.sha);
    for (const p of plugins.loaded) digest.update(`\0loaded:${p.id}@${p.version}:${p.root}`);
    for (const p of plugins.failed) digest.update(`\0failed:${p.id}:${p.root}:${p.reason}`);
    this.sha = digest.digest('hex');
  }

  ensure(log: EventLog): Promise<void> {
    this.done ??= this.write(log);
    return this.done;
  }

  private async write(log: EventLog): Promise<void> {
    const last = await log.lastOf('config.loaded');
    if (last?.data.bootSha === this.sha) return;
    const events: NewEvent[] = [
      { type: 'config.loaded', data: { bootSha: this.sha, files: this.config.files, tools: this.config.tools.length } },
      ...this.plugins.loaded.map((data): NewEvent => ({ type: 'plugin.loaded', data })),
      ...this.plugins.failed.map((data): NewEvent => ({ type: 'plugin.failed', data })),
    ];
    await log.append(events);
  }
}
