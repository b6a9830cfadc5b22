import type { InterfaceOptions } from 'factorly';
import { eventually, type TestKernel } from 'factorly/testing';
import { freePort } from '../../../test/helpers/listening.js';

/** `serve --port` in the test's own process: the kernel's `mcp` interface over HTTP. */
export interface InProcessServe {
  url: string;
  port: number;
  /** Aborts serving and waits until it has let go. */
  stop(): Promise<void>;
}

/** Serves `started`'s MCP interface over HTTP on `port` (a free one by default), once it answers. */
export async function serveInProcess(
  started: TestKernel,
  options: Partial<InterfaceOptions> = {},
  port?: number,
): Promise<InProcessServe> {
  const bound = port ?? (await freePort());
  const url = `http://127.0.0.1:${bound}/mcp`;
  const stop = new AbortController();
  const serving = started.kernel.interfaces
    .get('mcp')!
    .serve({ transport: 'http', host: '127.0.0.1', port: bound, version: '1', ...options }, stop.signal);
  await eventually(async () => void (await fetch(url)), 10_000);
  return {
    url,
    port: bound,
    stop: async () => {
      stop.abort();
      await serving;
    },
  };
}
