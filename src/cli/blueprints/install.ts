import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FactorlyError, messageOf } from '../../base/errors.js';
import { didYouMean } from '../../base/suggest.js';
import { writeAtomically } from '../../base/write-atomic.js';
import { readBlueprint } from './format.js';
import { blueprintsDir } from '../../config/files.js';
import type { Kernel } from '../../kernel/kernel.js';
import { knownSettings, vaultKeyStates } from './plan.js';
import { bundledNames, bundledText } from './sources.js';
import { summarize } from './summary.js';
import { readRecord } from './text.js';
import type {
  BlueprintInstallResult,
  BlueprintPlan,
  BlueprintSummary,
  BlueprintVaultKey,
} from '../../editing/contracts.js';

/** Why a plan cannot be installed, one line each; empty when it can. */
export function refusals(plan: BlueprintPlan): string[] {
  return [
    ...(plan.alreadyInstalled
      ? [`Already installed — uninstall first with 'factorly blueprint uninstall ${plan.name}'.`]
      : []),
    ...plan.conflicts.map((conflict) => `conflict: ${conflict}`),
    ...plan.missing.map((missing) => `missing requirement: ${missing}`),
    ...plan.problems,
  ];
}

/**
 * Installs a plan (`planBlueprint`): stores the vault keys given (`keys`, names the blueprint
 * declares), writes `.factorly/blueprints/<name>.yaml` and records `blueprint.installed`. A plan with
 * refusals throws `BLUEPRINT_REFUSED` naming each, and writes nothing. The caller reloads the
 * catalogue (a running `serve` notices the file by itself).
 */
export async function installBlueprint(
  kernel: Kernel,
  plan: BlueprintPlan,
  keys: Readonly<Record<string, string>> = {},
): Promise<BlueprintInstallResult> {
  const refused = refusals(plan);
  if (refused.length > 0)
    throw new FactorlyError('BLUEPRINT_REFUSED', `cannot install ${plan.name}:\n  ${refused.join('\n  ')}`, {
      data: { refusals: refused },
    });
  const unknown = Object.keys(keys).filter((key) => !plan.vaultKeys.includes(key));
  if (unknown.length > 0)
    throw new FactorlyError(
      'USAGE',
      `blueprint "${plan.name}" uses no vault key ${unknown.map((k) => `"${k}"`).join(', ')}`,
    );
  const stored = await storeKeys(kernel, keys);
  const path = join(kernel.paths.baseDir, plan.file);
  mkdirSync(blueprintsDir(kernel.paths), { recursive: true });
  if (existsSync(path))
    throw new FactorlyError('BLUEPRINT_REFUSED', `cannot install ${plan.name}: ${plan.file} appeared meanwhile`);
  writeAtomically(path, plan.yaml, 0o644);
  await kernel.log().append([
    {
      type: 'blueprint.installed',
      data: {
        name: plan.name,
        ...(plan.version === undefined ? {} : { version: plan.version }),
        source: plan.source,
        file: plan.file,
        sha: createHash('sha256').update(plan.yaml).digest('hex'),
        tools: plan.tools.map((tool) => tool.name),
        oauthProviders: plan.oauthProviders,
        hosts: plan.hosts.map((host) => host.host),
        set: plan.set,
        vaultKeys: plan.vaultKeys,
        stored,
      },
    },
  ]);
  const missingKeys = plan.vaultKeyStates.filter((state) => !state.present && !stored.includes(state.key));
  return { plan, stored, missingKeys: missingKeys.map((state) => state.key) };
}

async function storeKeys(kernel: Kernel, keys: Readonly<Record<string, string>>): Promise<string[]> {
  const entries = Object.entries(keys).filter(([, value]) => value !== '');
  if (entries.length === 0) return [];
  const vault = kernel.backends.get('vault');
  if (!vault?.write) throw new FactorlyError('VAULT_UNSUPPORTED', 'no writable vault is installed to keep the keys in');
  const stored: string[] = [];
  for (const [key, value] of entries) {
    const { tier } = await vault.write(key, value);
    await kernel.log().append([{ type: 'vault.accessed', data: { op: 'set', key, tier } }]);
    stored.push(key);
  }
  return stored;
}

/** Removes an installed blueprint's file and records it; its vault keys stay (other tools may use them). */
export async function uninstallBlueprint(kernel: Kernel, name: string): Promise<BlueprintSummary> {
  const summary = installedBlueprints(kernel).find((blueprint) => blueprint.name === name);
  if (!summary?.file) {
    const names = installedBlueprints(kernel).map((blueprint) => blueprint.name);
    throw new FactorlyError(
      'BLUEPRINT_NOT_FOUND',
      `no installed blueprint "${name}"${didYouMean(name, names)}${names.length === 0 ? ' (none is installed)' : ''}`,
    );
  }
  rmSync(join(kernel.paths.baseDir, summary.file));
  await kernel
    .log()
    .append([
      { type: 'blueprint.uninstalled', data: { name, file: summary.file, tools: summary.tools.map((t) => t.name) } },
    ]);
  return summary;
}

/** The installed blueprints, by name: each file of `.factorly/blueprints/`. */
export function installedBlueprints(kernel: Kernel): BlueprintSummary[] {
  const dir = blueprintsDir(kernel.paths);
  if (!existsSync(dir)) return [];
  const known = knownSettings(kernel);
  return readdirSync(dir)
    .filter((entry) => /\.ya?ml$/.test(entry))
    .sort()
    .map((entry) => {
      const path = join(dir, entry);
      const file = relative(kernel.paths.baseDir, path) || path;
      const text = readFileSync(path, 'utf8');
      const record = readRecord(text);
      try {
        return summarize(readBlueprint(text, file, known), { installed: true, file, ...record });
      } catch (error) {
        const name = entry.replace(/\.ya?ml$/, '');
        return { ...emptySummary(name), installed: true, file, ...record, problem: messageOf(error) };
      }
    });
}

/** The blueprints factorly ships, each marked installed when a blueprint of its name is. */
export function bundledBlueprints(kernel: Kernel): BlueprintSummary[] {
  const installed = new Set(installedBlueprints(kernel).map((blueprint) => blueprint.name));
  const known = knownSettings(kernel);
  return bundledNames().map((name) => {
    const { text, shown } = bundledText(name);
    return summarize(readBlueprint(text, shown, known), { installed: installed.has(name), source: `bundled:${name}` });
  });
}

/** One blueprint, installed first, else bundled, with which of its vault keys the vault holds. */
export async function describeBlueprint(
  kernel: Kernel,
  name: string,
): Promise<BlueprintSummary & { vaultKeyStates: BlueprintVaultKey[] }> {
  const found =
    installedBlueprints(kernel).find((blueprint) => blueprint.name === name) ??
    (bundledNames().includes(name)
      ? bundledBlueprints(kernel).find((blueprint) => blueprint.name === name)
      : undefined);
  if (!found) {
    const names = [...new Set([...installedBlueprints(kernel).map((b) => b.name), ...bundledNames()])];
    throw new FactorlyError(
      'BLUEPRINT_NOT_FOUND',
      `no installed or bundled blueprint "${name}"${didYouMean(name, names)}`,
    );
  }
  return { ...found, vaultKeyStates: await vaultKeyStates(kernel, found.vaultKeys) };
}

function emptySummary(name: string): BlueprintSummary {
  return { name, tools: [], oauthProviders: [], vaultKeys: [], hosts: [], installed: true };
}
