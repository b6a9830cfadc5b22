// The events about everything around calls: config, plugins, tools promoted or edited, the vault,
// sessions, writer processes and the log's checkpoints.
import type { CallOrigin, JsonValue } from './event-values.js';

export interface ToolPromoted {
  name: string;
  fromSha: string;
  parameters: unknown[];
  file: string;
}

/** A tool's entry edited in place in its config file (the web UI's edit page). Names what changed, not the values. */
export interface ToolEdited {
  name: string;
  /** Project-relative path of the file written. */
  file: string;
  /** The edited keys: `description`, `code`, `shadow`, `parameters.<name>.<key>`, … */
  changed: string[];
}

/** A blueprint written into `.factorly/blueprints/` (`factorly blueprint install`, an OpenAPI import, the web UI). */
export interface BlueprintInstalled {
  name: string;
  version?: string;
  /** Where it came from: `bundled:<name>`, a path, a URL, `openapi:<spec>`, `pasted`. */
  source: string;
  /** Project-relative path of the file written. */
  file: string;
  /** sha256 of the file written. */
  sha: string;
  tools: string[];
  oauthProviders: string[];
  /** The hosts its tools and providers talk to, as shown before it was written. */
  hosts: string[];
  /** `--set` overrides (`base_url`, `auth_url`, `token_url`, …): keys and values, never secrets. */
  set: Record<string, string>;
  /** Vault keys it uses, and which of them the install stored (names only). */
  vaultKeys: string[];
  stored: string[];
}

/** An installed blueprint's file removed; its vault keys are kept. */
export interface BlueprintUninstalled {
  name: string;
  file: string;
  tools: string[];
}

export interface VaultAccessed {
  op: 'get' | 'set' | 'list' | 'delete' | 'resolve';
  key?: string;
  tier: string;
}

export interface ConfigLoaded {
  /** sha256 over the loaded files' paths and contents plus the plugin set. */
  bootSha: string;
  files: string[];
  tools: number;
  /** v2: the digest of the effective configuration (its text is in `config.recorded`). */
  configSha?: string;
  /** v2: the process that loaded it (its `writer.started`). */
  writer?: string;
}

/**
 * The effective configuration, normalised: the settings, every tool as the rules see it (config,
 * built-ins, upstream tools), the plugins; secrets only as their `{{backend:KEY}}` references.
 * Recorded once per digest (its id derives from `sha`), so a decision can be re-derived under the
 * rules in force when it was taken.
 */
export interface ConfigRecorded {
  sha: string;
  config: JsonValue;
}

export interface PluginLoaded {
  id: string;
  version: string;
  root: string;
  source: 'core' | 'user' | 'link' | 'builtin' | (string & {});
}

export interface PluginFailed {
  id: string;
  root: string;
  reason: string;
  code: string;
}

/** An agent connected through an interface (an MCP session); its calls carry `sessionId` and `agentId`. */
export interface SessionOpened {
  sessionId: string;
  iface: CallOrigin;
  /**
   * The agent id its calls are recorded under: the principal its credentials named (a named token's
   * name, an OAuth token's subject), else the session id.
   */
  agentId: string;
  /** Who the client says it is (MCP `clientInfo`): a label shown beside the agent, never its identity. */
  client?: { name: string; version?: string };
  transport?: string;
  /** v2: the process serving the session (its `writer.started`). */
  writer?: string;
  /** v3: what authenticated the session, when something did (never the credential itself). */
  principal?: SessionPrincipal;
}

/** How a session's agent was authenticated (`session.opened`). */
export interface SessionPrincipal {
  /** `token`: a named token (`serve.tokens`); `oauth`: an access token (`serve.oauth`); `http-token`: the unnamed `--http-token`. */
  kind: 'token' | 'oauth' | 'http-token';
  /** The agent the credential names (absent for the unnamed token: the session is the agent). */
  agentId?: string;
  /** For OAuth: the token's subject, client, issuer and scopes. */
  subject?: string;
  clientId?: string;
  issuer?: string;
  scope?: string;
}

export interface SessionClosed {
  sessionId: string;
  iface: CallOrigin;
  /** v2: why, when it was not closed by its own process (that process ended). */
  reason?: string;
}

/**
 * A process that writes to the log, recorded before its first other event: enough to tell later,
 * from another process, whether it is still running (same boot, a live pid with the same start).
 */
export interface WriterStarted {
  writer: string;
  pid: number;
  /** The kernel's boot id (/proc/sys/kernel/random/boot_id), or "unknown". */
  bootId: string;
  host: string;
  /** When the process started (ISO-8601). */
  startedAt: string;
  /** The process start time in clock ticks since boot (/proc/<pid>/stat), where the OS tells. */
  procStart?: number;
  /** The digest of the configuration it started with (`config.recorded`), when it had one yet. */
  configSha?: string;
  /**
   * v2: the verifier key its checkpoints are signed with, so a checkpoint in the log is checked
   * against the keys of the log's own writers (several nodes, each with its key).
   */
  verifierKey?: string;
}

/**
 * A signed checkpoint of the log's Merkle tree (C2SP tlog-checkpoint in a signed-note), recorded
 * after it was written to `.factorly/checkpoints/` and handed to the witnesses. It covers the first
 * `size` events (those before it, at the time it was signed).
 */
export interface LogCheckpointed {
  size: number;
  /** The tree's root hash at `size`, hex. */
  rootHash: string;
  origin: string;
  /** The signed note, as written to the checkpoint file. */
  checkpoint: string;
}

/**
 * Snapshots of persisted projections stored with this event (in the same write on LMDB; before they
 * are stored where a store has no transactions): the digest of each (see `snapshotDigest`), so the
 * chain vouches for derived state. A snapshot whose digest this event does not list is never used.
 */
export interface ProjectionSaved {
  snapshots: { name: string; stamp: string; seq: number; digest: string }[];
}

/**
 * A process found derived state it may not use (a snapshot the log does not vouch for, an index
 * entry that points to the wrong event), did not use it, and folded or indexed the events again.
 */
export interface ProjectionRebuilt {
  /** The projection's or index's name. */
  name: string;
  kind: 'projection' | 'index';
  reason: string;
  /** The seq the rejected snapshot said it covered, for a projection. */
  seq?: number;
}

/**
 * What an agent is told about a tool, as its pin covers it: its name, title, description, schemas
 * and annotations (an upstream tool's own input schema; for any other tool, its declared parameters).
 */
export interface PinnedDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema?: JsonValue;
  outputSchema?: JsonValue;
  annotations?: JsonValue;
  parameters?: JsonValue;
}

/**
 * A tool's definition pinned: the first time factorly saw the tool (`first_seen`), its entry in the
 * project's own config edited (`config`), or a changed definition a person approved (`approved`).
 */
export interface ToolPinned {
  tool: string;
  /** sha256 (hex) of the canonical JSON of `definition`. */
  digest: string;
  definition: PinnedDefinition;
  /** Where the tool comes from: the config entry it was expanded from, `config`, `plugin` or `blueprint:<file>`. */
  source: string;
  cause: 'first_seen' | 'config' | 'approved';
  /** Who approved it (`cli`, `ui`), for `approved`. */
  by?: string;
}

/**
 * A listing showed a definition that differs from the tool's pin (`definition_changed`), or a tool
 * new to a source that pins strictly (`new_tool`): the tool is held there, for one session when
 * `sessionId` is set (what one agent's connection listed) or for everyone.
 */
export interface ToolHeld {
  tool: string;
  digest: string;
  definition: PinnedDefinition;
  source: string;
  /** The digest of the pin it differs from; absent for a new tool. */
  pinned?: string;
  cause: 'definition_changed' | 'new_tool';
  sessionId?: string;
}

/** A listing shows the pinned definition again where the tool was held: it is released there. */
export interface ToolReleased {
  tool: string;
  digest: string;
  sessionId?: string;
}

/** A person refused a held definition: the tool stays held until its source lists the pinned one again. */
export interface ToolPinRejected {
  tool: string;
  digest: string;
  by?: string;
}
