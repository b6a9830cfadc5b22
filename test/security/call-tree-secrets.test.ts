import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Recorded } from '../../src/events/envelope.js';
import { MemoryEventLog } from '../../src/events/memory-log.js';
import type { Projection } from '../../src/events/projection.js';
import type { ShadowRule } from '../../src/contracts/extensions.js';
import type { PersonChannel } from '../../src/contracts/person.js';
import { Redactor } from '../../src/kernel/redact.js';
import { ShadowGate } from '../../src/kernel/shadow-gate.js';
import { OrderedRegistry } from '../../src/kernel/registries.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { plugin as quickjs } from '@factorly/plugin-engine-quickjs';
import { plugin as code } from '@factorly/plugin-provider-code';
import { plugin as vault, SecretScrubber } from '@factorly/plugin-vault';
import { projectEvents } from '../helpers/events.js';
import { eventsOf, startTestKernel } from '../helpers/kernel.js';
import { awkwardSecret, leaksIn, leaksUnder } from '../helpers/leaks.js';
import { runCli, tempProject } from '../helpers/project.js';
import { toolDefinition } from '../helpers/tool-definition.js';

/**
 * The script gets the secret through a hydrated param and hands it, in every encoding a careless
 * script might use, to inner calls: directly to `plain.echo`, and through `relay`, a second code tool
 * one level deeper. Hex and base64 are computed by hand over the UTF-8 bytes (no Buffer in a sandbox).
 */
const FORWARD = `async function run(p) {
  const bytes = encodeURIComponent(p.s).replace(/%([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  const hex = [...bytes].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let b64 = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes.charCodeAt(i) << 16) | ((bytes.charCodeAt(i + 1) || 0) << 8) | (bytes.charCodeAt(i + 2) || 0);
    b64 += abc[(n >> 18) & 63] + abc[(n >> 12) & 63] + (i + 1 < bytes.length ? abc[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? abc[n & 63] : '=');
  }
  const out = [];
  for (const text of [p.s, encodeURIComponent(p.s), JSON.stringify(p.s), hex, b64]) out.push((await factorly.call('plain.echo', { text })).output);
  out.push((await factorly.call('relay', { text: p.s })).output);
  return out.join('');
}`;

const RELAY =
  'async function run(p) { return (await factorly.call("plain.echo", { text: "deep " + p.text })).output; }';

const TOOLS = `tools:
  plain.echo:
    type: cli
    command: echo
    args: ["{{text}}"]
    parameters: [{name: text, required: true}]
  relay:
    type: code
    parameters: [{name: text, required: true}]
    code: ${JSON.stringify(RELAY)}
  forward:
    type: code
    parameters: [{name: s, required: true, hydrate_vault_refs: ["{{vault:K}}"]}]
    code: ${JSON.stringify(FORWARD)}
`;

describe('a call tree shares one secret scope', () => {
  it(
    'scrubs a secret a script forwards to inner calls, at any depth, from every event, view, export and the LMDB file',
    { timeout: 180_000 },
    async () => {
      const secret = awkwardSecret();
      const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
      const env = { FACTORLY_VAULT_PASSWORD: randomBytes(9).toString('hex') };
      const cli = (args: string[], input?: string) => runCli(args, root, { env, input });
      expect(cli(['vault', 'set', 'K'], secret)).toMatchObject({ status: 0 });

      const call = cli(['call', 'forward', '--s', '{{vault:K}}']);
      expect(call).toMatchObject({ status: 0 });
      const events = await projectEvents(root);
      const requested = events.filter((e): e is Recorded<'call.requested'> => e.type === 'call.requested');
      const rootCall = requested.find((e) => e.data.tool === 'forward')!;
      const inner = requested.filter(
        (e) => e.data.rootId === rootCall.data.callId && e.data.callId !== rootCall.data.callId,
      );
      // Every forwarded form reached an inner call and was recorded as the reference, not the value.
      expect(inner.map((e) => e.data.tool)).toEqual([
        'plain.echo',
        'plain.echo',
        'plain.echo',
        'plain.echo',
        'plain.echo',
        'relay',
        'plain.echo',
      ]);
      for (const e of inner) expect(JSON.stringify(e.data.params)).toContain('[REDACTED:K]');
      expect(call.stdout.split('[REDACTED:K]').length - 1).toBeGreaterThanOrEqual(6);

      const views = [
        call,
        cli(['logs', '--json']),
        cli(['logs']),
        cli(['logs', '--detail']),
        cli(['logs', 'show', rootCall.data.callId]),
        cli(['logs', 'show', rootCall.data.callId, '--json']),
        cli(['logs', 'export']),
        cli(['logs', 'export', '--format', 'otlp-json']),
      ];
      for (const [i, view] of views.entries()) {
        expect(view.status, `view ${i}: ${view.stderr}`).toBe(0);
        expect(leaksIn(view.stdout + view.stderr, secret), `view ${i}`).toEqual([]);
      }
      expect(views[6].stdout).toContain('"tool":"relay"');
      // The raw bytes of .factorly/ (events.lmdb included) in plain, base64, hex, URL and JSON-escaped forms.
      expect(leaksUnder(root, secret)).toEqual([]);
    },
  );

  it('scrubs a connection secret (resolved by a provider outside any call) from an inner call’s recorded params and output', async () => {
    const standingValue = `stand-${randomBytes(8).toString('hex')}`;
    const backend = definePlugin({
      id: 'connection-secret-source',
      apiVersion: '1',
      register(registrar) {
        registrar.registerInit({
          deps: { backends: registrar.tokens.SecretBackends, connectionSecrets: registrar.tokens.ConnectionSecrets },
          async init({ backends, connectionSecrets }, context) {
            backends.add(
              'memory',
              { name: 'memory', readOnly: true, resolve: async () => standingValue },
              context.pluginId,
            );
            // As an upstream MCP server's env is resolved when it starts, outside any call.
            await connectionSecrets.resolve('{{memory:UPSTREAM_TOKEN}}');
          },
        });
      },
    });
    const script = 'async function run(p) { return (await factorly.call("plain.echo", { text: p.known })).output; }';
    const yaml = `tools:\n  plain.echo: {type: cli, command: echo, args: ["{{text}}"], parameters: [{name: text, required: true}]}\n  wrapper:\n    type: code\n    parameters: [{name: known}]\n    code: ${JSON.stringify(script)}\n`;
    const { kernel, log } = await startTestKernel(yaml, [vault, quickjs, code, backend]);
    try {
      // The agent happens to know the value (it typed it): it must not be recorded either.
      const outcome = await kernel.pipeline.call({ tool: 'wrapper', params: { known: standingValue }, iface: 'mcp' });
      expect(outcome).toMatchObject({ status: 'success', output: '[REDACTED:UPSTREAM_TOKEN]\n' });
      const stored = JSON.stringify(await eventsOf(log));
      expect(stored).toContain('[REDACTED:UPSTREAM_TOKEN]');
      expect(leaksIn(stored, standingValue)).toEqual([]);
    } finally {
      await kernel.stop();
    }
  });

  it('scrubs a rule’s reason decided again inside the write (the synchronous path), as it does outside it', async () => {
    const secret = `tok-${randomBytes(8).toString('hex')}`;
    const log = new MemoryEventLog();
    const seen: Projection<number> = { name: 'seen', init: () => 0, evolve: (n) => n + 1 };
    let asked = 0;
    const rule: ShadowRule<number> = {
      name: 'echoes',
      order: 100,
      history: seen,
      evaluate: (context) => ((asked += 1), { decision: 'allow', reason: `saw ${String(context.params.text)}` }),
    };
    const rules = new OrderedRegistry<ShadowRule>();
    rules.add(rule as ShadowRule, 'third-party');
    const gate = new ShadowGate(rules, new OrderedRegistry<PersonChannel>());
    const tool = toolDefinition();
    const redact = new Redactor(
      () => [new SecretScrubber()],
      () => new Map([['vault:K', secret]]),
      tool,
    );
    const append = log.append.bind(log);
    let moved = false;
    // Another writer appends between the decision and its write, so the gate decides again inside the write.
    log.append = async (events, options) => {
      if (options?.expectedSeq !== undefined && !moved) {
        moved = true;
        await append([{ type: 'session.closed', data: { sessionId: 's', iface: 'mcp' } }]);
      }
      return append(events, options);
    };
    await gate.check(log, { callId: 'c1', tool, params: { text: secret }, iface: 'code' }, [], redact);
    expect(asked, 'asked once before the write and once inside it').toBe(2);
    const stored = JSON.stringify(await eventsOf(log));
    expect(stored).toContain('saw [REDACTED:K]');
    expect(leaksIn(stored, secret)).toEqual([]);
  });
});
