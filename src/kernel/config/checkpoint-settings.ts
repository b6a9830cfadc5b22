import { isAbsolute, resolve } from 'node:path';
import ms from 'ms';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';

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
  /** Where the signing key lives: `.factorly/log.key` (0600), or the project vault. */
  key: 'file' | 'vault';
}

export const DEFAULT_CHECKPOINT_SETTINGS: CheckpointSettings = { checkpointEvery: 1000, checkpointIntervalMs: 60_000, key: 'file' };

const KEYS = ['checkpoint_every', 'checkpoint_interval', 'witness', 'witness_dir', 'key'] as const;

/** Validates `log:` (relative paths against `baseDir`); a bad value is a config error naming it. */
export function parseCheckpointSettings(raw: unknown, baseDir: string): CheckpointSettings {
  if (raw === undefined || raw === null) return { ...DEFAULT_CHECKPOINT_SETTINGS };
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid('log', `expected a mapping of ${KEYS.join(', ')}`);
  const block = raw as Record<string, unknown>;
  for (const key of Object.keys(block)) {
    if (!(KEYS as readonly string[]).includes(key)) throw invalid(`log.${key}`, `unknown key${didYouMean(key, KEYS)}`);
  }
  return {
    checkpointEvery: count(block.checkpoint_every, DEFAULT_CHECKPOINT_SETTINGS.checkpointEvery),
    checkpointIntervalMs: duration(block.checkpoint_interval, DEFAULT_CHECKPOINT_SETTINGS.checkpointIntervalMs),
    witness: command(block.witness),
    witnessDir: typeof block.witness_dir === 'string' && block.witness_dir !== '' ? absolute(block.witness_dir, baseDir) : text(block.witness_dir, 'log.witness_dir'),
    key: keyPlace(block.key),
  };
}

function count(value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw invalid('log.checkpoint_every', `${JSON.stringify(value)} is not a whole number of events (0: never)`);
}

function duration(value: unknown, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  if (value === 0 || value === '0') return 0;
  const millis = typeof value === 'number' ? value * 1000 : typeof value === 'string' ? ms(value as ms.StringValue) : undefined;
  if (typeof millis === 'number' && Number.isFinite(millis) && millis > 0) return millis;
  throw invalid('log.checkpoint_interval', `${JSON.stringify(value)} is not a duration (use "60s", "5m", a number of seconds, or 0 for never)`);
}

function command(value: unknown): string | string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (Array.isArray(value) && value.length > 0 && value.every((part) => typeof part === 'string')) return value as string[];
  throw invalid('log.witness', 'expected a command line, or a list of the command and its arguments');
}

function keyPlace(value: unknown): 'file' | 'vault' {
  if (value === undefined || value === null) return DEFAULT_CHECKPOINT_SETTINGS.key;
  if (value === 'file' || value === 'vault') return value;
  throw invalid('log.key', `${JSON.stringify(value)} is not one of file, vault`);
}

function text(value: unknown, key: string): undefined {
  if (value === undefined || value === null) return undefined;
  throw invalid(key, 'expected a directory path');
}

function absolute(path: string, baseDir: string): string {
  const expanded = path.startsWith('~/') ? `${process.env.HOME ?? ''}${path.slice(1)}` : path;
  return isAbsolute(expanded) ? expanded : resolve(baseDir, expanded);
}

function invalid(key: string, problem: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `config: ${key}: ${problem}`);
}
