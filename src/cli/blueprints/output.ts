import { printableLine } from '../../base/printable.js';
import { refusals } from './install.js';
import type {
  BlueprintInstallResult,
  BlueprintPlan,
  BlueprintSummary,
  BlueprintVaultKey,
} from '../../editing/contracts.js';
import { table } from '../table.js';

/** What installing a blueprint would do, for a person: every tool, provider, host and key, then why it cannot be. */
export function planLines(plan: BlueprintPlan): string[] {
  const lines = [
    ...headLines(plan),
    `  Source: ${plan.source}${Object.keys(plan.set).length > 0 ? ` (set: ${setText(plan.set)})` : ''}`,
    ...toolLines(plan, '+'),
    ...hostLines(plan),
    ...keyLines(plan.vaultKeyStates),
    ...guideLines(plan),
  ];
  const refused = refusals(plan);
  if (refused.length > 0) {
    lines.push(`  Refused (${refused.length}) — resolve before installing:`);
    for (const reason of refused) lines.push(...reason.split('\n').map((line) => `    ✗ ${line}`));
  }
  return lines.map(printableLine);
}

/** One blueprint as `blueprint show` prints it. */
export function summaryLines(summary: BlueprintSummary & { vaultKeyStates: BlueprintVaultKey[] }): string[] {
  const lines = [
    ...headLines(summary),
    summary.file ? `  Installed: ${summary.file}` : '  Not installed (bundled with factorly)',
    ...(summary.source ? [`  Source: ${summary.source}`] : []),
    ...(summary.set && Object.keys(summary.set).length > 0 ? [`  Set: ${setText(summary.set)}`] : []),
    ...(summary.homepage ? [`  Homepage: ${summary.homepage}`] : []),
    ...(summary.problem ? [`  Problem: ${summary.problem}`] : []),
    ...toolLines(summary, ' '),
    ...paramLines(summary),
    ...hostLines(summary),
    ...keyLines(summary.vaultKeyStates),
    ...guideLines(summary),
  ];
  return lines.map(printableLine);
}

/** `blueprint list`: one row each. */
export function listTable(blueprints: readonly BlueprintSummary[], width: number, withInstalled = false): string {
  const headers = withInstalled
    ? ['NAME', 'VERSION', 'TOOLS', 'AUTH', 'INSTALLED', 'DESCRIPTION']
    : ['NAME', 'VERSION', 'TOOLS', 'AUTH', 'SOURCE', 'DESCRIPTION'];
  const rows = blueprints.map((b) => [
    b.name,
    b.version ?? '',
    String(b.tools.length),
    b.authType ?? '',
    withInstalled ? (b.installed ? 'yes' : '') : (b.source ?? ''),
    b.problem ? `(does not read: ${b.problem.split('\n')[0]})` : (b.description ?? ''),
  ]);
  return table(headers, rows, width, headers.length - 1);
}

/** After an install: where it went, and what is left to do. */
export function installedLines(result: BlueprintInstallResult): string[] {
  const { plan } = result;
  const lines = [`  Installed ${plan.name} → ${plan.file}`];
  if (result.stored.length > 0) lines.push(`  Stored in the vault: ${result.stored.join(', ')}`);
  if (result.missingKeys.length > 0) {
    lines.push('  Vault keys still missing: set each before calling its tools:');
    for (const key of result.missingKeys) lines.push(`    factorly vault set ${key}`);
  }
  for (const provider of plan.oauthProviders) lines.push(`  Log in: factorly auth login ${provider}`);
  const confirmed = plan.tools.filter((tool) => tool.confirm).length;
  if (confirmed > 0) lines.push(`  ${confirmed} tool(s) ask for your approval before each call (shadow.confirm).`);
  const first = plan.tools.find((tool) => !tool.confirm) ?? plan.tools[0];
  if (first) lines.push(`  Try it: factorly tools show ${first.name}`);
  return lines.map(printableLine);
}

function headLines(summary: BlueprintSummary): string[] {
  const title = [summary.name, summary.version].filter(Boolean).join(' ');
  const about = [summary.displayName, summary.description].filter(Boolean).join(' — ');
  return [`Blueprint ${title}${about ? ` — ${about}` : ''}`];
}

function toolLines(summary: BlueprintSummary, mark: string): string[] {
  const lines = [`  Tools (${summary.tools.length}):`];
  for (const tool of summary.tools) {
    const asks = tool.confirm ? '  (asks before each call)' : '';
    lines.push(`    ${mark} ${tool.name}  ${tool.endpoint}${asks}`);
  }
  if (summary.oauthProviders.length > 0)
    lines.push(`  OAuth providers (${summary.oauthProviders.length}): ${summary.oauthProviders.join(', ')}`);
  return lines;
}

function paramLines(summary: BlueprintSummary): string[] {
  const lines: string[] = [];
  for (const tool of summary.tools) {
    if (tool.description) lines.push(`  ${tool.name}: ${tool.description.split('\n')[0]}`);
    for (const p of tool.parameters) {
      const required = p.required && p.default === undefined ? 'required' : 'optional';
      const choices = p.enum ? ` (${p.enum.join(' | ')})` : '';
      lines.push(`      --${p.name} ${p.type}, ${required}${choices}${p.description ? `: ${p.description}` : ''}`);
    }
  }
  return lines;
}

function hostLines(summary: BlueprintSummary): string[] {
  const lines = [`  Hosts it talks to (${summary.hosts.length}):`];
  for (const { host, uses } of summary.hosts) {
    const tools = uses.filter((use) => use.startsWith('tool ')).length;
    const others = uses.filter((use) => !use.startsWith('tool ')).map((use) => use.replace(/^oauth /, 'OAuth '));
    const what = [...(tools > 0 ? [`${tools} tool${tools === 1 ? '' : 's'}`] : []), ...others].join(', ');
    lines.push(`    ${host}  (${what})`);
  }
  return lines;
}

function keyLines(states: readonly BlueprintVaultKey[]): string[] {
  if (states.length === 0) return ['  Vault keys: none'];
  return [
    `  Vault keys (${states.length}):`,
    ...states.map((state) => `    ${state.key}  ${state.present ? 'in the vault' : 'missing'}`),
  ];
}

function guideLines(summary: BlueprintSummary): string[] {
  if (!summary.authGuide) return [];
  return [
    '  How to get the credentials:',
    ...summary.authGuide
      .trim()
      .split('\n')
      .map((line) => `    ${line}`),
  ];
}

function setText(set: Record<string, string>): string {
  return Object.entries(set)
    .map(([key, value]) => `${key}=${value}`)
    .join(', ');
}
