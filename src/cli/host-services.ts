import { matches, recentCalls } from '../events/audit-query.js';
import { callTree } from '../events/call-tree.js';
import { searchCalls } from '../events/call-search.js';
import { dashboardFigures } from '../events/dashboard-figures.js';
import { existsSync } from 'node:fs';
import { fold } from '../events/projection.js';
import { auditProjection } from '../events/projections/audit.js';
import { dashboardProjection } from '../events/projections/dashboard.js';
import { agentActivityProjection } from '../events/projections/agent-activity.js';
import { sessionsProjection } from '../events/projections/sessions.js';
import { recoverInterrupted } from '../events/recovery.js';
import { statsProjection } from '../events/projections/stats.js';
import { listApprovals, revokeApproval } from '../events/projections/standing.js';
import { availableParallelism } from 'node:os';
import type { LogVerification } from '../events/verify-log.js';
import { verifyLogFileOffThread } from '../events/verify-off-thread.js';
import { extendVerification } from '../events/verify-increment.js';
import { kernelViews } from './verify-views.js';
import { FactorlyError } from '../base/errors.js';
import { projectVerifierKey } from '../evidence/evidence-files.js';
import type { Kernel } from '../kernel/kernel.js';
import type { EvidenceFacts, HostServices } from '../plugins/host-services.js';
import type { SourceStatus } from '../contracts/tool.js';
import { planPromotion, promote } from '../editing/promote.js';
import { toolSecretReferences } from '../config/secret-references.js';
import { editableTool, saveToolEdit } from '../editing/tool-edit.js';
import { blueprintServices } from './blueprints/services.js';
import { validateAnswer } from '../config/params.js';
import type { ParameterSpec } from '../config/tool-definition.js';
import { sealAnswer } from '../contracts/person-seal.js';

const MEMBERS = [
  'recentCalls',
  'searchCalls',
  'call',
  'matches',
  'callTree',
  'stats',
  'dashboard',
  'agents',
  'agentActivity',
  'recoverInterrupted',
  'standingApprovals',
  'revokeApproval',
  'secretUses',
  'sources',
  'verify',
  'evidence',
  'planPromotion',
  'promote',
  'editableTool',
  'saveToolEdit',
  'blueprints',
  'blueprint',
  'planBlueprint',
  'installBlueprint',
  'uninstallBlueprint',
  'importSpec',
  'sealAnswer',
] as const satisfies readonly (keyof HostServices)[];
// Fails to compile when a member of HostServices is missing above.
const EVERY_MEMBER: Exclude<keyof HostServices, (typeof MEMBERS)[number]> extends never ? true : never = true;
void EVERY_MEMBER;

/**
 * The `HostServices` token's value: handed to plugins when the kernel is made, usable once it is
 * built and `bind` has been called. The log is opened on first use, so a command that never uses
 * them (most do not) never touches it.
 */
export function lateHostServices(): { services: HostServices; bind(kernel: Kernel): void } {
  let kernel: Kernel | undefined;
  let made: HostServices | undefined;
  const real = (): HostServices => {
    if (!kernel) throw new FactorlyError('LIFECYCLE', 'the host services are usable once the kernel is ready');
    return (made ??= hostServices(kernel));
  };
  // Each member forwards to the real services (an object, not a proxy: nothing else about it looks callable).
  const services = Object.fromEntries(
    MEMBERS.map((name) => [name, (...args: never[]) => (real()[name] as (...a: never[]) => unknown)(...args)]),
  ) as unknown as HostServices;
  return { services, bind: (ready) => void (kernel = ready) };
}

/** Where each tool source stands (an upstream MCP server), from every provider that expands entries. */
export function sourceStatuses(kernel: Kernel): SourceStatus[] {
  return kernel.providers.values().flatMap((provider) => provider.sourceStatuses?.() ?? []);
}

/** The kernel's audit queries, promotion and tool editing, bound for an interface (the same functions the CLI runs). */
export function hostServices(kernel: Kernel): HostServices {
  const log = () => kernel.log();
  return {
    recentCalls: (filter, limit) => recentCalls(log(), filter, limit),
    searchCalls: (text, filter, limit) => searchCalls(log(), text, { filter, limit }),
    call: async (callId) => fold(await log().readCall(callId), auditProjection).byId.get(callId),
    matches,
    callTree: (callId) => callTree(log(), callId),
    // From the persisted projection (a copy: the log keeps folding its own).
    stats: async () => structuredClone((await log().project(statsProjection).current()).state),
    // Persisted projections every writer keeps folded (registerAuditViews): a big log opens from its snapshot.
    dashboard: async (range) =>
      dashboardFigures((await log().project(dashboardProjection).current()).state, range, Date.now()),
    agents: async () => structuredClone((await log().project(sessionsProjection).current()).state),
    agentActivity: async () => structuredClone((await log().project(agentActivityProjection).current()).state.agents),
    recoverInterrupted: () => recoverInterrupted(log()),
    standingApprovals: () => listApprovals(log()),
    revokeApproval: (approvalId, by) => revokeApproval(log(), approvalId, by),
    secretUses: () => {
      const uses = new Map<string, string[]>();
      for (const tool of kernel.config.tools) {
        for (const ref of toolSecretReferences(tool)) uses.set(ref, [...(uses.get(ref) ?? []), tool.name]);
      }
      return uses;
    },
    sources: () => sourceStatuses(kernel),
    verify: (options) =>
      options?.since
        ? extendVerification(options.since, log().read({ from: options.since.verified + 1 }))
        : verifyProject(kernel, options?.background === true),
    evidence: () => evidenceFacts(kernel),
    planPromotion: (request) => planPromotion(kernel, request),
    promote: async (request) => {
      const plan = await promote(kernel, request);
      // Serve the new tool now rather than when the config watcher notices the file.
      await kernel.reload();
      return plan;
    },
    // The edit page works on the files as they are now, hand edits included.
    editableTool: async (name) => {
      await kernel.reload();
      return editableTool(kernel, name);
    },
    saveToolEdit: async (name, edit) => {
      await kernel.reload();
      return saveToolEdit(kernel, name, edit);
    },
    ...blueprintServices(kernel),
    sealAnswer: (question, replyKey, given) => {
      const checked = validateAnswer(question as ParameterSpec, given);
      if (!checked.ok) return checked;
      return { ok: true, sealed: sealAnswer(replyKey, JSON.stringify(checked.value ?? null)) };
    },
  };
}

/**
 * `factorly logs verify` on the project's log, with the project's verifier key for its own
 * checkpoints, off the server's thread; a check the server started itself leaves a core free.
 */
function verifyProject(kernel: Kernel, background: boolean): Promise<LogVerification> {
  const { logPath, stateDir } = kernel.paths;
  if (!existsSync(logPath))
    return Promise.resolve({
      ok: true,
      status: 'verified',
      verified: 0,
      events: 0,
      findings: [],
      tree: { size: 0, rootHash: '' },
      checkpoints: [],
    });
  const key = projectVerifierKey(stateDir);
  return verifyLogFileOffThread(logPath, {
    verifierKeys: key ? [key] : [],
    threads: background ? Math.max(1, availableParallelism() - 1) : undefined,
    views: kernelViews(kernel),
  });
}

async function evidenceFacts(kernel: Kernel): Promise<EvidenceFacts> {
  const last = await kernel.log().lastOf('log.checkpointed');
  const verifierKey = projectVerifierKey(kernel.paths.stateDir);
  const checkpoint = last && {
    size: last.data.size,
    rootHash: last.data.rootHash,
    origin: last.data.origin,
    note: last.data.checkpoint,
    at: last.at,
  };
  return { ...(checkpoint ? { checkpoint } : {}), ...(verifierKey ? { verifierKey } : {}) };
}
