// The SES engine process: locks down its own intrinsics once (never the host's), then runs each
// script in a fresh Compartment. Started by the pool with an empty environment; never imported by
// the host. Host libraries are imported before lockdown, as SES requires.
import {
  GUEST_PRELUDE,
  serveRuns,
  type EngineOutcome,
  type GuestBridge,
  type GuestJob,
} from '@factorly/sandbox-kit/child';
// Before 'ses' is evaluated: importing it already makes the buffer methods undeletable.
import './remove-resizers.js';
import 'ses';

const DEFAULT_LOG_BYTES = 64 * 1024;

void serveRuns(async () => {
  lockdown({
    errorTaming: 'unsafe',
    consoleTaming: 'unsafe',
    overrideTaming: 'moderate',
    stackFiltering: 'concise',
    errorTrapping: 'none',
    unhandledRejectionTrapping: 'none',
  });
  // Compartments get a Date and Math whose now() and random() throw; the start compartment's
  // keep working. Both engines give scripts a real clock and random numbers (one behaviour).
  // SES also leaves the float typed arrays out of compartments; QuickJS has them, so endow them.
  const endowments = {
    Date: globalThis.Date,
    Math: globalThis.Math,
    Float32Array: globalThis.Float32Array,
    Float64Array: globalThis.Float64Array,
  };
  return (job, bridge) => runJob(job, bridge, endowments);
});

type Install = (
  bridge: (fn: string, args: string) => Promise<string>,
  maxLogBytes: number,
  global: object,
) => {
  execute(run: unknown, paramsJson: string): Promise<string>;
};

async function runJob(job: GuestJob, bridge: GuestBridge, endowments: Record<string, unknown>): Promise<EngineOutcome> {
  const compartment = new Compartment({ globals: endowments, __options__: true });
  const install = compartment.evaluate(GUEST_PRELUDE) as Install;
  const driver = install(
    harden((fn: string, args: string) => bridge.call(fn, args)),
    job.budget.maxLogBytes ?? DEFAULT_LOG_BYTES,
    compartment.globalThis,
  );
  let run: unknown;
  try {
    run = compartment.evaluate(job.source);
  } catch (error) {
    return { exitCode: 1, error: describe(error) };
  }
  const result = driver.execute(run, job.paramsJson);
  return new Promise((resolve) => {
    let done = false;
    void result.then((guestJson) => {
      done = true;
      resolve({ guestJson });
    });
    // Guests have no timers, so once the microtask queue is empty and no host call is pending,
    // nothing can ever settle the run: report it now instead of at the deadline.
    const check = (): void => {
      if (done) return;
      if (bridge.pending === 0) {
        done = true;
        resolve({
          exitCode: 2,
          error: 'the script is waiting for a promise that can never settle (no tool call is pending)',
        });
      } else setImmediate(check);
    };
    setImmediate(check);
  });
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return String(error);
}
