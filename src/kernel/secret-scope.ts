import { FactorlyError } from './base/errors.js';
import type { SecretBackend } from './contracts/extensions.js';
import type { SecretScope } from './contracts/tool.js';
import type { KeyedSlot } from './slots.js';

/** `{{backend:key}}` or `{{backend:key|default}}`; a leading backslash escapes the braces. */
const REFERENCE = /(\\?)\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+?)(?:\|([^}]*))?\}\}/g;

/**
 * Resolves secret references for one call through the installed `SecretBackend`s and remembers
 * each value, so output processors can scrub it. A reference to a backend that is not installed
 * is left as written; a missing key without a default is an error that names the reference, never
 * a value.
 */
export class CallSecretScope implements SecretScope {
  private readonly values = new Map<string, string>();

  constructor(private readonly backends: KeyedSlot<SecretBackend>) {}

  async resolve(template: string): Promise<string> {
    const parts: (string | Promise<string>)[] = [];
    let last = 0;
    for (const match of template.matchAll(REFERENCE)) {
      parts.push(template.slice(last, match.index));
      parts.push(this.one(match));
      last = match.index + match[0].length;
    }
    parts.push(template.slice(last));
    return (await Promise.all(parts)).join('');
  }

  resolved(): ReadonlyMap<string, string> {
    return this.values;
  }

  private async one(match: RegExpMatchArray): Promise<string> {
    const [whole, escaped, name, key, fallback] = match;
    if (escaped) return whole.slice(1);
    const backend = this.backends.get(name);
    if (!backend) return whole;
    const value = await backend.resolve(key.trim());
    if (value === undefined) {
      if (fallback !== undefined) return fallback;
      throw new FactorlyError('SECRET_NOT_FOUND', `secret {{${name}:${key.trim()}}} is not set in the ${name} backend`);
    }
    this.values.set(`${name}:${key.trim()}`, value);
    return value;
  }
}
