import { DURABILITIES, type Durability } from '../../events/log.js';
import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import { DEFAULT_LOG_BOUNDS, type LogBounds } from '../stored-text.js';

export interface LogSettings {
  durability: Durability;
  /** How big a value the log keeps whole. */
  bounds: LogBounds;
}

const BOUND_KEYS = { max_param_bytes: 'maxParamBytes', max_output_bytes: 'maxOutputBytes' } as const;
const KEYS = ['durability', ...Object.keys(BOUND_KEYS)];
const MIN_BYTES = 1024;
const MAX_BYTES = 1024 * 1024 * 1024;

/**
 * The config's top-level `log:` block. Anything else than these keys and values is a config error
 * naming the key and the file.
 *
 *     log:
 *       durability: fsync        # the default: an acknowledged append is on disk; `commit`: committed,
 *                                # so it survives the process being killed, but not a power cut
 *       max_param_bytes: 65536   # a call's params, as a whole (bigger values are stored as prefixes)
 *       max_output_bytes: 65536  # a call's output, error and diagnostics, each
 */
export function parseLogSettings(raw: unknown, where: string): LogSettings {
  const settings: LogSettings = { durability: 'fsync', bounds: { ...DEFAULT_LOG_BOUNDS } };
  if (raw === undefined || raw === null) return settings;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw invalid(`"log" must be a mapping (durability, max_param_bytes, max_output_bytes), got ${JSON.stringify(raw)}`, where);
  }
  for (const [key, value] of Object.entries(raw)) {
    if (!KEYS.includes(key)) throw invalid(`unknown key "${key}" in log${didYouMean(key, KEYS)}`, where);
    if (key === 'durability') settings.durability = durabilityOf(value, where);
    else settings.bounds[BOUND_KEYS[key as keyof typeof BOUND_KEYS]] = bytesOf(key, value, where);
  }
  return settings;
}

function durabilityOf(value: unknown, where: string): Durability {
  if (DURABILITIES.includes(value as Durability)) return value as Durability;
  throw invalid(`"log.durability" must be one of ${DURABILITIES.join(', ')}, not ${JSON.stringify(value)}`, where);
}

function bytesOf(key: string, value: unknown, where: string): number {
  if (Number.isInteger(value) && (value as number) >= MIN_BYTES && (value as number) <= MAX_BYTES) return value as number;
  throw invalid(`log.${key} must be a whole number of bytes from ${MIN_BYTES} to ${MAX_BYTES}, got ${JSON.stringify(value)}`, where);
}

function invalid(message: string, where: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `config: ${message} (${where})`);
}
