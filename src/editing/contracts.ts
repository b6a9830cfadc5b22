import type { ParameterSpec, ToolDefinition } from '../contracts/tool.js';
import type { ParameterEdit } from './tool-edit-parameters.js';
import type { RecordedRun } from './recorded-run.js';

// What the CLI and the web UI hand each other to promote a recorded run into a tool and to edit a
// tool's entry in place (`HostServices`): types only, so neither side imports the other's code.

export interface PromoteRequest {
  fromSha: string;
  name: string;
  description?: string;
  overwrite?: boolean;
  /** Whether the tool should ask before each call (the default; the provider writes how). */
  confirm?: boolean;
  /** Write the script as a file of its own beside the YAML (`code_file:`), for a type whose provider has `fileKeys`. */
  toFile?: boolean;
}

/** What a promotion would write; the web form shows it before anything is written. */
export interface PromotionPlan {
  run: RecordedRun;
  name: string;
  description: string;
  parameters: ParameterSpec[];
  /** Project-relative path of the YAML file. */
  file: string;
  yaml: string;
  /** With `toFile`: the script's own file (project-relative) and its text, written beside the YAML. */
  script?: { file: string; text: string };
  /** Why the run cannot be promoted as it is (compile errors, a taken name); empty when it can. */
  problems: string[];
}

/** What the edit page changes. Absent fields stay as written. */
export interface ToolEdit {
  description?: string;
  /** The declared parameters (by name) with their new values, and any to add or remove. */
  parameters?: ParameterEdit[];
  /** The `shadow` block as YAML; empty removes it. */
  shadow?: string;
  /** The tool's script, for a type whose provider names its `scriptKey`. */
  code?: string;
  /** Built-ins (overlay entries): `timeout` and `max_output` as typed, empty removes them. */
  timeout?: string;
  maxOutput?: string;
  hidden?: boolean;
}

/**
 * A tool as the edit page shows it: a config entry of its own (`definition`), or a built-in,
 * which an entry can only adjust (`overlay`: shadow, timeout, hidden, max_output).
 */
export interface EditableTool {
  tool: ToolDefinition;
  kind: 'definition' | 'overlay';
  /** Project-relative path of the file an edit writes. */
  file: string;
  /** The entry's keys as written (the shadow block as YAML text), empty when it has none yet. */
  written: { shadow: string; timeout: string; maxOutput: string; hidden: boolean };
}

export interface ToolEditPlan {
  name: string;
  file: string;
  /** The file's text after the edit. */
  text: string;
  /** What the edit changes (`description`, `parameters.who.description`, …); empty when nothing. */
  changed: string[];
  /** Why it cannot be written; nothing is written unless this is empty. */
  problems: string[];
}

/** A blueprint's tool as a plan or a listing shows it. */
export interface BlueprintToolSummary {
  name: string;
  type: string;
  description: string;
  /** `GET /repos/{owner}/{repo}/issues` for a rest tool, the url for an mcp server. */
  endpoint: string;
  parameters: ParameterSpec[];
  /** Whether each call waits for a person's approval (`shadow.confirm: true`). */
  confirm: boolean;
}

/** A secret key a blueprint uses, and whether its store holds it already. */
export interface BlueprintVaultKey {
  key: string;
  present: boolean;
}

/** A blueprint as `blueprint list` and `show` describe it, installed or bundled. */
export interface BlueprintSummary {
  name: string;
  displayName?: string;
  version?: string;
  description?: string;
  category?: string;
  homepage?: string;
  authType?: string;
  authGuide?: string;
  tools: BlueprintToolSummary[];
  oauthProviders: string[];
  vaultKeys: string[];
  hosts: { host: string; uses: string[] }[];
  /** Project-relative path of the installed file (installed blueprints only). */
  file?: string;
  /** Where an installed blueprint came from and what `--set` changed, as its file records it. */
  source?: string;
  set?: Record<string, string>;
  installed: boolean;
  /** Why an installed file does not read as a blueprint (it is still loaded, or refused, as config). */
  problem?: string;
}

/** What to install: a bundled name, a path or URL (`source`), or a text (pasted, uploaded, made from a spec). */
export interface BlueprintRequest {
  source?: string;
  text?: string;
  /** Shown for a text in messages and recorded as its origin (`pasted`, `openapi:<spec>`). */
  label?: string;
  /** `--set` values: `base_url`, `url`, `auth_url`, `token_url`, `issuer`. */
  set?: Record<string, string>;
}

/** What installing a blueprint would do; shown before anything is written. */
export interface BlueprintPlan extends BlueprintSummary {
  /** Project-relative path of the file it would write. */
  file: string;
  source: string;
  set: Record<string, string>;
  vaultKeyStates: BlueprintVaultKey[];
  /** Names it brings that the config already has (`tool "x" already defined in file:line`). */
  conflicts: string[];
  /** What `requires` names that neither the config nor the blueprint has. */
  missing: string[];
  /** Set when a blueprint of that name is installed already. */
  alreadyInstalled: boolean;
  /** Why it cannot load into this config, each with the blueprint's file and line. */
  problems: string[];
  /** The text it would write. */
  yaml: string;
}

/** What an install did. */
export interface BlueprintInstallResult {
  plan: BlueprintPlan;
  /** Vault keys stored by this install (names only). */
  stored: string[];
  /** Keys still missing from the store: the person sets them later. */
  missingKeys: string[];
}

/** A parameter of an imported tool, as its YAML entry is written. */
export type ParamEntry = Record<string, unknown> & { name: string; type: string };

export interface ImportOptions {
  /** Tool names start with `<prefix>.`; the blueprint is named after it. Default: from the spec's title. */
  prefix?: string;
  /** Operations to import (operationId, `METHOD /path`, or the tool name); default all. */
  select?: readonly string[];
  /** Where the API lives when the spec names no server, or another host than its `servers`. */
  baseUrl?: string;
  /** Whether writing operations (POST, PUT, PATCH, DELETE) ask before each call; default true. */
  confirmWrites?: boolean;
}

/** One operation as the import shows it: the tool it becomes, and whether it is picked. */
export interface ImportedOperation {
  operation: string;
  tool: string;
  method: string;
  path: string;
  summary?: string;
  parameters: ParamEntry[];
  confirm: boolean;
  selected: boolean;
}

/** An import worked out: the blueprint text and what went into it. */
export interface SpecBlueprint {
  name: string;
  title: string;
  version?: string;
  baseUrl: string;
  operations: ImportedOperation[];
  /** Names that clashed, and what each became. */
  collisions: string[];
  /** What was left out, with why. */
  skipped: string[];
  vaultKeys: string[];
  oauthProviders: string[];
  yaml: string;
}

/** Where the spec is: a file or URL (`spec`), or a text (pasted or uploaded, `label` shown for it). */
export interface SpecSource {
  spec?: string;
  text?: string;
  label?: string;
}
