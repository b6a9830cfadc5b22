import type { ProjectPaths } from './paths.js';
import { DURABILITIES, type Durability } from '../events/log.js';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import { NoteError, verifierFromKey } from '../events/signed-note.js';
import { DEFAULT_LOG_BOUNDS, type LogBounds } from '../events/capped-text.js';
import { CHECKPOINT_KEYS, checkpointSettingsOf, type CheckpointSettings } from './checkpoint-settings.js';

export interface LogSettings {
  durability: Durability;
  /** How big a value the log keeps whole. */
  bounds: LogBounds;
  /** When checkpoints of the log are signed, with which key, and who else receives them. */
  checkpoints: CheckpointSettings;
  /**
   * The verifier keys whose checkpoints `logs verify` accepts (`trusted_keys`); empty: this project's
   * own and those the log's writers announced.
   */
  trustedKeys: string[];
  /** Where the log lives (`engine:`): `lmdb`, the project's file, unless a plugin's engine is named. */
  engine: string;
  /** The keys of the block the engine reads (any but the kernel's own, when the engine is not `lmdb`). */
  engineOptions: Record<string, unknown>;
  /** Where the block is written, for errors found once the engines are known (`file:line` per key). */
  at: { file: string; lines: Record<string, number> };
}

export const DEFAULT_LOG_ENGINE = 'lmdb';

const BOUND_KEYS = { max_param_bytes: 'maxParamBytes', max_output_bytes: 'maxOutputBytes' } as const;
const KEYS: readonly string[] = [
  'engine',
  'durability',
  'trusted_keys',
  ...Object.keys(BOUND_KEYS),
  ...CHECKPOINT_KEYS,
];
const MIN_BYTES = 1024;
const MAX_BYTES = 1024 * 1024 * 1024;

/**
 * The config's top-level `log:` block. Anything else than these keys and values is a config error
 * naming the key and the file; relative paths are taken from `baseDir`.
 *
 *     log:
 *       durability: fsync        # the default: an acknowledged append is on disk; `commit`: committed,
 *                                # so it survives the process being killed, but not a power cut
 *       max_param_bytes: 65536   # a call's params, as a whole (bigger values are stored as prefixes)
 *       max_output_bytes: 65536  # a call's output, error and diagnostics, each
 *       checkpoint_every: 1000   # sign a checkpoint once this many events were appended (0: never)
 *       checkpoint_interval: 60s # while serving, sign one this often when the log grew (0: never)
 *       witness: "git -C ~/anchors commit …"  # a command that reads each checkpoint on stdin
 *       witness_dir: ~/anchors   # a directory that gets a copy of each checkpoint
 *       key: file                # the signing key: .factorly/log.key (0600), or a secret backend's name
 *       trusted_keys: [<verifier key>, …]  # logs verify accepts checkpoints signed by these alone
 *       engine: lmdb             # where the log lives; another engine (a plugin's) reads its own keys here
 *
 * `lines` (key → line, `log` for the block itself) makes errors say `file:line`.
 */
export function parseLogSettings(
  raw: unknown,
  where: string,
  baseDir: string,
  lines: Record<string, number> = {},
): LogSettings {
  let key = 'log';
  const invalid = (message: string): never => {
    throw new FactorlyError('CONFIG_INVALID', `config: ${message} (${placeOf({ file: where, lines }, key)})`);
  };
  const settings: LogSettings = {
    durability: 'fsync',
    bounds: { ...DEFAULT_LOG_BOUNDS },
    checkpoints: checkpointSettingsOf({}, baseDir, invalid),
    trustedKeys: [],
    engine: DEFAULT_LOG_ENGINE,
    engineOptions: {},
    at: { file: where, lines },
  };
  if (raw === undefined || raw === null) return settings;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return invalid(`"log" must be a mapping (${KEYS.join(', ')}), got ${JSON.stringify(raw)}`);
  }
  const entries = raw as Record<string, unknown>;
  key = 'engine';
  if (entries.engine !== undefined) settings.engine = engineOf(entries.engine, invalid);
  for (const [name, value] of Object.entries(raw)) {
    key = name;
    if (!KEYS.includes(key)) {
      if (settings.engine === DEFAULT_LOG_ENGINE) invalid(`unknown key "${key}" in log${didYouMean(key, KEYS)}`);
      settings.engineOptions[key] = value;
    }
    if (key === 'durability') settings.durability = durabilityOf(value, invalid);
    else if (key === 'trusted_keys') settings.trustedKeys = trustedKeysOf(value, invalid);
    else if (key in BOUND_KEYS)
      settings.bounds[BOUND_KEYS[key as keyof typeof BOUND_KEYS]] = bytesOf(key, value, invalid);
  }
  key = 'log';
  settings.checkpoints = checkpointSettingsOf(raw as Record<string, unknown>, baseDir, invalid);
  return settings;
}

/** `file:line` of a key of the `log:` block (of the block itself when the key has no line). */
export function placeOf(at: LogSettings['at'], key: string): string {
  const line = at.lines[key] ?? at.lines.log;
  return line === undefined ? at.file : `${at.file}:${line}`;
}

function engineOf(value: unknown, invalid: (message: string) => never): string {
  if (typeof value === 'string' && /^[a-z][a-z0-9-]*$/.test(value)) return value;
  return invalid(
    `"log.engine" must be the name of a log engine (lmdb, or one a plugin provides), not ${JSON.stringify(value)}`,
  );
}

/** A list of verifier keys (`factorly logs key` prints one), each checked as a key. */
function trustedKeysOf(value: unknown, invalid: (message: string) => never): string[] {
  const keys = Array.isArray(value) ? value : [value];
  for (const key of keys) {
    try {
      if (typeof key !== 'string') throw new NoteError('not a string');
      verifierFromKey(key.trim());
    } catch (error) {
      invalid(
        `log.trusted_keys: ${JSON.stringify(key)} is not a verifier key (${(error as Error).message}; factorly logs key prints one)`,
      );
    }
  }
  return (keys as string[]).map((key) => key.trim());
}

function durabilityOf(value: unknown, invalid: (message: string) => never): Durability {
  if (DURABILITIES.includes(value as Durability)) return value as Durability;
  return invalid(`"log.durability" must be one of ${DURABILITIES.join(', ')}, not ${JSON.stringify(value)}`);
}

function bytesOf(key: string, value: unknown, invalid: (message: string) => never): number {
  if (Number.isInteger(value) && (value as number) >= MIN_BYTES && (value as number) <= MAX_BYTES)
    return value as number;
  return invalid(
    `log.${key} must be a whole number of bytes from ${MIN_BYTES} to ${MAX_BYTES}, got ${JSON.stringify(value)}`,
  );
}

/** The log settings before the config is loaded (a plugin that opens the log that early gets these). */
export function defaultLogSettings(paths: Pick<ProjectPaths, 'mainFile' | 'baseDir'>): LogSettings {
  return parseLogSettings(undefined, paths.mainFile, paths.baseDir);
}
