import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import { DEFAULT_LOG_BOUNDS, type LogBounds } from '../stored-text.js';

const LOG_KEYS = { max_param_bytes: 'maxParamBytes', max_output_bytes: 'maxOutputBytes' } as const;
const MIN_BYTES = 1024;
const MAX_BYTES = 1024 * 1024 * 1024;

/**
 * The top-level `log:` block: how big a value the log keeps whole.
 *
 *     log:
 *       max_param_bytes: 65536    # a call's params, as a whole (bigger values are stored as prefixes)
 *       max_output_bytes: 65536   # a call's output, error and diagnostics, each
 */
export function readLogBounds(raw: unknown, where: string): LogBounds {
  if (raw === undefined || raw === null) return DEFAULT_LOG_BOUNDS;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw invalid(`"log" must be a mapping (max_param_bytes, max_output_bytes), got ${JSON.stringify(raw)}`, where);
  const bounds = { ...DEFAULT_LOG_BOUNDS };
  for (const [key, value] of Object.entries(raw)) {
    if (!Object.hasOwn(LOG_KEYS, key)) throw invalid(`unknown key "${key}" in log${didYouMean(key, Object.keys(LOG_KEYS))}`, where);
    if (!Number.isInteger(value) || (value as number) < MIN_BYTES || (value as number) > MAX_BYTES) {
      throw invalid(`log.${key} must be a whole number of bytes from ${MIN_BYTES} to ${MAX_BYTES}, got ${JSON.stringify(value)}`, where);
    }
    bounds[LOG_KEYS[key as keyof typeof LOG_KEYS]] = value as number;
  }
  return bounds;
}

function invalid(message: string, where: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `config: ${message} (${where})`);
}
