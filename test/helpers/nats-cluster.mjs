// A JetStream cluster of real `nats-server` processes on loopback, for the NATS log's tests and the
// bench (plain JavaScript so both can use it; its types are in nats-cluster.d.mts).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

const POLL_MS = 50;
/**
 * Servers started together (or two restarted after a loss of quorum) report healthy once JetStream
 * has a meta leader and its streams are current: Raft's randomised election timeouts (seconds each,
 * several rounds when votes split) took 1 to 11 s on an idle machine and over 20 s under the suite.
 */
const READY_WITHIN_MS = 60_000;

/** Starts `size` JetStream servers routed to each other; resolves once every one reports healthy. */
export async function startNatsCluster(size = 3) {
  const dir = mkdtempSync(join(tmpdir(), 'factorly-nats-'));
  const ports = await Promise.all(Array.from({ length: size * 3 }, freePort));
  const routes = Array.from({ length: size }, (_, i) => `nats-route://127.0.0.1:${ports[i * 3 + 1]}`);
  const nodes = Array.from({ length: size }, (_, i) => {
    const [client, cluster, monitor] = ports.slice(i * 3, i * 3 + 3);
    const config = join(dir, `n${i + 1}.conf`);
    writeFileSync(
      config,
      [
        `server_name: n${i + 1}`,
        `listen: 127.0.0.1:${client}`,
        `http: 127.0.0.1:${monitor}`,
        `jetstream { store_dir: "${join(dir, `store-n${i + 1}`)}" }`,
        `cluster { name: factorly-test, listen: 127.0.0.1:${cluster}, routes: [${routes.filter((_, j) => j !== i).join(', ')}] }`,
        '',
      ].join('\n'),
    );
    return { name: `n${i + 1}`, url: `nats://127.0.0.1:${client}`, monitor: `http://127.0.0.1:${monitor}`, config };
  });
  for (const node of nodes) launch(node);
  const cluster = {
    servers: nodes.map((node) => node.url),
    nodes,
    async kill(index) {
      const node = nodes[index];
      const child = node.process;
      node.process = undefined;
      // A server that never started (or has ended) has nothing left to wait for.
      if (!child || child.spawnError || child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
    async restart(index) {
      launch(nodes[index]);
      await healthy(nodes.filter((node) => node.process));
    },
    async stop() {
      await Promise.all(nodes.map((_, index) => (nodes[index].process ? cluster.kill(index) : undefined)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await healthy(nodes);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

function launch(node) {
  const child = spawn('nats-server', ['-c', node.config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  child.on('error', (error) => {
    child.spawnError = new Error(
      `cannot start nats-server: ${error.message} (scripts/install-test-deps.sh installs it)`,
    );
  });
  Object.assign(child, { lastStderr: () => stderr });
  node.process = child;
}

/** Polls each server's `/healthz` (JetStream included) until all answer ok. */
async function healthy(nodes) {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (const node of nodes) {
    for (;;) {
      if (node.process?.spawnError) throw node.process.spawnError;
      if (node.process?.exitCode !== null && node.process?.exitCode !== undefined) {
        throw new Error(`nats-server ${node.name} exited: ${node.process.lastStderr()}`);
      }
      const answer = await fetch(`${node.monitor}/healthz`).then(
        async (response) => ({ ok: response.ok, text: await response.text() }),
        (error) => ({ ok: false, text: String(error) }),
      );
      if (answer.ok) break;
      if (Date.now() > deadline)
        throw new Error(
          `nats-server ${node.name} not healthy within ${READY_WITHIN_MS} ms; /healthz said: ${answer.text}`,
        );
      await delay(POLL_MS);
    }
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
