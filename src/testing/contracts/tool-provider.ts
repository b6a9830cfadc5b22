import type { Params } from '../../events/catalog.js';
import type { PluginDefinition } from '../../plugins/define-plugin.js';
import { startTestKernel } from '../kernel.js';
import { assert, type TestApi } from '../suite.js';

export interface ToolProviderSubject {
  /** The plugin that registers the provider, loaded in a real kernel. */
  plugin: PluginDefinition;
  type: string;
  /** The provider keys of a config entry that works (without `type`), and params for a call of it. */
  entry: Record<string, unknown>;
  params?: Params;
  /** What a call of that entry answers (its output), when it is known. */
  output?: string;
  /** An entry whose calls run until they are stopped, to check the deadline and cancellation. */
  slow?: { entry: Record<string, unknown>; params?: Params };
  /** Official plugins the entries need besides the plugin (`vault` for a secret reference). */
  official?: readonly string[];
}

const yamlOf = (entries: Record<string, Record<string, unknown>>): string => `tools: ${JSON.stringify(entries)}\n`;

/**
 * What every `ToolProvider` must do in a kernel: its type accepts its entry and refuses an unknown
 * key with its line; a call answers a `ToolResult` recorded as `call.completed`; a call stops at its
 * deadline (status `timeout`) and when its caller cancels (status `cancelled`); the kernel stops cleanly.
 */
export function toolProviderContract(test: TestApi, subject: ToolProviderSubject): void {
  const { describe, it } = test;
  const official = subject.official ?? [];
  const start = (entries: Record<string, Record<string, unknown>>) =>
    startTestKernel(yamlOf(entries), [subject.plugin], { official });
  const entry = (extra: Record<string, unknown> = {}) => ({ type: subject.type, ...subject.entry, ...extra });
  describe(`ToolProvider contract: ${subject.type}`, () => {
    it('accepts its entry under its type, and refuses an unknown key naming the tool, the key and the line', async () => {
      const kernel = await start({ t: entry() });
      try {
        assert.ok(
          kernel.kernel.providers.keys().includes(subject.type),
          `no provider registered type "${subject.type}"`,
        );
        assert.ok(
          kernel.kernel.registry.all().some((tool) => tool.name === 't' || tool.expandedFrom === 't'),
          'the entry made no tool',
        );
      } finally {
        await kernel.stop();
      }
      await assert.rejects(
        start({ t: entry({ no_such_key: 1 }) }),
        /config: tool "t" has unknown key "no_such_key".*\(\.factorly\/factorly\.yaml:1\)/,
      );
    });

    it('answers a call with a ToolResult, recorded before it answers', async () => {
      const kernel = await start({ t: entry() });
      try {
        const outcome = await kernel.call(
          kernel.kernel.registry.get('t')
            ? 't'
            : kernel.kernel.registry.all().find((tool) => tool.expandedFrom === 't')!.name,
          subject.params ?? {},
        );
        assert.equal(outcome.status, 'success', outcome.error);
        assert.equal(typeof outcome.output, 'string');
        assert.equal(outcome.exitCode, 0);
        if (subject.output !== undefined) assert.equal(outcome.output, subject.output);
        const completed = (await kernel.events()).filter(
          (event) => event.type === 'call.completed' && event.data.callId === outcome.callId,
        );
        assert.equal(completed.length, 1, 'the call was not recorded once');
      } finally {
        await kernel.stop();
      }
    });

    if (!subject.slow) return;
    // Read when each case runs: a subject may only know its entries once its fixtures started.
    const slow = () => subject.slow!;
    it('stops a call at its deadline: status timeout, a non-zero exit code', async () => {
      const kernel = await start({ s: { type: subject.type, ...slow().entry, timeout: '1s' } });
      try {
        const outcome = await kernel.call('s', slow().params ?? {});
        assert.equal(outcome.status, 'timeout', `${outcome.status}: ${outcome.error}`);
        assert.notEqual(outcome.exitCode, 0);
      } finally {
        await kernel.stop();
      }
    });

    it('stops a call its caller cancels: status cancelled', async () => {
      const kernel = await start({ s: { type: subject.type, ...slow().entry } });
      try {
        const caller = new AbortController();
        // The call is recorded as started before the provider runs; cancel once it is running.
        const unsubscribe = kernel.kernel.bus.on('call.requested', () => void setTimeout(() => caller.abort(), 100));
        const outcome = await kernel.kernel.pipeline.call({
          tool: 's',
          params: slow().params ?? {},
          iface: 'cli',
          signal: caller.signal,
        });
        unsubscribe();
        assert.equal(outcome.status, 'cancelled', `${outcome.status}: ${outcome.error}`);
      } finally {
        await kernel.stop();
      }
    });
  });
}
