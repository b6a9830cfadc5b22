import { matches, recentCalls } from '../events/audit-query.js';
import { callTree } from '../events/call-tree.js';
import { fold } from '../events/projection.js';
import { auditProjection } from '../events/projections/audit.js';
import { statsProjection } from '../events/projections/stats.js';
import { verifyChain } from '../events/verify.js';
import type { UiServices } from '../kernel/contracts/ui-services.js';
import type { Kernel } from '../kernel/kernel.js';
import { planPromotion, promote } from '../kernel/promote.js';

/** The kernel's audit queries and promotion, bound for the web UI (the same functions the CLI runs). */
export function uiServices(kernel: Kernel): UiServices {
  const log = () => kernel.log();
  return {
    recentCalls: (filter, limit) => recentCalls(log(), filter, limit),
    call: async (callId) => fold(await log().readCall(callId), auditProjection).byId.get(callId),
    matches,
    callTree: (callId) => callTree(log(), callId),
    // From the persisted projection (a copy: the log keeps folding its own).
    stats: async () => structuredClone((await log().project(statsProjection).current()).state),
    verify: async () => verifyChain(log().read(), await log().attestedHead?.()),
    planPromotion: (request) => planPromotion(kernel, request),
    promote: async (request) => {
      const plan = await promote(kernel, request);
      // Serve the new tool now rather than when the config watcher notices the file.
      await kernel.reload();
      return plan;
    },
  };
}
