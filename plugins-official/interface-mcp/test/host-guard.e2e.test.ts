import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { getWithHost } from '../../../test/helpers/http-get.js';
import { runCli, tempProject } from '../../../test/helpers/project.js';
import { startHttpServe } from './serve-process.js';

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const project = () =>
  tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });

describe('serve --port checks Host against the names it serves, port included, on every bind', () => {
  it('serve --port refuses to listen off loopback without a token', () => {
    for (const host of ['0.0.0.0', '::']) {
      const run = runCli(['serve', '--port', '0', '--host', host], project());
      // A usage error (the flags given cannot go together): exit 2.
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        `Error: --host ${host} is reachable from other machines, so every request must carry a token: pass --http-token (or set FACTORLY_HTTP_TOKEN)`,
      );
    }
  });

  it('serve --port bound to every address keeps the Host allow-list (it was skipped) and the token', async () => {
    const served = await startHttpServe(project(), [
      '--host',
      '0.0.0.0',
      '--http-token',
      'tok-123',
      '--allowed-host',
      'mcp.proxy.test',
    ]);
    stops.push(() => served.stop());
    const port = new URL(served.url).port;
    const bearer = { authorization: 'Bearer tok-123' };
    expect(await getWithHost(port, '/mcp', { host: `rebound.attacker.example:${port}`, ...bearer })).toEqual({
      status: 403,
      body: `Host "rebound.attacker.example:${port}" is not allowed`,
    });
    expect(await getWithHost(port, '/mcp', { host: `127.0.0.1:${Number(port) + 1}`, ...bearer })).toMatchObject({
      status: 403,
    });
    expect(await getWithHost(port, '/elsewhere', { host: `${hostname()}:${port}`, ...bearer })).toEqual({
      status: 404,
      body: 'not found: MCP is served at /mcp',
    });
    expect(await getWithHost(port, '/elsewhere', { host: `mcp.proxy.test:${port}`, ...bearer })).toMatchObject({
      status: 404,
    });
    expect(await getWithHost(port, '/elsewhere', { host: `${hostname()}:${port}` })).toMatchObject({ status: 401 });
  });
});
