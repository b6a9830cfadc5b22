import { copyFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forgerKey, rehashed, rewriteFrom } from '../helpers/forger.js';
import { runCli, tempProject } from '../helpers/project.js';

const ECHO = 'tools:\n  say: {type: cli, command: echo, args: ["{{text}}"], parameters: [{name: text}]}\n';

describe('a writer.started with a new key, and a checkpoint it signs, after an outside checkpoint', () => {
  it('is caught by --checkpoint: the outside checkpoint anchors everything before it', async () => {
    const root = tempProject({ '.factorly/factorly.yaml': ECHO });
    for (const text of ['one', 'two']) expect(runCli(['call', 'say', '--text', text], root).status).toBe(0);
    expect(runCli(['logs', 'checkpoint'], root).status).toBe(0);
    const dir = join(root, '.factorly', 'checkpoints');
    const outside = join(tempProject(), 'anchor.txt');
    copyFileSync(join(dir, readdirSync(dir).at(-1)!), outside);

    // The forger changes a call's params, announces a key of its own as a new writer's, and signs with it.
    await rewriteFrom(
      root,
      2,
      (event) =>
        event.type === 'call.requested'
          ? rehashed({ ...event, data: { ...event.data, params: { text: 'forged' } } } as never)
          : event,
      { ownKey: forgerKey() },
    );
    // Inside the log, an announced key vouches for its checkpoints: that alone proves nothing.
    expect(runCli(['logs', 'verify'], root).status).toBe(0);
    const anchored = runCli(['logs', 'verify', '--json', '--checkpoint', outside], root);
    expect(anchored.status).toBe(1);
    expect(JSON.parse(anchored.stdout)).toMatchObject({
      ok: false,
      findings: [{ kind: 'rewritten', where: outside }],
      checkpoints: [{ status: 'inconsistent' }],
    });
  });
});
