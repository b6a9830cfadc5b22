import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Kernel } from '../../src/kernel/kernel.js';
import { recheckDecisions } from '../../src/evidence/shadow-recheck.js';
import { definePlugin } from '../../src/plugins/define-plugin.js';
import { plugin as shadow } from '@factorly/plugin-shadow';
import { rehashed, rewriteFrom } from '../helpers/forger.js';
import { startTestKernel } from '../helpers/kernel.js';
import { projectEvents } from '../helpers/events.js';
import { runCli, tempProject } from '../helpers/project.js';

/** A plugin whose rule denies a call that says the word its top-level block names. */
const wordGuard = definePlugin({
  id: 'test-word-guard',
  apiVersion: '1',
  config: { key: 'word_guard', schema: { type: 'object', properties: { word: { type: 'string' } } } },
  register(reg) {
    reg.registerInit({
      deps: { rules: reg.tokens.ShadowRules },
      init({ rules }, ctx) {
        let word = (ctx.config as { word: string }).word;
        ctx.onConfig((value) => void (word = (value as { word: string }).word));
        rules.add(
          {
            name: 'word-guard',
            order: 100,
            evaluate: ({ params }) =>
              JSON.stringify(params).includes(word)
                ? { decision: 'deny', reason: `says ${word}` }
                : { decision: 'allow', reason: 'clean' },
          },
          ctx.pluginId,
        );
      },
    });
  },
});

const SAY = 'tools:\n  say: {type: cli, command: echo, args: ["{{text}}"], parameters: [{name: text}]}\n';

let kernel: Kernel | undefined;
afterEach(async () => kernel?.stop());

describe('logs replay --check judges outcomes, under the rules then in force', () => {
  it('fails on a denied call whose completion was forged to success (chain recomputed, decision left deny)', async () => {
    const root = tempProject({
      '.factorly/factorly.yaml': 'tools:\n  rm.all: {type: cli, command: echo, args: [gone], shadow: {deny: true}}\n',
    });
    expect(runCli(['call', 'rm.all'], root).status).not.toBe(0);
    expect(runCli(['logs', 'replay', '--check'], root)).toMatchObject({ status: 0 });
    const completed = (await projectEvents(root)).find((event) => event.type === 'call.completed')!;
    await rewriteFrom(root, completed.seq, (event) =>
      event.seq === completed.seq
        ? rehashed({ ...event, data: { ...event.data, status: 'success', exitCode: 0, blockedBy: undefined } } as never)
        : event,
    );
    const check = runCli(['logs', 'replay', '--check'], root);
    expect(check.status).toBe(1);
    expect(check.stdout).toMatch(
      /^Re-derived the decisions of 1 calls: 1 mismatch\(es\)\n {2}seq \d+ rm\.all \S+: recorded \[(.*)\], re-derived \[\1\]; completed success though deny:deny stopped it\n$/,
    );
  });

  it("re-derives a plugin rule's decisions with the config block config.recorded holds, not today's", async () => {
    const started = await startTestKernel(`word_guard: {word: secret}\n${SAY}`, [shadow, wordGuard]);
    kernel = started.kernel;
    const denied = await kernel.pipeline.call({ tool: 'say', params: { text: 'the secret' }, iface: 'cli' });
    expect(denied.status).toBe('blocked');
    writeFileSync(kernel.paths.mainFile, `word_guard: {word: other}\n${SAY}`);
    expect(await kernel.reload()).toBe(true);
    const recheck = (under: 'recorded' | 'current') =>
      recheckDecisions(started.log, kernel!.shadow.ruleList(), {
        current: (name) => kernel!.registry.get(name),
        under,
        plugins: { configure: (settings) => kernel!.reconfigurePlugins(settings), current: kernel!.config.settings },
      });
    expect(await recheck('recorded')).toMatchObject({ checked: 1, mismatches: [], unrecorded: 0 });
    expect((await recheck('current')).mismatches).toMatchObject([
      {
        recorded: expect.arrayContaining(['word-guard:deny']),
        rederived: expect.arrayContaining(['word-guard:allow']),
      },
    ]);
  });
});
