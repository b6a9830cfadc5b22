import type { InterfaceOptions } from '../../contracts/extensions.js';
import type { PluginDefinition } from '../../plugins/define-plugin.js';
import { startTestKernel, type TestKernel } from '../kernel.js';
import { assert, within, type TestApi } from '../suite.js';

export interface InterfaceSubject {
  plugin: PluginDefinition;
  /** The name it registers (what `factorly serve --interface <name>` runs). */
  name: string;
  /** The config the kernel serves (default: a cli tool `t` that echoes). */
  yaml?: string;
  options?: InterfaceOptions;
  /**
   * Resolves once the interface is serving, by asking it as its users do (a request to its port, a
   * line on its stream); may call a tool through it and check the answer.
   */
  ready(kernel: TestKernel, options: InterfaceOptions): Promise<void>;
  /** Options it must refuse (a port in use, a bad value) with a message matching `message`. */
  invalid?: { options: InterfaceOptions; message: RegExp };
  official?: readonly string[];
  /** How long `ready` may take (default 15 s): a case that waits longer fails naming what it waited for. */
  readyMs?: number;
  /** How long serve() may take to resolve once its signal aborted, or to refuse bad options (default 10 s). */
  letGoMs?: number;
}

const YAML = 'tools:\n  t: {type: cli, command: echo, args: [ran]}\n';

/**
 * What every interface must do: register under its name; serve until its signal aborts, then let
 * in-flight calls finish and resolve (so the host can flush the log and exit); refuse bad options
 * with a rejected promise naming the problem, never a hang or a crash.
 */
export function interfaceContract(test: TestApi, subject: InterfaceSubject): void {
  const { describe, it } = test;
  const start = () =>
    startTestKernel(subject.yaml ?? YAML, [subject.plugin], {
      official: [...(subject.plugin.id === 'provider-cli' ? [] : ['provider-cli']), ...(subject.official ?? [])],
    });
  const letGoMs = subject.letGoMs ?? 10_000;
  describe(`Interface contract: ${subject.name}`, () => {
    const serves = 'registers under its name, serves until its signal aborts, then resolves';
    it(serves, async () => {
      const kernel = await start();
      const stop = new AbortController();
      try {
        const iface = kernel.kernel.interfaces.get(subject.name);
        assert.ok(iface, `no interface named "${subject.name}" is registered`);
        const options = subject.options ?? {};
        const serving = iface.serve(options, stop.signal);
        // serve() failing or ending early is the failure to report, not a ready() that never comes.
        const early = serving.then(() =>
          Promise.reject(new assert.AssertionError({ message: 'serve() ended before it was asked to' })),
        );
        early.catch(() => undefined);
        const readyMs = subject.readyMs ?? 15_000;
        await within(
          Promise.race([subject.ready(kernel, options), early]),
          readyMs,
          `case "${serves}": ready() (the interface serving)`,
        );
        stop.abort();
        await within(serving, letGoMs, `case "${serves}": serve() once its signal aborted`);
      } finally {
        stop.abort();
        await kernel.stop();
      }
    });

    if (!subject.invalid) return;
    const refuses = 'refuses bad options with a message naming the problem';
    it(refuses, async () => {
      // Read when the case runs: a subject may only know them once its fixtures started.
      const invalid = subject.invalid!;
      const kernel = await start();
      try {
        const stop = new AbortController();
        const iface = kernel.kernel.interfaces.get(subject.name);
        assert.ok(iface, `no interface named "${subject.name}" is registered`);
        const serving = iface.serve(invalid.options, stop.signal);
        // An interface that serves bad options anyway is stopped, so the case ends with its failure.
        const refused = within(
          serving.then(() => undefined),
          letGoMs,
          `case "${refuses}": serve() with ${JSON.stringify(invalid.options)} (it should reject)`,
        ).finally(() => stop.abort());
        await assert.rejects(refused, invalid.message);
        stop.abort();
      } finally {
        await kernel.stop();
      }
    });
  });
}
