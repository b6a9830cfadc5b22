import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { tempProject } from '../../../test/helpers/project.js';
import { cliEnv, runCliAsync } from './cli-run.js';
import { leaksIn, leaksUnder } from './leaks.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** A local HTTP server that answers every request with the headers and URL it received. */
async function reflector(): Promise<string> {
  server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('canary: a vault secret used by a REST tool and an upstream MCP server never shows up', () => {
  it('is redacted from REST responses that reflect it and from an upstream server that prints its env', { timeout: 180_000 }, async () => {
    const secret = `cnry-${randomBytes(12).toString('base64url')}-${randomBytes(4).toString('hex')}`;
    const base = await reflector();
    const config = `tools:
  reflect:
    type: rest
    base_url: ${base}
    method: GET
    path: /echo/{{vault:CANARY}}
    headers: {X-Api-Key: "{{vault:CANARY}}"}
    auth: {type: bearer, token: "{{vault:CANARY}}"}
  up:
    type: mcp
    command: ${process.execPath}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
    env: {CANARY_ENV: "{{vault:CANARY}}"}
`;
    const root = tempProject({ '.factorly/factorly.yaml': config });
    const env = cliEnv(root, { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') });
    const cli = (args: string[]) => runCliAsync(args, root, env);
    // The config already names an upstream server that needs the secret: `vault set` must not start it.
    const set = (await cli(['vault', 'set', 'CANARY', secret])).status;
    expect(set).toBe(0);

    const rest = await cli(['call', 'reflect', '--json']);
    expect(rest.status).toBe(0);
    const reflected = JSON.parse(JSON.parse(rest.stdout).output);
    expect(reflected.headers['x-api-key']).toBe('[REDACTED:CANARY]');
    expect(reflected.headers.authorization).toBe('Bearer [REDACTED:CANARY]');
    expect(reflected.url).toBe('/echo/[REDACTED:CANARY]');

    const upstream = await cli(['call', 'up.get-env']);
    expect(upstream.status).toBe(0);
    expect(upstream.stdout).toContain('"CANARY_ENV": "[REDACTED:CANARY]"');

    const logs = [await cli(['logs', '--json']), await cli(['logs', '--detail']), await cli(['logs', 'export'])];
    for (const [i, run] of [rest, upstream, ...logs].entries()) expect(leaksIn(run.stdout + run.stderr, secret), `output ${i}`).toEqual([]);
    expect(leaksUnder(root, secret)).toEqual([]);
  });
});
