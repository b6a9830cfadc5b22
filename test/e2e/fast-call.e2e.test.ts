import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectEvents } from '../helpers/events.js';
import { runCli, tempProject } from '../helpers/project.js';

const TOOLS = `tools:
  plain:
    type: cli
    command: echo
    args: ["{{text}}"]
    parameters: [{name: text, required: true}]
  secret:
    type: cli
    command: echo
    args: ["token={{env:FAST_CALL_SECRET}}"]
`;

describe('factorly call started without oclif, from its caches', () => {
  it('records what a full start found, then starts from it, and still loads the secrets plugin for a tool that refers to a secret', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': TOOLS });
    const env = { XDG_CACHE_HOME: join(root, '.xdg-cache'), FAST_CALL_SECRET: 's3cr3t-value' };
    const cache = join(root, '.xdg-cache', 'factorly');
    expect(runCli(['call', 'plain', '--text', 'one'], root, { env })).toMatchObject({ status: 0, stdout: 'one\n' });
    // One plugin list per installation and one plan per plugin set, so installations used in turn keep theirs.
    expect(readdirSync(cache).filter((file) => /^launch-[0-9a-f]{16}\.json$/.test(file))).toHaveLength(1);
    expect(readdirSync(cache).filter((file) => /^boot-plan-[0-9a-f]{16}\.json$/.test(file))).toHaveLength(1);
    expect(readdirSync(join(cache, 'config'))).toHaveLength(1);
    expect(runCli(['call', 'plain', '--text', 'two'], root, { env })).toMatchObject({ status: 0, stdout: 'two\n' });
    const secret = runCli(['call', 'secret'], root, { env });
    expect(secret.status).toBe(0);
    expect(secret.stdout).not.toContain('s3cr3t-value');
    expect(secret.stdout).toMatch(/^token=\[REDACTED:[^\]]+\]\n$/);
    const calls = runCli(['logs', '--json'], root, { env })
      .stdout.trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(calls.map((c) => `${c.tool}:${c.status}`)).toEqual(['plain:success', 'plain:success', 'secret:success']);
    expect(runCli(['logs', 'verify'], root, { env }).status).toBe(0);
    // The narrowed starts record the installation of the full one: one boot record, not one per start.
    const events = await projectEvents(root);
    expect(events.filter((event) => event.type === 'config.loaded')).toHaveLength(1);
    expect(
      events.filter((event) => event.type === 'plugin.loaded').map((event) => (event.data as { id: string }).id),
    ).toEqual(expect.arrayContaining(['provider-cli', 'shadow', 'vault', 'interface-mcp']));
  });

  it('prints the version as oclif does, without loading it', () => {
    const root = tempProject();
    expect(runCli(['--version'], root).stdout).toMatch(/^factorly\/\d+\.\d+\.\d+ \w+-\w+ node-v\d+\.\d+\.\d+\n$/);
  });
});
