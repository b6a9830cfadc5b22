/**
 * The environment of every process factorly starts. A tool's process (a cli tool, `factorly.shell`,
 * an output `pipe`, a stdio upstream MCP server) gets an environment built for it, never factorly's
 * own: factorly's environment holds the vault password, the HTTP token and whatever credentials the
 * person's shell exported, and a tool that prints its environment would hand them to the agent and
 * to the log (they are not vault secrets, so nothing scrubs them).
 */

/** What a tool's process gets from factorly's environment without asking (each when set). */
export const BASE_ENVIRONMENT: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'TZ',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
];

/**
 * factorly's own variables that hold no secret (oclif's directories, the debug switch). Every other
 * `FACTORLY_*` name is treated as a secret (the vault password, the HTTP token, any a later version
 * adds): an allow-list, so a new secret variable is withheld before anyone remembers to list it.
 */
const FACTORLY_SETTINGS = new Set(['FACTORLY_DEBUG', 'FACTORLY_DATA_DIR', 'FACTORLY_CACHE_DIR', 'FACTORLY_CONFIG_DIR']);

/** A variable of factorly's own that may hold a secret: it reaches no process factorly starts. */
export function isFactorlySecretName(name: string): boolean {
  return name.toUpperCase().startsWith('FACTORLY_') && !FACTORLY_SETTINGS.has(name.toUpperCase());
}

export interface ToolEnvironmentSpec {
  /** The tool's own `env:`, already rendered: set as given, over everything else. */
  env?: Record<string, string>;
  /** `env_passthrough`: names taken from factorly's environment besides the base. */
  passthrough?: readonly string[];
  /** `env_isolation: inherit` (cli tools only): factorly's whole environment minus its secrets. */
  inherit?: boolean;
}

/**
 * A tool process's environment: the base, the names it passes through and its own `env`. None of
 * factorly's secret variables is ever taken from factorly's environment, even when passed through
 * or inherited (`env_passthrough` refuses to name them at load; this is the second lock).
 */
export function toolEnvironment(
  spec: ToolEnvironmentSpec = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const names = spec.inherit ? Object.keys(from) : [...BASE_ENVIRONMENT, ...(spec.passthrough ?? [])];
  const built = pick(from, names);
  return { ...built, ...spec.env };
}

/**
 * The environment of a command the person configured to act for them (a witness, a password
 * manager's CLI behind `vault_backends`): theirs, as they would run it, minus factorly's secret
 * variables, plus what factorly hands it (`extra`, such as a witness's `FACTORLY_CHECKPOINT_*`).
 */
export function userEnvironment(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return { ...pick(from, Object.keys(from)), ...extra };
}

function pick(from: NodeJS.ProcessEnv, names: readonly string[]): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of names) {
    const value = from[name];
    if (value !== undefined && !isFactorlySecretName(name)) picked[name] = value;
  }
  return picked;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Load-time checks of an `env_passthrough` value: a list of variable names, none of them factorly's
 * own. Each problem follows the tool's name ("tool "x" has …"); `lead` starts it ("pipe has").
 */
export function envPassthroughProblems(value: unknown, lead = 'has'): string[] {
  if (value === undefined) return [];
  const key = `${lead} "env_passthrough"`;
  if (!Array.isArray(value)) return [`${key} that is not a list of variable names (env_passthrough: [AWS_PROFILE])`];
  const problems: string[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'string' || !VARIABLE_NAME.test(entry))
      problems.push(`${key} entry ${JSON.stringify(entry)}, which is not a variable name (letters, digits, "_")`);
    else if (isFactorlySecretName(entry))
      problems.push(
        `${key} entry "${entry}": factorly's own variables (FACTORLY_*) may hold its secrets and never reach a tool`,
      );
  }
  return problems;
}

/** The `env_passthrough` names of a value that passed `envPassthroughProblems`. */
export function readEnvPassthrough(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
