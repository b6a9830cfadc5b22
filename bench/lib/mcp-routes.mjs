// The routes the MCP overhead bench compares, each fronting the same echo server
// (bench/fixtures/echo-server.mjs): how to start it, how to reach it with the SDK client, how to stop it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const ECHO_SERVER = join(BENCH_DIR, 'fixtures', 'echo-server.mjs');
const SDK_PROXY = join(BENCH_DIR, 'fixtures', 'sdk-proxy.mjs');
const RAW_HOP = join(BENCH_DIR, 'fixtures', 'raw-hop.mjs');
const require = createRequire(import.meta.url);
const node = process.execPath;
/** What `factorly serve --port` and `wrap --port` print on stderr once listening. */
const FACTORLY_URL = /Streamable HTTP at http:\/\/127\.0\.0\.1:(\d+)\/mcp/;

/** A bridge's CLI entry point, from its own package.json (devDependencies of the root). */
function binOf(pkg, name) {
  const manifest = require.resolve(`${pkg}/package.json`);
  const { bin } = require(manifest);
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin[name]);
}

/** A free port on 127.0.0.1, for bridges that cannot pick one themselves and say which. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** A project whose only configured tool is the echo server, served under its own name. */
function echoProject(repo, dir, head = '') {
  mkdirSync(dir, { recursive: true });
  const init = spawnSync(node, [join(repo, 'bin', 'run.js'), 'init'], { cwd: dir, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`factorly init failed in ${dir}: ${init.stderr || init.stdout}`);
  const yaml = `${head}tools:\n  echo:\n    type: mcp\n    command: ${JSON.stringify(node)}\n    args: [${JSON.stringify(ECHO_SERVER)}]\n    prefix: false\n`;
  writeFileSync(join(dir, '.factorly', 'factorly.yaml'), yaml);
  return dir;
}

/**
 * Every route: `stdio` ones are a command the client spawns; `http` ones a process that listens,
 * reached at `url` once it answers. `available` is false when this build lacks the feature.
 */
export async function defineRoutes({ repo, tmpRoot, baselineRepo }) {
  const bin = join(repo, 'bin', 'run.js');
  const serveDir = echoProject(repo, join(tmpRoot, 'mcp-serve'));
  // The documented faster mode: acknowledged at commit, no fsync waited for (survives a killed process, not a power cut).
  const commitDir = echoProject(repo, join(tmpRoot, 'mcp-serve-commit'), 'log: {durability: commit}\n');
  const wrapDir = join(tmpRoot, 'mcp-wrap');
  mkdirSync(join(wrapDir, '.factorly'), { recursive: true }); // a bare .factorly/: wrap logs there, not globally
  const [proxyPort, gatewayPort] = [await freePort(), await freePort()];
  const routes = [
    { id: 'direct', name: 'direct stdio (no proxy)', transport: 'stdio', command: node, args: [ECHO_SERVER] },
    // The two floors under any proxy: a raw JSON hop (parse and serialise each line, nothing else),
    // and a minimal SDK proxy (an SDK Server whose tools/call goes to an SDK Client of the upstream).
    {
      id: 'floor-raw',
      name: 'floor: raw JSON hop, stdio',
      transport: 'stdio',
      floor: true,
      command: node,
      args: [RAW_HOP, '--', node, ECHO_SERVER],
    },
    {
      id: 'floor-sdk',
      name: 'floor: minimal SDK proxy (Server + Client), stdio',
      transport: 'stdio',
      floor: true,
      command: node,
      args: [SDK_PROXY, '--', node, ECHO_SERVER],
    },
    {
      id: 'serve',
      name: 'factorly serve, stdio',
      transport: 'stdio',
      factorly: true,
      command: node,
      args: [bin, 'serve'],
      cwd: serveDir,
    },
    {
      id: 'serve-commit',
      name: 'factorly serve, stdio, log durability: commit',
      transport: 'stdio',
      factorly: true,
      command: node,
      args: [bin, 'serve'],
      cwd: commitDir,
    },
    {
      id: 'wrap',
      name: 'factorly wrap, stdio',
      transport: 'stdio',
      factorly: true,
      command: node,
      args: [bin, 'wrap', '--', node, ECHO_SERVER],
      cwd: wrapDir,
    },
    {
      id: 'direct-http',
      name: 'direct HTTP (SDK server, no proxy)',
      transport: 'http',
      command: node,
      args: [ECHO_SERVER, '--port', '0'],
      portFrom: /listening (\d+)/,
    },
    {
      id: 'serve-http',
      name: 'factorly serve --port, HTTP',
      transport: 'http',
      factorly: true,
      command: node,
      args: [bin, 'serve', '--port', '0'],
      cwd: serveDir,
      portFrom: FACTORLY_URL,
    },
    {
      id: 'wrap-http',
      name: 'factorly wrap --port, HTTP',
      transport: 'http',
      factorly: true,
      command: node,
      args: [bin, 'wrap', '--port', '0', '--', node, ECHO_SERVER],
      cwd: wrapDir,
      portFrom: FACTORLY_URL,
    },
    {
      id: 'mcp-proxy',
      name: 'mcp-proxy, HTTP',
      transport: 'http',
      bridge: true,
      command: node,
      args: [
        binOf('mcp-proxy', 'mcp-proxy'),
        '--port',
        String(proxyPort),
        '--host',
        '127.0.0.1',
        '--server',
        'stream',
        '--',
        node,
        ECHO_SERVER,
      ],
      port: proxyPort,
    },
    {
      id: 'supergateway',
      name: 'supergateway --stateful, HTTP',
      transport: 'http',
      bridge: true,
      command: node,
      args: [
        binOf('supergateway', 'supergateway'),
        '--stdio',
        `${JSON.stringify(node)} ${JSON.stringify(ECHO_SERVER)}`,
        '--outputTransport',
        'streamableHttp',
        '--stateful',
        '--port',
        String(gatewayPort),
        '--logLevel',
        'none',
      ],
      port: gatewayPort,
    },
  ];
  if (baselineRepo) {
    // Another build of factorly (say, main before a change), measured in the same run, on its own log.
    const baselineDir = echoProject(baselineRepo, join(tmpRoot, 'mcp-serve-baseline'));
    routes.splice(routes.findIndex((r) => r.id === 'serve') + 1, 0, {
      id: 'serve-baseline',
      name: 'factorly serve, stdio (baseline build)',
      transport: 'stdio',
      factorly: true,
      command: node,
      args: [join(baselineRepo, 'bin', 'run.js'), 'serve'],
      cwd: baselineDir,
    });
  }
  return routes;
}

/** Starts an HTTP route's process and resolves with its /mcp URL once it accepts connections. */
export async function startHttp(route, timeoutMs = 60_000) {
  const child = spawn(route.command, route.args, { cwd: route.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk) => {
    output = (output + chunk.toString('utf8')).slice(-8_192);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`${route.name} exited (code ${code}) before it listened: ${output.trim()}`)),
    ),
  );
  exited.catch(() => undefined);
  const deadline = Date.now() + timeoutMs;
  let port = route.port;
  while (port === undefined || !(await accepts(port))) {
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${route.name} did not listen within ${timeoutMs} ms: ${output.trim()}`);
    }
    if (route.portFrom && port === undefined) port = Number(route.portFrom.exec(output)?.[1]) || undefined;
    await Promise.race([exited, new Promise((r) => setTimeout(r, 50))]);
  }
  return { child, url: `http://127.0.0.1:${port}${route.path ?? '/mcp'}`, output: () => output };
}

function accepts(port) {
  return new Promise((resolveAccepts) => {
    import('node:net').then(({ connect }) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolveAccepts(true);
      });
      socket.once('error', () => resolveAccepts(false));
    });
  });
}

/** The SDK client every route is measured with, connected over the route's own transport. */
export async function connectClient(route, url) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'factorly-bench', version: '1.0.0' });
  let transport;
  if (route.transport === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    transport = new StdioClientTransport({ command: route.command, args: route.args, cwd: route.cwd, stderr: 'pipe' });
  } else {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(new URL(url));
  }
  await client.connect(transport, { timeout: 60_000 });
  return client;
}

/** Stops a spawned process: SIGTERM, then SIGKILL if it lingers. */
export async function stopChild(child, graceMs = 3_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
