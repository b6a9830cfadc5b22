import ms from 'ms';
import type { LoopPolicy, RateScope, ShadowPolicies, ShadowPolicy } from '@factorly/plugin-shadow/api';
import type { ToolDefinition } from 'factorly';

// What `factorly.help` says about governance, read from the shadow policies in force (the live config).

/** How long a confirmation waits when a tool's `shadow.timeout` names no time (the kernel's default). */
const CONFIRM_WAIT_MS = 60_000;
const NAMED = 12;

/** The overview's "what to expect", with the numbers of this config. */
export function governanceLines(tools: readonly ToolDefinition[], policies: ShadowPolicies | undefined): string[] {
  const always = [
    '- **Params are checked** before a call runs: a call whose params do not fit is refused, naming each problem. Fix them and call again.',
    '- **Secrets** (API keys, tokens) are filled in by factorly after the rules let a call through; you never see them, and a value that shows up in output is replaced. Do not ask for them.',
    '- **Output** may be compressed, filtered or cut to a size the person chose; a cut is marked.',
    '- **Every call is recorded**, refused ones included: the person can see what you did and why a rule refused it.',
  ];
  if (!policies)
    return [
      always[0],
      '- **No governance rules** are installed (the shadow plugin is missing): calls run as asked.',
      ...always.slice(1),
    ];
  const confirming = tools.filter((tool) => policies.confirms(tool));
  const limited = tools.filter((tool) => policies.of(tool).rateLimit !== undefined);
  const loop = usualLoop(tools, policies);
  const code = tools.find((tool) => tool.name === 'factorly.code');
  return [
    always[0],
    `- **Confirmation**: ${
      confirming.length === 0
        ? 'no tool here asks a person first.'
        : `${named(confirming)} ask a person before each call. The call waits for the answer; "declined" means they said no: do not repeat the call; ask them why (factorly.ask) or do something else.`
    }`,
    `- **Rate limits**: ${
      limited.length === 0
        ? 'none here.'
        : `${named(limited, (tool) => `${tool.name} ${policies.of(tool).rateLimit!.text}`)}. A limited call is refused saying when the limit resets: wait rather than retry at once.`
    }`,
    `- **Loops**: ${loop?.enabled ? `the same call with the same params is warned about from the ${ordinal(loop.warn)} time within ${ms(loop.windowMs)} and refused from the ${ordinal(loop.block)} (the usual setting here; see the shadow topic for tools set otherwise). Vary the call or stop.` : 'loop detection is off for most tools here.'}`,
    '- **Denied tools** are not listed to you; a call to one is refused. The person may also set rules for you as an agent (the tools you may call, how often): a call refused that way names the rule.',
    ...(code
      ? [`- **Scripts** (factorly.code) may make at most ${policies.of(code).maxCalls} inner calls per run.`]
      : []),
    ...always.slice(1),
  ];
}

/** The rules that govern one tool, as its documentation lists them. */
export function policyLines(tool: ToolDefinition, policies: ShadowPolicies | undefined): string[] {
  if (!policies) return ['- none: no governance rules are installed'];
  const policy = policies.of(tool);
  const lines: string[] = [];
  if (policies.confirms(tool))
    lines.push(
      `- a person approves each call (it waits up to ${ms(policy.confirmTimeoutMs ?? CONFIRM_WAIT_MS)}; no answer counts as declined)`,
    );
  if (policies.confirms(tool) && policy.standing) lines.push(standingText(policy.standing));
  if (policy.rateLimit) lines.push(`- at most ${policy.rateLimit.text}, ${scopeText(policy.scope, policy.owner)}`);
  lines.push(loopText(policy.loop));
  if (tool.type === 'code') lines.push(`- one run may make at most ${policy.maxCalls} inner calls`);
  if (policy.logParams?.length)
    lines.push(`- the log shows these params with each call: ${policy.logParams.join(', ')}`);
  return lines;
}

/** What a standing approval lets a person do (`shadow.confirm: {for: 30m}`, `{once_per: source}`). */
function standingText(standing: NonNullable<ShadowPolicy['standing']>): string {
  const long = ms(standing.forMs, { long: true });
  return standing.kind === 'window'
    ? `- the person may approve it for ${long} at once: your calls of it then run without asking until that ends`
    : `- the person may approve a script for ${long}: the same script then runs without asking (tools it calls still ask if they do)`;
}

export function loopText(loop: LoopPolicy): string {
  if (!loop.enabled) return '- loop detection is off';
  return `- identical calls within ${ms(loop.windowMs)}: a warning from the ${ordinal(loop.warn)}, refused from the ${ordinal(loop.block)}`;
}

function scopeText(scope: RateScope | undefined, owner: string): string {
  switch (scope ?? 'agent') {
    case 'tool':
      return 'shared by every agent';
    case 'server':
      return `shared by every tool of "${owner}"`;
    case 'global':
      return 'one budget shared by every tool limited globally';
    default:
      return 'for each agent';
  }
}

/** The loop setting most tools have (the default, unless the config changed it everywhere). */
export function usualLoop(tools: readonly ToolDefinition[], policies: ShadowPolicies): LoopPolicy | undefined {
  const counts = new Map<string, { loop: LoopPolicy; count: number }>();
  for (const tool of tools) {
    const loop = policies.of(tool).loop;
    const key = JSON.stringify(loop);
    counts.set(key, { loop, count: (counts.get(key)?.count ?? 0) + 1 });
  }
  return [...counts.values()].sort((a, b) => b.count - a.count)[0]?.loop;
}

function named(tools: readonly ToolDefinition[], show = (tool: ToolDefinition) => tool.name): string {
  const shown = tools.slice(0, NAMED).map(show).join(', ');
  return tools.length > NAMED ? `${shown} and ${tools.length - NAMED} more` : shown;
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}
