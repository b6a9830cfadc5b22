import { hash } from 'node:crypto';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { canonicalJson, withSecretReferences } from '@factorly/text-kit';
import type { JsonValue, LoadedConfig, PinnedDefinition, ProjectPaths, ToolDefinition } from 'factorly';

/** A source's `pin:` setting: `true` (the default), `false` (not pinned at all), `strict` (new tools are held too). */
export type PinMode = boolean | 'strict';

export const PIN_MODES: readonly PinMode[] = [true, false, 'strict'];

/** A tool's definition as its pin covers it, with its digest and where it comes from. */
export interface Seen {
  tool: string;
  digest: string;
  definition: PinnedDefinition;
  source: string;
  /** The project's own config defines it: a change is the owner's edit, pinned again without asking. */
  owned: boolean;
  mode: PinMode;
}

/** The keys of a declared parameter an agent is told (not where a value goes or which references it may hold). */
const TOLD_PARAMETER_KEYS = [
  'name',
  'type',
  'description',
  'required',
  'default',
  'min',
  'max',
  'minLength',
  'maxLength',
  'pattern',
  'enum',
] as const;

/**
 * What an agent is told about `tool`: an upstream tool as its server declared it (title, description,
 * input and output schemas, annotations), any other tool with its description and declared parameters.
 * Icons, `_meta` and execution hints are not covered: they do not tell an agent what the tool does.
 */
export function pinnedDefinition(tool: ToolDefinition): PinnedDefinition {
  const declared = tool.declared;
  if (declared) {
    return withoutUndefined({
      name: tool.name,
      title: declared.title as string | undefined,
      description: typeof declared.description === 'string' ? declared.description : '',
      inputSchema: declared.inputSchema as JsonValue | undefined,
      outputSchema: declared.outputSchema as JsonValue | undefined,
      annotations: declared.annotations as JsonValue | undefined,
    });
  }
  const parameters = tool.parameters.map(
    (parameter) =>
      Object.fromEntries(
        TOLD_PARAMETER_KEYS.filter((key) => parameter[key] !== undefined).map((key) => [key, parameter[key]]),
      ) as JsonValue,
  );
  return withoutUndefined({
    name: tool.name,
    description: tool.description,
    ...(tool.inputSchema ? { inputSchema: tool.inputSchema as JsonValue } : { parameters }),
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema as JsonValue } : {}),
  });
}

/**
 * Sees tools as their pins cover them. A digest is kept per definition object (the catalogue
 * replaces a tool's object when it changes, never the object itself), and a secret value a source
 * resolved (an upstream's token echoed in a description) is recorded as its reference, never its value.
 */
export class PinSight {
  private cache = new WeakMap<ToolDefinition, Seen>();
  /** The names of the config's own entries, as last loaded. */
  private configured = new Set<string>();

  constructor(
    private readonly paths: ProjectPaths,
    private readonly secrets: () => ReadonlyMap<string, string>,
  ) {}

  /** The config was (re)loaded: its entries are the project's own tools. */
  configLoaded(config: LoadedConfig): void {
    this.configured = new Set(config.tools.map((tool) => tool.name));
    this.cache = new WeakMap();
  }

  of(tool: ToolDefinition): Seen {
    const cached = this.cache.get(tool);
    if (cached) return cached;
    const text = withSecretReferences(canonicalJson(pinnedDefinition(tool)), this.secrets());
    const source = this.sourceOf(tool);
    const seen: Seen = {
      tool: tool.name,
      digest: hash('sha256', text, 'hex'),
      definition: JSON.parse(text) as PinnedDefinition,
      source,
      owned: source === 'config',
      mode: modeOf(tool),
    };
    this.cache.set(tool, seen);
    return seen;
  }

  /**
   * The config entry an upstream's tools were expanded from; `plugin` for a tool a plugin brings
   * (built-ins); `blueprint:<file>` for an entry of a file under `.factorly/blueprints/`; else
   * `config`, the project's own.
   */
  private sourceOf(tool: ToolDefinition): string {
    if (tool.expandedFrom !== undefined) return tool.expandedFrom;
    if (!this.configured.has(tool.name)) return 'plugin';
    const path = resolve(this.paths.baseDir, tool.source.file);
    const inBlueprints = relative(resolve(this.paths.stateDir, 'blueprints'), path);
    if (!inBlueprints.startsWith('..') && !isAbsolute(inBlueprints))
      return `blueprint:${relative(this.paths.baseDir, path).split(sep).join('/')}`;
    return 'config';
  }
}

/** A tool's `pin:` setting (an upstream's tools inherit their entry's). */
export function modeOf(tool: ToolDefinition): PinMode {
  const mode = tool.settings?.pin;
  return mode === false || mode === 'strict' ? mode : true;
}

/** The first characters of a digest, as people read it. */
export function short(digest: string | undefined): string {
  return digest === undefined ? 'none' : digest.slice(0, 12);
}

function withoutUndefined(definition: PinnedDefinition): PinnedDefinition {
  return Object.fromEntries(Object.entries(definition).filter(([, value]) => value !== undefined)) as PinnedDefinition;
}
