// The kernel's own share of a governed call under load, without MCP or processes in the way: the
// call pipeline in this process, a tool that answers at once, the official shadow rules (loop
// detection decides every call against the log) and the durable LMDB log, `concurrency` calls in
// flight. Reports calls/s and the process's CPU per call (steadier than calls/s on a busy machine).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inline, noopPlugin } from './noop-plugin.mjs';
import { now, round } from './stats.mjs';

const YAML = 'tools:\n  noop:\n    type: noop\n    parameters: [{name: i, type: integer}]\n';
/** The tool type the load calls: it answers on the next turn of the event loop, as I/O would. */
const noopProvider = noopPlugin(
  () => new Promise((resolve) => setImmediate(() => resolve({ output: 'ok', exitCode: 0 }))),
);

/**
 * A kernel with the noop tool, the shadow rules and a fresh durable LMDB log, ready to `drive` calls
 * (`seconds` of them, or `calls` of them) at a concurrency, and to `stop`.
 * @param {{ repo: string, tmpRoot: string, label: string }} opts `repo`: the factorly checkout whose
 *   built kernel and shadow plugin are loaded (so a baseline build can be measured in the same run).
 */
export async function openPipeline(opts) {
  const { createKernel } = await import(pathToFileURL(join(opts.repo, 'dist', 'src', 'kernel', 'kernel.js')).href);
  const { plugin: shadow } = await import(
    pathToFileURL(join(opts.repo, 'plugins-official', 'shadow', 'dist', 'src', 'plugin.js')).href
  );
  const dir = mkdtempSync(join(opts.tmpRoot, `pipeline-${opts.label}-`));
  mkdirSync(join(dir, '.factorly'));
  writeFileSync(join(dir, '.factorly', 'factorly.yaml'), YAML);
  const kernel = await createKernel({
    cwd: dir,
    globalDir: join(dir, 'no-global'),
    inlinePlugins: [noopProvider, shadow].map(inline),
  });
  let next = 0;
  const drive = async ({ seconds, calls: count, concurrency }) => {
    let calls = 0;
    let started = 0;
    let failed = 0;
    const until = seconds === undefined ? Infinity : now() + seconds * 1000;
    const more = () => (count === undefined ? now() < until : started < count);
    const worker = async () => {
      while (more()) {
        started += 1;
        const outcome = await kernel.pipeline.call({ tool: 'noop', params: { i: next++ }, iface: 'mcp' });
        calls += 1;
        if (outcome.status !== 'success') failed += 1;
      }
    };
    const t0 = now();
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const cpu = process.cpuUsage(cpu0);
    return { calls, failed, seconds: (now() - t0) / 1000, cpuUs: cpu.user + cpu.system };
  };
  return { drive, stop: () => kernel.stop() };
}

/**
 * @param {{ repo: string, tmpRoot: string, seconds: number, concurrency: number, label: string }} opts
 */
export async function pipelineLoad(opts) {
  const pipeline = await openPipeline(opts);
  try {
    const { concurrency } = opts;
    await pipeline.drive({ seconds: Math.min(1, opts.seconds / 2), concurrency }); // JIT and the rules' fold warm up
    const r = await pipeline.drive({ seconds: opts.seconds, concurrency });
    return {
      label: opts.label,
      calls: r.calls,
      failed: r.failed,
      seconds: round(r.seconds, 3),
      callsPerSecond: round(r.calls / r.seconds, 0),
      cpuUsPerCall: round(r.cpuUs / r.calls, 0),
    };
  } finally {
    await pipeline.stop();
  }
}
