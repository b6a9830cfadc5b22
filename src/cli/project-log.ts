import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { EventLog } from '../events/log.js';
import { FactorlyError, messageOf } from '../base/errors.js';
import type { ProjectPaths } from '../config/paths.js';
import type { PluginSource } from '../plugins/manifest.js';

/** The plugin packages a log engine may come from: the running command's (see `usePluginSources`). */
let pluginSources: () => PluginSource[] = () => [];

/** Called by each command: the packages oclif found, for a log another engine than LMDB keeps. */
export function usePluginSources(sources: () => PluginSource[]): void {
  pluginSources = sources;
}

/** The project's paths, found without loading (or validating) its tool config. */
export async function projectLogPaths(configPath: string | undefined): Promise<ProjectPaths> {
  const { findConfig } = await import('../config/paths.js');
  return findConfig({ cwd: process.cwd(), explicit: configPath });
}

/**
 * Opens the project's event log for reading, without needing a valid tool config (a broken YAML
 * file must not stop anyone from reading or verifying the evidence). Undefined when nothing was
 * recorded yet. A log this process may not write (permissions, a read-only mount, a copy handed to
 * an auditor) is opened read-only; one it may write first gets the calls of writers that have
 * ended marked interrupted, so what is shown is what is known.
 */
export async function openExistingLog(configPath: string | undefined): Promise<EventLog | undefined> {
  const paths = await projectLogPaths(configPath);
  if ((await projectLogEngine(paths)) !== 'lmdb') return openEngineLog(configPath);
  if (!existsSync(paths.logPath)) return undefined;
  const { log, writable } = await openLogFileAt(paths.logPath);
  if (writable) {
    const { recoverInterrupted } = await import('../events/recovery.js');
    // A log that cannot take the marks now (a full disk) is still shown as it is.
    await recoverInterrupted(log).catch(() => undefined);
  }
  return log;
}

/** The project's log for a command that reads what was recorded: LOG_EMPTY when nothing was, yet. */
export async function openRecordedLog(configPath: string | undefined): Promise<EventLog> {
  const log = await openExistingLog(configPath);
  if (!log) throw new FactorlyError('LOG_EMPTY', 'no events recorded yet');
  return log;
}

/**
 * The engine the project's `log:` block names (`lmdb` when it names none), read without validating
 * the rest of the config: a broken file leaves the LMDB log readable, as it always was.
 */
export async function projectLogEngine(paths: ProjectPaths): Promise<string> {
  const engine = (await rawLogBlock(paths))?.engine;
  return typeof engine === 'string' ? engine : 'lmdb';
}

/** The keys the `log:` block trusts (`trusted_keys`), read as `projectLogEngine` reads the engine. */
export async function projectTrustedKeys(paths: ProjectPaths): Promise<string[]> {
  const keys = (await rawLogBlock(paths))?.trusted_keys;
  return (Array.isArray(keys) ? keys : keys === undefined ? [] : [keys]).map(String);
}

async function rawLogBlock(paths: ProjectPaths): Promise<Record<string, unknown> | undefined> {
  try {
    const { parse } = await import('yaml');
    const log = (parse(readFileSync(paths.mainFile, 'utf8')) as { log?: unknown } | null)?.log;
    return log !== null && typeof log === 'object' ? (log as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A log another engine keeps (a shared stream): opened the way the kernel opens it, so its plugin
 * and its settings (and the secrets they refer to) are those of a call. Closing it stops that kernel.
 */
async function openEngineLog(configPath: string | undefined): Promise<EventLog> {
  const { createKernel } = await import('../kernel/kernel.js');
  const { DelegatingEventLog } = await import('../events/delegating-log.js');
  const kernel = await createKernel({ cwd: process.cwd(), configPath, plugins: pluginSources(), expandTools: false });
  const log = kernel.log();
  return new (class extends DelegatingEventLog {
    override async close(): Promise<void> {
      await kernel.stop();
    }
  })(log);
}

export async function openLogAt(path: string): Promise<EventLog> {
  return (await openLogFileAt(path)).log;
}

/** Opens a log file, read-only when it cannot be written here. */
async function openLogFileAt(path: string): Promise<{ log: EventLog; writable: boolean }> {
  const { LmdbEventLog } = await import('../events/lmdb-log.js');
  try {
    return { log: new LmdbEventLog({ path }), writable: true };
  } catch (error) {
    if (!cannotWrite(error)) throw readableLogError(path, error);
  }
  try {
    return { log: new LmdbEventLog({ path, readOnly: true }), writable: false };
  } catch (error) {
    throw readableLogError(path, error);
  }
}

/** LMDB reports errno numbers; Node, codes. Either way: the file is there but not writable here. */
function cannotWrite(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === 13 || code === 30 || code === 1 || code === 'EACCES' || code === 'EROFS' || code === 'EPERM';
}

/** One line naming the log file and why it cannot be read (exit 2), instead of a stack trace. */
export function readableLogError(path: string, error: unknown): FactorlyError {
  if (FactorlyError.isInstance(error)) return error;
  const shown = relative(process.cwd(), path) || path;
  return new FactorlyError('LOG_UNREADABLE', `cannot read the event log ${shown}: ${messageOf(error)}`, {
    cause: error,
  });
}
