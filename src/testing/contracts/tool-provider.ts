import type { Params } from '../../events/catalog.js';
import type { PluginDefinition } from '../../plugins/define-plugin.js';
import { STOP_GRACE_MS } from '../../kernel/call-context.js';
import type { CallOutcome } from '../../contracts/gateway.js';
import type { ToolCall } from '../../contracts/tool.js';
import { startTestKernel, type TestKernel } from '../kernel.js';
import { assert, within, type TestApi } from '../suite.js';
import { watchMethod, type Called, type Watch } from './watch.js';

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
 * key with its line; a call reaches the provider and answers a `ToolResult` recorded as
 * `call.completed`; a call stops at its deadline (status `timeout`) and when its caller cancels
 * (status `cancelled`), the provider itself ending its run on `call.signal` within the kernel's grace.
 */
export function toolProviderContract(test: TestApi, subject: ToolProviderSubject): void {
  const { describe, it } = test;
  const official = subject.official ?? [];
  const start = (entries: Record<string, Record<string, unknown>>) =>
    startTestKernel(yamlOf(entries), [subject.plugin], { official });
  const entry = (extra: Record<string, unknown> = {}) => ({ type: subject.type, ...subject.entry, ...extra });
  /** A kernel over `entries` whose provider is watched while `body` runs. */
  const watched = async (
    entries: Record<string, Record<string, unknown>>,
    body: (kernel: TestKernel, watch: ProviderWatch) => Promise<void>,
    onCall?: (call: ToolCall) => void,
  ): Promise<void> => {
    const kernel = await start(entries);
    let watch: ProviderWatch | undefined;
    try {
      watch = watchProvider(kernel, subject.type, onCall);
      await body(kernel, watch);
    } finally {
      watch?.restore();
      await kernel.stop();
    }
  };
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
      await watched({ t: entry() }, async (kernel, watch) => {
        const name = kernel.kernel.registry.get('t')
          ? 't'
          : kernel.kernel.registry.all().find((tool) => tool.expandedFrom === 't')?.name;
        assert.ok(name, 'the entry made no tool');
        const outcome = await within(kernel.call(name, subject.params ?? {}), CALL_MS, 'a call of the entry');
        calledFor(watch, outcome, 'answers a call');
        assert.equal(outcome.status, 'success', outcome.error);
        assert.equal(typeof outcome.output, 'string');
        assert.equal(outcome.exitCode, 0);
        if (subject.output !== undefined) assert.equal(outcome.output, subject.output);
        const completed = (await kernel.events()).filter(
          (event) => event.type === 'call.completed' && event.data.callId === outcome.callId,
        );
        assert.equal(completed.length, 1, 'the call was not recorded once');
      });
    });

    if (!subject.slow) return;
    // Read when each case runs: a subject may only know its entries once its fixtures started.
    const slow = () => subject.slow!;
    it('stops a call at its deadline: status timeout, a non-zero exit code, the provider done before the kernel gives up', async () => {
      await watched({ s: { type: subject.type, ...slow().entry, timeout: '1s' } }, async (kernel, watch) => {
        const outcome = await within(kernel.call('s', slow().params ?? {}), CALL_MS, 'a call past its deadline');
        stoppedBySignal(calledFor(watch, outcome, 'stops a call at its deadline'), 'its deadline');
        assert.equal(outcome.status, 'timeout', `${outcome.status}: ${outcome.error}`);
        assert.notEqual(outcome.exitCode, 0);
      });
    });

    it('stops a call its caller cancels: status cancelled, the provider done before the kernel gives up', async () => {
      const caller = new AbortController();
      // Cancelled as soon as the provider has the call: it must stop at any point of its run.
      const cancel = () => queueMicrotask(() => caller.abort());
      await watched(
        { s: { type: subject.type, ...slow().entry } },
        async (kernel, watch) => {
          const outcome = await within(
            kernel.kernel.pipeline.call({
              tool: 's',
              params: slow().params ?? {},
              iface: 'cli',
              signal: caller.signal,
            }),
            CALL_MS,
            'a cancelled call',
          );
          stoppedBySignal(calledFor(watch, outcome, 'stops a call its caller cancels'), 'its caller cancelling');
          assert.equal(outcome.status, 'cancelled', `${outcome.status}: ${outcome.error}`);
        },
        cancel,
      );
    });
  });
}

/** How long one call of a case may take: the slow entry's deadline, the kernel's grace, the run itself. */
const CALL_MS = 15_000;

type ProviderWatch = Watch<[ToolCall]>;

function watchProvider(kernel: TestKernel, type: string, onCall?: (call: ToolCall) => void): ProviderWatch {
  const provider = kernel.kernel.providers.get(type);
  assert.ok(provider, `no provider registered type "${type}"`);
  return watchMethod<[ToolCall]>(provider, 'execute', `the provider "${provider.type}"`, onCall);
}

/** The provider's own run of this call: a case whose call never reached the provider tests nothing. */
function calledFor(watch: ProviderWatch, outcome: CallOutcome, name: string): Called<[ToolCall]> {
  const called = watch.calls.find((each) => each.args[0].callId === outcome.callId);
  const ended = `${outcome.status}${outcome.error ? `: ${outcome.error}` : ''}`;
  assert.ok(called, `case "${name}": the provider was never called (the call ended ${ended})`);
  return called;
}

/** The kernel answers a call whose provider ignores `call.signal` itself, once its grace is over: the provider failed. */
function stoppedBySignal(called: Called<[ToolCall]>, why: string): void {
  assert.ok(
    !('pending' in called.answer),
    `the provider ignored call.signal: it was still running when the kernel gave up on it, ${STOP_GRACE_MS / 1000}s after ${why}`,
  );
}
