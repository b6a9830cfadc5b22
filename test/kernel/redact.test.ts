import { describe, expect, it } from 'vitest';
import type { OutputProcessor } from '../../src/contracts/extensions.js';
import { Redactor } from '../../src/kernel/redact.js';
import { unknownTool } from '../../src/config/tool-definition.js';

/** A scrubber on the `event` stream, as the vault's: every secret value replaced by its marker. */
const scrubber: OutputProcessor = {
  name: 'scrub',
  order: 0,
  process: (text, { secrets }) => {
    let out = text;
    for (const [reference, value] of secrets) out = out.replaceAll(value, `[REDACTED:${reference}]`);
    return out;
  },
};

describe('Redactor', () => {
  const redactor = new Redactor(
    () => [scrubber],
    () => new Map([['vault:K', 's3cret-value']]),
    unknownTool('t'),
  );

  it('scrubs a value that holds a secret, keys included, and keeps its shape', async () => {
    const value = { note: 'with s3cret-value inside', list: ['plain', 's3cret-value'], 's3cret-value': 1 };
    const expected = {
      note: 'with [REDACTED:vault:K] inside',
      list: ['plain', '[REDACTED:vault:K]'],
      '[REDACTED:vault:K]': 1,
    };
    expect(await redactor.value(value)).toEqual(expected);
    expect(redactor.valueNow(value)).toEqual(expected);
  });

  it('hands back a value with nothing to scrub as it was, not a copy of it', async () => {
    const value = { note: 'nothing here', list: ['a', { b: 'c' }], n: 1 };
    expect(await redactor.value(value)).toBe(value);
    expect(redactor.valueNow(value)).toBe(value);
  });
});
