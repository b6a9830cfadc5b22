import { request as httpRequest } from 'node:http';
import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { startHttpServe } from '../../plugins-official/interface-mcp/test/serve-process.js';
import { startUi } from '../../plugins-official/interface-ui/test/harness.js';
import { servedHosts } from '../../plugins-official/net-guard/src/served-hosts.js';
import { runCli, tempProject } from '../helpers/project.js';

/** A GET to 127.0.0.1:<port> with the Host header an attacker's page would send. */
function get(port: string, path: string, headers: Record<string, string>): Promise<{ status?: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: Number(port), path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode, body: body.trim() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

const project = () =>
  tempProject({ '.factorly/factorly.yaml': 'tools:\n  hi: {type: cli, command: echo, args: [hi]}\n' });

describe('the Host allow-list includes the port, and holds on every bind', () => {
  it("lists loopback names, the bound address, off loopback the machine's names, and --allowed-host, each with the port", () => {
    expect([...servedHosts('127.0.0.1', 3741)].sort()).toEqual(['127.0.0.1:3741', '[::1]:3741', 'localhost:3741']);
    const everywhere = servedHosts('0.0.0.0', 3741, ['proxy.test', 'other.test:8443']);
    expect(everywhere).toContain(`${hostname().toLowerCase()}:3741`);
    expect(everywhere).toContain('proxy.test:3741');
    expect(everywhere).toContain('other.test:8443');
    expect(everywhere).not.toContain('0.0.0.0:3741');
    expect(servedHosts('127.0.0.1', 80)).toContain('localhost');
  });

  it('factorly ui refuses its own names on another port (a page of another local server) and foreign names', async () => {
    const ui = await startUi(project());
    stops.push(ui.stop);
    const port = new URL(ui.origin).port;
    const cookie = `factorly_session=${ui.token}`;
    expect(await get(port, '/history', { host: `127.0.0.1:${Number(port) + 1}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await get(port, '/history', { host: `localhost:${Number(port) + 1}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await get(port, '/history', { host: 'attacker.example', cookie })).toMatchObject({ status: 403 });
    expect(await get(port, '/history', { host: `localhost:${port}`, cookie })).toMatchObject({ status: 200 });
  });

  it("factorly ui bound to every address still checks Host: the machine's names and --allowed-host pass, others do not", async () => {
    const ui = await startUi(project(), {}, ['--host', '0.0.0.0', '--allowed-host', 'ui.proxy.test']);
    stops.push(ui.stop);
    const port = new URL(ui.origin).port;
    const cookie = `factorly_session=${ui.token}`;
    expect(await get(port, '/history', { host: `rebound.attacker.example:${port}`, cookie })).toMatchObject({
      status: 403,
    });
    expect(await get(port, '/history', { host: `${hostname()}:${port}`, cookie })).toMatchObject({ status: 200 });
    expect(await get(port, '/history', { host: `ui.proxy.test:${port}`, cookie })).toMatchObject({ status: 200 });
    expect(await get(port, '/history', { host: `${hostname()}:${port}` })).toMatchObject({ status: 401 });
  });

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
    expect(await get(port, '/mcp', { host: `rebound.attacker.example:${port}`, ...bearer })).toEqual({
      status: 403,
      body: `Host "rebound.attacker.example:${port}" is not allowed`,
    });
    expect(await get(port, '/mcp', { host: `127.0.0.1:${Number(port) + 1}`, ...bearer })).toMatchObject({
      status: 403,
    });
    expect(await get(port, '/elsewhere', { host: `${hostname()}:${port}`, ...bearer })).toEqual({
      status: 404,
      body: 'not found: MCP is served at /mcp',
    });
    expect(await get(port, '/elsewhere', { host: `mcp.proxy.test:${port}`, ...bearer })).toMatchObject({ status: 404 });
    expect(await get(port, '/elsewhere', { host: `${hostname()}:${port}` })).toMatchObject({ status: 401 });
  });
});
