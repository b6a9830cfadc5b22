import type { AuditFilter } from '../events/audit-query.js';
import type { AskQuestion } from '../events/catalog.js';
import type { CallSearch } from '../events/call-search.js';
import type { CallTree } from '../events/call-tree.js';
import type { DashboardFigures } from '../events/dashboard-figures.js';
import type { AuditEntry } from '../events/projections/audit.js';
import type { DashboardRange } from '../events/projections/dashboard.js';
import type { AgentActivity } from '../events/projections/agent-activity.js';
import type { AgentDirectory } from '../events/projections/sessions.js';
import type { StandingApproval } from '../events/projections/standing.js';
import type { LogStats } from '../events/projections/stats.js';
import type { LogVerification } from '../events/verify-log.js';
import type {
  BlueprintInstallResult,
  BlueprintPlan,
  BlueprintRequest,
  BlueprintSummary,
  BlueprintVaultKey,
  EditableTool,
  ImportOptions,
  PromoteRequest,
  PromotionPlan,
  SpecBlueprint,
  SpecSource,
  ToolEdit,
  ToolEditPlan,
} from '../editing/contracts.js';
import type { SourceStatus } from '../contracts/tool.js';

/** What a reader needs to check the log elsewhere: its newest signed checkpoint and the key for it. */
export interface EvidenceFacts {
  checkpoint?: { size: number; rootHash: string; origin: string; note: string; at: string };
  /** The verifier key (`factorly logs key`), when one was published. */
  verifierKey?: string;
}

/**
 * What the host running the kernel (the CLI) offers every interface beside calls, as the
 * `HostServices` token: the audit queries, the chain check, promotion and tool editing its commands
 * run, bound to the running kernel. Plugins import factorly for types only, so an interface (the web
 * UI) reaches this code this way, and the web UI and the CLI share one code path.
 */
export interface HostServices {
  /** The newest `limit` calls matching `filter`, oldest first (`factorly logs`). */
  recentCalls(filter: AuditFilter, limit: number): Promise<AuditEntry[]>;
  /** Calls by id, hash prefix or text, among the newest calls (see `searchCalls`). */
  searchCalls(text: string, filter: AuditFilter, limit: number): Promise<CallSearch>;
  /** One call as the audit view shows it, or undefined when the log has no such call. */
  call(callId: string): Promise<AuditEntry | undefined>;
  /** Whether an entry passes a filter (for rows that arrive live). */
  matches(entry: AuditEntry, filter: AuditFilter): boolean;
  /** A call with its shadow decisions, outputs, inner calls and script sources (`factorly logs show`). */
  callTree(callId: string): Promise<CallTree | undefined>;
  stats(): Promise<LogStats>;
  /** The dashboard's figures for the range ending now, from the dashboard projection. */
  dashboard(range: DashboardRange): Promise<DashboardFigures>;
  /** The agents that connected (from `session.opened`), by the agent id their calls carry. */
  agents(): Promise<AgentDirectory>;
  /** What each agent did (sessions, calls by outcome, tools), by agent id or `iface:<name>`, from a persisted projection. */
  agentActivity(): Promise<Map<string, AgentActivity>>;
  /**
   * Marks the calls and sessions that writers which have ended left open (`call.interrupted`), as
   * opening the log does: a process that watches others (the web UI) learns a killed caller's call ended.
   */
  recoverInterrupted(): Promise<number>;
  /** The standing approvals in force (`factorly approvals`), oldest first. */
  standingApprovals(): Promise<StandingApproval[]>;
  /** Revokes one in force, recorded as `approval.revoked` by `by`; undefined when none by that id is. */
  revokeApproval(approvalId: string, by: string): Promise<StandingApproval | undefined>;
  /** Which config entries refer to each secret (`vault:KEY` → tool names). */
  secretUses(): Map<string, string[]>;
  /** Where each tool source a provider expands stands (an upstream MCP server: connected, needs_login, …), as `factorly tools` shows. */
  sources(): SourceStatus[];
  /**
   * Verifies the log as `factorly logs verify` does (chain, indexes, derived state, Merkle tree, its
   * own checkpoints), off the server's thread; `background`: a check nobody waits for, on fewer cores.
   * With `since` (an earlier result), only the events appended after it are checked, on top of it:
   * the result at once, for a page that must not wait for a full read of a long log.
   */
  verify(options?: { background?: boolean; since?: LogVerification }): Promise<LogVerification>;
  /** The newest checkpoint the log holds (`log.checkpointed`) and the verifier key that checks it. */
  evidence(): Promise<EvidenceFacts>;
  /** What promoting a recorded run would write, with the reasons it cannot yet (`tools promote`). */
  planPromotion(request: PromoteRequest): Promise<PromotionPlan>;
  /** Writes the promoted tool (as `factorly tools promote` does) and serves it at once. */
  promote(request: PromoteRequest): Promise<PromotionPlan>;
  /**
   * A tool's entry as the edit page shows it, after re-reading the config files (so it shows what is
   * on disk); throws for tools no entry of their own defines, or a config that does not load.
   */
  editableTool(name: string): Promise<EditableTool>;
  /** Re-reads the config, then writes an edit into the tool's YAML file when it has no problems, and serves it at once. */
  saveToolEdit(name: string, edit: ToolEdit): Promise<ToolEditPlan>;
  /** The installed blueprints and the ones factorly ships (`factorly blueprint list --json`). */
  blueprints(): Promise<{ installed: BlueprintSummary[]; bundled: BlueprintSummary[] }>;
  /** One blueprint, installed first, else bundled, with which of its vault keys the vault holds (`blueprint show`). */
  blueprint(name: string): Promise<BlueprintSummary & { vaultKeyStates: BlueprintVaultKey[] }>;
  /** What installing a bundled blueprint or a pasted one would do, writing nothing (`blueprint install --dry-run`). */
  planBlueprint(request: BlueprintRequest): Promise<BlueprintPlan>;
  /** Plans again, installs (storing the vault keys given, names the blueprint declares) and serves its tools at once. */
  installBlueprint(request: BlueprintRequest, keys: Readonly<Record<string, string>>): Promise<BlueprintInstallResult>;
  /** Removes an installed blueprint (its vault keys stay) and stops serving its tools. */
  uninstallBlueprint(name: string): Promise<BlueprintSummary>;
  /** The blueprint an OpenAPI or Swagger text makes, every operation listed (`tools import openapi --dry-run`). */
  importSpec(source: SpecSource, options: ImportOptions): Promise<SpecBlueprint>;
  /**
   * A person's answer to a question (`ask.requested`) checked as the asking process will check it and,
   * when it fits, sealed to the question's `replyKey`: what a page records as `ask.answered`.
   */
  sealAnswer(
    question: AskQuestion,
    replyKey: string,
    given: string,
  ): { ok: true; sealed: string } | { ok: false; message: string };
}
