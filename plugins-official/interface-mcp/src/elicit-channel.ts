import type {
  ConfirmPrompt,
  ConfirmRequest,
  JsonValue,
  ParameterSpec,
  PersonAnswer,
  PersonChannel,
  PersonRequest,
  QuestionPrompt,
} from 'factorly';
import type { SessionRegistry } from './session-registry.js';

const PREVIEW_CHARS = 500;
/** The race in the kernel times the question out; the SDK's own 60 s request timeout must not cut it first. */
const NO_SDK_TIMEOUT_MS = 24 * 3_600_000;
const ACTIONS = new Set<unknown>(['accept', 'decline', 'cancel']);
/** The choice of the form's `remember` field that approves the one call (the others are the standing approvals offered). */
export const ONCE = 'this call only';

/**
 * Asks the person behind an MCP client, by elicitation (form mode) on the call's own stream, about a
 * call that session made: to allow it (approved only when the client accepts and `approve` is true;
 * the reference takes any accept as a yes), or to answer its question (one field, typed as the
 * question is). A call from a client that cannot elicit is not taken, and the reason says so.
 */
export class ElicitationChannel implements PersonChannel {
  readonly name = 'mcp-elicitation';
  readonly order = 20;
  readonly kinds = ['confirm', 'question'] as const;

  constructor(private readonly sessions: SessionRegistry) {}

  accepts(request: PersonRequest): boolean {
    return this.ours(request) && request.client?.capabilities.elicitation !== undefined;
  }

  whyNot(request: PersonRequest): string | undefined {
    if (!this.ours(request) || this.accepts(request)) return undefined;
    const client = this.sessions.get(request.sessionId)?.client;
    return `the MCP client ${client ? `"${client.name}"` : 'of this session'} does not support elicitation, so it cannot be asked`;
  }

  async ask(request: PersonRequest, signal: AbortSignal): Promise<PersonAnswer> {
    const [field, params] = request.kind === 'confirm' ? confirmForm(request) : questionForm(request);
    const result = await request.client!.request('elicitation/create', params, signal, NO_SDK_TIMEOUT_MS);
    const content = result.content as Record<string, unknown> | undefined;
    const action = ACTIONS.has(result.action) ? (result.action as PersonAnswer['action']) : 'cancel';
    const client = this.sessions.get(request.sessionId)?.client?.name ?? 'mcp client';
    const detail = action === 'accept' && request.kind === 'confirm' ? `, approve=${String(content?.approve)}` : '';
    const by = `${client} (elicitation: ${String(result.action)}${detail})`;
    if (request.kind === 'confirm') {
      if (action !== 'accept' || content?.approve !== true) return { action: 'decline', by };
      const standing = request.standing?.find((choice) => choice.label === content.remember);
      return standing ? { action, standing: standing.kind, by: `${by}, ${standing.label}` } : { action, by };
    }
    return action === 'accept' ? { action, value: (content?.[field] ?? null) as JsonValue, by } : { action, by };
  }

  private ours(request: PersonRequest): boolean {
    return (
      request.iface === 'mcp' && this.sessions.get(request.sessionId) !== undefined && request.client !== undefined
    );
  }
}

type Form = [field: string, params: Record<string, unknown>];

/** Approve (a boolean) and, when the rule offers standing approvals, how far the approval reaches. */
function confirmForm(request: ConfirmPrompt): Form {
  const approve = {
    type: 'boolean',
    title: 'Allow this call',
    description: `Run ${request.tool} with the parameters shown`,
    default: false,
  };
  const choices = request.standing ?? [];
  const remember = {
    type: 'string',
    title: 'Approve for',
    description: `${ONCE}, or later calls too (${choices.map((choice) => choice.label).join('; ')})`,
    enum: [ONCE, ...choices.map((choice) => choice.label)],
    default: ONCE,
  };
  const properties = choices.length === 0 ? { approve } : { approve, remember };
  const requestedSchema = { type: 'object', properties, required: ['approve'] };
  return ['approve', { mode: 'form', message: messageFor(request), requestedSchema }];
}

function questionForm({ question }: QuestionPrompt): Form {
  const required = question.required && question.default === undefined ? [question.name] : [];
  const requestedSchema = { type: 'object', properties: { [question.name]: schemaOf(question) }, required };
  return [question.name, { mode: 'form', message: question.description ?? question.name, requestedSchema }];
}

/** The question as one field of an elicitation form (MCP's primitive schemas: string, number, integer, boolean, enum). */
export function schemaOf(question: ParameterSpec): Record<string, unknown> {
  const { name, description, min, max, minLength, maxLength } = question;
  const shown = { title: name, ...(description ? { description } : {}) };
  // MCP's primitive schemas take a primitive default only (a JSON question's object default stays the question's).
  const fallback = ['string', 'number', 'boolean'].includes(typeof question.default)
    ? { default: question.default }
    : {};
  if (question.type === 'boolean') return { type: 'boolean', ...shown, ...fallback };
  if (question.type === 'integer' || question.type === 'number')
    return { type: question.type, ...shown, ...defined({ minimum: min, maximum: max }), ...fallback };
  const choices = question.enum ? { enum: question.enum } : {};
  const hint = question.type === 'json' ? { description: `${description ?? name} (JSON)` } : {};
  return { type: 'string', ...shown, ...hint, ...choices, ...defined({ minLength, maxLength }), ...fallback };
}

function defined(values: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Record<
    string,
    number
  >;
}

/** Names the tool and why it needs a person, and shows the params (cut to a preview). */
export function messageFor(request: ConfirmRequest): string {
  const params = JSON.stringify(request.params, null, 2);
  const preview =
    params.length > PREVIEW_CHARS
      ? `${params.slice(0, PREVIEW_CHARS)}\n… (${params.length - PREVIEW_CHARS} more characters)`
      : params;
  return `Tool "${request.tool}" requires confirmation (${request.reason}). Allow this call?\nParameters:\n${preview}`;
}
