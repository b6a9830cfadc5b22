import type { AskQuestion, JsonValue } from '../events/catalog.js';
import type { EventLog } from '../events/log.js';
import { validateAnswer } from '../config/params.js';
import { PARAM_TYPES, type ParameterSpec } from '../config/tool-definition.js';
import { FactorlyError } from '../base/errors.js';
import type { AskPersonOptions, PersonChannel, PersonOutcome, QuestionPrompt } from './person.js';
import { askPerson } from './person-race.js';
import { replyKey } from './person-seal.js';
import type { ToolCall } from './tool.js';

/** How long a question waits for an answer when its asker names no time (the reference's five minutes). */
export const DEFAULT_QUESTION_TIMEOUT_MS = 5 * 60_000;

/** What asking on behalf of a call needs from the kernel: the log, the channels, and the call tree's scrubber. */
export interface QuestionParts {
  log: EventLog;
  channels: readonly PersonChannel[];
  /** Scrubs the call tree's secrets from a value on its way into an event or to a person. */
  scrub<T extends JsonValue>(value: T): Promise<T>;
}

/**
 * `AskPerson.ask`: the question scrubbed, then raced over the channels that take questions, with
 * `ask.requested` written before anyone is asked and `ask.resolved` (the answer scrubbed) after.
 */
export async function askQuestion(
  parts: QuestionParts,
  call: ToolCall,
  question: ParameterSpec,
  options: AskPersonOptions = {},
): Promise<PersonOutcome> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS;
  const key = replyKey();
  const shown = await parts.scrub(questionOf(checkedQuestion(question)));
  const request: QuestionPrompt = {
    kind: 'question',
    callId: call.callId,
    tool: call.tool.name,
    iface: call.iface,
    agentId: call.agentId,
    sessionId: call.sessionId,
    client: call.client,
    // The question keeps its parameter's type: questionOf only copied the keys that say what is asked.
    question: shown as ParameterSpec,
    check: (answer) => validateAnswer(shown as ParameterSpec, answer),
    expiresAt: Date.now() + timeoutMs,
    replyKey: key.publicKey,
  };
  const { callId } = call;
  return askPerson(parts.channels, request, {
    timeoutMs,
    signal: call.signal,
    open: key.open,
    record: {
      asked: async (channels) => {
        await parts.log.append([
          {
            type: 'ask.requested',
            data: { callId, channels: [...channels], question: shown, timeoutMs, replyKey: key.publicKey },
          },
        ]);
      },
      resolved: async ({ channel, action, value, by }) => {
        const answer = value === undefined ? undefined : await parts.scrub(value);
        await parts.log.append([{ type: 'ask.resolved', data: { callId, channel, action, answer, by } }]);
      },
    },
  });
}

/**
 * A question that can be put to a person: a name, a parameter type (`enum` with its choices), and a
 * default that fits it (coerced); anything else is refused before anyone is asked.
 */
export function checkedQuestion(question: ParameterSpec): ParameterSpec {
  const refuse = (why: string): never => {
    throw new FactorlyError('PARAMS_INVALID', `the question ${JSON.stringify(question.name)} ${why}`);
  };
  if (typeof question.name !== 'string' || question.name.trim() === '') refuse('has no name');
  if (!PARAM_TYPES.includes(question.type)) refuse(`has an unknown type ${JSON.stringify(question.type)}`);
  if (question.type === 'enum' && !question.enum?.length) refuse('is of type enum but offers no choices');
  if (question.default === undefined) return question;
  const fits = validateAnswer({ ...question, default: undefined, required: true }, question.default);
  if (!fits.ok) refuse(`has a default that does not fit: ${fits.message}`);
  return { ...question, default: fits.ok ? fits.value : undefined };
}

/** The question as the log keeps it: a parameter's keys that say what is asked and what answer fits. */
function questionOf(spec: ParameterSpec): AskQuestion & { [key: string]: JsonValue } {
  const { name, type, description, required, default: fallback, enum: choices } = spec;
  const { min, max, minLength, maxLength, pattern } = spec;
  const shown = { name, type, description, required, default: fallback, enum: choices };
  const limits = { min, max, minLength, maxLength, pattern };
  return Object.fromEntries(
    Object.entries({ ...shown, ...limits }).filter(([, value]) => value !== undefined),
  ) as AskQuestion & { [key: string]: JsonValue };
}
