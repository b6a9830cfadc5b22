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
