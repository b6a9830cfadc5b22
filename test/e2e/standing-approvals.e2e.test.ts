import { afterEach, describe, expect, it } from 'vitest';
import type { PersonAnswer, PersonChannel, PersonRequest } from 'factorly';
import { plugin as cliPlugin } from '@factorly/plugin-provider-cli';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { createKernel, type Kernel } from '../../src/kernel/kernel.js';
import { inline } from '../helpers/kernel.js';
import { runCli, tempProject } from '../helpers/project.js';
import { contribute } from '../helpers/shadow.js';

const CONFIG = `tools:
  deploy:
    type: cli
    command: echo
    args: [deployed]
    shadow: {confirm: {for: 30m}}
`;

/** A person who approves every call "for 30 minutes", and counts how often they were asked. */
class Person implements PersonChannel {
  readonly name = 'person';
  readonly kinds = ['confirm'] as const;
  asked = 0;

  async ask(_request: PersonRequest): Promise<PersonAnswer> {
    this.asked += 1;
    return { action: 'accept', standing: 'window', by: 'ana' };
  }
}

let kernel: Kernel | undefined;
afterEach(async () => kernel?.stop());

describe('standing approvals across processes', () => {
  it('hold in another process (`factorly call`), are listed by `factorly approvals`, and a revocation there reaches the running one', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': CONFIG });
    const person = new Person();
    kernel = await createKernel({
      cwd: root,
      globalDir: `${root}/no-global`,
      inlinePlugins: [cliPlugin, shadow, contribute('test-person', { people: [person] })].map(inline),
    });
    const call = () => kernel!.pipeline.call({ tool: 'deploy', params: {}, iface: 'cli' });
    expect((await call()).status).toBe('success');
    expect(person.asked).toBe(1);

    // Another process: nobody could answer there (no terminal, no UI), yet the call runs.
    const other = runCli(['call', 'deploy'], root);
    expect([other.status, other.stdout.trim()]).toEqual([0, 'deployed']);

    const listed = runCli(['approvals', '--json'], root);
    expect(listed.status).toBe(0);
    const { approvals } = JSON.parse(listed.stdout) as { approvals: Record<string, unknown>[] };
    expect(approvals).toEqual([
      expect.objectContaining({
        tool: 'deploy',
        kind: 'window',
        label: 'for 30 minutes',
        by: 'ana',
        channel: 'person',
      }),
    ]);
    const id = approvals[0].approvalId as string;
    expect((await call()).status).toBe('success');
    expect(person.asked).toBe(1);

    const revoked = runCli(['approvals', 'revoke', id], root);
    expect([revoked.status, revoked.stdout.trim()]).toEqual([
      0,
      `Revoked ${id}: deploy, every call made without an agent.`,
    ]);
    expect((await call()).status).toBe('success');
    expect(person.asked).toBe(2);

    const again = runCli(['approvals', 'revoke', id, '--json'], root);
    expect(again.status).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({
      error: {
        code: 'APPROVAL_NOT_FOUND',
        message: `no standing approval "${id}" is in force (\`factorly approvals\` lists them)`,
      },
    });
    // The second approval (given when the running process asked again) is the one in force now.
    const table = runCli(['approvals'], root);
    expect(table.stdout).toMatch(
      /^ID\s+TOOL\s+COVERS\s+APPROVED BY\s+UNTIL \(UTC\)\n[0-9a-f]{12}\s+deploy\s+every call made without an agent\s+ana\s+/,
    );
    expect(table.stdout).not.toContain(id);
  });
});
