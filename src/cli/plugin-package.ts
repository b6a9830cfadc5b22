import { createRequire } from 'node:module';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { FactorlyError, messageOf } from '../base/errors.js';
import { checkApiVersion } from '../plugins/manifest.js';

/** The parts of a plugin package's package.json that decide whether this factorly can run it. */
export interface PluginPackage {
  name: string;
  version: string;
  factorly?: { apiVersion?: unknown };
  engines?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

interface Semver {
  satisfies(version: string, range: string, options?: { includePrerelease?: boolean }): boolean;
  validRange(range: string): string | null;
}

// semver ships no types of its own; these are the two functions used.
const semver = createRequire(import.meta.url)('semver') as Semver;

/** A package directory's or an `npm pack` tarball's package.json, read without running anything. */
export function readPluginPackage(path: string): PluginPackage {
  try {
    const text = statSync(path).isDirectory()
      ? readFileSync(join(path, 'package.json'), 'utf8')
      : packageJsonOfTarball(readFileSync(path));
    return JSON.parse(text) as PluginPackage;
  } catch (error) {
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${path} is not a plugin package (a directory or an npm pack tarball with a package.json): ${messageOf(error)}`,
    );
  }
}

/**
 * Refuses a package that is no factorly plugin (no `factorly` key), one built for another plugin
 * API, one whose `engines.factorly` range excludes this factorly (naming both sides), and one that
 * would make npm fetch a `factorly` package (the registry's `factorly` is not this one).
 */
export function checkInstallable(pkg: PluginPackage, factorlyVersion: string, consequence = 'not installed'): void {
  const where = `plugin package "${pkg.name}@${pkg.version}"`;
  if (typeof pkg.factorly !== 'object' || pkg.factorly === null)
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where} has no "factorly" key in its package.json, so it is no factorly plugin; ${consequence}`,
    );
  checkApiVersion(String(pkg.factorly.apiVersion ?? ''), where, consequence);
  for (const field of ['dependencies', 'optionalDependencies'] as const) {
    if (pkg[field]?.factorly === undefined) continue;
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where} lists "factorly" in ${field}, which npm would fetch from the registry (whose "factorly" is another package); make it a peer or dev dependency (the running factorly serves it); ${consequence}`,
    );
  }
  const range = pkg.engines?.factorly;
  if (range === undefined) return;
  if (semver.validRange(range) === null)
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where}: engines.factorly ${JSON.stringify(range)} is not a version range; ${consequence}`,
    );
  if (!semver.satisfies(factorlyVersion, range, { includePrerelease: true })) {
    throw new FactorlyError(
      'PLUGIN_API_MISMATCH',
      `${where} requires factorly ${range}, but this is factorly ${factorlyVersion}; ${consequence}`,
    );
  }
}

/** The text of `package/package.json` inside a gzipped tar (the layout `npm pack` writes). */
function packageJsonOfTarball(gzipped: Buffer): string {
  const tar = gunzipSync(gzipped);
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((byte) => byte === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const size = Number.parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    const body = at + 512;
    if (/^[^/]+\/package\.json$/.test(name)) return tar.subarray(body, body + size).toString('utf8');
    at = body + Math.ceil(size / 512) * 512;
  }
  throw new FactorlyError('PLUGIN_INVALID', 'no package.json at the top of the tarball');
}
