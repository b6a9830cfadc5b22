// The QuickJS engine process: loads the WASM module once, then runs each script in a fresh
// runtime and context, prepared while idle. Started by the pool with an empty environment; never imported by the host.
import * as variantModule from '@jitl/quickjs-wasmfile-release-sync';
import {
  GUEST_PRELUDE,
  serveRuns,
  type GuestBridge,
  type GuestJob,
  type EngineOutcome,
} from '@factorly/sandbox-kit/child';
import {
  newQuickJSWASMModuleFromVariant,
  type QuickJSSyncVariant,
  type QuickJSContext,
  type QuickJSDeferredPromise,
  type QuickJSHandle,
  type QuickJSRuntime,
  type QuickJSWASMModule,
} from 'quickjs-emscripten-core';

type Outcome = EngineOutcome;

// The package's types describe its CommonJS build; the ES module's default export is the variant.
const variant = (variantModule as unknown as { default: QuickJSSyncVariant }).default;

/** Above about 448 KiB QuickJS overflows the WASM stack and corrupts the module; 256 KiB fails cleanly. */
const MAX_STACK_BYTES = 256 * 1024;
const DEFAULT_LOG_BYTES = 64 * 1024;

void serveRuns(async () => {
  const module = await newQuickJSWASMModuleFromVariant(variant);
  let next = prepare(module);
  return async (job, bridge) => {
    const ready = next;
    const outcome = await runJob(ready, job, bridge);
    // The next context (runtime, context, parsed prelude) is made while the process is idle, after
    // this outcome has been sent, so a run pays only for its own script.
    if (!outcome.retire) setImmediate(() => (next = prepare(module)));
    return outcome;
  };
});

interface Prepared {
  runtime: QuickJSRuntime;
  run: GuestRun;
  /** Read by the interrupt handler; set when the run starts. */
  deadline: { at: number; hit: boolean };
}

function prepare(module: QuickJSWASMModule): Prepared {
  const deadline = { at: Infinity, hit: false };
  const runtime = module.newRuntime();
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  runtime.setInterruptHandler(() => (deadline.hit ||= Date.now() > deadline.at));
  const vm = runtime.newContext();
  return { runtime, deadline, run: new GuestRun(vm, () => runtime.executePendingJobs()) };
}

async function runJob({ runtime, run, deadline }: Prepared, job: GuestJob, bridge: GuestBridge): Promise<Outcome> {
  deadline.at = Date.now() + job.budget.timeoutMs;
  runtime.setMemoryLimit(job.budget.memoryBytes);
  let outcome: Outcome;
  try {
    outcome = await run.start(job, bridge);
  } catch (error) {
    outcome = { exitCode: 2, error: `the QuickJS engine failed: ${String(error)}`, retire: true };
  }
  if (deadline.hit) return { exitCode: 2, error: `timed out after ${job.budget.timeoutMs} ms`, retire: true };
  if ('guestJson' in outcome && outcome.guestJson.includes('out of memory') && /"ok":false/.test(outcome.guestJson)) {
    return {
      exitCode: 2,
      error: `out of memory: the script used more than ${Math.round(job.budget.memoryBytes / 1048576)} MiB`,
      retire: true,
    };
  }
  if (outcome.retire) return outcome; // the process is replaced: no disposal that could abort the module
  try {
    run.dispose();
    runtime.dispose();
    return outcome;
  } catch {
    return { ...outcome, retire: true };
  }
}

/** One script in one context: the bridge, the prelude, the script, and the job pump. */
class GuestRun {
  private readonly deferreds = new Set<QuickJSDeferredPromise>();
  private readonly handles: QuickJSHandle[] = [];
  private closed = false;
  private settle: (outcome: Outcome) => void = () => {};
  private promise?: QuickJSHandle;
  private bridge?: GuestBridge;
  private readonly install: QuickJSHandle;
  private readonly bridgeFn: QuickJSHandle;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly pendingJobs: () => { error?: QuickJSHandle },
  ) {
    this.install = this.keep(vm.unwrapResult(vm.evalCode(GUEST_PRELUDE, 'factorly-prelude.js')));
    this.bridgeFn = this.keep(
      vm.newFunction('bridge', (fn, args) => this.hostCall(vm.getString(fn), vm.getString(args))),
    );
  }

  start(job: GuestJob, bridge: GuestBridge): Promise<Outcome> {
    const { vm, install, bridgeFn } = this;
    this.bridge = bridge;
    const logBytes = this.keep(vm.newNumber(job.budget.maxLogBytes ?? DEFAULT_LOG_BYTES));
    const driver = this.keep(vm.unwrapResult(vm.callFunction(install, vm.undefined, bridgeFn, logBytes, vm.global)));
    const evaluated = vm.evalCode(job.source, 'script.js');
    if (evaluated.error) return Promise.resolve({ exitCode: 1, error: this.describe(evaluated.error) });
    const runFn = this.keep(evaluated.value);
    const execute = this.keep(vm.getProp(driver, 'execute'));
    const params = this.keep(vm.newString(job.paramsJson));
    const called = vm.callFunction(execute, driver, runFn, params);
    if (called.error) return Promise.resolve({ exitCode: 2, error: this.describe(called.error), retire: true });
    this.promise = this.keep(called.value);
    return new Promise((resolve) => {
      this.settle = (outcome) => {
        this.closed = true;
        resolve(outcome);
      };
      this.pump();
    });
  }

  dispose(): void {
    for (const deferred of this.deferreds) deferred.dispose();
    for (const handle of this.handles.reverse()) if (handle.alive) handle.dispose();
    this.vm.dispose();
  }

  private hostCall(fn: string, args: string): QuickJSHandle {
    const { vm } = this;
    const deferred = vm.newPromise();
    this.deferreds.add(deferred);
    this.bridge!.call(fn, args)
      .then(
        (text) => {
          if (this.closed) return;
          const value = vm.newString(text);
          deferred.resolve(value);
          value.dispose();
        },
        (error: unknown) => {
          if (this.closed) return;
          const value = vm.newError(error instanceof Error ? error.message : String(error));
          deferred.reject(value);
          value.dispose();
        },
      )
      .finally(() => {
        if (this.closed) return;
        this.deferreds.delete(deferred);
        deferred.dispose();
        this.pump();
      });
    return deferred.handle;
  }

  /** Runs queued jobs, then decides: finished, still waiting on the host, or stuck for good. */
  private pump(): void {
    if (this.closed) return;
    const jobs = this.pendingJobs();
    if (jobs.error) {
      const message = this.describe(jobs.error);
      return this.settle({ exitCode: 2, error: message, retire: true });
    }
    const state = this.vm.getPromiseState(this.promise!);
    if (state.type === 'fulfilled') {
      const text = this.vm.getString(state.value);
      state.value.dispose();
      return this.settle({ guestJson: text });
    }
    if (state.type === 'rejected') {
      const message = this.describe(state.error);
      return this.settle({ exitCode: 2, error: message, retire: true });
    }
    if (this.deferreds.size === 0) {
      this.settle({
        exitCode: 2,
        error: 'the script is waiting for a promise that can never settle (no tool call is pending)',
      });
    }
  }

  private describe(handle: QuickJSHandle): string {
    const dumped = this.vm.dump(handle) as { name?: string; message?: string } | string;
    handle.dispose();
    if (typeof dumped === 'object' && dumped && dumped.message !== undefined)
      return dumped.name && dumped.name !== 'Error' ? `${dumped.name}: ${dumped.message}` : dumped.message;
    return String(dumped);
  }

  private keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }
}
