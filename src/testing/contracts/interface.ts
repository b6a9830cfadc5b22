import type { InterfaceOptions } from '../../contracts/extensions.js';
import type { PluginDefinition } from '../../plugins/define-plugin.js';
import { startTestKernel, type TestKernel } from '../kernel.js';
import { assert, type TestApi } from '../suite.js';

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
  describe(`Interface contract: ${subject.name}`, () => {
    it('registers under its name, serves until its signal aborts, then resolves', async () => {
      const kernel = await start();
      try {
        const iface = kernel.kernel.interfaces.get(subject.name);
        assert.ok(iface, `no interface named "${subject.name}" is registered`);
        const stop = new AbortController();
        const options = subject.options ?? {};
        const serving = iface.serve(options, stop.signal);
        // serve() failing or ending early is the failure to report, not a ready() that never comes.
        const early = serving.then(() =>
          Promise.reject(new assert.AssertionError({ message: 'serve() ended before it was asked to' })),
        );
        await Promise.race([subject.ready(kernel, options), early]);
        early.catch(() => undefined);
        stop.abort();
        await serving;
      } finally {
        await kernel.stop();
      }
    });

    if (!subject.invalid) return;
    it('refuses bad options with a message naming the problem', async () => {
      // Read when the case runs: a subject may only know them once its fixtures started.
      const invalid = subject.invalid!;
      const kernel = await start();
      try {
        const stop = new AbortController();
        await assert.rejects(
          kernel.kernel.interfaces.get(subject.name)!.serve(invalid.options, stop.signal),
          invalid.message,
        );
        stop.abort();
      } finally {
        await kernel.stop();
      }
    });
  });
}
