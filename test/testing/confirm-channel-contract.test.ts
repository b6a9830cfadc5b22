import { describe, expect, it } from 'vitest';
import type { ConfirmChannel, ConfirmRequest } from '../../src/contracts/extensions.js';
import { confirmChannelContract, type ConfirmChannelSubject } from '../../src/testing/contracts/confirm-channel.js';
import { PASSED, runSuite } from '../helpers/suite-runner.js';

/** The confirm-channel suite on planted channels: a sound one passes every case, each break fails its case. */

type Ask = ConfirmChannel['ask'];

/** Asks by keeping the request until the test answers it or its signal aborts (then it resolves as a no). */
function planted(ask?: (pending: Map<string, (approved: boolean) => void>) => Ask): ConfirmChannelSubject {
  const pending = new Map<string, (approved: boolean) => void>();
  const sound: Ask = (request, signal) =>
    new Promise((resolve) => {
      const answer = (approved: boolean) => (pending.delete(request.callId), resolve({ approved }));
      pending.set(request.callId, answer);
      if (signal.aborted) answer(false);
      signal.addEventListener('abort', () => answer(false), { once: true });
    });
  return {
    name: 'planted',
    create: () => ({ name: 'planted', ask: ask ? ask(pending) : sound }),
    answer: (request: ConfirmRequest, approved: boolean) => pending.get(request.callId)?.(approved),
  };
}

const run = (subject: ConfirmChannelSubject, only?: (name: string) => boolean) =>
  runSuite((api) => confirmChannelContract(api, subject), only);
const LETS_GO = 'lets go of a request once it is aborted';

describe('the confirm-channel suite on planted channels', () => {
  it('passes a channel that keeps the contract, every case', async () => {
    expect([...(await run(planted())).values()]).toEqual([PASSED, PASSED, PASSED, PASSED]);
  });

  it('fails a channel that never lets go of an aborted request, naming what it waited for', async () => {
    const outcomes = await run(
      planted(() => () => new Promise(() => undefined)),
      (name) => name === LETS_GO,
    );
    expect(outcomes.get(LETS_GO)).toBe('ask() did not settle within 2000 ms');
  });

  it('fails a channel that carries the wrong answer back, or lets go of a request nobody aborted', async () => {
    const inverted = await run(
      planted(
        (pending) => (request) =>
          new Promise((resolve) => pending.set(request.callId, (approved) => resolve({ approved: !approved }))),
      ),
    );
    expect(inverted.get("carries a person's yes back")).not.toBe(PASSED);
    expect(inverted.get("carries a person's no back")).not.toBe(PASSED);
    const hasty = await run(planted(() => async () => ({ approved: true })));
    expect(hasty.get("carries a person's no back")).not.toBe(PASSED);
  });
});
