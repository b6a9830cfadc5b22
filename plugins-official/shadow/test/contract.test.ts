import { PassThrough } from 'node:stream';
import { personChannelContract, shadowRuleContract } from 'factorly/testing';
import { describe, it } from 'vitest';
import { CliPromptChannel } from '../src/cli-prompt.js';
import { plugin } from '../src/plugin.js';

const test = { describe, it };

shadowRuleContract(test, {
  plugin,
  rule: 'log-params',
  cases: [
    { name: 'a listed param sent', shadow: { log_params: ['q', 'x'] }, params: { q: [1, 2] }, expect: 'allow' },
    { name: 'no listed param sent', shadow: { log_params: ['x'] }, params: { q: [1, 2] }, expect: undefined },
  ],
  invalid: { shadow: { log_params: 'q' }, message: /shadow\.log_params/ },
});
shadowRuleContract(test, {
  plugin,
  rule: 'deny',
  cases: [
    { name: 'shadow.deny: true', shadow: { deny: true }, expect: 'deny' },
    { name: 'no shadow block', expect: undefined },
  ],
  invalid: { shadow: { deny: 'yes' }, message: /shadow\.deny/ },
});
// The rules per agent say nothing of a call no agent made (the contract calls from the CLI); their
// decisions for agents are in agents.test.ts.
shadowRuleContract(test, {
  plugin,
  rule: 'agent-access',
  cases: [{ name: 'a call without an agent', expect: undefined }],
});
shadowRuleContract(test, {
  plugin,
  rule: 'agent-rate-limit',
  cases: [{ name: 'a call without an agent', expect: undefined }],
});
shadowRuleContract(test, {
  plugin,
  rule: 'confirm',
  cases: [
    { name: 'shadow.confirm: true', shadow: { confirm: true }, expect: 'confirm' },
    { name: 'shadow.confirm: false', shadow: { confirm: false }, expect: undefined },
  ],
  invalid: { shadow: { confirm: 'please' }, message: /shadow\.confirm/ },
});
shadowRuleContract(test, {
  plugin,
  rule: 'rate-limit',
  cases: [
    { name: 'within shadow.rate_limit', shadow: { rate_limit: '5/min' }, expect: 'allow' },
    { name: 'no limit', expect: undefined },
  ],
  invalid: { shadow: { rate_limit: '10/minn' }, message: /unknown unit "minn"/ },
});
shadowRuleContract(test, {
  plugin,
  rule: 'max-calls',
  cases: [{ name: 'a call no script made', shadow: { max_calls: 1 }, expect: undefined }],
  invalid: { shadow: { max_calls: 0 }, message: /shadow\.max_calls/ },
});
shadowRuleContract(test, {
  plugin,
  rule: 'loop-detection',
  cases: [
    { name: 'a first call', expect: 'allow' },
    { name: 'shadow.loop: false', shadow: { loop: false }, expect: undefined },
  ],
  invalid: { shadow: { loop: { window: '2d' } }, message: /longer than a day/ },
});

// The terminal prompt, on a terminal that a test types into.
const input = Object.assign(new PassThrough(), { isTTY: true });
const output = new PassThrough();
output.resume();
personChannelContract(test, {
  name: 'cli-prompt',
  kinds: ['confirm', 'question'],
  create: () => new CliPromptChannel({ input, output }),
  answer: (request, reply) =>
    void setImmediate(() =>
      input.write(
        request.kind === 'confirm' ? (reply.action === 'accept' ? 'y\n' : 'n\n') : `${String(reply.value)}\n`,
      ),
    ),
});
