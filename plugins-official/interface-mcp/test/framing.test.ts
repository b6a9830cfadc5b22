import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { ToolDefinition } from 'factorly';
import { checkMessage, checkText, oversized } from '../src/framing.js';
import { FramedStdioTransport } from '../src/stdio-transport.js';
import { toolEntry } from '../src/tool-entry.js';
import { shadowPolicies } from './policies.js';

describe('checking incoming JSON-RPC messages', () => {
  it('passes requests, notifications and responses through as they are', () => {
    for (const message of [
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]) {
      expect(checkMessage(message)).toEqual({ message });
    }
  });

  it('answers an id with neither a method nor a result or error with -32600', () => {
    expect(checkMessage({ jsonrpc: '2.0', id: 4 })).toEqual({
      reply: {
        jsonrpc: '2.0',
        id: 4,
        error: {
          code: -32600,
          message: 'Invalid Request: a message with no "method" must be a response, with "result" or "error"',
          data: { factorlyCode: 'REQUEST_INVALID' },
        },
      },
    });
  });

  it('passes on only the JSON-RPC members, in a fresh object (no "__proto__" or other extra member)', () => {
    const checked = checkText('{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1},"y":2}');
    expect(checked).toEqual({ message: { jsonrpc: '2.0', id: 1, method: 'ping' } });
    const { message } = checked as { message: Record<string, unknown> };
    expect(Object.keys(message)).toEqual(['jsonrpc', 'id', 'method']);
    expect(Object.getPrototypeOf(message)).toBe(Object.prototype);
  });

  it('answers params that are not an object with -32602, and drops a response it cannot answer', () => {
    expect(checkText('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}')).toEqual({
      reply: {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message: 'Invalid params: "params" of ping must be an object, got an array',
          data: { factorlyCode: 'PARAMS_INVALID' },
        },
      },
    });
    expect(checkMessage({ jsonrpc: '2.0', id: 4, result: {}, error: { code: 1, message: 'x' } })).toEqual({
      drop: 'a message with no method that is not a response (an id and either result or error)',
    });
    expect(checkMessage({ jsonrpc: '2.0', result: {} })).toEqual({
      drop: 'a message with no method that is not a response (an id and either result or error)',
    });
    expect(checkMessage('ping')).toMatchObject({
      reply: {
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: a JSON-RPC message is an object, got string "ping"',
          data: { factorlyCode: 'REQUEST_INVALID' },
        },
      },
    });
  });

  it('finds the id of a message too big to read at its head or its tail', () => {
    const reply = (head: string, tail: string) => oversized(10, 5, { head, tail }).id;
    expect(reply('{"jsonrpc":"2.0","id":"r-1","method":"tools/call","params":{', 'xx"}}}')).toBe('r-1');
    expect(reply('{"method":"tools/call","params":{"id":"inner"', 'xx"}},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(reply('{"method":"x","params":{"id":1,', 'xxxx')).toBeNull();
  });
});

describe('MCP over stdio, framed', () => {
  it('reads a message split across chunks, and skips an over-long line without holding it', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const warnings: string[] = [];
    const transport = new FramedStdioTransport(input, output, 64, (warning) => warnings.push(warning));
    const received: unknown[] = [];
    transport.onmessage = (message) => received.push(message);
    await transport.start();
    input.write('{"jsonrpc":"2.0",');
    input.write('"id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"pad":"');
    input.write(`${'x'.repeat(200)}"}}\n\n{"jsonrpc":"2.0","id":3,"method":"ping"}\r\n`);
    expect(received).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 3, method: 'ping' },
    ]);
    expect(JSON.parse(String(output.read()))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32600,
        message:
          'Invalid Request: a message of 266 bytes is over the limit of 64 bytes (--max-message-size); it was not read',
        data: { factorlyCode: 'REQUEST_INVALID' },
      },
    });
    expect(warnings).toEqual([
      'refused a message of 266 bytes on stdin: over the limit of 64 bytes (--max-message-size); the session goes on',
    ]);
  });
});

describe('a tool as tools/list shows it', () => {
  const base: ToolDefinition = {
    name: 'up.echo',
    type: 'mcp',
    description: 'Echo',
    hidden: false,
    parameters: [],
    spec: {},
    source: { file: 'x', line: 1 },
  };
  it("is an upstream tool exactly as declared, under factorly's name, with factorly's governance namespaced in _meta", async () => {
    const declared = {
      name: 'echo',
      title: 'Echo',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true },
      _meta: { 'vendor/x': 1 },
    };
    expect(toolEntry({ ...base, declared })).toEqual({ ...declared, name: 'up.echo' });
    const governed = { ...base, declared, expandedFrom: 'up', shadow: { confirm: ['echo'], rate_limit: '10/min' } };
    expect(toolEntry(governed, await shadowPolicies())._meta).toEqual({
      'vendor/x': 1,
      'factorly/confirm': true,
      'factorly/rateLimit': '10/min',
    });
  });
});
