// Reads a V8 CPU profile (`node --cpu-prof`) and splits the samples taken in a time window into the
// stages of a proxied MCP call, by the function each sample was in (its self time): which file it
// lives in, and for a few shared helpers, its name. Self time adds up: the stages sum to the whole.
import { readFileSync } from 'node:fs';

/**
 * Stages in the order the table shows them. Each has a test on the sample's frame (`url` is the
 * script's file URL or `node:` id, `fn` the function name); the first that matches takes the sample.
 */
export const STAGES = [
  ['gc', 'garbage collection', (f) => f.fn === '(garbage collector)'],
  ['vm', 'V8/native outside JS (program)', (f) => f.fn === '(program)'],
  ['zod', "the SDK's own validation (zod schemas)", (f) => /\/node_modules\/zod\//.test(f.url)],
  ['ajv', "the SDK's output-schema validation (ajv)", (f) => /\/node_modules\/ajv/.test(f.url)],
  [
    'framing',
    'framing: stdio line split and checks',
    (f) =>
      /interface-mcp\/dist\/src\/(framing|stdio-transport)\.js/.test(f.url) ||
      /@modelcontextprotocol\/sdk\/dist\/esm\/(shared\/stdio|server\/stdio|client\/stdio)\.js/.test(f.url),
  ],
  ['http', 'HTTP front (node:http, SDK Streamable HTTP transport)', (f) => isHttp(f.url)],
  ['sdk', "the SDK's protocol layer (request routing, responses)", (f) => /@modelcontextprotocol\/sdk\//.test(f.url)],
  ['lmdb', 'LMDB write and read (lmdb-js, the log store)', (f) => isLmdb(f.url)],
  ['hash', 'hashing and canonical JSON (chain, fingerprint, Merkle)', (f) => isHash(f)],
  ['scrub', 'scrubbing (redactor, output processors)', (f) => isScrub(f.url)],
  ['cap', 'capping (params and output bounds)', (f) => /\/capped-text\.js|output\/dist\/src\/content-cap/.test(f.url)],
  [
    'validate',
    "factorly's params validation",
    (f) => /\/config\/dist\/src\/params|src\/config\/params\.js/.test(f.url),
  ],
  ['rules', 'rule chain (gate, rules, history folds)', (f) => isRules(f.url)],
  ['log', 'event log (seal, batch, projections, bus, index)', (f) => /\/dist\/src\/events\//.test(f.url)],
  ['upstream', 'the upstream hop (provider-mcp, its SDK client)', (f) => /provider-mcp\/dist\//.test(f.url)],
  ['front', 'serve / wrap front (interface-mcp sessions, results)', (f) => /interface-mcp\/dist\//.test(f.url)],
  [
    'kernel',
    'the rest of the pipeline (kernel: context, record, registry)',
    (f) => /\/dist\/src\/kernel\//.test(f.url),
  ],
  [
    'signals',
    "abort signals and event targets (a call's cancellation wiring)",
    (f) => /^node:internal\/(abort_controller|event_target)/.test(f.url),
  ],
  [
    'io',
    'Node I/O: streams, pipes, sockets, child process',
    (f) =>
      /^node:(internal\/(streams|stream_base|child_process|net|pipe|fs)|net|stream|child_process)/.test(f.url) ||
      /^(writeUtf8String|writeLatin1String|writeAsciiString|writeBuffer|writev|onStreamRead)$/.test(f.fn),
  ],
  [
    'async',
    'promises, microtasks, timers',
    (f) => /^node:internal\/(process\/task_queues|timers|async_hooks)/.test(f.url),
  ],
  ['other', 'everything else (other factorly code, Node internals)', () => true],
];

const isHttp = (url) =>
  /^node:(_http|http|internal\/http)/.test(url) ||
  /@modelcontextprotocol\/sdk\/dist\/esm\/(server|client)\/streamableHttp\.js/.test(url) ||
  /@hono\/node-server|\/node_modules\/hono\//.test(url) ||
  /interface-mcp\/dist\/src\/http-/.test(url);
const isLmdb = (url) => /\/node_modules\/(lmdb|msgpackr|ordered-binary)\//.test(url) || /events\/lmdb-/.test(url);
const isHash = (f) =>
  /\/events\/(hash|merkle|transparency-tree|lmdb-tree)\.js|canonicalize|\/safe-stable-stringify\//.test(f.url) ||
  /^node:internal\/crypto\/hash/.test(f.url) ||
  /^(canonical|canonicalJson|fingerprintOf|hashOf|sha256)/.test(f.fn);
const isScrub = (url) =>
  /kernel\/(redact|process-output|process-content|secret-scope)\.js/.test(url) ||
  /vault\/dist\/src\/scrub/.test(url) ||
  /output\/dist\/src\/(processors|pipe)/.test(url);
const isRules = (url) =>
  /kernel\/(shadow-|rule-chain)/.test(url) || /shadow\/dist\//.test(url) || /contracts\/verdict-check/.test(url);

/**
 * Self samples per stage of the samples taken between `from` and `to` (µs on the profile's clock,
 * CLOCK_MONOTONIC: the same as `process.hrtime` in any process on this machine), idle left out.
 * Returns the stage times, their total, and the functions that took the most.
 */
export function stagesOf(profileFile, from, to) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const frames = new Map(
    profile.nodes.map((node) => [
      node.id,
      { fn: node.callFrame.functionName || '(anonymous)', url: node.callFrame.url },
    ]),
  );
  const parentOf = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const stageOf = new Map();
  const byStage = Object.fromEntries(STAGES.map(([id]) => [id, 0]));
  const byFunction = new Map();
  let t = profile.startTime;
  let total = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    t += profile.timeDeltas[i] ?? 0;
    // Each sample counts the same: the profiler takes one per interval while the thread runs, and
    // one with a long delta after the machine let it wait, which would weigh where it resumed.
    const delta = 1;
    if (t < from || t > to) continue;
    const frame = frames.get(profile.samples[i]);
    if (frame.fn === '(idle)') continue;
    // A sample stands for the time since the one before it.
    let stage = stageOf.get(profile.samples[i]);
    if (stage === undefined) {
      stage = STAGES.find(([, , test]) => test(frame))[0];
      stageOf.set(profile.samples[i], stage);
    }
    byStage[stage] += delta;
    total += delta;
    const caller = frames.get(parentOf.get(profile.samples[i]));
    const key = `${frame.fn} ${shortUrl(frame.url)}  <- ${caller ? `${caller.fn} ${shortUrl(caller.url)}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + delta);
  }
  const top = [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25);
  return { byStage, total, top };
}

function shortUrl(url) {
  return url
    .replace(/^file:\/\/.*?\/node_modules\//, 'npm:')
    .replace(/^file:\/\/.*?\/plugins-official\//, 'plugins/')
    .replace(/^file:\/\/.*?\/dist\/src\//, 'src/');
}
