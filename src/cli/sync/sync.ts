import { homedir } from 'node:os';
import { relative, resolve, sep } from 'node:path';
import { FactorlyError } from '../../base/errors.js';
import { configOf, type ServerEntry } from './entry.js';
import {
  codexHome,
  syncTargets,
  TARGET_NAMES,
  type SyncTarget,
  type TargetContext,
  type TargetName,
} from './targets.js';
import { unifiedDiff } from '@factorly/text-kit';
import { readIfExists, writeWithBackup } from './write-file.js';

export interface SyncRequest extends TargetContext {
  /** The targets asked for; empty means the detected ones. */
  targets: TargetName[];
  /** The server's name in each agent's config. */
  server: string;
  entry: ServerEntry;
  dryRun: boolean;
  /** Paths are shown relative to this directory when inside it. */
  cwd: string;
}

export type SyncStatus = 'created' | 'updated' | 'unchanged';

export interface SyncResult {
  target: TargetName;
  /** The file as shown to the user; `path` is absolute. */
  file: string;
  path: string;
  status: SyncStatus;
  /** Unified diff of the change; empty when unchanged. */
  diff: string;
  /** Absolute path the old contents were copied to before the write (not on a dry run or a new file). */
  backup?: string;
  /** The config an existing entry served before, when it was another project's. */
  replacedConfig?: string;
  written: boolean;
}

/**
 * Plans every target first and writes only when all of them could be planned: a malformed file
 * stops the whole sync before anything changes, so a run never half-applies.
 */
export function runSync(request: SyncRequest): SyncResult[] {
  const targets = chosenTargets(request);
  const plans = targets.map((target) => plan(target, request));
  return plans.map((planned) => apply(planned, request.dryRun));
}

function chosenTargets(request: SyncRequest): SyncTarget[] {
  const all = syncTargets(request);
  if (request.targets.length > 0) return [...new Set(request.targets)].map((name) => all[name]);
  const detected = TARGET_NAMES.map((name) => all[name]).filter((target) => target.detected);
  if (detected.length === 0) {
    throw new FactorlyError(
      'USAGE',
      `no agent config found (looked for .mcp.json, .claude/, .cursor/ and ${shown(codexHome(request.env), request.cwd)}); choose one with --target ${TARGET_NAMES.join('|')}`,
    );
  }
  return detected;
}

interface Plan {
  result: SyncResult;
  text: string;
  mode: number;
}

function plan(target: SyncTarget, request: SyncRequest): Plan {
  const file = shown(target.file, request.cwd);
  const before = readIfExists(target.file);
  const { text, previous } = target.update(before, request.server, request.entry, file);
  const status: SyncStatus = before === undefined ? 'created' : text === before ? 'unchanged' : 'updated';
  const diff = status === 'unchanged' ? '' : unifiedDiff(file, before, text);
  const previousConfig = configOf(previous);
  const replacedConfig =
    previousConfig !== undefined && resolve(previousConfig) !== resolve(configOf(request.entry) ?? '')
      ? previousConfig
      : undefined;
  const mode = target.name === 'codex' ? 0o600 : 0o644;
  return {
    result: {
      target: target.name,
      file,
      path: target.file,
      status,
      diff,
      written: false,
      ...(replacedConfig ? { replacedConfig } : {}),
    },
    text,
    mode,
  };
}

function apply({ result, text, mode }: Plan, dryRun: boolean): SyncResult {
  if (dryRun || result.status === 'unchanged') return result;
  const backup = writeWithBackup(result.path, text, mode);
  return { ...result, written: true, ...(backup ? { backup } : {}) };
}

/** Relative to `cwd` when inside it, `~/...` under the home directory, absolute otherwise. */
export function shown(path: string, cwd: string): string {
  const fromCwd = relative(cwd, path);
  if (fromCwd !== '' && !fromCwd.startsWith('..') && !fromCwd.startsWith(sep)) return fromCwd;
  const fromHome = relative(homedir(), path);
  return fromHome.startsWith('..') || fromHome.startsWith(sep) ? path : `~${sep}${fromHome}`;
}
