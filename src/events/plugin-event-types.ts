import { FactorlyError } from '../base/errors.js';
import { EVENT_VERSIONS } from './catalog.js';
import { addUpcasters, type Upcaster } from './upcast.js';

/** An event type a plugin added to the catalogue: `<plugin-id>.<name>` at its current version. */
export interface PluginEventType {
  type: string;
  version: number;
  owner: string;
}

const NAME = /^[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*$/;
const registered = new Map<string, PluginEventType>();

/**
 * Adds `<owner>.<name>` to the catalogue at `version`, with an upcaster from each older version to
 * the next (`upcasters[1]` turns v1 data into v2 data). The catalogue is the installed code's, so it
 * is one per process: the same registration again is accepted, a different one refused.
 */
export function registerEventType(
  owner: string,
  name: string,
  version: number,
  upcasters: Readonly<Record<number, Upcaster>> = {},
): string {
  const type = `${owner}.${name}`;
  const where = `plugin "${owner}" registers event type "${type}"`;
  if (!NAME.test(name))
    throw new FactorlyError('PLUGIN_INVALID', `${where}: a name is lower-case words joined by dots`);
  if (!Number.isInteger(version) || version < 1)
    throw new FactorlyError(
      'PLUGIN_INVALID',
      `${where}: version must be an integer from 1, not ${JSON.stringify(version)}`,
    );
  if (Object.hasOwn(EVENT_VERSIONS, type))
    throw new FactorlyError('PLUGIN_INVALID', `${where}: that is one of factorly's own event types`);
  for (let from = 1; from < version; from += 1) {
    if (typeof upcasters[from] !== 'function')
      throw new FactorlyError(
        'PLUGIN_INVALID',
        `${where} at version ${version}: upcasters[${from}] (v${from} → v${from + 1}) is missing`,
      );
  }
  const existing = registered.get(type);
  if (existing) {
    if (existing.version === version && existing.owner === owner) return type;
    throw new FactorlyError(
      'EXTENSION_CONFLICT',
      `${where} at version ${version}, but it is registered at version ${existing.version}`,
    );
  }
  registered.set(type, { type, version, owner });
  addUpcasters(Object.fromEntries(Object.entries(upcasters).map(([from, step]) => [`${type}@${from}`, step])));
  return type;
}

/** The version an event of `type` is written at; a type neither factorly nor a plugin declared is refused (nothing unversioned is written). */
export function eventVersion(type: string): number {
  const version = (EVENT_VERSIONS as Record<string, number>)[type] ?? registered.get(type)?.version;
  if (version === undefined)
    throw new FactorlyError(
      'EVENT_UNKNOWN',
      `event type "${type}" is not in the catalogue: factorly's types, or <plugin-id>.<name> registered with registrar.eventType`,
    );
  return version;
}

/** The event types plugins registered. */
export function pluginEventTypes(): PluginEventType[] {
  return [...registered.values()];
}
