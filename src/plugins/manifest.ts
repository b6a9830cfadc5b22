import { FactorlyError } from '../base/errors.js';
import { PLUGIN_API_VERSION } from './define-plugin.js';

/** The `"factorly"` key of a plugin's package.json, checked before any of its code runs. */
export interface PluginManifest {
  /** Module (relative to the package root) whose default or `plugin` export is the definition. */
  plugin: string;
  apiVersion: string;
}

/** A package that may carry a plugin, as oclif (or a test) reports it. */
export interface PluginSource {
  /** npm package name. */
  name: string;
  version: string;
  root: string;
  kind: 'core' | 'user' | 'link' | 'builtin';
  /** Raw `factorly` key of package.json (undefined: not a factorly plugin). */
  manifest?: unknown;
}

/** Validates the manifest; throws PLUGIN_INVALID or PLUGIN_API_MISMATCH with a message naming the package. */
export function checkManifest(source: PluginSource): PluginManifest {
  const raw = source.manifest as Partial<PluginManifest> | null | undefined;
  const where = `plugin package "${source.name}" (${source.root})`;
  if (typeof raw !== 'object' || raw === null || typeof raw.plugin !== 'string' || raw.plugin === '') {
    throw new FactorlyError('PLUGIN_INVALID', `${where}: package.json "factorly.plugin" must name the plugin module`);
  }
  checkApiVersion(String(raw.apiVersion ?? ''), where);
  return { plugin: raw.plugin, apiVersion: String(raw.apiVersion) };
}

/** Accepts "1", "1.x", "^1", "~1.2", "1.0.0": the same major as this factorly's plugin API. */
export function checkApiVersion(declared: string, where: string, consequence = 'it was not loaded'): void {
  const major = /^[\^~]?(\d+)(?:\.[\dx*]+)*$/.exec(declared.trim())?.[1];
  if (major === undefined) {
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where}: apiVersion ${JSON.stringify(declared)} is not a version (expected "${PLUGIN_API_VERSION}")`,
    );
  }
  if (major !== PLUGIN_API_VERSION) {
    throw new FactorlyError(
      'PLUGIN_API_MISMATCH',
      `${where} targets plugin API ${major}, but this factorly provides plugin API ${PLUGIN_API_VERSION}; ${consequence}`,
    );
  }
}
