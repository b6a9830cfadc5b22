import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '@oclif/core';
import { FactorlyError, messageOf } from '../base/errors.js';
import { fetchPluginPackage } from './plugin-fetch.js';
import { checkInstallable, readPluginPackage } from './plugin-package.js';

/**
 * Checks each plugin package named on the command line against this factorly before anything of
 * it is installed or run, and returns the arguments rewritten for oclif's plugin manager: a local
 * directory or `npm pack` tarball (also as `file:<path>`) is read where it is and becomes
 * `file:<absolute path>`, the form oclif installs from; a registry spec (install only) is fetched
 * by `npm pack` first, read, and pinned to the version read (`name@1.2.3`). Any other URL (git,
 * https) is checked once npm has fetched it (`installChecked`).
 */
export function checkedPluginArgs(argv: readonly string[], config: Config, verb: 'install' | 'link'): string[] {
  const consequence = verb === 'install' ? 'not installed' : 'not linked';
  return argv.map((arg) => {
    if (arg.startsWith('-')) return arg;
    const local = localPath(arg);
    if (local !== undefined) {
      checkInstallable(readPluginPackage(local), config.version, consequence);
      return verb === 'install' ? `file:${resolve(local)}` : arg;
    }
    if (verb === 'link' || !isRegistrySpec(arg)) return arg;
    const pkg = fetchPluginPackage(arg, config);
    checkInstallable(pkg, config.version, consequence);
    return `${pkg.name}@${pkg.version}`;
  });
}

/** The path a local argument names (`./x.tgz`, `../dir`, `file:../dir`), when it exists. */
function localPath(arg: string): string | undefined {
  const path = arg.startsWith('file:') ? arg.slice('file:'.length) : arg;
  return existsSync(path) ? path : undefined;
}

/** `name`, `name@range`, `@scope/name@tag`: what npm looks up in the registry (no URL, no path). */
function isRegistrySpec(arg: string): boolean {
  return /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(@[^\s/:]+)?$/i.test(arg);
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
 * scripts by then; a local package and a registry spec are checked before that, by `checkedPluginArgs`.)
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
