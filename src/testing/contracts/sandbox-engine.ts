import type { JsonValue } from '../../events/catalog.js';
import type { SandboxBudget, SandboxEngine, SandboxHost, SandboxRunResult } from '../../contracts/sandbox.js';
import { afterSuite, assert, like, within, type TestApi } from '../suite.js';
import { echoHost } from './sandbox-engine-cases.js';
import { isolationCases } from './sandbox-engine-isolation.js';
import { runResultCases } from './sandbox-engine-results.js';
import { hostExitsAfterRunaway, runawayCases } from './sandbox-engine-runaway.js';

const BUDGET: SandboxBudget = { timeoutMs: 5_000, memoryBytes: 32 * 1024 * 1024, maxLogBytes: 2_000 };
/** How long past its budget's timeout a run may take to be answered. */
const RUN_MARGIN_MS = 10_000;

export interface SandboxEngineSubject {
  name: string;
  create(): SandboxEngine;
  /**
   * Where a fresh process can make the engine (the built module and its export), to check that the
   * host exits on its own after a runaway script, without `stop()`.
   */
  module?: { path: string; factory: string };
}

/**
 * What every `SandboxEngine` must do, run unchanged on each engine. Containment cases end with a
 * second run that must succeed: a stopped run never takes the engine (or the host) down with it.
 * Memory bombs take a few seconds each: give the runner a per-test timeout of 30 s or more.
 */
export function sandboxEngineContract(test: TestApi, subject: SandboxEngineSubject): void {
  const { describe, it } = test;
  const { name } = subject;
  describe(`SandboxEngine contract: ${name}`, () => {
    let made: SandboxEngine | undefined;
    const engine = (): SandboxEngine => (made ??= subject.create());
    afterSuite(test, async () => {
      await made?.stop?.();
    });

    async function run(
      source: string,
      params: JsonValue = {},
      host: SandboxHost = echoHost,
      budget: Partial<SandboxBudget> = {},
    ): Promise<SandboxRunResult> {
      const compiled = engine().compile(source);
      if (!compiled.ok) assert.fail(`unexpected compile failure: ${JSON.stringify(compiled.diagnostics)}`);
      const given = { ...BUDGET, ...budget };
      // The engine must end every run by its budget: past it (and a margin for a loaded machine) the case names the run.
      return within(
        engine().run(compiled.script, params, host, given),
        given.timeoutMs + RUN_MARGIN_MS,
        `run() of ${JSON.stringify(source.slice(0, 80))}`,
      );
    }

    async function expectStillServing(): Promise<void> {
      const after = await run('async function run(p) { return "alive " + p.n }', { n: 1 });
      like(after, { exitCode: 0, value: 'alive 1' });
    }
    const cases = { it, engine, run, expectStillServing };
    runResultCases(cases);
    runawayCases(cases);
    isolationCases(cases);
  });
  if (subject.module) hostExitsAfterRunaway(test, name, subject.module);
}
