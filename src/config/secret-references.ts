/**
 * `{{backend:key}}` or `{{backend:key|default}}`; a leading backslash escapes the braces. Groups:
 * 1 the escape, 2 the backend, 3 the key (trimmed where used), 4 the default.
 */
export const SECRET_REFERENCE = /(\\?)\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+?)(?:\|([^}]*))?\}\}/g;

/**
 * The secrets a value refers to (`<backend>:KEY`, one per reference), searched through every string
 * it holds: what a tool's config entry needs from the backends, or what an agent's param names.
 */
export function secretReferences(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(SECRET_REFERENCE)) if (!match[1]) into.add(`${match[2]}:${match[3].trim()}`);
  } else if (Array.isArray(value)) {
    for (const item of value) secretReferences(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) secretReferences(item, into);
  }
  return into;
}

/** `backend:KEY` when `text` is exactly one reference without a default (`{{vault:KEY}}`), else undefined. */
export function wholeReference(text: string): string | undefined {
  const match = /^\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+)\}\}$/.exec(text);
  return match && match[2].trim() !== '' ? `${match[1]}:${match[2].trim()}` : undefined;
}
