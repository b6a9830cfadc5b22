// A forked writer for the multi-process variant: appends batches to a shared LMDB event log.
// Protocol (process.send): → {type:'ready'} after open + warm-up; ← {type:'go'};
// → {type:'done', ...timings, seqs}; on failure → {type:'error', message, stack} and exit 1.
import { join } from 'node:path';
import { LmdbEventLog } from '../dist/src/events/lmdb-log.js';
import { appendSequential } from './lib/events.mjs';
import { epochMs } from './lib/stats.mjs';

const [path, prefix, totalArg, batchArg, warmDir] = process.argv.slice(2);
const total = Number(totalArg);
const batchSize = Number(batchArg);

function fail(error) {
  process.send?.({ type: 'error', message: String(error?.message ?? error), stack: error?.stack });
  process.exitCode = 1;
  setImmediate(() => process.disconnect?.());
}

try {
  // Warm the hashing / canonical JSON / lmdb paths on a private file, not the shared log.
  const warm = new LmdbEventLog({ path: join(warmDir, `warm-${prefix}.lmdb`) });
  await appendSequential(warm, { prefix: `${prefix}-warm`, total: 300, batchSize: 100 });
  await warm.close();

  const log = new LmdbEventLog({ path });
  process.once('message', async (message) => {
    if (message?.type !== 'go') return fail(new Error(`unexpected message ${JSON.stringify(message)}`));
    try {
      const startEpochMs = epochMs();
      const result = await appendSequential(log, { prefix, total, batchSize });
      const endEpochMs = epochMs();
      await log.close();
      process.send({
        type: 'done',
        prefix,
        startEpochMs,
        endEpochMs,
        commitMs: result.commitMs,
        durableMs: result.durableMs,
        flushObserved: result.flushObserved,
        latencies: result.latencies,
        seqs: result.seqs,
      });
      process.disconnect();
    } catch (error) {
      fail(error);
    }
  });
  process.send({ type: 'ready' });
} catch (error) {
  fail(error);
}
