import { FactorlyError } from '../base/errors.js';
import type { SecretBackend } from '../contracts/extensions.js';
import type { JsonValue, Params } from '../events/catalog.js';
import type { ParameterSpec, SecretScope, ToolDefinition } from '../contracts/tool.js';
import { SECRET_REFERENCE, toolSecretReferences } from '../config/secret-references.js';
import type { KeyedRegistry } from './registries.js';

/**
 * Resolves secret references through the installed `SecretBackend`s and remembers each value, so
 * output processors can scrub it. The calls of one call tree share `values` (see CallContext): a
 * value one call resolved is scrubbed from every other call of the tree. A reference to a backend
 * that is not installed is left as written; a missing key without a default is an error that names
 * the reference, never a value.
 */
export class CallSecretScope implements SecretScope {
  constructor(
    private readonly backends: KeyedRegistry<SecretBackend>,
    private readonly values = new Map<string, string>(),
  ) {}

  async resolve(template: string): Promise<string> {
    return this.resolveOnly(template, undefined);
  }

  /** Resolves only the references `allowed` lists (`<backend>:KEY`); every other reference stays as written. */
  async resolveOnly(template: string, allowed: ReadonlySet<string> | undefined): Promise<string> {
    const parts: (string | Promise<string>)[] = [];
    let last = 0;
    for (const match of template.matchAll(SECRET_REFERENCE)) {
      parts.push(template.slice(last, match.index));
      parts.push(allowed && !allowed.has(`${match[2]}:${match[3].trim()}`) ? match[0] : this.one(match));
      last = match.index + match[0].length;
    }
    parts.push(template.slice(last));
    // eslint-disable-next-line @typescript-eslint/await-thenable -- parts mixes text and pending secrets on purpose
    return (await Promise.all(parts)).join('');
  }

  /**
   * Reads the values behind `references` (`<backend>:KEY`, as `secretReferences` lists them) so they
   * are scrubbed from what is written before they are used: a call's params are recorded before its
   * tool resolves its secrets, and an agent may send a secret's value as a param. A reference that
   * cannot be read now is skipped; the tool that needs it fails with its own error when it runs.
   */
  async learn(references: Iterable<string>): Promise<void> {
    await Promise.all([...references].map((reference) => this.resolve(`{{${reference}}}`).catch(() => undefined)));
  }

  resolved(): ReadonlyMap<string, string> {
    return this.values;
  }

  async refresh(reference: string): Promise<string> {
    const split = reference.indexOf(':');
    const [name, key] = [reference.slice(0, split), reference.slice(split + 1).trim()];
    const backend = split > 0 ? this.backends.get(name) : undefined;
    const value = await backend?.resolve(key, { refresh: true });
    if (value === undefined)
      throw new FactorlyError('SECRET_NOT_FOUND', `secret {{${name}:${key}}} could not be read again from its backend`);
    const refused = this.values.get(`${name}:${key}`);
    // The refused value may still show up in what the far side answers: keep scrubbing it.
    if (refused !== undefined && refused !== value)
      this.values.set(`${name}:${key}#refused${this.values.size}`, refused);
    this.values.set(`${name}:${key}`, value);
    return value;
  }

  private async one(match: RegExpMatchArray): Promise<string> {
    const [whole, escaped, name, key, fallback] = match;
    if (escaped) return whole.slice(1);
    const backend = this.backends.get(name);
    if (!backend) return whole;
    // A value the tree already read (learned before its params were recorded, or an earlier call's) is
    // not read again: one backend read per secret per call tree.
    const known = this.values.get(`${name}:${key.trim()}`);
    if (known !== undefined) return known;
    const value = await backend.resolve(key.trim());
    if (value === undefined) {
      if (fallback !== undefined) return fallback;
      throw new FactorlyError('SECRET_NOT_FOUND', `secret {{${name}:${key.trim()}}} is not set in the ${name} backend`);
    }
    this.values.set(`${name}:${key.trim()}`, value);
    return value;
  }
}

/** What a call that may call any of `tools` (a script) could resolve: their references to `prefetch` backends. */
export function reachableSecretReferences(
  tools: readonly ToolDefinition[],
  backends: KeyedRegistry<SecretBackend>,
): Set<string> {
  const reachable = new Set<string>();
  for (const tool of tools)
    for (const reference of toolSecretReferences(tool))
      if (backends.get(reference.slice(0, reference.indexOf(':')))?.prefetch === true) reachable.add(reference);
  return reachable;
}

/**
 * The params a provider receives: in the value of a parameter declared with `hydrate_vault_refs`, the
 * references its list names are resolved (and so scrubbed afterwards); every other reference, and
 * everything in other parameters, stays literal. Events keep the params as sent (the template).
 */
export async function hydrateParams(
  parameters: readonly ParameterSpec[],
  params: Params,
  scope: CallSecretScope,
): Promise<Params> {
  const opted = parameters.filter((p) => p.hydrateVaultRefs && params[p.name] !== undefined);
  if (opted.length === 0) return params;
  const out: Params = { ...params };
  for (const { name, hydrateVaultRefs } of opted)
    out[name] = await hydrateValue(params[name], scope, new Set(hydrateVaultRefs));
  return out;
}

async function hydrateValue(value: JsonValue, scope: CallSecretScope, listed: ReadonlySet<string>): Promise<JsonValue> {
  if (typeof value === 'string') return scope.resolveOnly(value, listed);
  if (Array.isArray(value)) return Promise.all(value.map((item) => hydrateValue(item, scope, listed)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([k, v]) => [k, await hydrateValue(v, scope, listed)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}
