import { createSesEngine } from '@factorly/plugin-engine-ses';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxEngine } from '../../src/contracts/sandbox.js';
import { sandboxEngineContract } from '../../src/testing/contracts/sandbox-engine.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The sandbox-engine suite on planted engines: the SES engine with one behaviour broken. Only the
 * cases a break is about run (the whole suite, memory bombs included, runs on each real engine in
 * its plugin's tests).
 */

const engines: SandboxEngine[] = [];
afterAll(async () => {
  for (const engine of engines) await engine.stop?.();
});

function planted(broken: (real: SandboxEngine) => Partial<SandboxEngine>) {
  return {
    name: 'planted',
    create: (): SandboxEngine => {
      const real = createSesEngine();
      engines.push(real);
      const over = broken(real);
      return {
        name: 'planted',
        compile: over.compile ?? ((source) => real.compile(source)),
        run: over.run ?? ((script, params, host, budget) => real.run(script, params, host, budget)),
        stop: () => real.stop?.() ?? Promise.resolve(),
      };
    },
  };
}

async function outcomes(broken: (real: SandboxEngine) => Partial<SandboxEngine>, only: RegExp) {
  return runSuite(
    (api) => sandboxEngineContract(api, planted(broken)),
    (name) => only.test(name),
  );
}

const ESCAPES = /^contains (constructor|Function)/;

describe('the sandbox-engine suite on planted engines', () => {
  it('passes the engine it wraps on the cases below', async () => {
    const passed = await outcomes(() => ({}), /^(contains|runs run|stops while|refuses import)/);
    expect([...passed.values()]).toEqual(Array(5).fill(PASSED));
  });

  it('fails an engine that refuses every script on the containment cases (an exit 1 they expected)', async () => {
    const refusing = await outcomes(
      () => ({ run: async () => ({ exitCode: 1, error: 'refused', logs: [], usage: { hostCalls: 0 } }) as never }),
      ESCAPES,
    );
    expect([...refusing.values()]).toEqual([
      'case "contains constructor.constructor": the engine never ran the script (1: refused)',
      'case "contains Function("return this")()": the engine never ran the script (1: refused)',
    ]);
  });

  it('names the run that an engine never answers, instead of hanging until the runner gives up', async () => {
    const hanging = await outcomes(() => ({ run: () => new Promise(() => undefined) }), /^stops while/);
    expect([...hanging.values()]).toEqual([
      'run() of "async function run() { while (true) {} }" did not settle within 10500 ms',
    ]);
  });

  it('fails an engine that drops console output, reports a runaway as a thrown error, or compiles import()', async () => {
    const silent = await outcomes(
      (real) => ({ run: async (...args) => ({ ...(await real.run(...args)), logs: [] }) }),
      /^runs run/,
    );
    expect([...silent.values()][0]).not.toBe(PASSED);
    const lenient = await outcomes(
      (real) => ({ run: async (...args) => ({ ...(await real.run(...args)), exitCode: 1 }) }),
      /^stops while/,
    );
    expect([...lenient.values()][0]).not.toBe(PASSED);
    const importing = await outcomes(
      (real) => ({ compile: (source) => real.compile(source.replace('import("fs")', '"fs"')) }),
      /^refuses import/,
    );
    expect([...importing.values()][0]).not.toBe(PASSED);
  });
});
