import ms from 'ms';
import type { AskPerson, JsonValue, ParameterSpec, ParamType, PersonOutcome, ToolCall, ToolResult } from 'factorly';

export const ASK_TOOL = 'factorly.ask';
export const ANSWER_TYPES: readonly ParamType[] = ['string', 'text', 'integer', 'number', 'boolean', 'json', 'enum'];
/** The longest a question may wait; the tool's own deadline is a little longer, so the question's timeout speaks first. */
export const MAX_QUESTION_MS = 60 * 60_000;
export const ASK_TOOL_TIMEOUT_MS = MAX_QUESTION_MS + 30_000;
/** A question's name is a label a form can use as a field: letters, digits, `_`, `-`, `.`. */
export const QUESTION_NAME = '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$';

/** `factorly.ask`'s params: the question, declared like a tool parameter, and how long to wait for it. */
export const ASK_PARAMETERS: ParameterSpec[] = [
  {
    name: 'name',
    type: 'string',
    required: true,
    pattern: QUESTION_NAME,
    description: 'a short label for what you ask, e.g. "region" (letters, digits, _ - .)',
  },
  { name: 'description', type: 'text', required: false, description: 'the question in full, as the person reads it' },
  {
    name: 'type',
    type: 'enum',
    enum: [...ANSWER_TYPES],
    required: false,
    description: 'the type of the answer (default string; enum when choices are given)',
  },
  {
    name: 'choices',
    type: 'string',
    required: false,
    description: 'comma-separated choices, e.g. "eu,us": the answer is one of them',
  },
  { name: 'default', type: 'string', required: false, description: 'the answer when the person gives none' },
  { name: 'required', type: 'boolean', required: false, default: true, description: 'whether an answer is needed' },
  {
    name: 'timeout',
    type: 'string',
    required: false,
    default: '5m',
    description: 'how long to wait: a duration such as 30s or 5m (a number is seconds; at most 1h)',
  },
];

/**
 * `factorly.ask`: puts the agent's question to the person through the kernel's `AskPerson` (every
 * channel that can reach them, raced) and answers with what they said, checked as the question's type
 * wants. A question it refuses (enum without choices, a default that does not fit) reaches nobody.
 */
export async function askTool(call: ToolCall, people: AskPerson): Promise<ToolResult> {
  const question = questionOf(call.params);
  if ('problem' in question) return failed(question.problem);
  let outcome: PersonOutcome;
  try {
    outcome = await people.ask(call, question.spec, { timeoutMs: question.timeoutMs });
  } catch (error) {
    return failed(error instanceof Error ? error.message : String(error));
  }
  if (outcome.action === 'accept') return { output: textOf(outcome.value), exitCode: 0 };
  return failed(refusal(question.spec.name, outcome, String(call.params.timeout)));
}

type Question = { spec: ParameterSpec; timeoutMs: number } | { problem: string };

function questionOf(params: ToolCall['params']): Question {
  const name = String(params.name);
  const choices = typeof params.choices === 'string' ? splitChoices(params.choices) : undefined;
  const type = (typeof params.type === 'string' ? params.type : choices ? 'enum' : 'string') as ParamType;
  if (type === 'enum' && !choices?.length) return { problem: 'type enum needs choices, e.g. choices: "eu,us"' };
  const timeoutMs = durationOf(params.timeout);
  if (timeoutMs === undefined || timeoutMs <= 0 || timeoutMs > MAX_QUESTION_MS)
    return { problem: `timeout ${JSON.stringify(params.timeout)} is not a duration from 1s to 1h (e.g. "30s", "5m")` };
  const description = typeof params.description === 'string' && params.description.trim() ? params.description : '';
  const spec: ParameterSpec = {
    name,
    type,
    required: params.required !== false,
    ...(description ? { description } : {}),
    ...(choices ? { enum: choices } : {}),
    // Checked against the question (and coerced to its type) by AskPerson before anyone is asked.
    ...(typeof params.default === 'string' ? { default: params.default } : {}),
  };
  return { spec, timeoutMs };
}

function splitChoices(text: string): string[] {
  return [...new Set(text.split(',').map((choice) => choice.trim()))].filter((choice) => choice !== '');
}

/** A duration as `timeout` takes it: `30s`, `5m`, or a number of seconds. */
function durationOf(value: unknown): number | undefined {
  const text = String(value ?? '').trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const millis = ms(text as ms.StringValue) as number | undefined;
  return typeof millis === 'number' && Number.isFinite(millis) ? millis : undefined;
}

/** Why the question got no answer, as the agent reads it (the reference's words where it has them). */
function refusal(name: string, outcome: PersonOutcome, timeout: string): string {
  switch (outcome.action) {
    case 'decline':
      return `the person declined to answer "${name}"`;
    case 'cancel':
      return 'user cancelled the prompt';
    case 'timeout':
      return `no answer to "${name}" within ${timeout}: the question timed out`;
    case 'stopped':
      return `the call stopped before "${name}" was answered`;
    case 'unreachable':
      return (
        `nobody can be asked "${name}"${outcome.by ? ` (${outcome.by})` : ''}: run \`factorly ui\` for this project ` +
        'and answer on its Approvals page, or call from an MCP client that supports elicitation, or from `factorly call` in a terminal'
      );
    default:
      return `"${name}" could not be asked: ${outcome.by ?? 'every channel failed'}`;
  }
}

function textOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function failed(error: string): ToolResult {
  return { output: '', error: `${ASK_TOOL}: ${error}`, exitCode: 1 };
}
