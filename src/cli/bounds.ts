import ms from 'ms';
import { readTimeBound, TIME_BOUND_FORMS } from '@factorly/text-kit';
import type { Bound } from '../events/audit-query.js';
import { FactorlyError } from '../base/errors.js';

/**
 * Reads a `--since`/`--until` value: a seq (`1200`), a duration ago (`15m`, `2h`, `1d`) or a time
 * (`2026-11-30T10:00:00Z`, `2026-11-30`), as the web UI's history reads its `since`/`until`.
 */
export function parseBound(flag: string, value: string | undefined, now = new Date()): Bound | undefined {
  if (value === undefined) return undefined;
  const bound = readTimeBound(value, now);
  if (bound) return bound;
  throw new FactorlyError('USAGE', `--${flag}: expected ${TIME_BOUND_FORMS}, got ${JSON.stringify(value)}`);
}

/** Reads a duration flag (`30m`, `90s`, `1h`) into milliseconds; `0` means never. */
export function parseDurationFlag(flag: string, value: string): number {
  const text = value.trim();
  if (text === '0') return 0;
  const parsed = /^\d+(\.\d+)?\s*[a-z]+$/i.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof parsed === 'number' && Number.isFinite(parsed) && parsed > 0) return parsed;
  throw new FactorlyError(
    'USAGE',
    `--${flag}: expected a duration such as 90s, 30m or 2h (or 0 for never), got ${JSON.stringify(value)}`,
  );
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  kb: 1_000,
  mb: 1_000_000,
  gb: 1_000_000_000,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};
const MIN_MESSAGE_BYTES = 1024;

/** Reads a size flag (`4MiB`, `512KiB`, `1MB`, or bytes) into bytes, at least 1 KiB (an initialize message must fit). */
export function parseSizeFlag(flag: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const unit = SIZE_UNITS[(match?.[2] || 'b').toLowerCase()];
  const bytes = match && unit ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (Number.isSafeInteger(bytes) && bytes >= MIN_MESSAGE_BYTES) return bytes;
  throw new FactorlyError(
    'USAGE',
    `--${flag}: expected a size of at least 1KiB such as 4MiB, 512KiB or 1048576 (bytes), got ${JSON.stringify(value)}`,
  );
}
