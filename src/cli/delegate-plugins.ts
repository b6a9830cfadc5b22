import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '@oclif/core';
import { checkInstallable, readPluginPackage } from './plugin-package.js';

/**
 * Checks each local plugin package (a directory or an `npm pack` tarball) against this factorly
 * before anything of it is installed or run, and returns the arguments rewritten for oclif's
 * plugin manager (a local path becomes `file:<absolute path>`, the form it installs from).
 */
export function checkedLocalArgs(argv: readonly string[], config: Config, asUrl: boolean): string[] {
  return argv.map((arg) => {
    if (arg.startsWith('-') || !existsSync(arg)) return arg;
    checkInstallable(readPluginPackage(arg), config.version, asUrl ? 'not installed' : 'not linked');
    return asUrl ? `file:${resolve(arg)}` : arg;
  });
}

/** Runs oclif's own `plugins <verb>` command (this CLI's command of the same name wraps it). */
export async function runOclifPluginsCommand(config: Config, id: string, argv: string[]): Promise<void> {
  const manager = config.plugins.get('@oclif/plugin-plugins');
  if (!manager) throw new Error('the plugin manager (@oclif/plugin-plugins) is not installed');
  const command = await manager.findCommand(id, { must: true });
  await command.run(argv, config);
}
