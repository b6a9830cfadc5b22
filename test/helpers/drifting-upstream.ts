// An upstream MCP server whose tool list a test changes between two listings (test/fixtures/drifting-server.mjs):
// the listing is read from a JSON file the test rewrites, and the server says its list changed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from './project.js';

const SERVER = join(REPO, 'test', 'fixtures', 'drifting-server.mjs');

/** A tool as the drifting server lists it. */
export interface Listed {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The `echo` tool, with any field replaced. */
export const echo = (extra: Partial<Listed> = {}): Listed => ({
  name: 'echo',
  description: 'Echoes its text.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  ...extra,
});

/**
 * The file a drifting server lists from: `set` rewrites it (the server then says its list changed).
 * `sampling` is what a client that can sample is shown instead.
 */
export function listing(tools: Listed[], sampling?: Listed[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'factorly-drifting-')), 'tools.json');
  const set = (next: Listed[], nextSampling?: Listed[]) =>
    writeFileSync(file, JSON.stringify({ tools: next, ...(nextSampling ? { sampling: nextSampling } : {}) }));
  set(tools, sampling);
  return { file, set };
}

/** A config entry (a line of `tools:`) for a drifting server listing from `file`, with extra keys (`, pin: strict`). */
export function upstream(name: string, file: string, extra = ''): string {
  return `  ${name}: {type: mcp, command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(SERVER)}, ${JSON.stringify(file)}]${extra}}\n`;
}
