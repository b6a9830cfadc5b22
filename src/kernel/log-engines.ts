import { mkdirSync } from 'node:fs';
import { LmdbEventLog } from '../events/lmdb-log.js';
import type { EventLog } from '../events/log.js';
import { ReplicatedEventLog } from '../events/replicated-log.js';
import { FactorlyError, messageOf } from '../base/errors.js';
import { writeWarning } from '../base/printable.js';
import { DEFAULT_LOG_ENGINE, type LogSettings } from '../config/log-settings.js';
import type { ProjectPaths } from '../config/paths.js';
import { checkLogEngine, type LogEngine } from '../contracts/log-engine.js';
import type { Scope } from './container.js';
import { KeyedRegistry } from './registries.js';
import { KernelTokens } from './tokens.js';

/** The log engines plugins provide (`KernelTokens.LogEngines`), bound in the kernel's scope. */
export function bindLogEngines(scope: Scope): KeyedRegistry<LogEngine> {
  const engines = new KeyedRegistry<LogEngine>('log engine');
  scope.registerValue(KernelTokens.LogEngines, engines);
  return engines;
}

/** How a bare log (`Kernel.openLog`) is opened. */
export interface BareLogUse {
  /** The time new events are stamped with (copying a log keeps each event's own). */
  clock?: () => Date;
  /**
   * false: a replicated log keeps no snapshots of its own, so it writes only what it is given: a
   * copy's target (`logs migrate`), a log opened to verify. Default true.
   */
  snapshots?: boolean;
}

export interface ConfiguredLogParts extends BareLogUse {
  paths: ProjectPaths;
  settings: LogSettings;
  engines: KeyedRegistry<LogEngine>;
  secret(template: string): Promise<string>;
}

/** The project's log where the config says it lives: its LMDB file, or the engine a plugin provides. */
export function openConfiguredLog(parts: ConfiguredLogParts): EventLog {
  const { paths, settings } = parts;
  if (settings.engine === DEFAULT_LOG_ENGINE) return openProjectFile(paths, settings, parts.clock);
  checkLogEngine(settings, parts.engines);
  return parts.engines.get(settings.engine)!.open({
    options: settings.engineOptions,
    paths,
    durability: settings.durability,
    secret: parts.secret,
    replicated: (stream, options) =>
      new ReplicatedEventLog(stream, {
        ...options,
        clock: parts.clock ?? options?.clock,
        snapshots: parts.snapshots,
      }),
    warn: writeWarning,
  });
}

/**
 * The project's LMDB log, opened for writing. A file that is not a log at all stays the error it is
 * (`LOG_UNREADABLE`, naming the file); anything else that stops it opening for writing (permissions,
 * a read-only mount) says so, so the call that needed it is refused before its tool runs.
 */
function openProjectFile(paths: ProjectPaths, settings: LogSettings, clock?: () => Date): EventLog {
  try {
    mkdirSync(paths.stateDir, { recursive: true });
    return new LmdbEventLog({ path: paths.logPath, durability: settings.durability, clock });
  } catch (error) {
    if (FactorlyError.isInstance(error)) throw error;
    throw new FactorlyError(
      'LOG_WRITE_FAILED',
      `cannot open the event log ${paths.logPath} for writing: ${messageOf(error)}`,
      { cause: error },
    );
  }
}
