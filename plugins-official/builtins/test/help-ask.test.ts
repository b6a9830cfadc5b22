import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  definePlugin,
  type ConfirmChannel,
  type ConfirmRequest,
  type PersonAnswer,
  type PersonRequest,
  type SecretScope,
} from 'factorly';
import { startTestKernel, type TestKernel } from 'factorly/testing';
import { plugin as builtins } from '../src/plugin.js';

const YAML = `shadow:
  agents:
    cursor: {deny: [deploy]}
tools:
  deploy:
    type: cli
    command: echo
    args: ["deployed {{env}}"]
    description: "Deploy the app.\\nSecond line."
    parameters: [{name: env, type: enum, enum: [staging, prod], required: true}]
    shadow: {confirm: true, rate_limit: 10/min, timeout: 2m}
  gh.issues:
    type: cli
    command: echo
    args: ["{{vault:GH_TOKEN}}"]
  quiet:
    type: cli
    command: echo
    hidden: true
  wipe:
    type: cli
    command: echo
    shadow: {deny: true}
  loopy:
    type: cli
    command: echo
    shadow: {loop: false}
`;

const SECRET = 'hunter2-ask-secret';
process.env.ASK_TEST_SECRET_VALUE = SECRET;

/** What the planted person channel is told to answer next, and what it was asked. */
const person: { next: (request: PersonRequest, signal: AbortSignal) => Promise<PersonAnswer>; asked: PersonRequest[] } =
  { next: async () => ({ action: 'cancel' }), asked: [] };
/** A plugin-API-1 confirm channel, which must keep answering confirmations (and never be asked questions). */
const legacySeen: ConfirmRequest[] = [];

const channels = definePlugin({
  id: 'test-channels',
  apiVersion: '1',
  register(registrar) {
    registrar.registerInit({
      deps: {
        people: registrar.tokens.PersonChannels,
        confirms: registrar.tokens.ConfirmChannels,
        secrets: registrar.tokens.ConnectionSecrets,
      },
      init({ people, confirms, secrets }, context) {
        people.add(
          {
            name: 'test-person',
            kinds: ['question'],
            accepts: (request) => request.iface === 'ui',
            ask: (request, signal) => (person.asked.push(request), person.next(request, signal)),
          },
          context.pluginId,
        );
        const legacy: ConfirmChannel = {
          name: 'legacy',
          ask: async (request) => (legacySeen.push(request), { approved: true, by: 'legacy' }),
        };
        confirms.add(legacy, context.pluginId);
        Object.assign(resolver, { secrets });
      },
    });
  },
});
const resolver: { secrets?: SecretScope } = {};

let t: TestKernel;
beforeAll(async () => {
  t = await startTestKernel(YAML, [builtins, channels], { official: ['provider-cli', 'shadow', 'vault'] });
});
afterAll(() => t?.stop());

const output = async (params: Record<string, string>, iface = 'mcp') => {
  const result = await t.call('factorly.help', params, iface);
  expect(result).toMatchObject({ status: 'success', exitCode: 0 });
  return result.output;
};

describe('factorly.help', () => {
  it('gives the overview from the live catalogue and rules: governance, tools by namespace, topics', async () => {
    const text = await output({});
    expect(text).toMatch(/^# factorly: how calls work here\n\nfactorly is a local proxy/);
    expect(text).toContain('- **Confirmation**: deploy, factorly.shell, factorly.file.write ask a person');
    expect(text).toContain('- **Rate limits**: deploy 10/min.');
    expect(text).toContain('refused from the 12th');
    expect(text).toContain('- `gh` (1): gh.issues');
    expect(text).toContain(
      '- `factorly` (6): factorly.fetch, factorly.shell, factorly.file.read, factorly.file.write, factorly.help, factorly.ask',
    );
    expect(text).not.toMatch(/quiet|wipe/);
    for (const topic of ['tools', 'code', 'shadow', 'vault', 'blueprints'])
      expect(text).toContain(`\`factorly.help {"topic": "${topic}"}\``);
  });

  it('explains each topic, naming what this config has', async () => {
    expect(await output({ topic: 'tools' })).toContain('- `deploy`(env): Deploy the app.\n');
    const shadow = await output({ topic: 'shadow' });
    expect(shadow).toContain(
      '## deploy\n- a person approves each call (it waits up to 2m; no answer counts as declined)\n- at most 10/min, for each agent\n',
    );
    expect(shadow).toContain('## loopy\n- loop detection is off');
    expect(await output({ topic: 'vault' })).toContain('- `gh.issues`: vault:GH_TOKEN');
    expect(await output({ topic: 'code' })).toContain('factorly.code is turned off in this project');
    expect(await output({ topic: 'blueprints' })).toContain('## Installed here\n(none)');
    expect(await t.call('factorly.help', { topic: 'nope' })).toMatchObject({ status: 'blocked', blockedBy: 'invalid' });
  });

  it('documents one tool, and names close ones for a name it does not list (hidden and denied tools too)', async () => {
    expect(await output({ tool: 'deploy' })).toContain(
      '## Parameters\n- `env` (enum; required; one of: staging, prod)\n\n## Rules that govern it\n- a person approves each call',
    );
    expect(await t.call('factorly.help', { tool: 'dep' })).toMatchObject({
      status: 'error',
      error:
        'tool "dep" not found (did you mean "deploy"?): call factorly.help {"topic": "tools"} to see every tool you may call',
    });
    for (const tool of ['quiet', 'wipe']) expect((await t.call('factorly.help', { tool })).status).toBe('error');
    // An agent is not told of a tool its own rules refuse it.
    const asCursor = await t.kernel.pipeline.call({
      tool: 'factorly.help',
      params: {},
      iface: 'mcp',
      agentId: 'cursor',
    });
    expect(asCursor.output).toContain('- **Confirmation**: factorly.shell, factorly.file.write ask a person');
    expect(asCursor.output).not.toContain('deploy');
  });

  it('reads the rules again after the config changes on disk', async () => {
    writeFileSync(
      join(t.root, '.factorly', 'factorly.yaml'),
      YAML.replace('shadow: {loop: false}', 'shadow: {rate_limit: 2/hour, scope: tool}'),
    );
    await t.kernel.reload();
    expect(await output({ tool: 'loopy' })).toContain('- at most 2/hour, shared by every agent');
  });
});

const asked = async (params: Record<string, string>, iface = 'ui') => {
  const result = await t.call('factorly.ask', params, iface);
  const events = (await t.events()).filter(
    (e) => 'callId' in (e.data as object) && (e.data as { callId: string }).callId === result.callId,
  );
  return {
    result,
    events: events.filter((e) => e.type.startsWith('ask.')).map((e) => ({ type: e.type, ...(e.data as object) })),
  };
};

describe('factorly.ask', () => {
  it('is refused without a channel that can ask, saying how to answer, and recorded as such', async () => {
    const { result, events } = await asked({ name: 'region' }, 'mcp');
    expect(result).toMatchObject({ status: 'error', exitCode: 1 });
    expect(result.error).toMatch(/^factorly\.ask: nobody can be asked "region": run `factorly ui` for this project/);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'ask.requested',
        channels: [],
        question: { name: 'region', type: 'string', required: true },
      }),
      expect.objectContaining({ type: 'ask.resolved', channel: 'none', action: 'unreachable' }),
    ]);
  });

  it('carries the answer back checked like a param, and records the question and the answer', async () => {
    person.next = async () => ({ action: 'accept', value: ' 3 ', by: 'tester' });
    const { result, events } = await asked({
      name: 'replicas',
      description: 'How many?',
      type: 'integer',
      timeout: '30s',
    });
    expect(result).toMatchObject({ status: 'success', output: '3' });
    expect(person.asked.at(-1)).toMatchObject({
      kind: 'question',
      tool: 'factorly.ask',
      question: { name: 'replicas', type: 'integer' },
    });
    expect(events).toEqual([
      expect.objectContaining({
        type: 'ask.requested',
        channels: ['test-person'],
        timeoutMs: 30_000,
        replyKey: expect.any(String),
      }),
      expect.objectContaining({
        type: 'ask.resolved',
        channel: 'test-person',
        action: 'accept',
        answer: 3,
        by: 'tester',
      }),
    ]);
    person.next = async () => ({ action: 'accept', value: 'us' });
    expect((await asked({ name: 'region', choices: 'eu, us' })).result.output).toBe('us');
    person.next = async () => ({ action: 'accept', value: 'mars' });
    expect((await asked({ name: 'region', choices: 'eu,us' })).result.error).toBe(
      'factorly.ask: "region" could not be asked: failed: the answer was refused: must be one of: eu, us',
    );
  });

  it('refuses a question that cannot be answered before anyone is asked', async () => {
    const before = person.asked.length;
    expect((await asked({ name: 'region', choices: 'eu,us', default: 'asia' })).result.error).toBe(
      'factorly.ask: the question "region" has a default that does not fit: must be one of: eu, us',
    );
    expect((await asked({ name: 'region', type: 'enum' })).result.error).toBe(
      'factorly.ask: type enum needs choices, e.g. choices: "eu,us"',
    );
    expect((await asked({ name: 'x', timeout: '2h' })).result.error).toMatch(
      /timeout "2h" is not a duration from 1s to 1h/,
    );
    expect((await asked({ name: 'two words' })).result).toMatchObject({ status: 'blocked', blockedBy: 'invalid' });
    expect(person.asked.length).toBe(before);
  });

  it('records a dismissal and a timeout as such', async () => {
    person.next = async () => ({ action: 'cancel', by: 'tester' });
    const cancelled = await asked({ name: 'ok' });
    expect(cancelled.result.error).toBe('factorly.ask: user cancelled the prompt');
    expect(cancelled.events.at(-1)).toMatchObject({ type: 'ask.resolved', action: 'cancel' });
    let aborted = false;
    person.next = (_request, signal) =>
      new Promise((resolve) =>
        signal.addEventListener('abort', () => ((aborted = true), resolve({ action: 'cancel' }))),
      );
    const late = await asked({ name: 'ok', timeout: '200ms' });
    expect(late.result.error).toBe('factorly.ask: no answer to "ok" within 200ms: the question timed out');
    expect(late.events.at(-1)).toMatchObject({ type: 'ask.resolved', channel: 'timeout', action: 'timeout' });
    expect(aborted).toBe(true);
  });

  it('scrubs a secret of the call tree from the answer it records and returns', async () => {
    person.next = async () => {
      await resolver.secrets!.resolve('{{env:ASK_TEST_SECRET_VALUE}}');
      return { action: 'accept', value: `token is ${SECRET}` };
    };
    const { result, events } = await asked({ name: 'token' });
    expect(result.output).not.toContain(SECRET);
    expect(JSON.stringify(events)).not.toContain(SECRET);
    expect(events.at(-1)).toMatchObject({ action: 'accept', answer: expect.stringMatching(/^token is /) });
  });

  it('leaves plugin-API-1 confirm channels answering confirmations, unaware of questions', async () => {
    expect(await t.call('deploy', { env: 'prod' }, 'mcp')).toMatchObject({
      status: 'success',
      output: 'deployed prod\n',
    });
    expect(legacySeen.at(-1)).toMatchObject({ tool: 'deploy', params: { env: 'prod' } });
    expect(legacySeen.at(-1)).not.toHaveProperty('kind');
    expect(legacySeen.length).toBe(1);
  });
});
