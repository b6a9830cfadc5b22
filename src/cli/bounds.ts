import ms from 'ms';
import type { Bound } from '../events/audit-query.js';
import { FactorlyError } from '../kernel/base/errors.js';

/**
 * Reads a `--since`/`--until` value: a seq (`1200`), a duration ago (`15m`, `2h`, `1d`) or a time
 * (`2026-11-30T10:00:00Z`, `2026-11-30`).
 */
export function parseBound(flag: string, value: string | undefined, now = new Date()): Bound | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return { seq: Number(text) };
  const ago = /^\d+(\.\d+)?\s*[a-z]+$/i.test(text) ? ms(text as ms.StringValue) : undefined;
  if (typeof ago === 'number' && Number.isFinite(ago)) return { time: new Date(now.getTime() - ago) };
  const time = Date.parse(text);
  if (!Number.isNaN(time)) return { time: new Date(time) };
  throw new FactorlyError(
    'USAGE',
    `--${flag}: expected a seq number, a duration ago (15m, 2h, 1d) or a time (2026-11-30T10:00:00Z), got ${JSON.stringify(value)}`,
  );
}
