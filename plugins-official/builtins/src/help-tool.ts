import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { ParameterSpec, ToolCall, ToolDefinition, ToolResult } from 'factorly';
import { governanceLines, policyLines } from './help-governance.js';
import { HELP_TOPICS, topicText, type HelpTopic } from './help-topics.js';

export const HELP_TOOL = 'factorly.help';
export { HELP_TOPICS } from './help-topics.js';

/** Where `factorly.help` reads the live state from: the catalogue as the calling session sees it, and the shadow policies. */
export interface HelpSources {
  tools(sessionId?: string): ToolDefinition[];
  policies?: ShadowPolicies;
}

/**
 * What an agent is told about: the tools it may call, as an MCP client's list shows them: hidden ones
 * and those denied (to everyone or to this agent) left out, and those its interface does not serve
 * it (`ClientLink.offers`).
 */
export function listedTools(
  sources: HelpSources,
  call: Pick<ToolCall, 'sessionId' | 'agentId' | 'client'>,
): ToolDefinition[] {
  const offered = (tool: ToolDefinition): boolean => call.client?.offers?.(tool) ?? true;
  const denied = (tool: ToolDefinition): boolean => sources.policies?.denies(tool, call.agentId) === true;
  return sources.tools(call.sessionId).filter((tool) => !tool.hidden && !denied(tool) && offered(tool));
}

/**
 * `factorly.help`: onboarding for an agent, read from the live catalogue and rules: no params gives the
 * overview (what factorly is, how calls are governed, the tools by namespace); `topic` one of
 * `HELP_TOPICS`; `tool` one tool's documentation. Read-only.
 */
export function helpTool(call: ToolCall, sources: HelpSources): ToolResult {
  const tools = listedTools(sources, call);
  const { tool, topic } = call.params;
  if (typeof tool === 'string' && tool !== '') {
    const found = tools.find((candidate) => candidate.name === tool);
    if (!found) return { output: '', error: notFound(tool, tools), exitCode: 1 };
    return { output: toolDoc(found, sources.policies), exitCode: 0 };
  }
  if (typeof topic === 'string' && topic !== '')
    return { output: topicText(topic as HelpTopic, tools, sources.policies), exitCode: 0 };
  return { output: overview(tools, sources.policies), exitCode: 0 };
}

function overview(tools: ToolDefinition[], policies: ShadowPolicies | undefined): string {
  return [
    '# factorly: how calls work here',
    '',
    'factorly is a local proxy between you and the tools listed to you: command-line programs, REST APIs,',
    'other MCP servers and sandboxed JavaScript scripts. Every call takes the same path: the tool is found,',
    'your params are checked against its parameters (and converted: "3" becomes 3 for an integer), the',
    'person\'s governance rules ("shadow") decide whether it runs, secrets are filled in after that (you never',
    'see them), the tool runs, and its output is scrubbed of secrets and may be shortened. Every call, allowed',
    'or refused, is recorded in a tamper-evident log the person can read.',
    '',
    '## What to expect when you call',
    ...governanceLines(tools, policies),
    '',
    `## Your tools: ${tools.length}, by namespace`,
    ...namespaceLines(tools),
    '',
    '## More',
    `- \`${HELP_TOOL} {"tool": "<name>"}\`: one tool's description, parameters and the rules that govern it.`,
    ...HELP_TOPICS.map((topic) => `- \`${HELP_TOOL} {"topic": "${topic}"}\`: ${TOPIC_SUMMARY[topic]}`),
    '- `factorly.ask {"name": "...", "description": "..."}`: ask the person a question and wait for the answer.',
  ].join('\n');
}

const TOPIC_SUMMARY: Record<HelpTopic, string> = {
  tools: 'every tool with what it does and its parameters.',
  code: 'running a JavaScript script that calls other tools (factorly.code).',
  shadow: 'the rules in force, tool by tool: confirmation, rate limits, loops, inner-call budgets.',
  vault: 'secrets: how tools get them, why you never see them, what to do when one is missing.',
  blueprints: 'ready-made integrations a person installs (GitHub, Slack, …) and their tools.',
};

/** The tools grouped by the part of their name before the first dot. */
export function namespaces(tools: readonly ToolDefinition[]): Map<string, ToolDefinition[]> {
  const groups = new Map<string, ToolDefinition[]>();
  for (const tool of tools) {
    const dot = tool.name.indexOf('.');
    const space = dot > 0 ? tool.name.slice(0, dot) : '(no namespace)';
    groups.set(space, [...(groups.get(space) ?? []), tool]);
  }
  return groups;
}

const SHOWN_PER_NAMESPACE = 8;

function namespaceLines(tools: readonly ToolDefinition[]): string[] {
  if (tools.length === 0) return ['(none: this config lists no tool you may call)'];
  return [...namespaces(tools)].map(([space, members]) => {
    const names = members.slice(0, SHOWN_PER_NAMESPACE).map((tool) => tool.name);
    const more = members.length > SHOWN_PER_NAMESPACE ? `, and ${members.length - SHOWN_PER_NAMESPACE} more` : '';
    return `- \`${space}\` (${members.length}): ${names.join(', ')}${more}`;
  });
}

/** One tool as `factorly.help {tool}` documents it. */
function toolDoc(tool: ToolDefinition, policies: ShadowPolicies | undefined): string {
  const example = Object.fromEntries(
    tool.parameters.filter((p) => p.required).map((p) => [p.name, p.enum?.[0] ?? `<${p.type}>`]),
  );
  const schema = tool.parameters.length === 0 && tool.inputSchema ? schemaLines(tool.inputSchema) : [];
  return [
    `# ${tool.name}`,
    '',
    tool.description || '(no description)',
    '',
    `type: ${tool.type}${tool.timeoutMs ? ` · times out after ${tool.timeoutMs / 1000}s` : ''}`,
    '',
    '## Parameters',
    ...(tool.parameters.length === 0 && schema.length === 0 ? ['(none)'] : tool.parameters.map(parameterLine)),
    ...schema,
    '',
    '## Rules that govern it',
    ...policyLines(tool, policies),
    '',
    '## Call it',
    `\`${tool.name}\` with ${JSON.stringify(example)}`,
  ].join('\n');
}

export function parameterLine(p: ParameterSpec): string {
  const facts = [
    p.type,
    p.required ? 'required' : 'optional',
    p.enum ? `one of: ${p.enum.join(', ')}` : undefined,
    p.default === undefined ? undefined : `default ${JSON.stringify(p.default)}`,
    p.min === undefined ? undefined : `at least ${p.min}`,
    p.max === undefined ? undefined : `at most ${p.max}`,
    p.minLength === undefined ? undefined : `at least ${p.minLength} characters`,
    p.maxLength === undefined ? undefined : `at most ${p.maxLength} characters`,
    p.pattern === undefined ? undefined : `matches ${p.pattern}`,
  ].filter((fact) => fact !== undefined);
  return `- \`${p.name}\` (${facts.join('; ')})${p.description ? `: ${p.description}` : ''}`;
}

const SCHEMA_CHARS = 4_000;

function schemaLines(schema: Record<string, unknown>): string[] {
  const text = JSON.stringify(schema, null, 2);
  const shown = text.length > SCHEMA_CHARS ? `${text.slice(0, SCHEMA_CHARS)}\n… (cut)` : text;
  return ['Its input, as JSON Schema:', '```json', shown, '```'];
}

function notFound(name: string, tools: readonly ToolDefinition[]): string {
  const needle = name.toLowerCase();
  const close = tools.filter((tool) => tool.name.toLowerCase().includes(needle)).slice(0, 5);
  const hint = close.length > 0 ? ` (did you mean ${close.map((tool) => `"${tool.name}"`).join(', ')}?)` : '';
  return `tool "${name}" not found${hint}: call ${HELP_TOOL} {"topic": "tools"} to see every tool you may call`;
}
