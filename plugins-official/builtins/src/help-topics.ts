import type { ShadowPolicies } from '@factorly/plugin-shadow/api';
import type { ToolDefinition } from 'factorly';
import { loopText, policyLines, usualLoop } from './help-governance.js';

// The topics of `factorly.help {topic}`, each read from the live catalogue and rules where it names tools.

export const HELP_TOPICS = ['tools', 'code', 'shadow', 'vault', 'blueprints'] as const;
export type HelpTopic = (typeof HELP_TOPICS)[number];

/** A secret reference as tool configs write them: `{{vault:KEY}}`, `{{env:NAME}}`. */
const REFERENCE = /\{\{\s*([A-Za-z_][\w-]*)\s*:\s*([^}|\s]+)[^}]*\}\}/g;

export function topicText(topic: HelpTopic, tools: readonly ToolDefinition[], policies?: ShadowPolicies): string {
  switch (topic) {
    case 'tools':
      return toolsTopic(tools);
    case 'code':
      return codeTopic(tools, policies);
    case 'shadow':
      return shadowTopic(tools, policies);
    case 'vault':
      return vaultTopic(tools);
    case 'blueprints':
      return blueprintsTopic(tools);
  }
}

function toolsTopic(tools: readonly ToolDefinition[]): string {
  const lines = tools.map((tool) => {
    const params = tool.parameters.map((p) => (p.required ? p.name : `${p.name}?`)).join(', ');
    const summary = tool.description.split('\n')[0] || '(no description)';
    return `- \`${tool.name}\`(${params}): ${summary}`;
  });
  return [
    `# Tools you may call (${tools.length})`,
    '',
    'Hidden tools and tools the rules deny are not listed. `?` marks an optional parameter; call',
    '`factorly.help {"tool": "<name>"}` for a tool\'s parameters in full and the rules that govern it.',
    '',
    ...(lines.length > 0 ? lines : ['(none)']),
  ].join('\n');
}

function codeTopic(tools: readonly ToolDefinition[], policies?: ShadowPolicies): string {
  const code = tools.find((tool) => tool.name === 'factorly.code');
  if (!code)
    return '# Scripts\n\nfactorly.code is turned off in this project (or not served to you): scripts cannot run here.';
  const budget = policies ? `at most ${policies.of(code).maxCalls} inner calls per run, ` : '';
  return [
    '# Scripts: factorly.code',
    '',
    'Send `code`, a JavaScript script that declares `async function run(params)`, and `params`, a JSON',
    'object it receives. Inside the sandbox there is no import, require, fetch, process, timers or file',
    'system; the ways out are:',
    '',
    '- `await factorly.call(name, params)`: calls any tool listed to you and returns',
    '  `{ output, error, exitCode, durationMs, isError() }`. Each call is an inner call: checked,',
    '  governed and recorded like yours (a tool that asks a person asks here too).',
    '- `factorly.listTools()`: the tools you may call, with their parameters.',
    '- `tools.search({ query })`, `tools.search.describe({ paths })` and `tools.<namespace>.<tool>(args)`',
    '  (code mode): find tools and call them as functions.',
    '- `console.log(...)`: collected and returned beside the result.',
    '',
    'What `run` returns is the output: a string as is, `undefined`/`null` as nothing, anything else as',
    'JSON. A thrown error ends the run with exit code 1, a crash or running out of memory with 2, the',
    `timeout with 124. Budgets: ${budget}the tool's timeout, memory and output size.`,
    '',
    'A run that works can be saved by the person as a tool of its own (`factorly tools promote`).',
  ].join('\n');
}

function shadowTopic(tools: readonly ToolDefinition[], policies?: ShadowPolicies): string {
  const intro = [
    '# The rules in force ("shadow")',
    '',
    'Every call passes these rules, in order, before it runs: deny, confirm (a person approves),',
    'rate limit, max inner calls (scripts), loop detection. The first that refuses stops the call; a',
    'warning (a possible loop) comes back beside the output. The person sets them per tool in the config;',
    'what follows is what is in force now.',
    '',
  ];
  if (!policies)
    return [...intro, 'No rules are installed (the shadow plugin is missing): calls run as asked.'].join('\n');
  const loop = usualLoop(tools, policies);
  const usual = loop ? loopText(loop) : '';
  const governed = tools.filter(
    (tool) =>
      policies.confirms(tool) ||
      policies.of(tool).rateLimit !== undefined ||
      loopText(policies.of(tool).loop) !== usual ||
      (policies.of(tool).logParams?.length ?? 0) > 0,
  );
  const sections = governed.map((tool) => [`## ${tool.name}`, ...policyLines(tool, policies), ''].join('\n'));
  return [
    ...intro,
    `Every other tool: ${usual.replace(/^- /, '') || 'no rule applies'}.`,
    '',
    ...(sections.length > 0 ? sections : ['No tool asks a person first or has a rate limit.']),
  ].join('\n');
}

function vaultTopic(tools: readonly ToolDefinition[]): string {
  const uses = tools
    .map((tool) => ({ tool, refs: referencesOf(tool) }))
    .filter(({ refs }) => refs.length > 0)
    .map(({ tool, refs }) => `- \`${tool.name}\`: ${refs.join(', ')}`);
  return [
    '# Secrets',
    '',
    "Tools get their secrets (API keys, tokens, passwords) from the person's encrypted vault or other",
    'backends: a tool config writes `{{vault:KEY}}` (or `{{env:NAME}}`, …) where the value goes, and',
    'factorly fills it in at the last moment, after the rules let the call through. You never see a',
    "secret's value: it never reaches your params, the output you get or the log, and a value that shows",
    'up in output is replaced. Do not ask the person for secrets, and never put one in a param.',
    '',
    'When a call fails with `secret {{vault:KEY}} is not set`, tell the person: they run',
    '`factorly vault set KEY` (a tool that needs a login says `factorly auth login <name>`).',
    '',
    '## Tools here that use secrets (by reference; the names are not secret)',
    ...(uses.length > 0 ? uses : ['(none)']),
  ].join('\n');
}

function blueprintsTopic(tools: readonly ToolDefinition[]): string {
  const installed = new Map<string, string[]>();
  for (const tool of tools) {
    const match = /(?:^|[\\/])blueprints[\\/]([^\\/]+)\.ya?ml$/.exec(tool.source.file);
    if (match) installed.set(match[1], [...(installed.get(match[1]) ?? []), tool.name]);
  }
  const lines = [...installed].map(([name, names]) => `- \`${name}\`: ${names.join(', ')}`);
  return [
    '# Blueprints',
    '',
    'A blueprint is a ready-made integration with a service (GitHub, Slack, Linear, a company API): one',
    'YAML file of REST or MCP tools with the way they log in and the vault keys they need. The person',
    'installs one (`factorly blueprint install <name>`; `factorly blueprint list --available` lists the bundled ones;',
    '`factorly tools import openapi <file|url>` makes one from an OpenAPI description); its tools then',
    'appear in your list at once. Tools that write or delete ask a person before each call. You cannot',
    'install one yourself: when a service you need is missing, ask the person (factorly.ask).',
    '',
    '## Installed here',
    ...(lines.length > 0 ? lines : ['(none)']),
  ].join('\n');
}

/** The secret references a tool's config holds, each once (`vault:KEY`). */
function referencesOf(tool: ToolDefinition): string[] {
  const text = JSON.stringify([tool.spec, tool.parameters.map((p) => p.hydrateVaultRefs ?? [])]);
  return [...new Set([...text.matchAll(REFERENCE)].map((match) => `${match[1]}:${match[2]}`))];
}
