// The in-process pipeline (pipeline-load.mjs) in a process of its own, for bench/profile.mjs: a
// sequential window and a concurrent one, each warmed up at its concurrency, then printed with its
// hrtime bounds and this process's CPU.
import { cpuOf, cpuPerCall } from './cpu-usage.mjs';
import { openPipeline } from './pipeline-load.mjs';

const calls = Number(process.env.PIPELINE_CALLS);
const hrUs = () => Number(process.hrtime.bigint() / 1000n);
const pipeline = await openPipeline({
  repo: process.env.PIPELINE_REPO,
  tmpRoot: process.env.PIPELINE_TMP,
  label: 'profile',
});
const windows = {};
try {
  for (const [name, concurrency] of [
    ['sequential', 1],
    ['concurrent', Number(process.env.PIPELINE_CONCURRENCY)],
  ]) {
    // Warmed up at the window's own concurrency: code only concurrent calls run (lmdb-js's batched
    // commits) must not be measured while it is still being compiled.
    await pipeline.drive({ calls: 500, concurrency });
    const cpu0 = cpuOf(process.pid);
    const from = hrUs();
    const r = await pipeline.drive({ calls, concurrency });
    const to = hrUs();
    if (r.failed) throw new Error(`${r.failed} pipeline calls did not succeed`);
    windows[name] = {
      calls: r.calls,
      from,
      to,
      wallUsPerCall: Math.round((to - from) / r.calls),
      ...cpuPerCall(cpu0, cpuOf(process.pid), r.calls),
    };
  }
} finally {
  await pipeline.stop();
}
process.stdout.write(JSON.stringify(windows));
