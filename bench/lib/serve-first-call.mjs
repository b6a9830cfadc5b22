// `factorly serve` over stdio in a project: the first tools/call after the agent connected (and
// listed the tools, as agents do), next to the median of the calls after it.
import { join } from 'node:path';
import { connectClient } from './mcp-routes.mjs';
import { median, now, round } from './stats.mjs';

export async function serveCallLatencies({ repo, cwd, calls }) {
  const route = {
    id: 'serve-history',
    transport: 'stdio',
    command: process.execPath,
    args: [join(repo, 'bin', 'run.js'), 'serve'],
    cwd,
  };
  const client = await connectClient(route);
  try {
    await client.listTools();
    const call = async (k) => {
      const t0 = now();
      const result = await client.callTool({ name: 'greet', arguments: { name: `serve-${k}-${Date.now()}` } });
      const ms = now() - t0;
      if (result.isError) throw new Error(`greet failed: ${JSON.stringify(result).slice(0, 300)}`);
      return ms;
    };
    const firstMs = await call(0);
    const later = [];
    for (let k = 1; k <= calls; k += 1) later.push(await call(k));
    const laterMedianMs = median(later);
    return {
      firstMs: round(firstMs, 2),
      laterMedianMs: round(laterMedianMs, 2),
      later: later.length,
      ratio: round(firstMs / laterMedianMs, 2),
    };
  } finally {
    await client.close();
  }
}
