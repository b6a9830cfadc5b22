import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from 'factorly/testing';
import { startTestKernel } from '../../../test/helpers/kernel.js';
import { readBackendSpecs } from '../src/cli-backend.js';
import { plugin as vaultPlugin } from '../src/plugin.js';

// A stand-in password manager: prints "pm-<key>-value" for known keys, fails for "missing".
const MANAGER = `const k = process.argv[1]; if (k === 'missing') { console.error('item not found: ' + k); process.exit(4); } console.log('pm-' + k + '-value')`;

const YAML = `vault_backends:
  pm:
    type: cli
    get: {command: node, args: ["-e", ${JSON.stringify(MANAGER)}, "{{key}}"]}
    list: {command: node, args: ["-e", "console.log('one\\\\ntwo\\\\n')"]}
tools:
  fixed:
    type: cli
    command: node
    args: ["-e", "console.log(process.argv[1].length, process.argv[1])", "{{pm:db/password}}"]
  gone:
    type: cli
    command: echo
    args: ["{{pm:missing}}"]
  fallback:
    type: cli
    command: echo
    args: ["{{env:TEST_UNSET_VAR_FOR_DEFAULT|plain default}}"]
`;

let kernel: Kernel | undefined;
afterEach(async () => {
  await kernel?.stop();
  kernel = undefined;
});

describe('CLI-backed secret backends (vault_backends)', () => {
  it('resolves {{name:KEY}} through the configured command, read-only, and scrubs the value', async () => {
    ({ kernel } = await startTestKernel(YAML, [vaultPlugin]));
    const backend = kernel.backends.get('pm')!;
    expect(backend.readOnly).toBe(true);
    expect(backend.write).toBeUndefined();
    expect(await backend.list!()).toEqual({ tier: 'pm', keys: ['one', 'two'] });
    const outcome = await kernel.pipeline.call({ tool: 'fixed', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({
      status: 'success',
      output: `${'pm-db/password-value'.length} [REDACTED:db/password]\n`,
    });
  });

  it('reports a failing command with the backend, exit code and its stderr', async () => {
    ({ kernel } = await startTestKernel(YAML, [vaultPlugin]));
    const outcome = await kernel.pipeline.call({ tool: 'gone', params: {}, iface: 'cli' });
    expect(outcome).toMatchObject({
      status: 'error',
      error: 'executing "gone": backend "pm" get failed (exit 4): item not found: missing',
    });
  });

  it('applies |default for an unset {{env:…}}', async () => {
    ({ kernel } = await startTestKernel(YAML, [vaultPlugin]));
    expect((await kernel.pipeline.call({ tool: 'fallback', params: {}, iface: 'cli' })).output).toBe('plain default\n');
  });

  it('refuses a bad vault_backends setting with a message naming the backend', async () => {
    await expect(
      startTestKernel('vault_backends:\n  env: {get: {command: x}}\ntools: {}\n', [vaultPlugin]),
    ).rejects.toThrow('config: .factorly/factorly.yaml: vault backend "env": "env" is built in; choose another name');
    const cases: [unknown, string][] = [
      [['x'], 'f.yaml: "vault_backends" must be a mapping of backend names to {type: cli, get: {command, args}}'],
      [{ op: { list: { command: 'op' } } }, 'f.yaml: vault backend "op" has no get command configured'],
      [
        { op: { type: 'http', get: { command: 'op' } } },
        'f.yaml: vault backend "op": type "http" is not supported (the only type is "cli")',
      ],
      [
        { op: { get: { command: 'op', args: [{ a: 1 }] } } },
        'f.yaml: vault backend "op": "get" has "args" that is not a list of strings',
      ],
      [
        { 'bad name': { get: { command: 'op' } } },
        'f.yaml: vault backend "bad name": the name may use letters, digits, "_" and "-" only',
      ],
    ];
    for (const [setting, message] of cases)
      expect(() => readBackendSpecs(setting, 'f.yaml')).toThrow(`config: ${message}`);
  });
});
