import { describe, expect, it } from 'vitest';
import { coerceValue, validateParams } from '../../src/config/params.js';
import type { ParameterSpec } from '../../src/contracts/tool.js';

const spec = (over: Partial<ParameterSpec>): ParameterSpec => ({ name: 'p', type: 'string', required: false, ...over });

describe('parameter coercion', () => {
  it.each([
    [{ type: 'integer' }, '42', 42],
    [{ type: 'integer' }, -3, -3],
    [{ type: 'number' }, '2.5', 2.5],
    [{ type: 'boolean' }, 'yes', true],
    [{ type: 'boolean' }, 'FALSE', false],
    [{ type: 'json' }, '{"a":[1]}', { a: [1] }],
    [{ type: 'string' }, 7, '7'],
    [{ type: 'enum', enum: ['a', 'b'] }, 'b', 'b'],
  ] as const)('%o accepts %j as %j', (over, input, expected) => {
    expect(coerceValue(spec(over as Partial<ParameterSpec>), input as never)).toEqual({ ok: true, value: expected });
  });

  it.each([
    [{ type: 'integer' }, '4.2', 'expected integer, got "4.2"'],
    [{ type: 'integer' }, '9007199254740993', 'expected integer, got "9007199254740993"'],
    [{ type: 'number' }, '', 'expected number, got ""'],
    [{ type: 'boolean' }, 'maybe', 'expected boolean, got "maybe"'],
    [{ type: 'string' }, { a: 1 }, 'expected string, got an object'],
    [{ type: 'enum', enum: ['a', 'b'] }, 'c', 'must be one of: a, b'],
    [{ type: 'integer', min: 1 }, 0, 'must be at least 1, got 0'],
    [{ minLength: 3 }, 'ab', 'too short: 2 < 3'],
    [{ maxLength: 2 }, 'abc', 'too long: 3 > 2'],
    [{ pattern: '^[a-z]+$' }, 'A1', 'does not match pattern "^[a-z]+$"'],
  ] as const)('%o refuses %j: %s', (over, input, message) => {
    expect(coerceValue(spec(over as Partial<ParameterSpec>), input as never)).toEqual({ ok: false, message });
  });

  it('reports invalid JSON with the parser reason', () => {
    const result = coerceValue(spec({ type: 'json' }), '{nope');
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/^invalid JSON \(/);
  });

  it('fills defaults, flags changes, and lists every problem', () => {
    const params = [spec({ name: 'n', type: 'integer', default: 3 }), spec({ name: 'r', required: true })];
    expect(validateParams(params, { r: 'x' })).toEqual({ params: { n: 3, r: 'x' }, changed: true, problems: [] });
    expect(validateParams(params, { r: 'x', n: 3 }).changed).toBe(false);
    expect(validateParams(params, { nn: 1 }).problems).toEqual([
      'unknown parameter "nn"; did you mean "n"?',
      'required parameter "r" missing',
    ]);
  });

  it('names ten unknown params and counts the rest, however many were sent', () => {
    const input = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const { problems } = validateParams([spec({ name: 'n' })], input);
    expect(problems).toHaveLength(11);
    expect(problems[0]).toBe('unknown parameter "k0"');
    expect(problems[10]).toBe('and 49990 more unknown parameters');
  });

  it('quotes at most 100 characters of a long name or value in a refusal', () => {
    const long = 'x'.repeat(1_000_000);
    const { problems } = validateParams([spec({ name: 'n', type: 'integer' })], { [long]: 1, n: long });
    expect(problems).toEqual([
      `unknown parameter "${'x'.repeat(100)}…"`,
      `n: expected integer, got "${'x'.repeat(99)}… (1000002 characters)`,
    ]);
  });

  it('refuses a value nested deeper than 64 levels, at any depth (one of 100,000 levels included)', () => {
    const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as never;
    const params = [spec({ name: 'j', type: 'json' })];
    expect(validateParams(params, { j: nested(64) }).problems).toEqual([]);
    expect(validateParams(params, { j: nested(65) }).problems).toEqual(['j: nests deeper than 64 levels']);
    expect(validateParams(params, { j: nested(100_000) }).problems).toEqual(['j: nests deeper than 64 levels']);
  });
});
