import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, it } from 'vitest';
import { LmdbEventLog } from '../../src/events/lmdb-log.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import { ReplicatedEventLog } from '../../src/events/replicated-log.js';
import { MemoryBatchStream } from '../helpers/memory-batch-stream.js';
import type { EventLog } from '../../src/events/log.js';
import { eventLogContract } from '../../src/testing/contracts/event-log.js';

const opened: EventLog[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((log) => log.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

eventLogContract({ describe, it }, 'memory', {
  async create() {
    return new MemoryEventLog();
  },
});

eventLogContract({ describe, it }, 'lmdb', {
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'factorly-log-'));
    dirs.push(dir);
    const log = new LmdbEventLog({ path: join(dir, 'events.lmdb'), pollMs: 10 });
    opened.push(log);
    return log;
  },
});

eventLogContract({ describe, it }, 'replicated (memory stream)', {
  async create() {
    const log = new ReplicatedEventLog(new MemoryBatchStream().node());
    opened.push(log);
    return log;
  },
});

// Messages of 512 bytes: every batch but the smallest travels as fragments and a commit.
eventLogContract({ describe, it }, 'replicated (memory stream, every batch in fragments)', {
  async create() {
    const log = new ReplicatedEventLog(new MemoryBatchStream(512).node());
    opened.push(log);
    return log;
  },
});
