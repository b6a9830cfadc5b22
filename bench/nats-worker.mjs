// A forked node for the two-node NATS variant: appends single events to a shared stream, `concurrency` at a time.
// Protocol (process.send): → {type:'ready'} once the log is open; ← {type:'go'}; → {type:'done', ms, conflicts?};
// on failure → {type:'error', message} and exit 1.
import { ReplicatedEventLog } from '../dist/src/events/replicated-log.js';
import { NatsBatchStream } from '../plugins-official/log-nats/dist/src/nats-stream.js';
import { natsSettingsOf } from '../plugins-official/log-nats/dist/src/nats-settings.js';
import { appendConcurrent } from './lib/events.mjs';

const [serversJson, stream, prefix, totalArg, concurrencyArg] = process.argv.slice(2);

function fail(error) {
  process.send?.({ type: 'error', message: String(error?.stack ?? error) });
  process.exitCode = 1;
  setImmediate(() => process.disconnect?.());
}

try {
  const settings = natsSettingsOf({ servers: JSON.parse(serversJson), stream, replicas: 3 });
  const log = new ReplicatedEventLog(new NatsBatchStream(settings, async () => undefined), { timeoutMs: 30_000 });
  await log.head();
  process.once('message', async () => {
    try {
      const result = await appendConcurrent(log, {
        prefix,
        total: Number(totalArg),
        concurrency: Number(concurrencyArg),
      });
      await log.close();
      process.send({ type: 'done', ms: result.commitMs });
      process.disconnect();
    } catch (error) {
      fail(error);
    }
  });
  process.send({ type: 'ready' });
} catch (error) {
  fail(error);
}
