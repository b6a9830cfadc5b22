import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterEach } from 'vitest';
import { tempProject } from '../../../test/helpers/project.js';
import { cliEnv } from './cli-run.js';

/**
 * What the canary tests share: the tools that handle a vault secret (a CLI tool printing it in
 * every encoding, a REST tool against a server reflecting it, an upstream MCP server given it in
 * its env) and the project they run in. Each canary drives them through one interface.
 */

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

export { awkwardSecret } from '../../../test/helpers/leaks.js';

/** A secret that can travel in a URL path and an HTTP header unchanged: for the REST tool. */
export function wireSafeSecret(): string {
  return `cnry-${randomBytes(12).toString('base64url')}-${randomBytes(4).toString('hex')}`;
}

// Prints the secret it was given (as argv[1], env TOKEN and stdin) in every encoding we scrub,
// on stdout and stderr, plus its sha256 so the test can tell the tool really received it.
const PRINTER = `
const v = process.argv[1];
if (v !== process.env.TOKEN || v !== require('fs').readFileSync(0, 'utf8')) { console.error('inputs differ'); process.exit(9); }
const b = Buffer.from(v);
const forms = [v, b.toString('base64'), b.toString('base64url'), b.toString('hex'), encodeURIComponent(v), JSON.stringify(v), JSON.stringify(JSON.stringify({ v }))];
console.log('sha256=' + require('crypto').createHash('sha256').update(v).digest('hex'));
console.log(forms.join('\\n'));
console.error(forms.join(' | '));
process.exit(Number(process.env.EXIT || 0));
`;

/** `leak` prints vault secret `key` in every encoding (exit code from `code`); `hydrated` echoes a param that may hold a reference. */
export function cliTools(key: string): string {
  return `  leak:
    type: cli
    description: echoes its secret in many encodings
    command: node
    args: ["-e", ${JSON.stringify(PRINTER)}, "{{vault:${key}}}"]
    stdin: "{{vault:${key}}}"
    env: {TOKEN: "{{vault:${key}}}", EXIT: "{{code}}"}
    parameters: [{name: code, default: "0"}]
  hydrated:
    type: cli
    command: node
    args: ["-e", "console.log(process.argv[1])", "{{token}}"]
    parameters: [{name: token, required: true, hydrate_vault_refs: ["{{vault:${key}}}"]}]
`;
}

/** `reflect` sends vault secret `key` in its path, a header and bearer auth to `base`; `up` is server-everything with it in its env. */
export function providerTools(key: string, base: string): string {
  return `  reflect:
    type: rest
    base_url: ${base}
    method: GET
    path: /echo/{{vault:${key}}}
    headers: {X-Api-Key: "{{vault:${key}}}"}
    auth: {type: bearer, token: "{{vault:${key}}}"}
  up:
    type: mcp
    command: ${process.execPath}
    args: [${JSON.stringify(EVERYTHING)}, stdio]
    env: {CANARY_ENV: "{{vault:${key}}}"}
`;
}

/** `dying` is an upstream MCP server that prints vault secret `key` (its env) on stderr and exits before the handshake. */
export function dyingUpstream(key: string): string {
  return `  dying:
    type: mcp
    command: ${process.execPath}
    args: ["-e", "console.error('upstream got ' + process.env.CANARY_ENV); process.exit(1)"]
    env: {CANARY_ENV: "{{vault:${key}}}"}
`;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

/** A local HTTP server that answers every request with the headers and URL it received; closed after the test. */
export async function reflector(): Promise<string> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ url: req.url, headers: req.headers }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A temp project with `tools` (YAML lines under `tools:`) and the CLI environment that unlocks its vault. */
export function canaryProject(tools: string): { root: string; env: NodeJS.ProcessEnv } {
  const root = tempProject({ '.factorly/factorly.yaml': `tools:\n${tools}` });
  return { root, env: cliEnv(root, { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') }) };
}
