import type { ParameterSpec } from 'factorly';

/** `{{name}}` placeholders; `{{backend:key}}` references (with a colon) are left for the secret resolver. */
const PLACEHOLDER = /(\\?)\{\{\s*([A-Za-z_][\w.-]*)\s*\}\}/g;

/** Names of the `{{param}}` placeholders in a template, in order of first use. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) if (!match[1] && !names.includes(match[2])) names.push(match[2]);
  return names;
}

/** Replaces `{{param}}` with the param's text; `\{{` stays a literal `{{`. Absent params become empty text. */
export function render(template: string, params: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (whole, escaped: string, name: string) => {
    if (escaped) return whole.slice(1);
    return textOf(params[name]);
  });
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
