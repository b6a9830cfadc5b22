import { describe, expect, it } from 'vitest';
import type { PersonAnswer, PersonChannel, PersonRequest } from '../../src/contracts/person.js';
import { sealAnswer } from '../../src/contracts/person-seal.js';
import {
  personChannelContract,
  type PersonChannelSubject,
  type PersonReply,
} from '../../src/testing/contracts/person-channel.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/** The person-channel suite on planted channels: a sound one passes every case, each break fails its case. */

type Ask = PersonChannel['ask'];
type Pending = Map<string, (reply: PersonReply) => void>;

/** Asks by keeping the request until the test answers it or its signal aborts (then it lets go as a cancel). */
function planted(ask?: (pending: Pending) => Ask, sealed = false): PersonChannelSubject {
  const pending: Pending = new Map();
  const answerOf = (request: PersonRequest, { action, value }: PersonReply): PersonAnswer => {
    if (request.kind !== 'question' || action !== 'accept') return { action };
    return sealed ? { action, sealed: sealAnswer(request.replyKey, JSON.stringify(value)) } : { action, value };
  };
  const sound: Ask = (request, signal) =>
    new Promise((resolve) => {
      const answer = (reply: PersonReply) => (pending.delete(request.callId), resolve(answerOf(request, reply)));
      pending.set(request.callId, answer);
      if (signal.aborted) answer({ action: 'cancel' });
      signal.addEventListener('abort', () => answer({ action: 'cancel' }), { once: true });
    });
  return {
    name: 'planted',
    kinds: ['confirm', 'question'],
    questionActions: ['accept', 'cancel'],
    create: () => ({ name: 'planted', kinds: ['confirm', 'question'], ask: ask ? ask(pending) : sound }),
    answer: (request, reply) => pending.get(request.callId)?.(reply),
  };
}

const run = (subject: PersonChannelSubject, only?: (name: string) => boolean) =>
  runSuite((api) => personChannelContract(api, subject), only);
const LETS_GO = 'lets go of a request once it is aborted, of every kind it knows';
const ANSWER = "carries a person's answer to a question back";

describe('the person-channel suite on planted channels', () => {
  it('passes a channel that keeps the contract, every case, whether it answers in the clear or sealed', async () => {
    expect([...(await run(planted())).values()]).toEqual(Array(6).fill(PASSED));
    expect((await run(planted(undefined, true))).get(ANSWER)).toBe(PASSED);
  });

  it('fails a channel that never lets go of an aborted request, naming what it waited for', async () => {
    const outcomes = await run(
      planted(() => () => new Promise(() => undefined)),
      (name) => name === LETS_GO,
    );
    expect(outcomes.get(LETS_GO)).toBe('ask() of a confirm did not settle within 2000 ms');
  });

  it('fails a channel that lists kinds it was not meant to know, or carries the wrong answer back', async () => {
    const confirmOnly = { ...planted(), kinds: ['confirm'] as const };
    expect(
      (await run(confirmOnly)).get('has its name and the kinds it knows, and tells whether it can ask without asking'),
    ).not.toBe(PASSED);
    const inverted = await run(
      planted(
        (pending) => (request) =>
          new Promise((resolve) =>
            pending.set(request.callId, ({ action }) =>
              resolve({ action: action === 'accept' ? 'decline' : 'accept', value: 'wrong' }),
            ),
          ),
      ),
      (name) => name.startsWith('carries'),
    );
    expect(inverted.get("carries a person's yes to a confirmation back")).not.toBe(PASSED);
    expect(inverted.get("carries a person's no to a confirmation back")).not.toBe(PASSED);
    expect(inverted.get(ANSWER)).not.toBe(PASSED);
  });
});
