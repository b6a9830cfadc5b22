import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { definePlugin } from 'factorly';
import { eventsOf, startTestKernel } from '../../../test/helpers/kernel.js';
import { tempProject } from '../../../test/helpers/project.js';
import type { MemoryEventLog } from 'factorly/events';
import { plugin as vaultPlugin } from '../src/plugin.js';
import { VaultFile } from '../src/vault-file.js';
import { leaksIn } from '../../../test/helpers/leaks.js';

const PASSWORD = 'pipeline-test-password';
const SECRET = `canary-${Math.random().toString(36).slice(2)}-"/\\é`;
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A provider that is not the cli one: it resolves its own template and echoes the value in every channel. */
const echoProvider = definePlugin({
  id: 'test-echo-secret',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { providers: reg.tokens.ToolProviders },
      init({ providers }, ctx) {
        providers.add(
          'echo-secret',
          {
            type: 'echo-secret',
            keys: ['template'],
            async execute(call) {
              const value = await call.secrets.resolve(String(call.tool.spec.template));
              const b64 = Buffer.from(value).toString('base64');
              return {
                output: `${value} ${b64} ${JSON.stringify({ value })}`,
                error: `failed with ${encodeURIComponent(value)}`,
                diagnostics: Buffer.from(value).toString('hex'),
                exitCode: 2,
              };
            },
          },
          ctx.pluginId,
        );
      },
    });
  },
});

/** A provider holding a connection-level secret, resolved once at boot (as an upstream server's env would be). */
const connectionProvider = definePlugin({
  id: 'test-connection',
  apiVersion: '1',
  register(reg) {
    reg.registerInit({
      deps: { providers: reg.tokens.ToolProviders, connectionSecrets: reg.tokens.ConnectionSecrets },
      init({ providers, connectionSecrets }, ctx) {
        let token = '';
        providers.add(
          'connection',
          {
            type: 'connection',
            keys: ['token'],
            async expand(definition) {
              token = await connectionSecrets.resolve(String(definition.spec.token));
              return [definition];
            },
            async execute() {
              return { output: `connected with ${token}`, exitCode: 0 };
            },
          },
          ctx.pluginId,
        );
      },
    });
  },
});

const YAML = `tools:
  connected:
    type: connection
    token: "{{vault:CANARY}}"
  literal:
    type: cli
    command: node
    args: ["-e", "console.log(process.argv.slice(1).join(' '))", "\\\\{{vault:CANARY}}", "\\\\{{plain}}", "{{vault:NOPE|fallback}}", "{{env:PIPELINE_CONFIG_VAR}}", "{{plain}}"]
    parameters: [{name: plain}]
  echo:
    type: echo-secret
    template: "{{vault:CANARY}}"
  own-password:
    type: cli
    command: echo
    args: ["{{env:FACTORLY_VAULT_PASSWORD|a default does not apply}}"]
  args:
    type: cli
    command: node
    args: ["-e", "const [a, b, c] = process.argv.slice(1); console.log(JSON.stringify({ a, b: require('crypto').createHash('sha256').update(b).digest('hex'), c }))", "{{plain}}", "{{opted}}", "{{other}}"]
    parameters:
      - {name: plain}
      - {name: opted, hydrate_vault_refs: ["{{vault:CANARY}}", "{{vault:NOPE}}"]}
      - {name: other, hydrate_vault_refs: ["{{vault:CANARY}}"]}
`;

let kernel: Kernel | undefined;
let log: MemoryEventLog;
let root: string;

/** The vault exists before the kernel boots, since the connection provider resolves its token at boot. */
async function writeCanary(): Promise<void> {
  root = tempProject();
  const vault = await VaultFile.unlock(join(root, '.factorly', 'vault.enc'), 'vault.enc', Buffer.from(PASSWORD));
  await vault.set('CANARY', SECRET);
}
beforeEach(async () => {
  process.env.FACTORLY_VAULT_PASSWORD = PASSWORD;
  await writeCanary();
  ({ kernel, log } = await startTestKernel(YAML, [echoProvider, connectionProvider, vaultPlugin], root));
});
afterEach(async () => {
  delete process.env.FACTORLY_VAULT_PASSWORD;
  await kernel?.stop();
});

describe('secrets through the call pipeline', () => {
  it('scrubs output, error and diagnostics of any provider before events and the caller see them', async () => {
    const outcome = await kernel!.pipeline.call({ tool: 'echo', params: {}, iface: 'cli' });
    expect(outcome.output).toBe('[REDACTED:CANARY] [REDACTED:CANARY] {"value":"[REDACTED:CANARY]"}');
    expect(outcome.error).toBe('failed with [REDACTED:CANARY]');
    expect(outcome.diagnostics).toBe('[REDACTED:CANARY]');
    expect(leaksIn(JSON.stringify(await eventsOf(log)), SECRET)).toEqual([]);
  });

  it('resolves a reference in params only where the parameter lists it, and events keep the template', async () => {
    process.env.PIPELINE_HOST_SECRET = 'host-env-value';
    const params = { plain: '{{vault:CANARY}}', opted: '{{vault:CANARY}}', other: '{{env:PIPELINE_HOST_SECRET}}' };
    const outcome = await kernel!.pipeline.call({ tool: 'args', params, iface: 'mcp' });
    expect(JSON.parse(outcome.output)).toEqual({
      a: '{{vault:CANARY}}',
      b: sha(SECRET),
      c: '{{env:PIPELINE_HOST_SECRET}}',
    });
    const events = await eventsOf(log);
    const requested = events.find((e) => e.type === 'call.requested')!;
    expect(requested.data).toMatchObject({ params });
    // `other` hydrates, but not the host's environment: its config lists only the vault's CANARY.
    expect(events.find((e) => e.type === 'call.hydration_refused')?.data).toEqual({
      callId: requested.data.callId,
      params: { other: ['{{env:PIPELINE_HOST_SECRET}}'] },
    });
    expect(leaksIn(JSON.stringify(events), SECRET)).toEqual([]);
    delete process.env.PIPELINE_HOST_SECRET;
  });

  it('keeps escaped references literal, applies |default, and resolves {{env:…}} written in the config', async () => {
    process.env.PIPELINE_CONFIG_VAR = 'from-config-env';
    const outcome = await kernel!.pipeline.call({ tool: 'literal', params: { plain: 'p' }, iface: 'cli' });
    expect(outcome.output).toBe('{{vault:CANARY}} {{plain}} fallback [REDACTED:PIPELINE_CONFIG_VAR] p\n');
    delete process.env.PIPELINE_CONFIG_VAR;
  });

  it('refuses {{env:…}} naming one of factorly’s own secret variables: the tool never gets it', async () => {
    const outcome = await kernel!.pipeline.call({ tool: 'own-password', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({
      status: 'error',
      error: `executing "own-password": {{env:FACTORLY_VAULT_PASSWORD}}: factorly's own variables (FACTORLY_*) may hold its secrets and never reach a tool`,
    });
    expect(leaksIn(JSON.stringify(await eventsOf(log)), PASSWORD)).toEqual([]);
  });

  it('scrubs a secret a provider resolved at boot, outside any call, from every call', async () => {
    const outcome = await kernel!.pipeline.call({ tool: 'connected', params: {}, iface: 'mcp' });
    expect(outcome.output).toBe('connected with [REDACTED:CANARY]');
    expect(leaksIn(JSON.stringify(await eventsOf(log)), SECRET)).toEqual([]);
  });

  it('fails the call, naming the reference and not a value, when a listed key is missing', async () => {
    const outcome = await kernel!.pipeline.call({ tool: 'args', params: { opted: '{{vault:NOPE}}' }, iface: 'mcp' });
    expect(outcome).toMatchObject({
      status: 'error',
      exitCode: 1,
      error: 'executing "args": secret {{vault:NOPE}} is not set in the vault backend',
    });
  });
});
