import { FactorlyError } from '../../base/errors.js';
import type { JsonValue } from '../../events/catalog.js';
import type { SandboxBudget, SandboxEngine, SandboxHost, SandboxRunResult } from '../../contracts/sandbox.js';
import type { TestApi } from '../suite.js';

/** What each group of the SandboxEngine contract's cases is given: the engine under test and a way to run a script on it. */
export interface EngineCases {
  it: TestApi['it'];
  engine(): SandboxEngine;
  /** Compiles and runs `source` (a compile failure throws), with the contract's budget unless overridden. */
  run(
    source: string,
    params?: JsonValue,
    host?: SandboxHost,
    budget?: Partial<SandboxBudget>,
  ): Promise<SandboxRunResult>;
  /** Asserts a plain run still succeeds: a stopped run never takes the engine down with it. */
  expectStillServing(): Promise<void>;
}

/** A host that answers `echo` with its arguments and fails `fail` with a message. */
export const echoHost: SandboxHost = {
  async call(fn, args) {
    if (fn === 'fail') throw new FactorlyError('TOOL_FAILED', 'host says no');
    return { fn, args };
  },
};
