import { FactorlyError, messageOf } from '../base/errors.js';
import type { JsonValue, StandingKind } from '../events/catalog.js';
import { validateAnswer } from '../config/params.js';
import type { ConfirmChannel } from './extensions.js';
import type { ConfirmPrompt, PersonAnswer, PersonChannel, PersonOutcome, PersonRequest } from './person.js';

// The race behind the ask-a-person contract (person.ts), beside the contract it runs: which channels
// are asked, how their answers are checked, who wins. Confirmation and `factorly.ask` both run it,
// each recording its own events around it.

/** The `channel` of an outcome when the call stopped (its tree cancelled) while a person was being asked. */
export const STOPPED = 'stopped';

const ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel']);

/** What the asker records around the race: the channels about to ask (none: nobody can), then the outcome. */
export interface PersonRecording {
  asked(channels: readonly string[]): Promise<void>;
  resolved(outcome: PersonOutcome): Promise<void>;
}

export interface PersonRaceOptions {
  timeoutMs: number;
  /** The asking call's signal: when it aborts, the race ends as `stopped`. */
  signal?: AbortSignal;
  record: PersonRecording;
  /** Opens an answer sealed to the question's `replyKey`. */
  open?: (sealed: string) => string;
}

/**
 * Asks a person through every channel that knows the request's kind and accepts it, at once. The
 * first valid answer wins and aborts the others; a channel that fails (throws, answers something
 * malformed, or an answer the question refuses) does not count unless every channel failed; no answer
 * within `timeoutMs` is `timeout`, and the call stopping first is `stopped`. No channel that can ask
 * is `unreachable`, with each channel's `whyNot`.
 */
export async function askPerson(
  channels: readonly PersonChannel[],
  request: PersonRequest,
  options: PersonRaceOptions,
): Promise<PersonOutcome> {
  const able = channels.filter((channel) => channel.kinds.includes(request.kind));
  const asked = able.filter((channel) => acceptsNow(channel, request));
  await options.record.asked(asked.map((channel) => channel.name));
  const outcome = asked.length === 0 ? unreachable(able, request) : await race(asked, request, options);
  await options.record.resolved(outcome);
  return outcome;
}

/**
 * The channels a person can be reached on, in `order` (ties in registration order, person channels
 * first): every `PersonChannel`, and every `ConfirmChannel` (plugin API 1) as one that answers
 * confirmations only.
 */
export function personChannels(people: readonly PersonChannel[], confirms: readonly ConfirmChannel[]): PersonChannel[] {
  return [...people, ...confirms.map(personChannelOf)].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
}

/** A `ConfirmChannel` as a person channel: asked confirmations only, handed the `ConfirmRequest` it always was. */
export function personChannelOf(channel: ConfirmChannel): PersonChannel {
  return {
    name: channel.name,
    order: channel.order,
    kinds: ['confirm'],
    accepts: (request) => request.kind === 'confirm' && (channel.accepts?.(withoutKind(request)) ?? true),
    whyNot: (request) => (request.kind === 'confirm' ? channel.whyNot?.(withoutKind(request)) : undefined),
    async ask(request, signal) {
      if (request.kind !== 'confirm') throw new FactorlyError('NO_ANSWER', `${channel.name} only confirms calls`);
      const answer = await channel.ask(withoutKind(request), signal);
      return { action: answer?.approved === true ? 'accept' : 'decline', by: answer?.by };
    },
  };
}

function withoutKind<R extends { kind: string }>(request: R): Omit<R, 'kind'> {
  const { kind: _kind, ...rest } = request;
  return rest;
}

/** A channel whose `accepts` throws cannot take the request. */
function acceptsNow(channel: PersonChannel, request: PersonRequest): boolean {
  try {
    return channel.accepts?.(request) ?? true;
  } catch {
    return false;
  }
}

function unreachable(channels: readonly PersonChannel[], request: PersonRequest): PersonOutcome {
  const why = channels.map((channel) => whyNotNow(channel, request)).filter((reason) => reason !== undefined);
  return { channel: 'none', action: 'unreachable', ...(why.length > 0 ? { by: why.join('; ') } : {}) };
}

function whyNotNow(channel: PersonChannel, request: PersonRequest): string | undefined {
  try {
    const why = channel.whyNot?.(request);
    return typeof why === 'string' ? why : undefined;
  } catch {
    return undefined;
  }
}

function race(
  channels: readonly PersonChannel[],
  request: PersonRequest,
  { timeoutMs, signal, open }: PersonRaceOptions,
): Promise<PersonOutcome> {
  const controller = new AbortController();
  return new Promise((resolve) => {
    let settled = false;
    let failures = 0;
    const stopped = (): void => finish({ channel: STOPPED, action: 'stopped' });
    const finish = (outcome: PersonOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', stopped);
      controller.abort();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ channel: 'timeout', action: 'timeout' }), timeoutMs);
    if (signal?.aborted) return stopped();
    signal?.addEventListener('abort', stopped, { once: true });
    for (const channel of channels) {
      Promise.resolve()
        .then(() => channel.ask(request, controller.signal))
        .then((answer) => checked(request, answer, open))
        .then(
          (outcome) => finish({ channel: channel.name, ...outcome }),
          (error: unknown) => {
            failures += 1;
            if (failures === channels.length)
              finish({ channel: channel.name, action: 'failed', by: `failed: ${messageOf(error)}` });
          },
        );
    }
  });
}

/** A channel's answer checked at the boundary; a question's answer opened, checked and coerced against the question. */
function checked(
  request: PersonRequest,
  answer: PersonAnswer,
  open: PersonRaceOptions['open'],
): Omit<PersonOutcome, 'channel'> {
  const given = answer as Partial<PersonAnswer> | null | undefined;
  if (typeof given !== 'object' || given === null || !ACTIONS.has(given.action))
    throw new FactorlyError('NO_ANSWER', 'answered without an action (accept, decline or cancel)');
  const action = given.action!;
  const by = typeof given.by === 'string' ? given.by : undefined;
  if (request.kind === 'confirm' && action === 'accept' && given.standing !== undefined)
    return { action, by, standing: offered(request, given.standing) };
  if (request.kind !== 'question' || action !== 'accept') return { action, by };
  const value = given.sealed === undefined ? given.value : opened(given.sealed, open);
  const result = validateAnswer(request.question, value);
  if (!result.ok) throw new FactorlyError('NO_ANSWER', `the answer was refused: ${result.message}`);
  return { action, by, ...(result.value === undefined ? {} : { value: result.value }) };
}

/** A standing approval an answer chose: one the prompt offered, or the answer is malformed. */
function offered(request: ConfirmPrompt, standing: unknown): StandingKind {
  const choice = request.standing?.find((offer) => offer.kind === standing);
  if (!choice) throw new FactorlyError('NO_ANSWER', `approved for ${JSON.stringify(standing)}, which was not offered`);
  return choice.kind;
}

function opened(sealed: unknown, open: PersonRaceOptions['open']): JsonValue {
  if (typeof sealed !== 'string' || !open) throw new FactorlyError('NO_ANSWER', 'a sealed answer nobody can open');
  try {
    return JSON.parse(open(sealed)) as JsonValue;
  } catch (error) {
    throw new FactorlyError('NO_ANSWER', `a sealed answer that does not open: ${messageOf(error)}`, { cause: error });
  }
}
