import { isMap, isSeq, type Node, type YAMLMap } from 'yaml';
import type { JsonValue } from '../events/catalog.js';
import { didYouMean } from '../base/suggest.js';
import {
  PARAM_LOCATIONS,
  PARAM_TYPES,
  type ParameterSpec,
  type ParamLocation,
  type ParamType,
} from './tool-definition.js';
import { coerceValue } from './params.js';
import { wholeReference } from './secret-references.js';

const PARAM_KEYS = [
  'name',
  'description',
  'required',
  'type',
  'default',
  'min',
  'max',
  'min_length',
  'max_length',
  'pattern',
  'enum',
  'in',
  'api_name',
  'hydrate_vault_refs',
] as const;

/** Validates a tool's `parameters` list; problems are reported through `problem(message, node)`. */
export function parseParameters(
  value: unknown,
  node: Node | null,
  problem: (message: string, node?: Node | null) => void,
): ParameterSpec[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problem('"parameters" must be a list', node);
    return [];
  }
  const items = isSeq(node) ? node.items : [];
  const specs: ParameterSpec[] = [];
  value.forEach((entry, index) => {
    const itemNode = (items[index] ?? null) as Node | null;
    const spec = parseParameter(entry, itemNode, index, problem);
    if (!spec) return;
    if (specs.some((s) => s.name === spec.name)) problem(`parameter "${spec.name}" is declared twice`, itemNode);
    else specs.push(spec);
  });
  return specs;
}

function parseParameter(
  entry: unknown,
  node: Node | null,
  index: number,
  problem: (message: string, node?: Node | null) => void,
): ParameterSpec | undefined {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    problem(`parameter ${index + 1} must be a mapping with at least a name`, node);
    return undefined;
  }
  const p = entry as Record<string, unknown>;
  const at = (key: string): Node | null =>
    isMap(node) ? (((node as YAMLMap).get(key, true) as Node | null) ?? node) : node;
  if (typeof p.name !== 'string' || p.name === '') {
    problem(`parameter ${index + 1} is missing a name`, node);
    return undefined;
  }
  const name = p.name;
  for (const key of Object.keys(p)) {
    if (!(PARAM_KEYS as readonly string[]).includes(key)) {
      problem(`parameter "${name}" has unknown key "${key}"${didYouMean(key, PARAM_KEYS)}`, at(key));
    }
  }
  const type = (p.type ?? 'string') as string;
  if (!(PARAM_TYPES as readonly string[]).includes(type)) {
    problem(`parameter "${name}" has unknown type "${type}" (valid: ${PARAM_TYPES.join(', ')})`, at('type'));
    return undefined;
  }
  const spec: ParameterSpec = { name, type: type as ParamType, required: p.required === true };
  if (typeof p.description === 'string') spec.description = p.description;
  readHydration(spec, p, name, at, problem);
  if (p.in !== undefined) {
    if ((PARAM_LOCATIONS as readonly unknown[]).includes(p.in)) spec.in = p.in as ParamLocation;
    else
      problem(
        `parameter "${name}" has unknown "in" ${JSON.stringify(p.in)} (valid: ${PARAM_LOCATIONS.join(', ')})`,
        at('in'),
      );
  }
  if (p.api_name !== undefined) {
    if (typeof p.api_name === 'string' && p.api_name.trim() !== '') spec.apiName = p.api_name;
    else problem(`parameter "${name}": api_name must be a non-empty string`, at('api_name'));
  }
  readNumbers(spec, p, name, at, problem);
  readEnum(spec, p, name, at, problem);
  readPattern(spec, p, name, at, problem);
  if (p.default !== undefined && p.default !== null) {
    const coerced = coerceValue(spec, p.default as JsonValue);
    if (coerced.ok) spec.default = coerced.value;
    else problem(`parameter "${name}" has an invalid default: ${coerced.message}`, at('default'));
  }
  return spec;
}

function readNumbers(
  spec: ParameterSpec,
  p: Record<string, unknown>,
  name: string,
  at: (key: string) => Node | null,
  problem: (message: string, node?: Node | null) => void,
): void {
  const fields = [
    ['min', 'min'],
    ['max', 'max'],
    ['min_length', 'minLength'],
    ['max_length', 'maxLength'],
  ] as const;
  for (const [key, field] of fields) {
    if (p[key] === undefined) continue;
    if (typeof p[key] !== 'number' || Number.isNaN(p[key]))
      problem(`parameter "${name}": ${key} must be a number`, at(key));
    else spec[field] = p[key];
  }
}

function readEnum(
  spec: ParameterSpec,
  p: Record<string, unknown>,
  name: string,
  at: (key: string) => Node | null,
  problem: (message: string, node?: Node | null) => void,
): void {
  if (p.enum !== undefined) {
    const entries: unknown[] = Array.isArray(p.enum) ? p.enum : [];
    const notScalar = entries.findIndex((entry) => !['string', 'number', 'boolean'].includes(typeof entry));
    if (entries.length === 0) problem(`parameter "${name}": enum must be a non-empty list`, at('enum'));
    // A mapping or list would become "[object Object]": refused, naming the entry.
    else if (notScalar >= 0)
      problem(
        `parameter "${name}": enum entry ${notScalar + 1} is ${describeValue(entries[notScalar])}; entries must be strings, numbers or booleans`,
        at('enum'),
      );
    else spec.enum = entries.map(String);
  }
  if (spec.type === 'enum' && p.enum === undefined)
    problem(`parameter "${name}" is type=enum but has no enum list`, at('type'));
}

function readPattern(
  spec: ParameterSpec,
  p: Record<string, unknown>,
  name: string,
  at: (key: string) => Node | null,
  problem: (message: string, node?: Node | null) => void,
): void {
  if (p.pattern === undefined) return;
  try {
    new RegExp(String(p.pattern), 'u');
    spec.pattern = String(p.pattern);
  } catch (error) {
    problem(
      `parameter "${name}": pattern is not a valid regular expression (${(error as Error).message})`,
      at('pattern'),
    );
  }
}

const NEW_FORM = 'hydrate_vault_refs: ["{{backend:KEY}}"]';

/**
 * `hydrate_vault_refs`: the references an agent may have resolved in this parameter's value, each in
 * full (any backend), so the config's owner authorises every secret one by one. `true` (any secret
 * the agent names) is refused with the form to write instead; `false` is off, as leaving it out.
 */
function readHydration(
  spec: ParameterSpec,
  p: Record<string, unknown>,
  name: string,
  at: (key: string) => Node | null,
  problem: (message: string, node?: Node | null) => void,
): void {
  const listed = p.hydrate_vault_refs;
  const fail = (message: string) => problem(`parameter "${name}": ${message}`, at('hydrate_vault_refs'));
  if (listed === undefined || listed === null || listed === false) return;
  if (listed === true)
    return fail(
      `hydrate_vault_refs: true would let an agent read any secret it names; list the references it may resolve instead, e.g. ${NEW_FORM}`,
    );
  if (!Array.isArray(listed)) return fail('hydrate_vault_refs must be a list of references, e.g. ["{{backend:KEY}}"]');
  if (listed.length === 0) return fail('hydrate_vault_refs must list at least one reference, e.g. ["{{backend:KEY}}"]');
  const references: string[] = [];
  listed.forEach((entry, index) => {
    const reference = typeof entry === 'string' ? wholeReference(entry) : undefined;
    if (reference === undefined)
      fail(
        `hydrate_vault_refs entry ${index + 1} (${JSON.stringify(entry)}) is not one secret reference; write each in full, without a default, e.g. "{{backend:KEY}}"`,
      );
    else if (!references.includes(reference)) references.push(reference);
  });
  if (references.length > 0) spec.hydrateVaultRefs = references;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'a mapping' : `a ${typeof value}`;
}
