import { describe, expect, it } from 'vitest';
import { parameterFromSchema, parametersFromSchema } from '../src/index.js';

describe('JSON Schema properties as tool parameters', () => {
  it('keeps the real type, required flag, enum and limits; objects, arrays and unions become json', () => {
    expect(
      parametersFromSchema(
        {
          type: 'object',
          required: ['q'],
          properties: {
            q: { type: 'string', description: 'Query', minLength: 1, pattern: '^\\w+$' },
            n: { type: ['integer', 'null'], minimum: 0, maximum: 9 },
            mode: { type: 'string', enum: ['a', 'b'] },
            body: { type: 'object' },
            either: { type: ['string', 'number'] },
          },
        },
        'json',
      ),
    ).toEqual([
      { name: 'q', type: 'string', required: true, description: 'Query', minLength: 1, pattern: '^\\w+$' },
      { name: 'n', type: 'integer', required: false, min: 0, max: 9 },
      { name: 'mode', type: 'enum', required: false, enum: ['a', 'b'] },
      { name: 'body', type: 'json', required: false },
      { name: 'either', type: 'json', required: false },
    ]);
  });

  it('types a property without a type as the caller says, unless it has structure', () => {
    expect(parameterFromSchema('h', {}, false, 'string').type).toBe('string');
    expect(parameterFromSchema('h', {}, false, 'json').type).toBe('json');
    expect(parameterFromSchema('h', { items: {} }, false, 'string').type).toBe('json');
  });

  it('leaves out a pattern that does not compile with the u flag, and reads no properties from a non-object', () => {
    expect(parameterFromSchema('p', { type: 'string', pattern: '\\p{' }, false, 'string').pattern).toBeUndefined();
    expect(parametersFromSchema({ properties: [] }, 'json')).toEqual([]);
    expect(parametersFromSchema(undefined, 'json')).toEqual([]);
  });
});
