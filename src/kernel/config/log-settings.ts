import { FactorlyError } from '../base/errors.js';
import { didYouMean } from '../base/suggest.js';
import { DURABILITIES, type Durability } from '../../events/log.js';

export interface LogSettings {
  durability: Durability;
}

const KEYS = ['durability'];

/**
 * The config's `log:` block: `durability: fsync` (the default: an acknowledged append is on disk)
 * or `commit` (committed, so it survives the process being killed, but the last appends can be lost
 * to a power cut). Anything else is a config error naming the key and the file.
 */
export function parseLogSettings(value: unknown, where: string): LogSettings {
  if (value === undefined || value === null) return { durability: 'fsync' };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`"log" must be a mapping (e.g. {durability: fsync})`, where);
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) throw invalid(`unknown key "log.${key}"${didYouMean(key, KEYS)}`, where);
  }
  const { durability = 'fsync' } = value as { durability?: unknown };
  if (!DURABILITIES.includes(durability as Durability)) {
    throw invalid(`"log.durability" must be one of ${DURABILITIES.join(', ')}, not ${JSON.stringify(durability)}`, where);
  }
  return { durability: durability as Durability };
}

function invalid(message: string, where: string): FactorlyError {
  return new FactorlyError('CONFIG_INVALID', `config: ${message} (${where})`);
}
