// Load generators for MCP throughput that stay out of the way of the server they measure: JSON-RPC
// bodies are built before the clock starts, on one open session; stdio writes framed lines to the
// child's stdin and matches answers by id; HTTP sends raw keep-alive requests with the session id.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { now } from './stats.mjs';

const PROTOCOL_VERSION = '2025-06-18';
const initialize = (id) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'factorly-bench-load', version: '1.0.0' },
  },
});
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** `count` tools/call bodies with distinct texts (identical calls would be what loop detection blocks). */
export function callBodies(count, firstId = 1) {
  const bodies = new Array(count);
  for (let i = 0; i < count; i += 1) {
    const id = firstId + i;
    bodies[i] = JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: `m${id}` } },
    });
  }
  return bodies;
}

/** True when a tools/call answer is the echo of call `id`. */
function echoed(message, id) {
  return (
    message.id === id && !message.error && !message.result?.isError && message.result?.content?.[0]?.text === `m${id}`
  );
}

/**
 * A load session: the route's server spawned and initialized over stdio (or one HTTP session
 * opened), ready to `run({ warmup, measured, concurrency })` and to be closed.
 */
export async function openStdioLoad({ command, args, cwd }) {
  const child = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => {
    stderr = (stderr + c.toString('utf8')).slice(-4_096);
  });
  const waiting = new Map();
  let buffered = '';
  let pendingWrites = [];
  let flushScheduled = false;
  const flushWrites = () => {
    flushScheduled = false;
    if (pendingWrites.length === 0) return;
    child.stdin.write(`${pendingWrites.join('\n')}\n`);
    pendingWrites = [];
  };
  child.stdout.on('data', (chunk) => {
    buffered += chunk.toString('utf8');
    let newline;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() === '') continue;
      const message = JSON.parse(line);
      const settle = waiting.get(message.id);
      if (settle) {
        waiting.delete(message.id);
        settle(message);
      }
    }
    // The workers queue their next bodies in the microtasks the answers above started: write them
    // all at once after those have run.
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flushWrites);
    }
  });
  const failedEarly = new Promise((_, reject) =>
    child.once('exit', (code) =>
      reject(new Error(`${command} ${args.join(' ')} exited (code ${code}): ${stderr.trim()}`)),
    ),
  );
  failedEarly.catch(() => undefined);
  const send = (body, id) =>
    new Promise((settle) => {
      waiting.set(id, settle);
      pendingWrites.push(body);
    });
  const close = async () => {
    child.stdin.end();
    const gone = new Promise((r) => child.once('exit', r));
    const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
    if (child.exitCode === null && child.signalCode === null) await gone;
    clearTimeout(timer);
  };
  try {
    const init = send(JSON.stringify(initialize(0)), 0);
    flushWrites();
    const answer = await Promise.race([init, failedEarly]);
    if (answer.error) throw new Error(`initialize failed: ${JSON.stringify(answer.error)}`);
    child.stdin.write(`${JSON.stringify(INITIALIZED)}\n`);
  } catch (error) {
    await close();
    throw error;
  }
  const run = async ({ warmup, measured, concurrency }) => {
    const pool = (list) => Promise.race([runPool(list, concurrency, send, flushWrites), failedEarly]);
    await pool(warmup);
    return pool(measured);
  };
  return { run, close, pid: child.pid };
}

/**
 * One Streamable HTTP session, loaded through a keep-alive agent with one socket per in-flight
 * call. Answers may be JSON or one SSE event.
 */
export async function openHttpLoad(url) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const close = async () => agent.destroy();
  let session;
  try {
    const init = await post(agent, url, headers, JSON.stringify(initialize(0)));
    const sessionId = init.headers['mcp-session-id'];
    if (init.status !== 200 || !sessionId)
      throw new Error(`initialize over HTTP failed (status ${init.status}): ${init.body.slice(0, 300)}`);
    session = {
      ...headers,
      'mcp-session-id': sessionId,
      'mcp-protocol-version': parseAnswer(init.body).result?.protocolVersion ?? PROTOCOL_VERSION,
    };
    await post(agent, url, session, JSON.stringify(INITIALIZED));
  } catch (error) {
    await close();
    throw error;
  }
  const call = async (body) => {
    const answer = await post(agent, url, session, body);
    return answer.status === 200
      ? parseAnswer(answer.body)
      : { status: answer.status, body: answer.body.slice(0, 200) };
  };
  const run = async ({ warmup, measured, concurrency }) => {
    await runPool(warmup, concurrency, call);
    return runPool(measured, concurrency, call);
  };
  return { run, close };
}

/**
 * `concurrency` workers take the next body until none is left or `seconds` have passed; the
 * rate is the answered calls over the time the last of them took.
 */
async function runPool({ bodies, seconds: budget }, concurrency, send, afterBatch = () => {}) {
  let next = 0;
  let answered = 0;
  let errors = 0;
  let firstError;
  const t0 = now();
  const deadline = t0 + budget * 1000;
  const worker = async () => {
    while (next < bodies.length && now() < deadline) {
      const body = bodies[next];
      next += 1;
      const id = idOf(body);
      // A transport error (a reset socket) counts as a failed call, not the end of the run.
      const message = await send(body, id).catch((error) => ({ transportError: String(error?.message ?? error) }));
      answered += 1;
      if (!echoed(message, id)) {
        errors += 1;
        firstError ??= JSON.stringify(message).slice(0, 300);
      }
    }
  };
  const workers = Array.from({ length: Math.min(concurrency, bodies.length) }, worker);
  afterBatch();
  await Promise.all(workers);
  const seconds = (now() - t0) / 1000;
  return { calls: answered, seconds, callsPerSecond: answered / seconds, errors, firstError };
}

/** The id of a body built by callBodies (read back, not re-parsed: the generator stays cheap). */
function idOf(body) {
  const start = body.indexOf('"id":') + 5;
  return Number(body.slice(start, body.indexOf(',', start)));
}

function post(agent, url, headers, body) {
  return new Promise((resolvePost, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolvePost({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A JSON-RPC answer from a JSON body or from the `data:` line(s) of one SSE event. */
function parseAnswer(body) {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{')) return JSON.parse(trimmed);
  const data = trimmed
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('');
  return data ? JSON.parse(data) : {};
}
