import { describe, expect, it } from 'vitest';
import type { InterfaceOptions } from '../../src/contracts/extensions.js';
import { FactorlyError } from '../../src/base/errors.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { interfaceContract, type InterfaceSubject } from '../../src/testing/contracts/interface.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The interface suite run on planted interfaces: one that keeps the contract passes every case; each
 * break fails the case it breaks, and a case waiting on something that never comes names what it
 * waited for instead of running into the runner's timeout.
 */

type Serve = (options: InterfaceOptions, signal: AbortSignal, serving: () => void) => Promise<void>;

/** Serves until its signal aborts; refuses `{port: -1}`. */
const keeps: Serve = (options, signal, serving) => {
  if (options.port === -1) return Promise.reject(new FactorlyError('USAGE', 'planted: port -1 is not a port'));
  serving();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
};

function planted(serve: Serve = keeps, over: Partial<InterfaceSubject> = {}): InterfaceSubject {
  let started: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const plugin = definePlugin({
    id: 'planted-interface',
    apiVersion: '1',
    register(registrar) {
      registrar.registerInit({
        deps: { interfaces: registrar.tokens.Interfaces },
        init: ({ interfaces }, context) =>
          interfaces.add(
            'planted',
            { name: 'planted', serve: (options, signal) => serve(options, signal, started) },
            context.pluginId,
          ),
      });
    },
  });
  return {
    plugin,
    name: 'planted',
    ready: () => ready,
    invalid: { options: { port: -1 }, message: /port -1 is not a port/ },
    readyMs: 500,
    letGoMs: 500,
    ...over,
  };
}

const run = (subject: InterfaceSubject) => runSuite((api) => interfaceContract(api, subject));
const SERVES = 'registers under its name, serves until its signal aborts, then resolves';
const REFUSES = 'refuses bad options with a message naming the problem';
const never = () => new Promise<void>(() => undefined);

describe('the interface suite on planted interfaces', () => {
  it('passes an interface that keeps the contract, every case', async () => {
    expect([...(await run(planted())).values()]).toEqual([PASSED, PASSED]);
  });

  it('names the case and what it waited for when ready() never comes, or serve() ignores its signal', async () => {
    const unready = await run(planted(keeps, { ready: never }));
    expect(unready.get(SERVES)).toBe(`case "${SERVES}": ready() (the interface serving) did not settle within 500 ms`);
    const deaf = await run(planted((options, _signal, serving) => (serving(), never())));
    expect(deaf.get(SERVES)).toBe(`case "${SERVES}": serve() once its signal aborted did not settle within 500 ms`);
  });

  it('fails an interface that ends before it is asked to, and one registered under another name', async () => {
    const early = await run(planted(async () => undefined));
    expect(early.get(SERVES)).toBe('serve() ended before it was asked to');
    const other = await run(planted(keeps, { name: 'other' }));
    expect(other.get(SERVES)).toBe('no interface named "other" is registered');
  });

  it('fails an interface that serves bad options instead of refusing them, naming the case, and one refusing with another message', async () => {
    const lax = await run(
      planted((_options, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve()))),
    );
    expect(lax.get(REFUSES)).toContain(
      `case "${REFUSES}": serve() with {"port":-1} (it should reject) did not settle within 500 ms`,
    );
    const deaf = await run(
      planted((options, _signal, serving) => (options.port === -1 ? never() : keeps(options, _signal, serving))),
    );
    expect(deaf.get(REFUSES)).toMatch(/did not settle within 500 ms/);
    const vague = await run(planted(keeps, { invalid: { options: { port: -1 }, message: /already in use/ } }));
    expect(vague.get(REFUSES)).toMatch(/port -1 is not a port/);
  });
});
