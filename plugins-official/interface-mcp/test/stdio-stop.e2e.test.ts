import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { BIN, tempProject } from '../../../test/helpers/project.js';
import { isolatedEnv } from '../../../test/helpers/listening.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

const CONFIG = `tools:
  hello:
    type: cli
    description: Say hello.
    command: echo
    args: [hello]
`;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'stop-test', version: '1.0.0' } },
};

/**
 * Starts factorly over stdio, has one exchange with it (an initialize, then a call), then sends one
 * SIGTERM and resolves with how the process ended. The test's own timeout is the bound: a process
 * that outlives the signal fails it.
 */
async function exchangeThenTerminate(root: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: root,
    env: isolatedEnv(root),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  child.stdin.write(`${JSON.stringify(initialize)}\n`);
  expect(JSON.parse(String((await lines.next()).value))).toMatchObject({
    id: 1,
    result: { protocolVersion: '2025-06-18' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
  expect(JSON.parse(String((await lines.next()).value))).toMatchObject({ id: 2, result: { tools: expect.any(Array) } });
  child.kill('SIGTERM');
  const [code] = await exited;
  return { code, stderr };
}

describe('one SIGTERM ends a stdio server that has answered a message (stdin still open)', () => {
  it('factorly serve exits 0', { timeout: 30_000 }, async () => {
    const ended = await exchangeThenTerminate(tempProject({ '.factorly/factorly.yaml': CONFIG }), ['serve']);
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain('SIGTERM received, finishing in-flight calls');
  });

  it('factorly wrap exits 0, its upstream server stopped', { timeout: 30_000 }, async () => {
    const ended = await exchangeThenTerminate(tempProject(), ['wrap', '--', process.execPath, EVERYTHING, 'stdio']);
    expect(ended.code).toBe(0);
  });
});
