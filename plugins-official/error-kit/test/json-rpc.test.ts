import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FactorlyError, JsonRpcCode, JsonRpcError, jsonRpcErrorOf } from '@factorly/error-kit';

describe('factorly errors on the JSON-RPC wire', () => {
  it('answers a FactorlyError with its JSON-RPC code and its stable code in data, and keeps its data inside', () => {
    const error = new FactorlyError('PARAMS_INVALID', 'tools/call: "name" must be a non-empty string', {
      data: { path: '/home/someone/.factorly/factorly.yaml' },
    });
    expect(jsonRpcErrorOf(error)).toEqual({
      code: JsonRpcCode.INVALID_PARAMS,
      message: 'tools/call: "name" must be a non-empty string',
      data: { factorlyCode: 'PARAMS_INVALID' },
    });
  });

  it('passes an error that already is a JSON-RPC error (an upstream answer) on unchanged', () => {
    const upstream = { code: -32002, message: 'Resource not found', data: { uri: 'test://nope' } };
    expect(jsonRpcErrorOf(upstream)).toEqual(upstream);
  });

  it('answers anything else as an internal error, and a plugin code with the generic server error', () => {
    expect(jsonRpcErrorOf(new TypeError('x is undefined'))).toEqual({
      code: JsonRpcCode.INTERNAL_ERROR,
      message: 'x is undefined',
      data: { factorlyCode: 'INTERNAL' },
    });
    expect(jsonRpcErrorOf(new FactorlyError('acme.QUOTA_EXCEEDED', 'over quota'))).toEqual({
      code: JsonRpcCode.SERVER_ERROR,
      message: 'over quota',
      data: { factorlyCode: 'acme.QUOTA_EXCEEDED' },
    });
  });

  it("answers a malformed code (a system error's string code, a fraction, NaN) or a thrown non-error as internal", () => {
    const enoent = Object.assign(new Error('open /x: no such file'), { code: 'ENOENT' });
    for (const thrown of [enoent, { code: 1.5, message: 'half' }, { code: Number.NaN, message: 'nan' }]) {
      expect(jsonRpcErrorOf(thrown)).toMatchObject({
        code: JsonRpcCode.INTERNAL_ERROR,
        data: { factorlyCode: 'INTERNAL' },
      });
    }
    expect(jsonRpcErrorOf({ code: 'E_BAD', message: 'a plain object' }).message).toBe('a plain object');
    expect(jsonRpcErrorOf(undefined)).toEqual({
      code: JsonRpcCode.INTERNAL_ERROR,
      message: 'undefined',
      data: { factorlyCode: 'INTERNAL' },
    });
  });

  it('gives a thrown JsonRpcError the numeric code the MCP SDK answers with', () => {
    const thrown = JsonRpcError.from(new FactorlyError('METHOD_NOT_FOUND', 'Method not found: x'));
    expect({ code: thrown.code, message: thrown.message, data: thrown.data }).toEqual({
      code: JsonRpcCode.METHOD_NOT_FOUND,
      message: 'Method not found: x',
      data: { factorlyCode: 'METHOD_NOT_FOUND' },
    });
  });

  it('numbers every code once: no two codes of the server range share a JSON-RPC code', () => {
    const server = Object.entries(ERROR_CODES).filter(([, info]) => info.jsonRpc > -32600);
    const numbers = server.map(([, info]) => info.jsonRpc);
    expect(new Set(numbers).size).toBe(numbers.length);
    for (const n of numbers) expect(n >= -32099 && n <= -32000).toBe(true);
    // Clear of what the MCP SDK and spec already mean by a number (SESSION_NOT_FOUND is the SDK's own -32001).
    expect(numbers).not.toContain(JsonRpcCode.SERVER_ERROR);
    expect(numbers).not.toContain(-32002);
    expect(numbers).not.toContain(-32042);
  });
});
