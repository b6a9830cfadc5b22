import { createRequire } from 'node:module';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { parseWrapArgs, serverName, urlName } from '../../src/cli/wrap-args.js';
import { BIN, runCli, tempProject } from '../helpers/project.js';
import { projectEvents } from '../helpers/events.js';
import { isolatedEnv, spawnListening } from '../helpers/listening.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

describe('factorly wrap', () => {
  it('serves server-everything over stdio with the same tool names, real schemas and content, and logs each call', async () => {
    const root = tempProject({ '.factorly/.keep': '' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'wrap', '--', process.execPath, EVERYTHING, 'stdio'],
      cwd: root,
      env: isolatedEnv(root),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'wrap-test', version: '1' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image', 'get-structured-content']));
      expect(names.some((name) => name.startsWith('factorly.'))).toBe(false);
      expect(tools.find((tool) => tool.name === 'get-sum')!.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      });

      expect(await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } })).toMatchObject({
        content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }],
      });
      const image = await client.callTool({ name: 'get-tiny-image', arguments: {} });
      expect((image.content as { type: string }[]).map((item) => item.type)).toEqual(['text', 'image', 'text']);
      expect((image.content as { data?: string }[])[1]).toMatchObject({
        mimeType: 'image/png',
        data: expect.stringMatching(/^iVBORw0KGgo/),
      });
      const weather = await client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } });
      expect(weather.structuredContent).toMatchObject({ temperature: expect.any(Number) });
      const invalid = await client.callTool({ name: 'get-sum', arguments: { a: 'x' } });
      expect(invalid).toMatchObject({
        isError: true,
        content: [
          {
            type: 'text',
            text: 'parameter validation failed for "get-sum": a: expected number, got "x"; required parameter "b" missing',
          },
        ],
      });
    } finally {
      await client.close();
    }
    const completed = (await projectEvents(root))
      .filter((e) => e.type === 'call.completed')
      .map((e) => e.data as { status: string });
    expect(completed.map((c) => c.status)).toEqual(['success', 'success', 'success', 'blocked']);
    const requested = (await projectEvents(root))
      .filter((e) => e.type === 'call.requested')
      .map((e) => e.data as { tool: string; iface: string });
    expect(requested).toEqual(expect.arrayContaining([expect.objectContaining({ tool: 'get-sum', iface: 'mcp' })]));
  });

  it("takes the server's command line with or without --: everything from the first word that is not a flag is the server's", () => {
    const plain = parseWrapArgs(['--name', 'fs', 'node', 'srv.js', '--port', '1', '--', 'x']);
    expect(plain).toMatchObject({
      name: 'fs',
      command: 'node',
      args: ['srv.js', '--port', '1', '--', 'x'],
      entry: { command: 'node', args: ['srv.js', '--port', '1', '--', 'x'] },
    });
    expect(plain.port).toBeUndefined();
    expect(parseWrapArgs(['--', 'node', 'srv.js'])).toMatchObject({ command: 'node', args: ['srv.js'] });
    // MCP Inspector: npx @modelcontextprotocol/inspector --cli … -- node run.js wrap node srv.js
    expect(parseWrapArgs(['node', 'srv.js'])).toMatchObject({ name: 'srv', command: 'node', args: ['srv.js'] });
    expect(() => parseWrapArgs(['--nmae', 'x', 'node'])).toThrow(
      /unknown flag "--nmae" \(the server's command line starts at the first word that is not a flag, or after "--"\)/,
    );
  });

  it('caps output at 1 MiB and compresses nothing by default; --passthrough turns every output stage off', () => {
    expect(parseWrapArgs(['srv']).entry).toEqual({
      type: 'mcp',
      command: 'srv',
      args: [],
      prefix: false,
      max_output: 1_048_576,
    });
    expect(parseWrapArgs(['--passthrough', 'srv']).entry).toEqual({
      type: 'mcp',
      command: 'srv',
      args: [],
      prefix: false,
    });
    expect(() => parseWrapArgs(['--passthrough', '--compress', 'all', 'srv'])).toThrow(
      '--passthrough turns output processing off, so it cannot go with --max-output or --compress',
    );
    expect(parseWrapArgs(['--max-message-size', '64KiB', 'srv']).maxMessageBytes).toBe(65_536);
    expect(() => parseWrapArgs(['--max-message-size', 'huge', 'srv'])).toThrow(
      '--max-message-size: expected a size of at least 1KiB such as 4MiB, 512KiB or 1048576 (bytes), got "huge"',
    );
  });

  it('explains its usage when no command follows --', () => {
    const run = runCli(['wrap', '--name', 'x'], tempProject());
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^Error: usage: factorly wrap \[--name NAME\]/);
  });

  it("reports a bad flag value as the config loader would, naming the flag's key", () => {
    const run = runCli(['wrap', '--rate-limit', '10/fortnight', '--', 'node', 'x.js'], tempProject());
    expect(run).toMatchObject({
      status: 1,
      stderr:
        'Error: config: tool "x" has an invalid shadow.rate_limit: unknown unit "fortnight" in "10/fortnight" (units: sec, min, hour, day) (wrap:x:1)\n',
    });
  });

  it('--env-passthrough names variables the server gets besides the base; factorly’s own are refused at load', () => {
    expect(parseWrapArgs(['--env-passthrough', 'AWS_PROFILE', '--env-passthrough=LC_ALL', 'srv']).entry).toMatchObject({
      command: 'srv',
      env_passthrough: ['AWS_PROFILE', 'LC_ALL'],
    });
    expect(parseWrapArgs(['srv']).entry).not.toHaveProperty('env_passthrough');
    expect(() => parseWrapArgs(['--env-passthrough', 'AWS_PROFILE', '--url', 'http://127.0.0.1:1/mcp'])).toThrow(
      '--env and --env-passthrough apply to a command started over stdio, not to --url',
    );
    const run = runCli(['wrap', '--env-passthrough', 'FACTORLY_VAULT_PASSWORD', '--', 'node', 'x.js'], tempProject());
    expect(run).toMatchObject({
      status: 1,
      stderr: expect.stringContaining(
        'config: tool "x" has "env_passthrough" entry "FACTORLY_VAULT_PASSWORD": factorly\'s own variables (FACTORLY_*) may hold its secrets and never reach a tool',
      ),
    });
  });

  it('names the wrapped server after its package or script', () => {
    expect(serverName('npx', ['-y', '@modelcontextprotocol/server-github'])).toBe('github');
    expect(serverName('uvx', ['mcp-server-fetch'])).toBe('fetch');
    expect(serverName('python', ['-m', 'my_server'])).toBe('my_server');
    expect(serverName('node', ['server.js'])).toBe('server');
    expect(serverName('/usr/bin/thing', [])).toBe('thing');
    expect(parseWrapArgs(['--name=fs', '--', 'node', 'a.js', '--flag'])).toMatchObject({
      name: 'fs',
      command: 'node',
      args: ['a.js', '--flag'],
      entry: { command: 'node', args: ['a.js', '--flag'], prefix: false },
    });
  });

  it('takes --port, --host and --http-token for Streamable HTTP, and refuses a bad port or HTTP flags without --port', () => {
    expect(parseWrapArgs(['--port', '0', '--http-token=t', '--', 'node', 'a.js'])).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      token: 't',
    });
    expect(() => parseWrapArgs(['--port', 'http', '--', 'node'])).toThrow(
      '--port takes a port number from 0 to 65535, not "http"',
    );
    expect(() => parseWrapArgs(['--http-token', 't', '--', 'node'])).toThrow('--host and --http-token need --port');
  });

  it('puts --env, --rate-limit, --max-output, --compress and --timeout into the synthetic entry, and refuses bad pairs', () => {
    const args = parseWrapArgs([
      '--env',
      'A=1',
      '--env=B=x=y',
      '--rate-limit',
      '5/min',
      '--max-output',
      '100',
      '--compress',
      'none',
      '--timeout',
      '5s',
      '--',
      'srv',
    ]);
    expect(args.entry).toEqual({
      type: 'mcp',
      command: 'srv',
      args: [],
      env: { A: '1', B: 'x=y' },
      prefix: false,
      max_output: 100,
      compress: 'none',
      timeout: '5s',
      shadow: { rate_limit: '5/min', scope: 'server' },
    });
    expect(parseWrapArgs(['--url', 'http://127.0.0.1:3001/mcp'])).toMatchObject({
      name: 'mcp',
      entry: { url: 'http://127.0.0.1:3001/mcp' },
    });
    expect(urlName('http://my-server:8080')).toBe('my-server');
    expect(urlName('http://localhost:3000')).toBe('wrapped');
    expect(() => parseWrapArgs(['--env', 'NOEQUALS', '--', 'srv'])).toThrow('--env takes NAME=VALUE, not "NOEQUALS"');
    expect(() => parseWrapArgs(['--url', 'http://x/mcp', '--env', 'A=1'])).toThrow(
      '--env and --env-passthrough apply to a command started over stdio, not to --url',
    );
    expect(() => parseWrapArgs(['--url', 'http://x/mcp', '--', 'srv'])).toThrow('usage: factorly wrap');
  });

  it("takes --header 'Name: value' (repeatable) for --url, and keeps the server's login by its URL", () => {
    const args = parseWrapArgs([
      '--url',
      'https://mcp.example.com/mcp',
      '--header',
      'A: 1',
      '--header=X-Key: {{vault:K}}',
    ]);
    expect(args.entry).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: { A: '1', 'X-Key': '{{vault:K}}' },
      oauth: { token_key: 'wrap_mcp.example.com_mcp_oauth' },
    });
    expect(() => parseWrapArgs(['--url', 'http://x/mcp', '--header', 'no colon'])).toThrow(
      `--header takes 'Name: value', not "no colon"`,
    );
    expect(() => parseWrapArgs(['--header', 'A: b', '--', 'node', 'x.js'])).toThrow(
      '--header applies to --url, not to a command started over stdio',
    );
  });

  it('passes --env to the server, enforces --rate-limit across its tools, and fronts another server by --url', async () => {
    const root = tempProject({ '.factorly/.keep': '' });
    const env = isolatedEnv(root);
    const front = await spawnListening(
      [
        BIN,
        'wrap',
        '--port',
        '0',
        '--env',
        'WRAP_MARK=hello-env',
        '--rate-limit',
        '3/hour',
        '--',
        process.execPath,
        EVERYTHING,
        'stdio',
      ],
      { cwd: root, env },
    );
    try {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [BIN, 'wrap', '--url', front.url],
        cwd: root,
        env,
        stderr: 'pipe',
      });
      const client = new Client({ name: 'wrap-url', version: '1' });
      await client.connect(transport);
      try {
        const printed = await client.callTool({ name: 'get-env', arguments: {} });
        expect(JSON.stringify(printed.content)).toContain('hello-env');
        expect(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 1 } })).toMatchObject({
          content: [{ text: 'The sum of 1 and 1 is 2.' }],
        });
        await client.callTool({ name: 'echo', arguments: { message: 'third' } });
        const fourth = await client.callTool({ name: 'echo', arguments: { message: 'fourth' } });
        expect(fourth.isError).toBe(true);
        expect(JSON.stringify(fourth.content)).toMatch(/rate limit/);
      } finally {
        await client.close();
      }
    } finally {
      await front.stop();
    }
  });

  it('serves the wrapped server over Streamable HTTP with a token', async () => {
    const root = tempProject({ '.factorly/.keep': '' });
    const served = await spawnListening(
      [BIN, 'wrap', '--port', '0', '--http-token', 'wrap-tok', '--', process.execPath, EVERYTHING, 'stdio'],
      { cwd: root, env: isolatedEnv(root) },
    );
    const { url } = served;
    try {
      const client = new Client({ name: 'wrap-http', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { Authorization: 'Bearer wrap-tok' } },
        }),
      );
      expect(await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } })).toMatchObject({
        content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
      });
      await client.close();
      expect((await fetch(url, { method: 'POST', body: '{}' })).status).toBe(401);
    } finally {
      await served.stop();
    }
  });
});
