import { describe, expect, it } from 'vitest';
import { MIN_SCRUB_LENGTH, scrubSecrets } from '../src/scrub.js';
import { base32, leakForms, leaksIn } from '../../../test/helpers/leaks.js';

const SECRET = 'p@ss w/"q\\é+€-Zz9';
const secrets = new Map([['vault:API_TOKEN', SECRET]]);

describe('secret scrubbing', () => {
  it('redacts every encoded form of a secret, each to [REDACTED:KEY]', () => {
    for (const form of leakForms(SECRET)) {
      const out = scrubSecrets(`before ${form} after`, secrets);
      // JSON inside JSON keeps its own escaped quotes around the marker: they are not the secret's.
      expect(out.replace(/^before (\\")?/, '').replace(/(\\")? after$/, ''), `form ${form}`).toBe(
        '[REDACTED:API_TOKEN]',
      );
      expect(leaksIn(out, SECRET)).toEqual([]);
    }
  });

  it('redacts lower-case percent escapes and a mix of raw and encoded characters', () => {
    const mixed = 'p%40ss%20w%2f"q\\%c3%a9+%E2%82%AC-Zz9';
    expect(scrubSecrets(`x=${mixed}&y=1`, secrets)).toBe('x=[REDACTED:API_TOKEN]&y=1');
  });

  it('redacts \\u escapes and JSON nested inside JSON', () => {
    const ascii = JSON.stringify(SECRET)
      .slice(1, -1)
      .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(scrubSecrets(`{"t":"${ascii}"}`, secrets)).toBe('{"t":"[REDACTED:API_TOKEN]"}');
    const nested = JSON.stringify({ text: JSON.stringify({ token: SECRET }) });
    expect(leaksIn(scrubSecrets(nested, secrets), SECRET)).toEqual([]);
  });

  it('scrubs a megabyte run of backslashes in one pass, and still finds a secret escaped six times over inside it', () => {
    // The first character's escape once matched any run of backslashes, so every position of a long
    // run rescanned the rest of it: quadratic (a 1 MB run took minutes). What the run hides is still found.
    let escaped = SECRET;
    for (let level = 0; level < 6; level++) escaped = JSON.stringify(escaped).slice(1, -1);
    const run = '\\'.repeat(1024 * 1024);
    const out = scrubSecrets(`${run}"${escaped}"${run}`, secrets);
    expect(leaksIn(out, SECRET)).toEqual([]);
    expect(out).toBe(`${run}"[REDACTED:API_TOKEN]"${run}`);
  });

  it('redacts a secret embedded at any offset in a longer base64 text (a Basic auth header)', () => {
    for (const user of ['', 'a', 'ab', 'abc', 'user:']) {
      const header = `Authorization: Basic ${Buffer.from(`${user}${SECRET}`).toString('base64')}`;
      const out = scrubSecrets(header, secrets);
      expect(out, `prefix "${user}"`).toContain('[REDACTED:API_TOKEN]');
      const rest = out.slice('Authorization: Basic '.length).replace('[REDACTED:API_TOKEN]', '');
      expect(rest.length, `prefix "${user}" leaves only the user's part`).toBeLessThanOrEqual(
        Math.ceil((user.length * 4) / 3),
      );
    }
  });

  it('redacts a double URL-encoded secret (a URL carried in a query parameter), either hex case', () => {
    const twice = encodeURIComponent(encodeURIComponent(SECRET));
    expect(scrubSecrets(`next=${twice}&y=1`, secrets)).toBe('next=[REDACTED:API_TOKEN]&y=1');
    expect(scrubSecrets(`next=${twice.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())}&y=1`, secrets)).toBe(
      'next=[REDACTED:API_TOKEN]&y=1',
    );
    const formTwice = encodeURIComponent(new URLSearchParams({ v: SECRET }).toString().slice(2));
    expect(scrubSecrets(`q=${formTwice}`, secrets)).toBe('q=[REDACTED:API_TOKEN]');
  });

  it('redacts base32 of a secret at any byte offset in a longer base32 text, either case, padded or not', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd', 'user:']) {
      const encoded = base32(Buffer.from(`${prefix}${SECRET}`));
      for (const form of [encoded, encoded.replace(/=+$/, '').toLowerCase()]) {
        const out = scrubSecrets(`otp ${form} end`, secrets);
        expect(out, `prefix "${prefix}"`).toContain('[REDACTED:API_TOKEN]');
        const rest = out.slice('otp '.length, -' end'.length).replace('[REDACTED:API_TOKEN]', '');
        expect(rest.length, `prefix "${prefix}" leaves only the prefix's part`).toBeLessThanOrEqual(
          Math.ceil((prefix.length * 8) / 5),
        );
      }
    }
  });

  it('redacts the longer of two overlapping secrets whole, and leaves other text alone', () => {
    const both = new Map([
      ['vault:SHORT', 'abcd1234'],
      ['env:LONG', 'abcd1234-and-more'],
    ]);
    expect(scrubSecrets('x abcd1234-and-more y abcd1234 z', both)).toBe('x [REDACTED:LONG] y [REDACTED:SHORT] z');
    expect(scrubSecrets('nothing to see', both)).toBe('nothing to see');
  });

  it(`leaves values shorter than ${MIN_SCRUB_LENGTH} characters alone (redacting every "C" would wreck output)`, () => {
    expect(
      scrubSecrets(
        'LANG=C and port 80',
        new Map([
          ['env:LANG', 'C'],
          ['env:PORT', '80'],
        ]),
      ),
    ).toBe('LANG=C and port 80');
  });
});
