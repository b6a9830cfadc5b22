import { describe, expect, it } from 'vitest';
import type { ConfirmChannel, ConfirmRequest } from '../../src/contracts/extensions.js';
import type {
  ConfirmPrompt,
  PersonAnswer,
  PersonChannel,
  PersonOutcome,
  QuestionPrompt,
} from '../../src/contracts/person.js';
import { askPerson, personChannels } from '../../src/contracts/person-race.js';
import { replyKey, sealAnswer } from '../../src/contracts/person-seal.js';
import { validateAnswer } from '../../src/config/params.js';
import type { ParameterSpec } from '../../src/config/tool-definition.js';

const CONFIRM: ConfirmPrompt = {
  kind: 'confirm',
  callId: 'c1',
  tool: 'deploy',
  params: { env: 'prod' },
  fingerprint: 'f',
  iface: 'cli',
  reason: 'tool "deploy" requires confirmation',
};

function question(spec: Partial<ParameterSpec> = {}, key = replyKey()): QuestionPrompt {
  const asked: ParameterSpec = { name: 'replicas', type: 'integer', required: true, min: 1, ...spec };
  return {
    kind: 'question',
    callId: 'c2',
    tool: 'factorly.ask',
    iface: 'mcp',
    question: asked,
    check: (answer) => validateAnswer(asked, answer),
    expiresAt: Date.now() + 60_000,
    replyKey: key.publicKey,
  };
}

/** A channel that answers with `answer` (after `delayMs`), and records what it was asked and whether it was aborted. */
function channel(
  name: string,
  answer: PersonAnswer | (() => Promise<PersonAnswer>),
  extra: Partial<PersonChannel> = {},
): PersonChannel & { asked: string[]; aborted: boolean } {
  const made = {
    name,
    kinds: ['confirm', 'question'] as const,
    asked: [] as string[],
    aborted: false,
    ask(request: Parameters<PersonChannel['ask']>[0], signal: AbortSignal) {
      made.asked.push(request.kind);
      signal.addEventListener('abort', () => (made.aborted = true));
      return typeof answer === 'function' ? answer() : Promise.resolve(answer);
    },
    ...extra,
  };
  return made;
}

const never = (): Promise<PersonAnswer> => new Promise(() => undefined);

async function race(
  channels: PersonChannel[],
  request = CONFIRM as ConfirmPrompt | QuestionPrompt,
  timeoutMs = 5_000,
  key?: ReturnType<typeof replyKey>,
) {
  const recorded: { asked?: readonly string[]; resolved?: PersonOutcome } = {};
  const outcome = await askPerson(channels, request, {
    timeoutMs,
    open: key?.open,
    record: {
      asked: async (names) => void (recorded.asked = names),
      resolved: async (o) => void (recorded.resolved = o),
    },
  });
  expect(recorded.resolved).toEqual(outcome);
  return { outcome, asked: recorded.asked };
}

describe('the ask-a-person race', () => {
  it('asks every channel that knows the kind and accepts it; the first answer wins and aborts the others', async () => {
    const slow = channel('slow', never);
    const quick = channel('quick', { action: 'accept', by: 'a person' });
    const questionsOnly = channel('questions-only', { action: 'decline' }, { kinds: ['question'] });
    const busy = channel('busy', { action: 'decline' }, { accepts: () => false });
    const { outcome, asked } = await race([slow, quick, questionsOnly, busy]);
    expect(asked).toEqual(['slow', 'quick']);
    expect(outcome).toEqual({ channel: 'quick', action: 'accept', by: 'a person' });
    expect(slow.aborted).toBe(true);
    expect([questionsOnly.asked, busy.asked]).toEqual([[], []]);
  });

  it("checks and coerces a question's answer like a param, opens a sealed one, and counts one that does not fit as a failure", async () => {
    expect((await race([channel('a', { action: 'accept', value: '3' })], question())).outcome).toEqual({
      channel: 'a',
      action: 'accept',
      value: 3,
    });
    const key = replyKey();
    const sealed = channel('ui', { action: 'accept', sealed: sealAnswer(key.publicKey, '"2"') });
    expect((await race([sealed], question({}, key), 5_000, key)).outcome).toMatchObject({ action: 'accept', value: 2 });
    // A wrong answer from one channel does not end the race while another can still answer.
    const wrong = channel('wrong', { action: 'accept', value: 'many' });
    const later = channel('later', async () => ({ action: 'accept', value: 2 }));
    expect((await race([wrong, later], question())).outcome).toMatchObject({ channel: 'later', value: 2 });
    const none = await race([channel('zero', { action: 'accept', value: 0 })], question());
    expect(none.outcome).toEqual({
      channel: 'zero',
      action: 'failed',
      by: 'failed: the answer was refused: must be at least 1, got 0',
    });
    const optional = await race([channel('blank', { action: 'accept', value: '' })], question({ required: false }));
    expect(optional.outcome).toEqual({ channel: 'blank', action: 'accept' });
  });

  it('counts a malformed answer, a throw and a sealed answer it cannot open as failures', async () => {
    const odd = channel('odd', 'yes' as unknown as PersonAnswer);
    const thrown = channel('thrown', () => Promise.reject(new Error('no terminal')));
    const forged = channel('forged', { action: 'accept', sealed: sealAnswer(replyKey().publicKey, '3') });
    const { outcome } = await race([odd, thrown, forged], question(), 5_000, replyKey());
    expect(outcome.action).toBe('failed');
    expect(outcome.by).toMatch(/^failed: /);
    expect((await race([odd])).outcome).toEqual({
      channel: 'odd',
      action: 'failed',
      by: 'failed: answered without an action (accept, decline or cancel)',
    });
  });

  it('ends as timeout when nobody answers in time, and as stopped when the call stops first', async () => {
    const waiting = channel('waiting', never);
    expect((await race([waiting], CONFIRM, 50)).outcome).toEqual({ channel: 'timeout', action: 'timeout' });
    expect(waiting.aborted).toBe(true);
    const stop = new AbortController();
    const asking = askPerson([channel('w', never)], CONFIRM, {
      timeoutMs: 5_000,
      signal: stop.signal,
      record: { asked: async () => undefined, resolved: async () => undefined },
    });
    stop.abort();
    expect(await asking).toEqual({ channel: 'stopped', action: 'stopped' });
  });

  it('is unreachable when no channel can ask, saying why each cannot', async () => {
    const why = channel(
      'mcp',
      { action: 'accept' },
      { accepts: () => false, whyNot: () => 'the client cannot elicit' },
    );
    const broken = channel(
      'broken',
      { action: 'accept' },
      {
        accepts: () => {
          throw new Error('boom');
        },
        whyNot: () => {
          throw new Error('boom');
        },
      },
    );
    const { outcome, asked } = await race([why, broken], question());
    expect(asked).toEqual([]);
    expect(outcome).toEqual({ channel: 'none', action: 'unreachable', by: 'the client cannot elicit' });
    expect((await race([], question())).outcome).toEqual({ channel: 'none', action: 'unreachable' });
  });

  it('asks a ConfirmChannel (plugin API 1) confirmations only, handing it the ConfirmRequest it always had', async () => {
    const seen: ConfirmRequest[] = [];
    const legacy: ConfirmChannel = {
      name: 'legacy',
      order: 5,
      accepts: (request) => request.iface === 'cli',
      ask: async (request) => (seen.push(request), { approved: request.params.env === 'prod', by: 'legacy' }),
    };
    const person = channel('person', never);
    const channels = personChannels([person], [legacy]);
    expect(channels.map((c) => c.name)).toEqual(['person', 'legacy']);
    expect(channels.find((c) => c.name === 'legacy')!.kinds).toEqual(['confirm']);
    expect((await race(channels)).outcome).toEqual({ channel: 'legacy', action: 'accept', by: 'legacy' });
    expect(seen[0]).toEqual({ ...CONFIRM, kind: undefined });
    expect(Object.hasOwn(seen[0], 'kind')).toBe(false);
    const staging = { ...CONFIRM, params: { env: 'staging' } };
    expect((await race(channels, staging)).outcome).toMatchObject({ channel: 'legacy', action: 'decline' });
    const { asked } = await race(channels, question(), 30);
    expect(asked).toEqual(['person']);
  });
});

describe('standing approvals in the race', () => {
  const offered: ConfirmPrompt = {
    ...CONFIRM,
    standing: [{ kind: 'window', label: 'for 30 minutes', forMs: 1_800_000 }],
  };

  it('carries the standing choice a prompt offered, fails an answer naming one it did not, and lets an API 1 channel approve once', async () => {
    expect((await race([channel('ui', { action: 'accept', standing: 'window' })], offered)).outcome).toEqual({
      channel: 'ui',
      action: 'accept',
      standing: 'window',
    });
    const unoffered = await race([channel('ui', { action: 'accept', standing: 'source' })], offered);
    expect(unoffered.outcome).toEqual({
      channel: 'ui',
      action: 'failed',
      by: 'failed: approved for "source", which was not offered',
    });
    // Nothing standing was offered: the same answer is as malformed.
    expect((await race([channel('ui', { action: 'accept', standing: 'window' })])).outcome.action).toBe('failed');
    // A decline carries no choice, whatever the channel said.
    expect((await race([channel('ui', { action: 'decline', standing: 'window' })], offered)).outcome).toEqual({
      channel: 'ui',
      action: 'decline',
    });
    const legacy: ConfirmChannel = { name: 'legacy', ask: async () => ({ approved: true }) };
    expect((await race(personChannels([], [legacy]), offered)).outcome).toEqual({
      channel: 'legacy',
      action: 'accept',
    });
  });
});

describe('sealed answers', () => {
  it('opens only with the key they were sealed to, and refuses a tampered one', () => {
    const key = replyKey();
    const sealed = sealAnswer(key.publicKey, '{"region":"eu"}');
    expect(key.open(sealed)).toBe('{"region":"eu"}');
    // The plaintext's quotes cannot occur in base64url, so this cannot pass by chance nor fail by it.
    expect(sealed).not.toContain('"region"');
    expect(() => replyKey().open(sealed)).toThrow("a sealed answer could not be opened with this question's key");
    const parts = sealed.split('.');
    parts[3] = Buffer.from('{"region":"us"}').toString('base64url');
    expect(() => key.open(parts.join('.'))).toThrow('could not be opened');
    expect(() => key.open('abc')).toThrow('a sealed answer has four parts');
    expect(() => sealAnswer('not-a-key', 'x')).toThrow("the question's reply key is not an X25519 public key");
  });
});
