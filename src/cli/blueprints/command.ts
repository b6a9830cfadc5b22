import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Flags } from '@oclif/core';
import { FactorlyError } from '../../base/errors.js';
import { findConfig } from '../../config/paths.js';
import { installBlueprint, refusals } from './install.js';
import type { BlueprintInstallResult, BlueprintPlan } from '../../editing/contracts.js';
import type { Kernel } from '../../kernel/kernel.js';
import { FactorlyCommand } from '../base-command.js';
import { installedLines, planLines } from './output.js';
import { readHiddenLine } from '../hidden-input.js';

export interface InstallFlags {
  'dry-run'?: boolean;
  'no-prompt'?: boolean;
  json?: boolean;
}

/**
 * Shared by `blueprint install` and `tools import openapi`: the project to write into (a folder with
 * no config gets a `.factorly/` of its own), and the install itself — the plan shown, then the vault
 * keys asked for with echo off (or listed), then the file written.
 */
export abstract class BlueprintCommand extends FactorlyCommand {
  static installFlags = {
    'dry-run': Flags.boolean({ description: 'Show what would be installed and where it talks to; write nothing.' }),
    'no-prompt': Flags.boolean({ description: 'Ask for no vault key; list the missing ones instead.' }),
    json: Flags.boolean({ description: 'Print the result as one JSON object.' }),
  };

  /** Set when this command made `.factorly/` for a folder with no config: removed again when nothing is installed. */
  private madeStateDir?: string;

  /** The project's kernel, without starting upstream servers; a folder with no config becomes a project. */
  protected async projectKernel(configPath: string | undefined): Promise<Kernel> {
    if (!configPath) {
      try {
        findConfig({ cwd: process.cwd() });
      } catch (error) {
        if (!FactorlyError.isInstance(error) || error.code !== 'CONFIG_NOT_FOUND') throw error;
        this.madeStateDir = join(process.cwd(), '.factorly');
        mkdirSync(this.madeStateDir);
      }
    }
    return this.kernel(configPath, { expandTools: false });
  }

  /** Shows the plan, then (unless a dry run) asks for the missing keys and installs; throws when it is refused. */
  protected async install(
    kernel: Kernel,
    plan: BlueprintPlan,
    flags: InstallFlags,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    if (!flags.json) process.stdout.write(`${planLines(plan).join('\n')}\n`);
    const refused = refusals(plan);
    if (refused.length > 0) {
      // Listed in full above (or only here, with --json).
      const shown = flags.json ? refused : refused.slice(0, 3);
      const more = refused.length > shown.length ? `; and ${refused.length - shown.length} more` : '';
      throw new FactorlyError('BLUEPRINT_REFUSED', `cannot install ${plan.name}: ${shown.join('; ')}${more}`);
    }
    if (flags['dry-run']) {
      if (flags.json) this.writeJson({ ...jsonOf(plan), ...extra, dryRun: true });
      else process.stdout.write('  Dry run — no changes written.\n');
      return;
    }
    const keys = flags['no-prompt'] || flags.json ? {} : await askKeys(plan);
    // From here on the project keeps what is written (the vault, the file), whatever follows.
    this.madeStateDir = undefined;
    const result = await installBlueprint(kernel, plan, keys);
    if (flags.json) this.writeJson({ ...resultJson(result), ...extra });
    else process.stdout.write(`${installedLines(result).join('\n')}\n`);
  }

  /** Once the kernel has stopped: the `.factorly/` this command made is removed when nothing was installed. */
  async finally(error: Error | undefined): Promise<void> {
    await super.finally(error);
    if (this.madeStateDir) rmSync(this.madeStateDir, { recursive: true, force: true });
  }
}

/** Each vault key the vault lacks, asked for with echo off on a terminal (empty: skip); none without one. */
async function askKeys(plan: BlueprintPlan): Promise<Record<string, string>> {
  const missing = plan.vaultKeyStates.filter((state) => !state.present);
  if (missing.length === 0 || !process.stdin.isTTY) return {};
  process.stderr.write('  Enter the vault keys (input hidden; empty skips one):\n');
  const keys: Record<string, string> = {};
  for (const { key } of missing) keys[key] = await readHiddenLine(`  ${key}: `);
  return keys;
}

function jsonOf(plan: BlueprintPlan) {
  const { yaml: _yaml, ...rest } = plan;
  return rest;
}

function resultJson(result: BlueprintInstallResult) {
  return { ...jsonOf(result.plan), installed: true, stored: result.stored, missingKeys: result.missingKeys };
}
