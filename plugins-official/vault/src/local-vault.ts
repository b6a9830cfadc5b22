import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ProjectPaths, SecretBackend, SecretBackendAccess } from 'factorly';
import { FactorlyError } from '@factorly/error-kit';
import { unlockTier, type TierPaths } from './unlock.js';
import type { VaultFile } from './vault-file.js';

type Tier = TierPaths['tier'];

/** Key names: what `{{vault:KEY}}` can carry, without spaces, braces or pipes. */
const KEY_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.\/-]{0,127}$/;

/**
 * The `vault` backend: the project vault (`.factorly/vault.enc`) and the global one
 * (`~/.config/factorly/vault.enc`). Reads fall back project → global and open a tier only when its
 * file exists, so a project without a vault never asks for a password. Writes go to one tier.
 */
export class LocalVault implements SecretBackend {
  readonly name = 'vault';
  readonly readOnly = false;
  /** Read ahead for a script's call tree: after the one unlock per process, a read is a lookup in memory. */
  readonly prefetch = true;
  private readonly tiers: TierPaths[];
  private readonly unlocked = new Map<Tier, Promise<VaultFile>>();

  constructor(paths: ProjectPaths) {
    const global = tierPaths('global', paths.globalDir, (path) => path);
    const project = tierPaths('project', paths.stateDir, (path) => relative(paths.baseDir, path) || path);
    this.tiers = paths.global ? [global] : [project, global];
  }

  async resolve(key: string): Promise<string | undefined> {
    for (const tier of this.tiers) {
      if (!existsSync(tier.file)) continue;
      const value = (await this.open(tier)).get(key);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  async read(key: string, access: SecretBackendAccess = {}): Promise<{ tier: string; value?: string }> {
    checkKey(key);
    const tiers = access.tier ? [this.tier(access.tier)] : this.tiers;
    for (const tier of tiers) {
      if (!existsSync(tier.file)) continue;
      const value = (await this.open(tier)).get(key);
      if (value !== undefined) return { tier: tier.tier, value };
    }
    return { tier: tiers[0].tier };
  }

  async list(access: SecretBackendAccess = {}): Promise<{ tier: string; keys: string[] }> {
    const tier = this.tier(access.tier);
    if (!existsSync(tier.file)) return { tier: tier.tier, keys: [] };
    return { tier: tier.tier, keys: (await this.open(tier)).names() };
  }

  async write(key: string, value: string, access: SecretBackendAccess = {}): Promise<{ tier: string }> {
    checkKey(key);
    const tier = this.tier(access.tier);
    await (await this.open(tier)).set(key, value);
    return { tier: tier.tier };
  }

  async remove(key: string, access: SecretBackendAccess = {}): Promise<{ tier: string; existed: boolean }> {
    checkKey(key);
    const tier = this.tier(access.tier);
    if (!existsSync(tier.file)) return { tier: tier.tier, existed: false };
    return { tier: tier.tier, existed: await (await this.open(tier)).delete(key) };
  }

  /** The tier a write goes to: the one asked for, else the first (project, or global when there is no project). */
  private tier(wanted: Tier | undefined): TierPaths {
    return (wanted && this.tiers.find((t) => t.tier === wanted)) || this.tiers[0];
  }

  /** One unlock per tier and process, shared by concurrent resolutions; re-read when another process wrote. */
  private async open(tier: TierPaths): Promise<VaultFile> {
    let pending = this.unlocked.get(tier.tier);
    if (!pending) {
      pending = unlockTier(tier);
      this.unlocked.set(tier.tier, pending);
      pending.catch(() => this.unlocked.delete(tier.tier));
    }
    const file = await pending;
    await file.refresh();
    return file;
  }
}

function tierPaths(tier: Tier, dir: string, show: (path: string) => string): TierPaths {
  const file = join(dir, 'vault.enc');
  const keyFile = join(dir, 'vault.key');
  return { tier, file, keyFile, shown: show(file), shownKeyFile: show(keyFile) };
}

function checkKey(key: string): void {
  if (!KEY_NAME.test(key)) {
    throw new FactorlyError(
      'USAGE',
      `invalid vault key ${JSON.stringify(key)}: use letters, digits, "_", ".", "-" or "/" (at most 128, not starting with a symbol other than "_")`,
    );
  }
}
