import { FactorlyError } from '../base/errors.js';
import type { SecretBackend } from '../contracts/extensions.js';
import type { JsonValue, Params } from '../events/catalog.js';
import type { ParameterSpec, SecretScope, ToolDefinition } from '../contracts/tool.js';
import type { KeyedRegistry } from './registries.js';

/** `{{backend:key}}` or `{{backend:key|default}}`; a leading backslash escapes the braces. */
const REFERENCE = /(\\?)\{\{([A-Za-z0-9_][A-Za-z0-9_-]*):([^}|]+?)(?:\|([^}]*))?\}\}/g;

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
    return this.resolveFrom(template, undefined);
  }

  /** Resolves only references to the given backends; every other reference stays as written. */
  async resolveFrom(template: string, backends: ReadonlySet<string> | undefined): Promise<string> {
    const parts: (string | Promise<string>)[] = [];
    let last = 0;
    for (const match of template.matchAll(REFERENCE)) {
      parts.push(template.slice(last, match.index));
      parts.push(backends && !backends.has(match[2]) ? match[0] : this.one(match));
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

/**
 * The secrets a value refers to (`<backend>:KEY`, one per reference), searched through every string
 * it holds: what a tool's config entry needs from the backends.
 */
export function secretReferences(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    for (const match of value.matchAll(REFERENCE)) if (!match[1]) into.add(`${match[2]}:${match[3].trim()}`);
  } else if (Array.isArray(value)) {
    for (const item of value) secretReferences(item, into);
  } else if (value !== null && typeof value === 'object') {
    for (const item of Object.values(value)) secretReferences(item, into);
  }
  return into;
}

/** Per definition (a reload makes new ones): the pipeline asks on every call. */
const TOOL_REFERENCES = new WeakMap<object, ReadonlySet<string>>();

/** The secrets a tool's config entry refers to: in its spec and its parameters' defaults. */
export function toolSecretReferences(tool: Pick<ToolDefinition, 'spec' | 'parameters'>): ReadonlySet<string> {
  let references = TOOL_REFERENCES.get(tool);
  if (!references) {
    references = secretReferences([tool.spec, tool.parameters.map((p) => p.default)]);
    TOOL_REFERENCES.set(tool, references);
  }
  return references;
}

/**
 * The params a provider receives: a `{{backend:KEY}}` reference in the value of a parameter declared
 * with `hydrate_vault_refs: true` is resolved when its backend lets agents name its keys
 * (`SecretBackend.hydratable`), and so scrubbed afterwards; everything else an agent sends stays
 * literal. Events keep the params as sent, so they hold the template, never the value.
 */
export async function hydrateParams(
  parameters: readonly ParameterSpec[],
  params: Params,
  scope: CallSecretScope,
  backends: KeyedRegistry<SecretBackend>,
): Promise<Params> {
  const opted = parameters.filter((p) => p.hydrateVaultRefs && params[p.name] !== undefined);
  if (opted.length === 0) return params;
  const hydratable = new Set(backends.keys().filter((name) => backends.get(name)?.hydratable === true));
  const out: Params = { ...params };
  for (const parameter of opted) out[parameter.name] = await hydrateValue(params[parameter.name], scope, hydratable);
  return out;
}

async function hydrateValue(
  value: JsonValue,
  scope: CallSecretScope,
  hydratable: ReadonlySet<string>,
): Promise<JsonValue> {
  if (typeof value === 'string') return scope.resolveFrom(value, hydratable);
  if (Array.isArray(value)) return Promise.all(value.map((item) => hydrateValue(item, scope, hydratable)));
  if (value !== null && typeof value === 'object') {
    const entries = await Promise.all(
      Object.entries(value).map(async ([k, v]) => [k, await hydrateValue(v, scope, hydratable)] as const),
    );
    return Object.fromEntries(entries);
  }
  return value;
}
