import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '@oclif/core';
import { FactorlyError, messageOf } from '../base/errors.js';
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
  if (!manager)
    throw new FactorlyError('PLUGIN_DEPENDENCY', 'the plugin manager (@oclif/plugin-plugins) is not installed');
  const command = await manager.findCommand(id, { must: true });
  await command.run(argv, config);
}

/**
 * Installs through oclif, then checks every package the install added or changed that could not be
 * read beforehand (a registry name, a URL): one built for another plugin API, or for other factorly
 * versions, is uninstalled again and refused, naming both versions. (npm has run its install
 * scripts by then; a local package is checked before that, by `checkedLocalArgs`.)
 */
export async function installChecked(config: Config, argv: string[]): Promise<void> {
  const before = installedVersions(config);
  await runOclifPluginsCommand(config, 'plugins:install', argv);
  const added = Object.entries(installedVersions(config))
    .filter(([name, spec]) => before[name] !== spec)
    .map(([name]) => name);
  for (const name of added) {
    try {
      checkInstallable(
        readPluginPackage(join(config.dataDir, 'node_modules', name)),
        config.version,
        'uninstalled again',
      );
    } catch (error) {
      await runOclifPluginsCommand(config, 'plugins:uninstall', [name]).catch((cause: unknown) => {
        throw new FactorlyError(
          'PLUGIN_API_MISMATCH',
          `${messageOf(error)}, but removing it failed: ${messageOf(cause)}`,
        );
      });
      throw error;
    }
  }
}

/** The user plugins' package specs, from the package.json oclif keeps in its data dir. */
function installedVersions(config: Config): Record<string, string> {
  try {
    return (
      (
        JSON.parse(readFileSync(join(config.dataDir, 'package.json'), 'utf8')) as {
          dependencies?: Record<string, string>;
        }
      ).dependencies ?? {}
    );
  } catch {
    return {};
  }
}
