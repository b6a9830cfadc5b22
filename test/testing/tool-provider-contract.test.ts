import { describe, expect, it } from 'vitest';
import type { ToolCall, ToolProvider, ToolResult } from '../../src/contracts/tool.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { toolProviderContract, type ToolProviderSubject } from '../../src/testing/contracts/tool-provider.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/**
 * The tool-provider suite run on planted providers: a provider that keeps the contract passes every
 * case; each break fails the case it breaks, saying what went wrong.
 */

interface Plant {
  /** What a quick call answers. */
  answer?: ToolResult;
  /** Whether a slow call ends when its signal aborts (a provider that ignores it ends only at stop()). */
  honoursSignal?: boolean;
  keys?: string[];
}

function planted({ answer = { output: 'ok', exitCode: 0 }, honoursSignal = true, keys = ['mode'] }: Plant) {
  const released: (() => void)[] = [];
  const provider: ToolProvider = {
    type: 'planted',
    keys,
    async execute(call: ToolCall): Promise<ToolResult> {
      if (call.tool.spec.mode !== 'slow') return answer;
      await new Promise<void>((resolve) => {
        released.push(resolve);
        if (honoursSignal) call.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return { output: '', error: 'stopped', exitCode: 130 };
    },
    async stop() {
      for (const release of released.splice(0)) release();
    },
  };
  return definePlugin({
    id: 'planted-provider',
    apiVersion: '1',
    register(registrar) {
      registrar.registerInit({
        deps: { providers: registrar.tokens.ToolProviders },
        init: ({ providers }, context) => providers.add('planted', provider, context.pluginId),
      });
    },
  });
}

function subject(plant: Plant, over: Partial<ToolProviderSubject> = {}): ToolProviderSubject {
  return {
    plugin: planted(plant),
    type: 'planted',
    entry: { mode: 'quick' },
    output: 'ok',
    slow: { entry: { mode: 'slow' } },
    ...over,
  };
}

const run = (s: ToolProviderSubject, only?: (name: string) => boolean) =>
  runSuite((api) => toolProviderContract(api, s), only);
const stopping = (name: string) => name.startsWith('stops');

describe('the tool-provider suite on planted providers', () => {
  it('passes a provider that keeps the contract, every case', async () => {
    const outcomes = await run(subject({}));
    expect([...outcomes.values()]).toEqual([PASSED, PASSED, PASSED, PASSED]);
  });

  it('fails both stop cases for a provider that ignores call.signal (the kernel ended the call after its grace)', async () => {
    const outcomes = await run(subject({ honoursSignal: false }), stopping);
    expect([...outcomes.values()]).toEqual([
      'the provider ignored call.signal: it was still running when the kernel gave up on it, 3s after its deadline',
      'the provider ignored call.signal: it was still running when the kernel gave up on it, 3s after its caller cancelling',
    ]);
  });

  it('fails a case whose call never reaches the provider, naming the case', async () => {
    const outcomes = await run(
      subject({}, { slow: { entry: { mode: 'slow', parameters: [{ name: 'n', type: 'integer', required: true }] } } }),
      (name) => name.startsWith('stops a call at its deadline'),
    );
    expect([...outcomes.values()][0]).toMatch(
      /^case "stops a call at its deadline": the provider was never called \(the call ended blocked: parameter validation failed/,
    );
  });

  it('fails a call that answers an error, one that answers other output, and an entry its provider refuses', async () => {
    const answering = (name: string) => name.startsWith('answers');
    const failing = await run(subject({ answer: { output: '', error: 'broken', exitCode: 1 } }), answering);
    expect([...failing.values()][0]).toMatch(/^broken\n/);
    const other = await run(subject({ answer: { output: 'other', exitCode: 0 } }), answering);
    expect([...other.values()][0]).toMatch(/Expected values to be strictly equal/);
    const refusing = await run(subject({ keys: [] }), (name) => name.startsWith('accepts'));
    expect([...refusing.values()][0]).toMatch(/unknown key "mode"/);
  });
});
