import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Config } from '@oclif/core';
import { FactorlyError } from '../base/errors.js';
import { readPluginPackage, type PluginPackage } from './plugin-package.js';

/**
 * The package.json of a registry spec (`name`, `name@range`, `@scope/name@tag`) as npm would install
 * it, read from its tarball before anything of it runs: `npm pack <spec>` downloads the tarball and
 * runs none of its scripts. npm is the one oclif's plugin manager installs with.
 */
export function fetchPluginPackage(spec: string, config: Config): PluginPackage {
  const into = mkdtempSync(join(tmpdir(), 'factorly-plugin-check-'));
  try {
    const args = ['pack', spec, '--pack-destination', into, '--json', '--ignore-scripts', '--loglevel=error'];
    if (config.npmRegistry) args.push(`--registry=${config.npmRegistry}`);
    let printed: string;
    try {
      printed = execFileSync(process.execPath, [npmCli(config), ...args], {
        cwd: into,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
      const reason =
        stderr
          .split('\n')
          .filter((line) => line.trim() !== '')
          .at(-1) ?? String(error);
      throw new FactorlyError('PLUGIN_INVALID', `could not fetch plugin package "${spec}" to check it: ${reason}`);
    }
    const tarball = readdirSync(into).find((name) => name.endsWith('.tgz'));
    if (tarball === undefined)
      throw new FactorlyError('PLUGIN_INVALID', `npm fetched no tarball for plugin package "${spec}": ${printed}`);
    return readPluginPackage(join(into, tarball));
  } finally {
    rmSync(into, { recursive: true, force: true });
  }
}

/**
 * Has npm ignore peer dependencies in the plugins' data dir (installs, updates and uninstalls run
 * there): a plugin's peer dependency on `factorly` is served by the running factorly, and must
 * never make npm fetch the registry's `factorly`, which is another package.
 */
export function ignorePeerDependencies(config: Config): void {
  // For the npm of `plugins link` too, which runs in the plugin's own directory.
  process.env.npm_config_legacy_peer_deps = 'true';
  const file = join(config.dataDir, '.npmrc');
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    // None yet.
  }
  if (/^legacy-peer-deps\s*=\s*true\s*$/m.test(text)) return;
  mkdirSync(config.dataDir, { recursive: true });
  writeFileSync(file, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}legacy-peer-deps=true\n`);
}

/** The npm CLI oclif's plugin manager runs (its pinned npm), or the one on PATH's. */
function npmCli(config: Config): string {
  const manager = config.plugins.get('@oclif/plugin-plugins');
  const require = createRequire(join(manager?.root ?? config.root, 'package.json'));
  const packageJson = require.resolve('npm/package.json');
  const { bin } = JSON.parse(readFileSync(packageJson, 'utf8')) as { bin: { npm: string } };
  return join(dirname(packageJson), bin.npm);
}
