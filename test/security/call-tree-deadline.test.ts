import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import type { Kernel } from '../../src/kernel/kernel.js';
import type { CallGateway, CallTreeLink } from '../../src/contracts/gateway.js';
import type { ConfirmChannel } from '../../src/contracts/extensions.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as mcp } from '@factorly/plugin-provider-mcp';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { contribute } from '../helpers/shadow.js';
import { projectEvents } from '../helpers/events.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { BIN, tempProject } from '../helpers/project.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** Processes (of this user) whose environment holds `marker`: what a test started and must not outlive it. */
function processesMarked(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').includes(marker)) found.push(Number(name));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

const NAP =
  '  nap:\n    type: cli\n    command: sleep\n    args: ["{{seconds}}"]\n    parameters: [{name: seconds, required: true}]\n';
const SLOW = `async function run() {
  const first = await factorly.call('nap', { seconds: '27' });
  return first.exitCode;
}`;

const byType = <T extends Recorded['type']>(events: Recorded[], type: T) =>
  events.filter((e): e is Recorded<T> => e.type === type);

function completions(events: Recorded[]) {
  return new Map(byType(events, 'call.completed').map((e) => [e.data.callId, e.data]));
}

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('a call tree shares its deadline and cancellation', () => {
  it(
    'ends the CLI at the root’s deadline: the inner cli tool’s process group is killed and every inner call completes as cancelled',
    { timeout: 60_000 },
    async () => {
      const root = tempProject({
        '.factorly/factorly.yaml': `tools:\n${NAP}  slow:\n    type: code\n    timeout: 2s\n    code: ${JSON.stringify(SLOW)}\n`,
      });
      const marker = `FACTORLY_DEADLINE_TEST=${randomUUID()}`;
      const [key, value] = marker.split('=');
      const run = spawnSync(process.execPath, [BIN, 'call', 'slow'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 45_000,
        env: { ...process.env, [key]: value },
      });
      expect(run.status, run.stderr).toBe(124);
      expect(run.stderr).toContain('timed out after 2000 ms');
      expect(processesMarked(marker)).toEqual([]);

      const events = await projectEvents(root);
      const requested = byType(events, 'call.requested');
      const done = completions(events);
      const rootCall = requested.find((e) => e.data.tool === 'slow')!;
      // The deadline plus 1 s, as recorded by the process itself (not the machine's start-up time).
      expect(done.get(rootCall.data.callId)).toMatchObject({ status: 'timeout', exitCode: 124 });
      expect(done.get(rootCall.data.callId)!.durationMs).toBeLessThanOrEqual(3_000);
      const inner = requested.filter((e) => e.data.parentId === rootCall.data.callId);
      expect(inner.map((e) => e.data.tool)).toEqual(['nap']);
      for (const call of requested) expect(done.has(call.data.callId), `completion of ${call.data.tool}`).toBe(true);
      expect(done.get(inner[0].data.callId)).toMatchObject({
        status: 'cancelled',
        error: 'cancelled: stopped with the call that made it ("slow": timed out after 2000 ms)',
      });
    },
  );

  it('starts no inner call once the caller’s deadline has passed: it is recorded as cancelled and never reaches the rules or a provider', async () => {
    let ran = 0;
    // A provider that, once its own deadline has passed, still tries to call a tool in its call's name.
    const late = definePlugin({
      id: 'late-caller',
      apiVersion: '1',
      register(registrar) {
        registrar.registerInit({
          deps: { providers: registrar.tokens.ToolProviders, gateway: registrar.tokens.CallGateway },
          init({ providers, gateway }, { pluginId }) {
            providers.add(
              'late',
              {
                type: 'late',
                keys: [],
                async execute(call) {
                  await new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }));
                  const outcome = await gateway.call({
                    tool: 'counted',
                    params: {},
                    iface: 'code',
                    parent: call.context,
                  });
                  return { output: JSON.stringify(outcome), exitCode: 124, error: 'timed out' };
                },
              },
              pluginId,
            );
            providers.add(
              'counted',
              { type: 'counted', keys: [], execute: async () => ({ output: String(++ran), exitCode: 0 }) },
              pluginId,
            );
          },
        });
      },
    });
    const started = await startTestKernel(
      'tools:\n  slowpoke: {type: late, timeout: 300ms}\n  counted: {type: counted}\n',
      [late],
    );
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'slowpoke', params: {}, iface: 'mcp' });
    expect(JSON.parse(outcome.output)).toMatchObject({
      status: 'cancelled',
      exitCode: 130,
      error: 'cancelled before it ran: stopped with the call that made it ("slowpoke": timed out after 300 ms)',
    });
    expect(ran).toBe(0);
    const events = await eventsOf(started.log);
    const inner = byType(events, 'call.requested').find((e) => e.data.tool === 'counted')!;
    expect((await started.log.readCall(inner.data.callId)).map((e) => e.type)).toEqual([
      'call.requested',
      'call.completed',
    ]);
  });

  it('starts no inner call once the caller’s deadline has passed, even while the host was too busy for its timer to run', async () => {
    let ran = 0;
    // A provider that keeps the host busy past its own deadline (no timer can run meanwhile), then calls a tool.
    const hog = definePlugin({
      id: 'busy-caller',
      apiVersion: '1',
      register(registrar) {
        registrar.registerInit({
          deps: { providers: registrar.tokens.ToolProviders, gateway: registrar.tokens.CallGateway },
          init({ providers, gateway }, { pluginId }) {
            providers.add(
              'hog',
              {
                type: 'hog',
                keys: [],
                async execute(call) {
                  const until = performance.now() + call.timeoutMs + 100;
                  while (performance.now() < until) {
                    // busy: the deadline's timer cannot run
                  }
                  const outcome = await gateway.call({
                    tool: 'counted',
                    params: {},
                    iface: 'code',
                    parent: call.context,
                  });
                  return { output: JSON.stringify(outcome), exitCode: 124, error: 'timed out' };
                },
              },
              pluginId,
            );
            providers.add(
              'counted',
              { type: 'counted', keys: [], execute: async () => ({ output: String(++ran), exitCode: 0 }) },
              pluginId,
            );
          },
        });
      },
    });
    const started = await startTestKernel('tools:\n  hog: {type: hog, timeout: 300ms}\n  counted: {type: counted}\n', [
      hog,
    ]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'hog', params: {}, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'timeout', exitCode: 124 });
    expect(JSON.parse(outcome.output)).toMatchObject({
      status: 'cancelled',
      error: 'cancelled before it ran: stopped with the call that made it ("hog": timed out after 300 ms)',
    });
    expect(ran).toBe(0);
  });

  it('stops every running inner call when the root’s caller cancels, and records the root and its calls as cancelled', async () => {
    const marker = randomUUID();
    const script = 'async function run() { return (await factorly.call("nap", { seconds: "27" })).exitCode; }';
    const nap = NAP.replace('    parameters:', `    env: {FACTORLY_CANCEL_TEST: "${marker}"}\n    parameters:`);
    const started = await startTestKernel(
      `tools:\n${nap}  waits:\n    type: code\n    timeout: 20s\n    code: ${JSON.stringify(script)}\n`,
      [quickjs, code],
    );
    kernel = started.kernel;
    const controller = new AbortController();
    const off = kernel.bus.on('call.requested', (event) => {
      if (event.data.tool === 'nap') controller.abort();
    });
    const outcome = await kernel.pipeline.call({ tool: 'waits', params: {}, iface: 'mcp', signal: controller.signal });
    off();
    expect(outcome).toMatchObject({ status: 'cancelled' });
    const events = await eventsOf(started.log);
    const done = completions(events);
    const inner = byType(events, 'call.requested').find((e) => e.data.tool === 'nap')!;
    expect(done.get(inner.data.callId)).toMatchObject({ status: 'cancelled' });
    expect(done.get(outcome.callId)).toMatchObject({ status: 'cancelled' });
    expect(processesMarked(marker)).toEqual([]);
  });

  it('starts no inner call through the context of a call that has completed', async () => {
    let kept: CallTreeLink | undefined;
    let ran = 0;
    let gateway: CallGateway | undefined;
    const keeper = definePlugin({
      id: 'keeper',
      apiVersion: '1',
      register(registrar) {
        registrar.registerInit({
          deps: { providers: registrar.tokens.ToolProviders, calls: registrar.tokens.CallGateway },
          init({ providers, calls }, { pluginId }) {
            gateway = calls;
            providers.add(
              'keeper',
              {
                type: 'keeper',
                keys: [],
                execute: async (call) => ((kept = call.context), { output: 'done', exitCode: 0 }),
              },
              pluginId,
            );
            providers.add(
              'counted',
              { type: 'counted', keys: [], execute: async () => ({ output: String(++ran), exitCode: 0 }) },
              pluginId,
            );
          },
        });
      },
    });
    const started = await startTestKernel('tools:\n  keeps: {type: keeper}\n  counted: {type: counted}\n', [keeper]);
    kernel = started.kernel;
    expect(await kernel.pipeline.call({ tool: 'keeps', params: {}, iface: 'mcp' })).toMatchObject({
      status: 'success',
    });
    const later = await gateway!.call({ tool: 'counted', params: {}, iface: 'code', parent: kept });
    expect(later).toMatchObject({
      status: 'cancelled',
      error: 'cancelled before it ran: stopped with the call that made it ("keeps": "keeps" has ended)',
    });
    expect(ran).toBe(0);
  });

  it('stops a call waiting for a person when its caller cancels, and records it as cancelled', async () => {
    const controller = new AbortController();
    let channelReleased = false;
    // The person never answers; the caller gives up while the question is open.
    const silent: ConfirmChannel = {
      name: 'silent',
      ask(_request, signal) {
        signal.addEventListener('abort', () => (channelReleased = true));
        controller.abort();
        return new Promise(() => undefined);
      },
    };
    const started = await startTestKernel(
      'tools:\n  deploy: {type: cli, command: echo, args: [deployed], shadow: {confirm: true}}\n',
      [shadow, contribute('asks', { channels: [silent] })],
    );
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'deploy', params: {}, iface: 'mcp', signal: controller.signal });
    expect(outcome).toMatchObject({ status: 'cancelled', output: '' });
    expect(channelReleased).toBe(true);
    const story = (await started.log.readCall(outcome.callId)).map((e) => e.type);
    expect(story).toEqual([
      'call.requested',
      'shadow.decided',
      'shadow.decided',
      'confirm.requested',
      'confirm.resolved',
      'call.completed',
    ]);
  });

  it('cancels an upstream MCP call when the calling script’s deadline passes', async () => {
    const script =
      'async function run() { return (await factorly.call("ev.trigger-long-running-operation", { duration: 25, steps: 25 })).exitCode; }';
    const yaml = `tools:\n  ev:\n    type: mcp\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(EVERYTHING)}, stdio]\n  waits:\n    type: code\n    timeout: 1s\n    code: ${JSON.stringify(script)}\n`;
    const started = await startTestKernel(yaml, [quickjs, code, mcp]);
    kernel = started.kernel;
    const outcome = await kernel.pipeline.call({ tool: 'waits', params: {}, iface: 'mcp' });
    expect(outcome).toMatchObject({ status: 'timeout', exitCode: 124 });
    expect(outcome.durationMs).toBeLessThanOrEqual(2_000);
    const events = await eventsOf(started.log);
    const upstream = byType(events, 'call.requested').find((e) => e.data.tool === 'ev.trigger-long-running-operation')!;
    expect(completions(events).get(upstream.data.callId)).toMatchObject({
      status: 'cancelled',
      error: expect.stringContaining('cancelled'),
    });
  });
});
