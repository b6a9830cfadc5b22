import type { AskAction, JsonValue } from '../../events/catalog.js';
import type {
  ConfirmPrompt,
  PersonAnswer,
  PersonChannel,
  PersonRequest,
  PersonRequestKind,
  QuestionPrompt,
} from '../../contracts/person.js';
import { replyKey, type ReplyKey } from '../../contracts/person-seal.js';
import { validateAnswer } from '../../config/params.js';
import { assert, settled, type TestApi } from '../suite.js';
import { confirmRequestOf } from './confirm-channel.js';

/** What a person does with a request, as the subject makes a person do it. */
export interface PersonReply {
  action: AskAction;
  /** For `accept` on a question: the answer the person gives. */
  value?: JsonValue;
}

export interface PersonChannelSubject {
  name: string;
  create(): PersonChannel | Promise<PersonChannel>;
  /** The kinds of request the channel is meant to know: its `kinds` must list them, and each is tested. */
  kinds: readonly PersonRequestKind[];
  /** A confirmation this channel accepts (defaults are filled in). */
  confirm?: Partial<ConfirmPrompt>;
  /** A question this channel accepts (defaults are filled in: a required string named `colour`). */
  question?: Partial<QuestionPrompt>;
  /**
   * Makes the person answer the request the channel is asking (types at its prompt, posts to its
   * page, answers its elicitation). Without it only the cases that need no person run.
   */
  answer?(request: PersonRequest, reply: PersonReply): void | Promise<void>;
  /** What a person can do with a question on this channel (default: answer it). */
  questionActions?: readonly AskAction[];
}

/** How long a channel may take to let go of a request once it is aborted. */
const LET_GO_MS = 2_000;
const KINDS: readonly PersonRequestKind[] = ['confirm', 'question'];

function confirmOf(subject: PersonChannelSubject, callId: string): ConfirmPrompt {
  const { kind: _kind, ...over } = subject.confirm ?? {};
  return { kind: 'confirm', ...confirmRequestOf(callId, over) };
}

function questionOf(subject: PersonChannelSubject, callId: string, key: ReplyKey): QuestionPrompt {
  const request: Omit<QuestionPrompt, 'check'> = {
    kind: 'question',
    callId,
    tool: 'factorly.ask',
    iface: 'cli',
    question: { name: 'colour', type: 'string', description: 'Which colour should the chart use?', required: true },
    expiresAt: Date.now() + 60_000,
    replyKey: key.publicKey,
    ...subject.question,
  };
  return { ...request, check: (answer) => validateAnswer(request.question, answer) };
}

/** The answer a channel carried back, opened when it came sealed to the question's key. */
function answered(answer: PersonAnswer | undefined, key: ReplyKey): JsonValue | undefined {
  if (answer?.sealed !== undefined) return JSON.parse(key.open(answer.sealed)) as JsonValue;
  return answer?.value;
}

/**
 * What every `PersonChannel` must do: a name and the kinds it knows; `accepts`/`whyNot` that answer
 * at once, without asking; an ask that lets go (resolves or rejects) once its signal aborts (another
 * channel answered, the wait timed out, the call stopped); and a person's answer carried back: a yes
 * as `accept` and a no as `decline` for a confirmation, and for a question the answer given (as
 * `value`, or `sealed` to the question's `replyKey`) or the person's dismissal.
 */
export function personChannelContract(test: TestApi, subject: PersonChannelSubject): void {
  const { describe, it } = test;
  const requestOf = (kind: PersonRequestKind, callId: string, key = replyKey()): PersonRequest =>
    kind === 'confirm' ? confirmOf(subject, callId) : questionOf(subject, callId, key);
  describe(`PersonChannel contract: ${subject.name}`, () => {
    it('has its name and the kinds it knows, and tells whether it can ask without asking', async () => {
      const channel = await subject.create();
      assert.equal(channel.name, subject.name);
      assert.deepEqual([...channel.kinds].sort(), [...subject.kinds].sort(), 'kinds lists the kinds it knows');
      for (const kind of channel.kinds) {
        assert.ok(KINDS.includes(kind), `kind ${JSON.stringify(kind)} is one of ${KINDS.join(', ')}`);
        const request = requestOf(kind, `p-accepts-${kind}`);
        if (channel.accepts) assert.equal(typeof channel.accepts(request), 'boolean');
        const why = channel.whyNot?.(request);
        assert.ok(why === undefined || typeof why === 'string');
      }
    });

    it('lets go of a request once it is aborted, of every kind it knows', async () => {
      const channel = await subject.create();
      for (const kind of channel.kinds) {
        const stop = new AbortController();
        const asked = channel.ask(requestOf(kind, `p-abort-${kind}`), stop.signal);
        stop.abort();
        await settled(asked, LET_GO_MS, `ask() of a ${kind}`);
        const already = new AbortController();
        already.abort();
        await settled(
          channel.ask(requestOf(kind, `p-aborted-${kind}`), already.signal),
          LET_GO_MS,
          `ask() of a ${kind} with an aborted signal`,
        );
      }
    });

    const { answer } = subject;
    if (!answer) return;
    const ask = async (kind: PersonRequestKind, callId: string, reply: PersonReply, key = replyKey()) => {
      const channel = await subject.create();
      const request = requestOf(kind, callId, key);
      const asked = channel.ask(request, new AbortController().signal);
      await answer(request, reply);
      const { value, error } = await settled(asked, 10_000, 'ask()');
      assert.equal(error, undefined);
      return value;
    };
    if (subject.kinds.includes('confirm')) {
      for (const action of ['accept', 'decline'] as const) {
        it(`carries a person's ${action === 'accept' ? 'yes' : 'no'} to a confirmation back`, async () => {
          const value = await ask('confirm', `p-confirm-${action}`, { action });
          assert.equal(value?.action, action);
        });
      }
    }
    if (!subject.kinds.includes('question')) return;
    it("carries a person's answer to a question back", async () => {
      const key = replyKey();
      const value = await ask('question', 'p-question-accept', { action: 'accept', value: 'teal' }, key);
      assert.equal(value?.action, 'accept');
      assert.equal(answered(value, key), 'teal');
    });
    for (const action of (subject.questionActions ?? ['accept']).filter((a) => a !== 'accept')) {
      it(`carries a person's ${action} of a question back`, async () => {
        const value = await ask('question', `p-question-${action}`, { action });
        assert.equal(value?.action, action);
      });
    }
  });
}
