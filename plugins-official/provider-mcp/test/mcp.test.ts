import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { tempProject } from '../../../test/helpers/project.js';
import { plugin as mcpPlugin } from '../src/plugin.js';
import { childProcesses } from './processes.js';
import { freePort } from '../../../test/helpers/listening.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const NODE = JSON.stringify(process.execPath);

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

async function everything() {
  const started = await startTestKernel(
    `tools:
  ev:
    type: mcp
    command: ${NODE}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
    description: the everything server
`,
    [mcpPlugin],
  );
  kernel = started.kernel;
  return started;
}

const upstreamChildren = () => childProcesses().filter((child) => child.args.includes(EVERYTHING));

describe('mcp provider with @modelcontextprotocol/server-everything', () => {
  it('lists the sub-tools with real types, required flags, enums and the full input schema', async () => {
    await everything();
    const names = kernel!.registry.all().map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['ev.echo', 'ev.get-sum', 'ev.get-tiny-image', 'ev.get-structured-content']),
    );
    const sum = kernel!.registry.get('ev.get-sum')!;
    expect(sum.parameters).toEqual([
      { name: 'a', type: 'number', required: true, description: 'First number' },
      { name: 'b', type: 'number', required: true, description: 'Second number' },
    ]);
    expect(sum.inputSchema).toMatchObject({
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a', 'b'],
    });
    const annotated = kernel!.registry.get('ev.get-annotated-message')!;
    expect(annotated.parameters).toEqual([
      {
        name: 'messageType',
        type: 'enum',
        enum: ['error', 'success', 'debug'],
        required: true,
        description: expect.any(String),
      },
      { name: 'includeImage', type: 'boolean', required: false, description: 'Whether to include an example image' },
    ]);
  });

  it('forwards typed arguments and records the call; required params are enforced before the server is asked', async () => {
    const { log } = await everything();
    const sum = await kernel!.pipeline.call({ tool: 'ev.get-sum', params: { a: 2.5, b: '4' }, iface: 'mcp' });
    expect(sum).toMatchObject({ status: 'success', exitCode: 0, output: 'The sum of 2.5 and 4 is 6.5.' });
    const missing = await kernel!.pipeline.call({ tool: 'ev.get-sum', params: { a: 1 }, iface: 'mcp' });
    expect(missing.error).toBe('parameter validation failed for "ev.get-sum": required parameter "b" missing');
    const wrong = await kernel!.pipeline.call({ tool: 'ev.get-sum', params: { a: 1, b: 'two' }, iface: 'mcp' });
    expect(wrong.error).toBe('parameter validation failed for "ev.get-sum": b: expected number, got "two"');
    const completed = (await eventsOf(log)).filter((e) => e.type === 'call.completed').map((e) => e.data);
    expect(completed[0]).toMatchObject({ status: 'success', output: { text: 'The sum of 2.5 and 4 is 6.5.' } });
  });

  it('carries images as MCP content blocks (the output is their JSON) and structured content intact', async () => {
    await everything();
    const image = await kernel!.pipeline.call({ tool: 'ev.get-tiny-image', params: {}, iface: 'mcp' });
    const content = JSON.parse(image.output) as { type: string; mimeType?: string; data?: string }[];
    expect(image.content).toEqual(content);
    expect(content.map((item) => item.type)).toEqual(['text', 'image', 'text']);
    expect(content[1]).toMatchObject({
      type: 'image',
      mimeType: 'image/png',
      data: expect.stringMatching(/^iVBORw0KGgo/),
    });
    const weather = await kernel!.pipeline.call({
      tool: 'ev.get-structured-content',
      params: { location: 'Chicago' },
      iface: 'mcp',
    });
    expect(weather).toMatchObject({
      status: 'success',
      structuredContent: { temperature: expect.any(Number), conditions: expect.any(String) },
    });
    expect(JSON.parse(weather.output)).toEqual(weather.structuredContent);
  });

  it('fails the in-flight call clearly when the server is killed, then restarts it for the next call', async () => {
    await everything();
    expect((await kernel!.pipeline.call({ tool: 'ev.echo', params: { message: 'before' }, iface: 'mcp' })).output).toBe(
      'Echo: before',
    );
    const [first] = upstreamChildren();
    const inFlight = kernel!.pipeline.call({
      tool: 'ev.trigger-long-running-operation',
      params: { duration: 20, steps: 20 },
      iface: 'mcp',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(first.pid, 'SIGKILL');
    const failed = await inFlight;
    expect(failed).toMatchObject({ status: 'error', exitCode: 1 });
    expect(failed.error).toMatch(
      /^upstream MCP server "ev" stopped while this call was in flight \(.*Connection closed\); it will be started again on the next call/,
    );
    const after = await kernel!.pipeline.call({ tool: 'ev.echo', params: { message: 'after' }, iface: 'mcp' });
    expect(after).toMatchObject({ status: 'success', output: 'Echo: after' });
    const now = upstreamChildren();
    expect(now).toHaveLength(1);
    expect(now[0].pid).not.toBe(first.pid);
  });

  it('reuses one server process for 1,000 calls and leaves no process behind after stop', async () => {
    await everything();
    const before = childProcesses().length;
    const [server] = upstreamChildren();
    for (let i = 0; i < 1000; i += 1) {
      const outcome = await kernel!.pipeline.call({ tool: 'ev.echo', params: { message: `n${i}` }, iface: 'mcp' });
      if (outcome.output !== `Echo: n${i}`) throw new Error(`call ${i} answered ${JSON.stringify(outcome)}`);
    }
    expect(childProcesses()).toHaveLength(before);
    expect(upstreamChildren().map((child) => child.pid)).toEqual([server.pid]);
    await kernel!.stop();
    kernel = undefined;
    expect(upstreamChildren()).toEqual([]);
  });

  it('reports an upstream that cannot start in its state, naming the server, and starts without it', async () => {
    const started = await startTestKernel(
      `tools:
  broken: {type: mcp, command: ${NODE}, args: ["-e", "console.error('no config here'); process.exit(3)"]}
`,
      [mcpPlugin],
    );
    kernel = started.kernel;
    expect(kernel.registry.all().filter((tool) => tool.name.startsWith('broken'))).toEqual([]);
    const [status] = kernel.providers.get('mcp')!.sourceStatuses!();
    expect(status).toMatchObject({ name: 'broken', type: 'mcp', state: 'failing' });
    expect(status!.reason).toMatch(
      /^could not connect to upstream MCP server "broken": .*\. Its stderr: no config here$/,
    );
  });

  it('reports config mistakes with their line', async () => {
    await expect(
      startTestKernel(
        `tools:
  both: {type: mcp, command: x, url: "http://127.0.0.1:1/mcp"}
  typed: {type: mcp, command: x, headers: {A: b}, parameters: [{name: p}]}
`,
        [mcpPlugin],
      ),
    ).rejects.toThrow(
      [
        'config: tool "both" needs either command (stdio) or url (Streamable HTTP), not both or neither (.factorly/factorly.yaml:2)',
        'config: tool "typed" has headers, which only apply to an HTTP server (url) (.factorly/factorly.yaml:3)',
        'config: tool "typed" declares parameters, but an mcp server\'s tools take theirs from the server (.factorly/factorly.yaml:3)',
      ].join('\n'),
    );
  });
});

describe('mcp provider with @modelcontextprotocol/server-filesystem', () => {
  it('passes arrays and nested objects as JSON and reads back what it wrote', async () => {
    const dir = tempProject();
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'a.txt'), 'alpha\n');
    writeFileSync(join(dir, 'data', 'b.txt'), 'beta\n');
    kernel = (
      await startTestKernel(
        `tools:
  fs: {type: mcp, command: ${NODE}, args: [${JSON.stringify(FILESYSTEM)}, ${JSON.stringify(dir)}]}
`,
        [mcpPlugin],
      )
    ).kernel;
    const edits = kernel.registry.get('fs.edit_file')!;
    expect(edits.parameters.find((p) => p.name === 'edits')).toMatchObject({ type: 'json', required: true });
    expect(edits.inputSchema).toMatchObject({
      properties: { edits: { type: 'array', items: { type: 'object', required: ['oldText', 'newText'] } } },
    });
    const many = await kernel.pipeline.call({
      tool: 'fs.read_multiple_files',
      params: { paths: [join(dir, 'data', 'a.txt'), join(dir, 'data', 'b.txt')] },
      iface: 'mcp',
    });
    expect(many.output).toContain('alpha');
    expect(many.output).toContain('beta');
    const edited = await kernel.pipeline.call({
      tool: 'fs.edit_file',
      params: { path: join(dir, 'data', 'a.txt'), edits: [{ oldText: 'alpha', newText: 'ALPHA' }], dryRun: false },
      iface: 'mcp',
    });
    expect(edited.status).toBe('success');
    const read = await kernel.pipeline.call({
      tool: 'fs.read_text_file',
      params: { path: join(dir, 'data', 'a.txt'), head: 1 },
      iface: 'mcp',
    });
    expect(read.output).toBe('ALPHA');
    const outside = await kernel.pipeline.call({
      tool: 'fs.read_text_file',
      params: { path: '/etc/hostname' },
      iface: 'mcp',
    });
    expect(outside).toMatchObject({ status: 'error', exitCode: 1, error: expect.stringContaining('Access denied') });
  });
});

describe('mcp provider over Streamable HTTP', () => {
  it('lists and calls the tools of server-everything served over HTTP', async () => {
    const port = await freePort();
    const server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stderr.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
        server.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
      kernel = (
        await startTestKernel(
          `tools:
  web: {type: mcp, url: "http://127.0.0.1:${port}/mcp"}
`,
          [mcpPlugin],
        )
      ).kernel;
      const sum = await kernel.pipeline.call({ tool: 'web.get-sum', params: { a: 1, b: 2 }, iface: 'mcp' });
      expect(sum).toMatchObject({ status: 'success', output: 'The sum of 1 and 2 is 3.' });
    } finally {
      await kernel?.stop();
      kernel = undefined;
      server.kill();
    }
  });
});
