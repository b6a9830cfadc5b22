import { isAbsolute, resolve } from 'node:path';
import ms from 'ms';

/** The checkpoint keys of the `log:` block: when checkpoints are signed, with which key, where copies go. */
export interface CheckpointSettings {
  /** Sign a checkpoint once this many events were appended since the last one (0: never by count). */
  checkpointEvery: number;
  /** While serving, sign one this often if the log grew (0: never by time). */
  checkpointIntervalMs: number;
  /** A command that receives each new checkpoint on stdin (a shell line, or argv). */
  witness?: string | string[];
  /** A directory that receives a copy of each new checkpoint. */
  witnessDir?: string;
  /** Where the signing key lives: `file` (`.factorly/log.key`, 0600), or the name of a writable secret backend. */
  key: string;
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = {
  checkpointEvery: 1000,
  checkpointIntervalMs: 60_000,
  key: 'file',
};

export const CHECKPOINT_KEYS = ['checkpoint_every', 'checkpoint_interval', 'witness', 'witness_dir', 'key'] as const;

/** Reports a bad value: `problem` starts with the key (`log.witness: …`). */
export type Invalid = (problem: string) => never;

/**
 * The checkpoint keys of a `log:` block whose keys are known to be valid (see `parseLogSettings`);
 * relative paths are taken from `baseDir`.
 */
export function checkpointSettingsOf(
  block: Record<string, unknown>,
  baseDir: string,
  invalid: Invalid,
): CheckpointSettings {
  return {
    checkpointEvery: count(block.checkpoint_every, invalid),
    checkpointIntervalMs: duration(block.checkpoint_interval, invalid),
    witness: command(block.witness, invalid),
    witnessDir: directory(block.witness_dir, baseDir, invalid),
    key: keyPlace(block.key, invalid),
  };
}

function count(value: unknown, invalid: Invalid): number {
  if (value === undefined || value === null) return DEFAULT_CHECKPOINT_SETTINGS.checkpointEvery;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  return invalid(`log.checkpoint_every: ${JSON.stringify(value)} is not a whole number of events (0: never)`);
}

function duration(value: unknown, invalid: Invalid): number {
  if (value === undefined || value === null) return DEFAULT_CHECKPOINT_SETTINGS.checkpointIntervalMs;
  if (value === 0 || value === '0') return 0;
  const millis =
    typeof value === 'number' ? value * 1000 : typeof value === 'string' ? ms(value as ms.StringValue) : undefined;
  if (typeof millis === 'number' && Number.isFinite(millis) && millis > 0) return millis;
  return invalid(
    `log.checkpoint_interval: ${JSON.stringify(value)} is not a duration (use "60s", "5m", a number of seconds, or 0 for never)`,
  );
}

function command(value: unknown, invalid: Invalid): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string'))
    return value as string[];
  return invalid('log.witness: expected a command line, or a list of the command and its arguments');
}

/** `file`, or a secret backend's name (whether one is installed is known when a key is needed). */
function keyPlace(value: unknown, invalid: Invalid): string {
  if (value === undefined || value === null) return DEFAULT_CHECKPOINT_SETTINGS.key;
  if (typeof value === 'string' && /^[a-z][a-z0-9_-]*$/.test(value)) return value;
  return invalid(`log.key: ${JSON.stringify(value)} is not file or the name of a secret backend`);
}

function directory(value: unknown, baseDir: string, invalid: Invalid): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') return invalid('log.witness_dir: expected a directory path');
  const expanded = value.startsWith('~/') ? `${process.env.HOME ?? ''}${value.slice(1)}` : value;
  return isAbsolute(expanded) ? expanded : resolve(baseDir, expanded);
}
