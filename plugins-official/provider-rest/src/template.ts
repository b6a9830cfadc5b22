import type { SecretScope } from 'factorly';

/**
 * One pass over a template: `{{param}}` and `{{param|default}}` take a param's value, and
 * `{{backend:KEY}}` goes to the call's secret scope. Doing both in one pass matters: a param value
 * is never scanned again, so a caller cannot smuggle `{{vault:KEY}}` in through a param.
 */
const TOKEN = /(\\?)\{\{\s*(?:([A-Za-z0-9_][A-Za-z0-9_-]*):([^}]+?)|([A-Za-z_][\w.-]*)(?:\|([^}]*))?)\s*\}\}/g;

export type Encode = (value: unknown) => string;

/** Names of the `{{param}}` placeholders in a template, in order of first use. */
export function placeholders(template: string): string[] {
  const names: string[] = [];
  for (const match of template.matchAll(TOKEN)) {
    const name = match[4];
    if (!match[1] && name !== undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Renders a template: params through `encode`, secret references resolved (and so remembered for
 * scrubbing). An absent param with no default renders as `missing(name)`.
 */
export async function render(
  template: string,
  params: Record<string, unknown>,
  secrets: SecretScope,
  encode: Encode,
  missing: (name: string) => string = () => '',
): Promise<string> {
  const parts: (string | Promise<string>)[] = [];
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    parts.push(template.slice(last, match.index));
    last = match.index + match[0].length;
    const [whole, escaped, , , name, fallback] = match;
    if (escaped) parts.push(whole.slice(1));
    else if (name === undefined) parts.push(secrets.resolve(whole.trim()));
    else if (params[name] !== undefined && params[name] !== null) parts.push(encode(params[name]));
    else parts.push(fallback !== undefined ? fallback : missing(name));
  }
  parts.push(template.slice(last));
  // eslint-disable-next-line @typescript-eslint/await-thenable -- parts mixes text and pending secrets on purpose
  return (await Promise.all(parts)).join('');
}

/** A param as plain text: strings verbatim, everything else as JSON. */
export const asText: Encode = (value) => (typeof value === 'string' ? value : JSON.stringify(value));

/** Inside a JSON body template: strings JSON-escaped without quotes, numbers/booleans/JSON raw. */
export const asJsonFragment: Encode = (value) =>
  typeof value === 'string' ? JSON.stringify(value).slice(1, -1) : JSON.stringify(value);
