import type { ConfirmChannel, ConfirmRequest } from '../../contracts/extensions.js';
import { assert, settled, type TestApi } from '../suite.js';

export interface ConfirmChannelSubject {
  name: string;
  create(): ConfirmChannel | Promise<ConfirmChannel>;
  /** A request this channel accepts (defaults are filled in). */
  request?: Partial<ConfirmRequest>;
  /**
   * Gives the person's answer to the request the channel is asking (types at its prompt, posts to
   * its queue, answers its elicitation). Without it only the cases that need no person run.
   */
  answer?(request: ConfirmRequest, approved: boolean): void | Promise<void>;
}

/** How long a channel may take to let go of a request once it is aborted. */
const LET_GO_MS = 2_000;

/** A confirmation the suites ask channels for, with `over` laid on the defaults. */
export function confirmRequestOf(callId: string, over: Partial<ConfirmRequest> = {}): ConfirmRequest {
  return {
    callId,
    tool: 'deploy',
    params: { env: 'prod' },
    fingerprint: 'f'.repeat(64),
    iface: 'cli',
    reason: 'tool "deploy" requires confirmation',
    ...over,
  };
}

function requestOf(subject: ConfirmChannelSubject, callId: string): ConfirmRequest {
  return confirmRequestOf(callId, subject.request);
}

/**
 * What every `ConfirmChannel` must do: a name; `accepts`/`whyNot` that answer without asking; an ask
 * that lets go (resolves or rejects) once its signal aborts (another channel answered, the wait timed
 * out); and a person's yes or no carried back as `{approved}`.
 */
export function confirmChannelContract(test: TestApi, subject: ConfirmChannelSubject): void {
  const { describe, it } = test;
  describe(`ConfirmChannel contract: ${subject.name}`, () => {
    it('has its name, and tells whether it can ask without asking', async () => {
      const channel = await subject.create();
      assert.equal(channel.name, subject.name);
      const request = requestOf(subject, 'c-accepts');
      if (channel.accepts) assert.equal(typeof channel.accepts(request), 'boolean');
      const why = channel.whyNot?.(request);
      assert.ok(why === undefined || typeof why === 'string');
    });

    it('lets go of a request once it is aborted', async () => {
      const channel = await subject.create();
      const stop = new AbortController();
      const asked = channel.ask(requestOf(subject, 'c-abort'), stop.signal);
      stop.abort();
      await settled(asked, LET_GO_MS, 'ask()');
      const already = new AbortController();
      already.abort();
      await settled(
        channel.ask(requestOf(subject, 'c-aborted'), already.signal),
        LET_GO_MS,
        'ask() with an aborted signal',
      );
    });

    const { answer } = subject;
    if (!answer) return;
    for (const approved of [true, false]) {
      it(`carries a person's ${approved ? 'yes' : 'no'} back`, async () => {
        const channel = await subject.create();
        const request = requestOf(subject, `c-${approved}`);
        const asked = channel.ask(request, new AbortController().signal);
        await answer(request, approved);
        const { value, error } = await settled(asked, 10_000, 'ask()');
        assert.equal(error, undefined);
        assert.equal(value?.approved, approved);
      });
    }
  });
}
