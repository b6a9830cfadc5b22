import type { ParameterSpec, SecretScope } from 'factorly';

/** `{{name}}` placeholders; `{{backend:key}}` references (with a colon) are left for the secret resolver. */
const PLACEHOLDER = /(\\?)\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** Names of the `{{param}}` placeholders in a template, in order of first use. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) if (!match[1] && !names.includes(match[2])) names.push(match[2]);
  return names;
}

/**
 * Renders a template at the last hop: `{{param}}` becomes the param's text and `{{backend:KEY}}`
 * in the configured text is resolved through the call's secret scope (which remembers the value
 * for scrubbing). A param's value is inserted after resolution and never scanned, so an agent
 * cannot smuggle a `{{vault:…}}` or `{{env:…}}` reference in through its params.
 */
export async function renderResolved(
  template: string,
  params: Record<string, unknown>,
  secrets: SecretScope,
): Promise<string> {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    out += await secrets.resolve(template.slice(last, match.index));
    out += match[1] ? match[0].slice(1) : textOf(params[match[2]]);
    last = match.index + match[0].length;
  }
  return out + (await secrets.resolve(template.slice(last)));
}

/** An argument that is only a placeholder for an absent optional param is dropped rather than passed empty. */
export function isBarePlaceholderFor(template: string, params: Record<string, unknown>): boolean {
  const match = /^\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}$/.exec(template);
  return match !== null && params[match[1]] === undefined;
}

export function textOf(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Parameters inferred from the templates of a tool that declares none: every placeholder, required, a string. */
export function inferParameters(templates: readonly string[]): ParameterSpec[] {
  const names = [...new Set(templates.flatMap(placeholders))];
  return names.map((name) => ({ name, type: 'string', required: true }));
}
