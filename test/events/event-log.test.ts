import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { ReplicatedEventLog } from '../../src/events/replicated-log.js';
import { MemoryBatchStream } from '../helpers/memory-batch-stream.js';
import type { EventLog } from '../../src/events/log.js';
import { testEventLog } from '../contracts/event-log.contract.js';

const opened: EventLog[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

testEventLog('memory', {
  async create() {
    return new MemoryEventLog();
  },
});

testEventLog('lmdb', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'factorly-log-'));
    dirs.push(dir);
    const log = new LmdbEventLog({ path: join(dir, 'events.lmdb'), pollMs: 10 });
    opened.push(log);
    return log;
  },
});

testEventLog('replicated (memory stream)', {
  async create() {
    const log = new ReplicatedEventLog(new MemoryBatchStream().node());
    opened.push(log);
    return log;
  },
});
