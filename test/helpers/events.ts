import { join } from 'node:path';
import type { Recorded } from '../../src/events/envelope.js';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';

/** Every event of a project's LMDB log (`<root>/.factorly/events.lmdb`), read by another process than the one that wrote it. */
export async function projectEvents(root: string): Promise<Recorded[]> {
  const log = new LmdbEventLog({ path: join(root, '.factorly', 'events.lmdb') });
  const out: Recorded[] = [];
  for await (const event of log.read()) out.push(event);
  await log.close();
  return out;
}
