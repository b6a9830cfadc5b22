/** A JSON Schema (draft-07, as Ajv validates it by default) for one block of the config. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** Reports a problem with a config value; `path` points below it (`['limits', 0]`) so the message names that line. */
export type ConfigProblem = (message: string, path?: readonly (string | number)[]) => void;

/**
 * One block of the config a plugin owns: the JSON Schema it must match, and checks a schema cannot
 * say (a rate's unit, a window longer than a day). Values are kept as written once they pass.
 */
export interface ConfigBlock<T = unknown> {
  readonly schema: JsonSchema;
  check?(value: T, problem: ConfigProblem): void;
}

/**
 * What a plugin declares of the config (`PluginDefinition.config`). The kernel's own schema knows
 * only tools (their common keys and `parameters`), tool types (each provider's keys) and the `log`
 * block; every other key is a plugin's, validated against what it declares here, with the file and
 * line of each problem. A key no installed plugin declares is an error.
 *
 *     config: {
 *       key: 'param_guard',                                 // its block: `param_guard: {…}`, handed to init as context.config
 *       schema: { type: 'object', properties: { patterns: { type: 'array' } }, additionalProperties: false },
 *       shadow: { param_guard: { schema: { type: 'object' } } },  // per tool: `shadow: {param_guard: {…}}`
 *     }
 */
export interface PluginConfig {
  /** The plugin's own top-level block; no other plugin may declare it. */
  readonly key?: string;
  /** The schema of that block (default: anything). */
  readonly schema?: JsonSchema;
  check?(value: unknown, problem: ConfigProblem): void;
  /**
   * How the block's values in several files combine (the main file, `.factorly/*.yaml`, installed
   * blueprints): `by-name` merges a mapping of named entries (`oauth_providers`), a name defined in
   * two files being a config error naming both; by default the last file's value wins.
   */
  readonly merge?: 'by-name';
  /** Other top-level keys the plugin reads (keys several plugins share: each declares them with its schema). */
  readonly settings?: Readonly<Record<string, ConfigBlock>>;
  /** Keys the plugin owns on every tool entry, next to `type` and `description` (an output stage's setting). */
  readonly tool?: Readonly<Record<string, ConfigBlock>>;
  /** Keys the plugin owns in every tool's `shadow:` block (a rule's per-tool settings). */
  readonly shadow?: Readonly<Record<string, ConfigBlock>>;
}
